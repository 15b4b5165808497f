package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/transcript"
	"github.com/agentctx/agentctx/window"
)

// importSeedLimit is the size in bytes of the largest real seed used
// while fuzzing: the fuzzer minimizes each input that finds new coverage,
// and large seeds would take a short run's whole time.
const importSeedLimit = 4 << 10

// addImportSeeds adds the shared Claude Code and Codex files as seeds of
// FuzzImportEntries (each with the format it is), cut after a line break
// within importSeedLimit bytes while fuzzing.
func addImportSeeds(f *testing.F) {
	root := sharedtest.Root()
	if root == "" {
		return
	}
	fuzzing := false
	if fl := flag.Lookup("test.fuzz"); fl != nil && fl.Value.String() != "" {
		fuzzing = true
	}
	for _, dir := range []struct {
		name  string
		codex bool
	}{{"claude-code", false}, {"codex", true}} {
		files, _ := filepath.Glob(filepath.Join(root, dir.name, "*.jsonl"))
		for _, p := range files {
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			if fuzzing && len(data) > importSeedLimit {
				i := bytes.LastIndexByte(data[:importSeedLimit], '\n')
				if i < 0 {
					continue
				}
				data = data[:i+1]
			}
			f.Add(data, dir.codex)
		}
	}
}

// FuzzImportEntries checks `sessions import`'s conversion of a Claude Code
// or Codex transcript into session entries (importEntries): it never
// panics; an error names the message and wraps ErrInvalidEntry; each
// compaction becomes a boundary or a note; the entries outside the
// replacement histories give back the transcript's messages, in order,
// once written and read; and the written session reads without problems,
// resolves, and restores to a window.
func FuzzImportEntries(f *testing.F) {
	cc := func(ls ...string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }
	cx := func(payload string) string {
		return `{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":` + payload + `}`
	}
	f.Add(cc(
		`{"type":"user","sessionId":"s1","uuid":"u1","timestamp":"2026-02-10T21:00:00Z","cwd":"/p","gitBranch":"main","message":{"role":"user","content":"do it"}}`,
		`{"type":"assistant","sessionId":"s1","uuid":"a1","message":{"model":"claude-a","id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":3,"output_tokens":2}}}`,
		`{"type":"user","sessionId":"s1","uuid":"u2","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":[{"type":"text","text":"x"}]}]}}`,
		`{"parentUuid":null,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","sessionId":"s1","uuid":"b","compactMetadata":{"trigger":"auto","preTokens":167731}}`,
		`{"type":"user","sessionId":"s1","uuid":"u3","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued. Summary: X"}}`,
		`{"type":"assistant","sessionId":"s1","uuid":"a2","message":{"model":"claude-b","id":"m2","role":"assistant","content":[{"type":"text","text":"two"}]}}`,
	), false)
	f.Add(cc(
		`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"manual","preTokens":10}}`,
		`{"type":"user","uuid":"u1","message":{"role":"user","content":"not the summary"}}`,
	), false)
	f.Add(cc(
		`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"sess-1","cwd":"/x","cli_version":"0.104.0"}}`,
		`{"timestamp":"2026-01-01T00:00:00Z","type":"turn_context","payload":{"cwd":"/x","model":"gpt-5.3-codex"}}`,
		cx(`{"type":"message","role":"user","content":[{"type":"input_text","text":"one"}]}`),
		cx(`{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"}`),
		cx(`{"type":"function_call_output","call_id":"c1","output":"a\nb"}`),
		`{"timestamp":"t","type":"compacted","payload":{"message":"summary text","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"one"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"summary text"}]}]}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"context_compacted"}}`,
		cx(`{"type":"message","role":"user","content":[{"type":"input_text","text":"two"}]}`),
		`{"timestamp":"t","type":"compacted","payload":{"message":"s","replacement_history":[{"type":"function_call_output","call_id":"c9","output":"x"}]}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"context_compacted"}}`,
	), true)
	addImportSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, codex bool) {
		format := transcript.FormatClaudeCode
		if codex {
			format = transcript.FormatCodex
		}
		trs, err := transcript.Read(bytes.NewReader(data), "fuzz", transcript.Options{Format: format})
		if err != nil {
			return // the readers' own fuzz targets check their errors
		}
		for _, tr := range trs {
			checkImport(t, tr)
		}
	})
}

// checkImport asserts importEntries' contract on tr.
func checkImport(t *testing.T, tr *transcript.Trajectory) {
	t.Helper()
	// importEntries releases each message once converted (a huge import
	// holds one copy): compare with a copy taken before.
	want := slices.Clone(tr.Messages)
	entries, notes, err := importEntries(tr)
	if err != nil {
		if !errors.Is(err, session.ErrInvalidEntry) || !strings.Contains(err.Error(), "message ") {
			t.Fatalf("importEntries error %q does not name the message or wrap ErrInvalidEntry", err)
		}
		return
	}
	boundaries := 0
	for _, e := range entries {
		if e.IsBoundary() {
			boundaries++
		}
	}
	if boundaries+len(notes) != len(tr.Compactions) {
		t.Fatalf("%d compactions gave %d boundaries and %d notes", len(tr.Compactions), boundaries, len(notes))
	}
	// Written as a store would (a chain of uuids), then read back.
	var file bytes.Buffer
	for i := range entries {
		e := entries[i]
		e.UUID, e.SessionID = fmt.Sprintf("u%d", i), "fuzz"
		if i > 0 {
			e.ParentUUID = fmt.Sprintf("u%d", i-1)
		}
		line, err := session.MarshalLine(e)
		if err != nil {
			t.Fatalf("entry %d: MarshalLine: %v", i, err)
		}
		file.Write(line)
		file.WriteByte('\n')
	}
	read, ps, err := session.Read(&file, session.ReadOptions{File: "fuzz", FirstLine: 1})
	if err != nil || len(ps) > 0 || len(read) != len(entries) {
		t.Fatalf("reading the imported session: %d of %d entries, problems %v, error %v", len(read), len(entries), ps, err)
	}
	// The transcript's messages, from the entries outside replacement
	// histories, in order.
	var got []chat.Message
	for i := 0; i < len(read); i++ {
		e := &read[i]
		if e.IsBoundary() {
			if e.CompactMetadata != nil {
				i += e.CompactMetadata.Messages // the replacement history
			}
			continue
		}
		ms, err := e.Messages()
		if err != nil {
			t.Fatalf("entry %d (line %d): Messages: %v", i, e.Line, err)
		}
		got = append(got, ms...)
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b chat.Message) bool { return messageJSON(a) == messageJSON(b) })); diff != "" {
		t.Fatalf("imported messages differ from the transcript's (-transcript +imported):\n%s", diff)
	}
	res, _ := session.Resolve(read)
	if len(res) != len(read) {
		t.Fatalf("a chain of %d entries resolves to %d", len(read), len(res))
	}
	if _, _, err := session.Restore(res, window.Options{Counter: token.Estimator{}}); err != nil {
		t.Fatalf("Restore: %v", err)
	}
}

// messageJSON is a message's encoding, for comparisons.
func messageJSON(m chat.Message) string {
	b, err := m.MarshalJSON()
	if err != nil {
		return "error: " + err.Error()
	}
	return string(b)
}
