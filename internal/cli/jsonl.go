package cli

import (
	"encoding/json"
	"io"
)

// Every command's --json prints JSON Lines (https://jsonlines.org): one
// JSON object per item on a line of its own, nothing else on stdout. An
// item is what the command's text output has a block or a row for: a
// session (sessions list), a trajectory (replay), a window (inspect), a
// file (sessions import, sessions check), an event (chat -p), a catalog
// row (models); a command
// about one thing (sessions show, compact, context, version) prints one
// line. No items, no lines. The objects' keys are snake_case and part of
// the command line's contract. Errors go to stderr as text.

// newJSONLines returns the encoder of a command's --json output on w: one
// compact object per Encode, ended by a newline, with <, > and & as they
// are (the output is not HTML).
func newJSONLines(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// writeJSON writes v to w as one line of JSON Lines ([newJSONLines]).
func writeJSON(w io.Writer, v any) error {
	return newJSONLines(w).Encode(v)
}
