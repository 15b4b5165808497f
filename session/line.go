package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"time"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// TimeLayout is the layout of [Entry.Timestamp] on the wire: RFC 3339 in
// UTC with milliseconds, as Claude Code writes it
// ("2026-02-10T21:11:56.846Z").
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// wireEntry is Entry's JSON shape with the fields whose encoding differs:
// a null parentUuid and a millisecond timestamp.
type wireEntry struct {
	UUID              string           `json:"uuid"`
	ParentUUID        *string          `json:"parentUuid"`
	LogicalParentUUID string           `json:"logicalParentUuid,omitempty"`
	SessionID         string           `json:"sessionId"`
	Timestamp         string           `json:"timestamp"`
	Type              string           `json:"type"`
	Subtype           string           `json:"subtype,omitempty"`
	CWD               string           `json:"cwd,omitempty"`
	GitBranch         string           `json:"gitBranch,omitempty"`
	Version           string           `json:"version,omitempty"`
	IsSidechain       bool             `json:"isSidechain,omitempty"`
	Message           json.RawMessage  `json:"message,omitempty"`
	Tool              *ToolUse         `json:"tool,omitempty"`
	ToolResult        *ToolResult      `json:"toolResult,omitempty"`
	IsCompactSummary  bool             `json:"isCompactSummary,omitempty"`
	CompactMetadata   *CompactMetadata `json:"compactMetadata,omitempty"`
	State             json.RawMessage  `json:"state,omitempty"`
	Reminders         []Reminder       `json:"reminders,omitempty"`
}

// MarshalLine encodes e as one transcript line, without the newline.
//
// An entry that has Raw is written as Raw, byte for byte, when it is
// foreign (not [Entry.Known]) or when Raw still decodes to e's fields (an
// entry read from a file and not changed since, or changed by [Repair],
// which patches Raw too): Claude Code's lines keep the fields the Entry
// struct does not hold (requestId, toolUseResult, isMeta, …). A Raw that
// holds a carriage return (JSON white space) is compacted first, so that
// the line stays one line. Otherwise the line is e's JSON with a null
// parentUuid when ParentUUID is empty, the timestamp in [TimeLayout], and
// no HTML escaping (so code in tool output stays readable).
//
// It returns an error wrapping [ErrInvalidEntry] when e has no type, its
// Message or a tool's Input or Output is not valid JSON, or a Raw holding
// a line break is not valid JSON.
func MarshalLine(e Entry) ([]byte, error) {
	if len(e.Raw) > 0 && (!e.Known() || rawMatches(&e)) {
		if bytes.ContainsAny(e.Raw, "\n\r") {
			var buf bytes.Buffer
			if err := json.Compact(&buf, e.Raw); err != nil {
				return nil, fmt.Errorf("%w: raw line of type %q holds a line break and is not valid JSON: %w", ErrInvalidEntry, e.Type, err)
			}
			return buf.Bytes(), nil
		}
		return bytes.Clone(e.Raw), nil
	}
	if e.Type == "" {
		return nil, fmt.Errorf("%w: entry %q has no type", ErrInvalidEntry, e.UUID)
	}
	w := toWire(e)
	if line, ok := w.joined(); ok {
		return line, nil
	}
	line, err := jsonx.MarshalNoEscape(w)
	if err != nil {
		return nil, fmt.Errorf("%w: entry %q: %w", ErrInvalidEntry, e.UUID, err)
	}
	return line, nil
}

// toWire returns e's wire shape: a null parentUuid when it has none, the
// timestamp in TimeLayout ("" when zero).
func toWire(e Entry) wireEntry {
	w := wireEntry{
		UUID:              e.UUID,
		LogicalParentUUID: e.LogicalParentUUID,
		SessionID:         e.SessionID,
		Type:              e.Type,
		Subtype:           e.Subtype,
		CWD:               e.CWD,
		GitBranch:         e.GitBranch,
		Version:           e.Version,
		IsSidechain:       e.IsSidechain,
		Message:           e.Message,
		Tool:              e.Tool,
		ToolResult:        e.ToolResult,
		IsCompactSummary:  e.IsCompactSummary,
		CompactMetadata:   e.CompactMetadata,
		State:             e.State,
		Reminders:         e.Reminders,
	}
	if e.ParentUUID != "" {
		p := e.ParentUUID
		w.ParentUUID = &p
	}
	if !e.Timestamp.IsZero() {
		w.Timestamp = e.Timestamp.UTC().Format(TimeLayout)
	}
	return w
}

// joined returns w's JSON as marshalNoEscape writes it, with the raw
// JSON values (the message, a tool's input, a result's output, the
// state) placed as they are rather than checked and compacted by
// encoding/json once more: the bulk of an entry is its message or
// output, already compact JSON from chat's encoder, and that pass was
// about half the time of an Append (issue 29: BenchmarkAppendSnapshot).
// Every other field goes through encoding/json, in wireEntry's order. It
// reports false, and the caller encodes w whole, when a raw value is not
// compact valid JSON (encoding/json then compacts it, or fails) or a
// field does not encode.
func (w *wireEntry) joined() ([]byte, bool) {
	if !compactJSON(w.Message) || !compactJSON(w.State) ||
		w.Tool != nil && !compactJSON(w.Tool.Input) || w.ToolResult != nil && !compactJSON(w.ToolResult.Output) {
		return nil, false
	}
	// The head: w without the members placed after it (all of them
	// omitempty, so that none is written).
	h := *w
	h.Message, h.Tool, h.ToolResult, h.IsCompactSummary, h.CompactMetadata, h.State, h.Reminders = nil, nil, nil, false, nil, nil, nil
	head, err := jsonx.MarshalNoEscape(h)
	if err != nil {
		return nil, false
	}
	mid, err := jsonx.MarshalNoEscape(struct {
		IsCompactSummary bool             `json:"isCompactSummary,omitempty"`
		CompactMetadata  *CompactMetadata `json:"compactMetadata,omitempty"`
	}{w.IsCompactSummary, w.CompactMetadata})
	if err != nil {
		return nil, false
	}
	tail, err := jsonx.MarshalNoEscape(struct {
		Reminders []Reminder `json:"reminders,omitempty"`
	}{w.Reminders})
	if err != nil {
		return nil, false
	}
	var tool, result []byte
	if t := w.Tool; t != nil {
		if tool, err = jsonx.MarshalNoEscape(struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		}{t.ID, t.Name}); err != nil {
			return nil, false
		}
		tool = withMember(tool, "input", t.Input)
	}
	if r := w.ToolResult; r != nil {
		if result, err = jsonx.MarshalNoEscape(struct {
			ID   string `json:"id"`
			Name string `json:"name,omitempty"`
		}{r.ID, r.Name}); err != nil {
			return nil, false
		}
		result = withMember(result, "output", r.Output)
		if r.Error != nil {
			msg, err := jsonx.MarshalNoEscape(*r.Error)
			if err != nil {
				return nil, false
			}
			result = withMember(result, "error", msg)
		}
	}
	n := len(head) + len(mid) + len(tail) + len(w.Message) + len(tool) + len(result) + len(w.State) + 64
	out := make([]byte, 0, n)
	out = append(out, head[:len(head)-1]...) // never empty: uuid and the rest are always written
	out = appendMember(out, "message", w.Message)
	out = appendMember(out, "tool", tool)
	out = appendMember(out, "toolResult", result)
	out = appendInner(out, mid)
	out = appendMember(out, "state", w.State)
	out = appendInner(out, tail)
	return append(out, '}'), true
}

// appendMember appends `,"name":value` to an object being written,
// nothing for an empty value (omitempty).
func appendMember(out []byte, name string, value []byte) []byte {
	if len(value) == 0 {
		return out
	}
	out = append(out, ',', '"')
	out = append(out, name...)
	out = append(out, '"', ':')
	return append(out, value...)
}

// appendInner appends the members of the JSON object obj ("{…}") to an
// object being written, nothing for "{}".
func appendInner(out, obj []byte) []byte {
	if len(obj) <= 2 {
		return out
	}
	out = append(out, ',')
	return append(out, obj[1:len(obj)-1]...)
}

// withMember returns the JSON object obj with `"name":value` added as
// its last member, obj itself for an empty value (omitempty).
func withMember(obj []byte, name string, value []byte) []byte {
	if len(value) == 0 {
		return obj
	}
	out := make([]byte, 0, len(obj)+len(name)+len(value)+4)
	out = append(out, obj[:len(obj)-1]...)
	if len(obj) > 2 {
		out = append(out, ',')
	}
	out = append(out, '"')
	out = append(out, name...)
	out = append(out, '"', ':')
	out = append(out, value...)
	return append(out, '}')
}

// compactJSON reports whether raw is empty or valid JSON without white
// space outside its strings: what encoding/json's compaction (without
// HTML escaping) leaves as it is. The strings are skipped a run of plain
// bytes at a time (stringStop); jsonx.Valid checks the rest.
func compactJSON(raw []byte) bool {
	n := len(raw)
	for i := 0; i < n; i++ {
		switch raw[i] {
		case '"':
			for i++; ; {
				for i < n && !stringStop[raw[i]] {
					i++
				}
				if i >= n || raw[i] < 0x20 {
					return false // unterminated, or a control byte JSON does not allow
				}
				if raw[i] == '"' {
					break
				}
				i += 2 // a backslash and the byte it escapes
			}
		case ' ', '\t', '\n', '\r':
			return false
		}
	}
	return n == 0 || jsonx.Valid(raw)
}

// stringStop marks the bytes that end a run of plain bytes in a JSON
// string: the quote, the backslash and the control bytes.
var stringStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// DecodeLine decodes one transcript line (without its newline). The
// returned entry's Raw is a copy of line. Unknown fields are ignored; a
// timestamp that is not RFC 3339 is left zero. It returns an error wrapping
// [ErrMalformed] that says what is wrong when line is not a JSON object, a
// field has the wrong JSON type, or the entry has no type. It never panics.
func DecodeLine(line []byte) (Entry, error) {
	raw := bytes.Clone(bytes.TrimRight(line, "\r"))
	var d wireDecode
	if err := json.Unmarshal(raw, &d); err != nil {
		// The error as decoding wireEntry states it (the same inputs
		// fail, but a type error would name wireDecode's types).
		if e2 := json.Unmarshal(raw, new(wireEntry)); e2 != nil {
			err = e2
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Entry{}, fmt.Errorf("%w: field %q: %s is not a %s", ErrMalformed, te.Field, te.Value, te.Type)
		}
		return Entry{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	w := &d.wireEntry
	w.Message, w.State = json.RawMessage(d.Message), json.RawMessage(d.State)
	if d.Tool != nil {
		w.Tool = &d.Tool.ToolUse
		w.Tool.Input = json.RawMessage(d.Tool.Input)
	}
	if d.ToolResult != nil {
		w.ToolResult = &d.ToolResult.ToolResult
		w.ToolResult.Output = json.RawMessage(d.ToolResult.Output)
	}
	if w.Type == "" {
		return Entry{}, fmt.Errorf("%w: no \"type\"", ErrMalformed)
	}
	e := Entry{
		UUID:              w.UUID,
		LogicalParentUUID: w.LogicalParentUUID,
		SessionID:         w.SessionID,
		Type:              w.Type,
		Subtype:           w.Subtype,
		CWD:               w.CWD,
		GitBranch:         w.GitBranch,
		Version:           w.Version,
		IsSidechain:       w.IsSidechain,
		Message:           w.Message,
		Tool:              w.Tool,
		ToolResult:        w.ToolResult,
		IsCompactSummary:  w.IsCompactSummary,
		CompactMetadata:   w.CompactMetadata,
		State:             w.State,
		Reminders:         w.Reminders,
		Raw:               raw,
	}
	if w.ParentUUID != nil {
		e.ParentUUID = *w.ParentUUID
	}
	if w.Timestamp != "" {
		if t, err := time.Parse(time.RFC3339Nano, w.Timestamp); err == nil {
			e.Timestamp = t
		}
	}
	return e, nil
}

// wireDecode is the shape DecodeLine decodes: wireEntry, with the JSON
// values it keeps raw (message, state, the tool's input and output)
// decoded as rawRef: encoding/json copies a json.RawMessage out of its
// input, and the line is kept in Raw anyway, so they share its bytes,
// which halves the memory of a loaded transcript (messages and tool
// outputs are most of it). A field of the outer struct wins over the
// embedded one of the same JSON name.
type wireDecode struct {
	wireEntry
	Message    rawRef         `json:"message"`
	State      rawRef         `json:"state"`
	Tool       *toolUseRef    `json:"tool"`
	ToolResult *toolResultRef `json:"toolResult"`
}

// toolUseRef is ToolUse with its input decoded as a rawRef.
type toolUseRef struct {
	ToolUse
	Input rawRef `json:"input"`
}

// toolResultRef is ToolResult with its output decoded as a rawRef.
type toolResultRef struct {
	ToolResult
	Output rawRef `json:"output"`
}

// rawRef is a JSON value kept as the bytes of the input it was decoded
// from, not a copy: DecodeLine decodes Raw, which the entry keeps, so the
// bytes outlive the call. Where encoding/json hands UnmarshalJSON a copy,
// the copy is kept, which is only slower. The slice is capped so that
// appending to it never writes into Raw. Like json.RawMessage, JSON null
// is kept as "null".
type rawRef []byte

// UnmarshalJSON keeps b. It never fails.
func (r *rawRef) UnmarshalJSON(b []byte) error {
	*r = b[:len(b):len(b)]
	return nil
}

// Line is one line of a transcript file as [ReadLines] yields it: its
// bytes without the newline, its byte offset and 1-based number (0 when
// reading started mid-file), and whether it was torn: the last line of the
// input, not ended by a newline.
type Line struct {
	Bytes  []byte
	Offset int64
	Number int
	Torn   bool
}

// ReadLines calls fn for each line of r, which starts at byte offset start
// of its file (pass 0 and firstLine 1 for a whole file; firstLine 0 when
// line numbers are unknown). Lines of any length are read (there is no
// bufio.Scanner limit; a 64 MiB tool output is one line). Line.Bytes is
// valid only during the call. Empty lines are skipped. ReadLines stops at
// the first error of r or of fn and returns it; io.EOF is not an error.
func ReadLines(r io.Reader, start int64, firstLine int, fn func(Line) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	off, n := start, firstLine
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			continue
		}
		b := chunk
		if long != nil {
			long = append(long, chunk...)
			b = long
		}
		if len(b) > 0 {
			torn := b[len(b)-1] != '\n'
			body := bytes.TrimSuffix(b, []byte("\n"))
			if len(bytes.TrimSpace(body)) > 0 {
				if ferr := fn(Line{Bytes: body, Offset: off, Number: n, Torn: torn}); ferr != nil {
					return ferr
				}
			}
			off += int64(len(b))
			if n > 0 {
				n++
			}
		}
		long = nil
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// rawMatches reports whether e.Raw decodes to e's fields: writing Raw
// then loses nothing that e says.
func rawMatches(e *Entry) bool {
	d, err := DecodeLine(e.Raw)
	if err != nil {
		return false
	}
	return d.UUID == e.UUID && d.ParentUUID == e.ParentUUID && d.LogicalParentUUID == e.LogicalParentUUID &&
		d.SessionID == e.SessionID && d.Timestamp.Equal(e.Timestamp) && d.Type == e.Type && d.Subtype == e.Subtype &&
		d.CWD == e.CWD && d.GitBranch == e.GitBranch && d.Version == e.Version && d.IsSidechain == e.IsSidechain &&
		d.IsCompactSummary == e.IsCompactSummary && bytes.Equal(d.Message, e.Message) &&
		reflect.DeepEqual(d.Tool, e.Tool) && reflect.DeepEqual(d.ToolResult, e.ToolResult) &&
		reflect.DeepEqual(d.CompactMetadata, e.CompactMetadata) && bytes.Equal(d.State, e.State) &&
		reflect.DeepEqual(d.Reminders, e.Reminders)
}
