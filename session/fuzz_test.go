package session_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/window"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fuzzing reports whether the test binary runs with -fuzz.
func fuzzing() bool {
	fl := flag.Lookup("test.fuzz")
	return fl != nil && fl.Value.String() != ""
}

// realLines returns lines of the shared Claude Code files, when the shared
// data is present (fuzzing must not fail without it). While fuzzing, only
// short lines are taken, every few: the fuzzer minimizes each input that
// finds new coverage, and large seeds make that slow. Under the race
// detector every fifth line is taken.
func realLines() [][]byte {
	root := sharedtest.Root()
	if root == "" {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(root, "claude-code", "*.jsonl"))
	sub, _ := filepath.Glob(filepath.Join(root, "claude-code", "*", "subagents", "*.jsonl"))
	var out [][]byte
	for _, f := range append(files, sub...) {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 16<<20)
		for n := 0; sc.Scan(); n++ {
			l := sc.Bytes()
			if fuzzing() && (len(l) > 2048 || n%7 != 0) || raceEnabled && n%5 != 0 {
				continue
			}
			out = append(out, bytes.Clone(l))
		}
		fh.Close()
	}
	return out
}

// handLines are lines agentctx writes and damaged lines.
func handLines(t testing.TB) [][]byte {
	var out [][]byte
	for _, m := range []chat.Message{
		user("hi <there> & you"),
		{Role: chat.RoleAssistant, ID: "m", Model: "x", Usage: &chat.Usage{InputTokens: 1}, Parts: []chat.Part{chat.Thinking{Text: "t"}, chat.ToolCall{ID: "c", Name: "Bash", Arguments: rawJSON(`{"a":1}`)}}},
		chat.NewToolResult("c", "Bash", "out", false),
		chat.NewToolResult("c", "Bash", "err", true),
		{Role: chat.RoleTool, ID: "u", Parts: []chat.Part{chat.ToolResult{ToolCallID: "c", Content: "x"}}},
	} {
		e := mustEntry(t, m)
		e.UUID, e.ParentUUID, e.Timestamp = "u1", "u0", time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)
		l, _ := session.MarshalLine(e)
		out = append(out, l)
	}
	out = append(out,
		[]byte(`{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"logicalParentUuid":"a","compactMetadata":{"trigger":"auto","preTokens":5,"messages":2,"anchor":{"reported":9,"counted":8},"dropped":{"tools":{"Bash":1}}}}`),
		[]byte(`{"type":"tool_use","uuid":"t","tool":{"id":"c","name":"Read","input":{"file_path":"/a"}}}`),
		[]byte(`{"type":"tool_result","uuid":"r","toolResult":{"id":"c","output":{"x":1},"error":"boom"}}`),
		[]byte(`{"uuid":"a","par{"uuid":"b","type":"user","message":{"role":"user","content":"glued"}}`),
		[]byte(`{"uuid":"a","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":[{"type":"image"}]}]}`),
		[]byte(`{"UUID":"a","PARENTUUID":"q","\u0074ype":"progress","timestamp":"0000-01-01T00:00:00+01:00"}`),
		[]byte("not json at all"),
		[]byte(`{"type":""}`),
	)
	return out
}

// jsonCompact compares JSON values by their compact form (what
// MarshalLine's encoder does to an embedded value), and takes empty lists
// and maps of metadata as equal (omitempty drops them).
var jsonCompact = cmp.Options{
	cmp.Comparer(func(a, b json.RawMessage) bool {
		var ca, cb bytes.Buffer
		if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
			return bytes.Equal(a, b)
		}
		return bytes.Equal(ca.Bytes(), cb.Bytes())
	}),
	cmp.FilterValues(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Comparer(func(_, _ []string) bool { return true })),
	cmp.FilterValues(func(a, b map[string]int) bool { return len(a) == 0 && len(b) == 0 }, cmp.Comparer(func(_, _ map[string]int) bool { return true })),
}

// FuzzDecodeLine checks that a decoded line survives MarshalLine and
// DecodeLine: as Raw (byte for byte) and re-encoded from its fields.
func FuzzDecodeLine(f *testing.F) {
	for _, l := range append(realLines(), handLines(f)...) {
		f.Add(l)
	}
	ignore := cmpopts.IgnoreFields(session.Entry{}, "Raw", "Offset", "Line", "Timestamp")
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := session.DecodeLine(line)
		if err != nil {
			if !errors.Is(err, session.ErrMalformed) {
				t.Fatalf("DecodeLine error %v does not wrap ErrMalformed", err)
			}
			return
		}
		out, err := session.MarshalLine(e)
		if err != nil {
			t.Fatalf("MarshalLine of a decoded line: %v", err)
		}
		e2, err := session.DecodeLine(out)
		if err != nil {
			t.Fatalf("DecodeLine(MarshalLine(e)) = %v\nline: %s", err, out)
		}
		if diff := cmp.Diff(e, e2, ignore, jsonCompact); diff != "" || !e.Timestamp.Equal(e2.Timestamp) {
			t.Fatalf("Raw round trip (-first +second):\n%s", diff)
		}
		// Re-encoded from the fields.
		e.Raw = nil
		out, err = session.MarshalLine(e)
		if err != nil {
			t.Fatalf("MarshalLine without Raw: %v", err)
		}
		e3, err := session.DecodeLine(out)
		if err != nil {
			t.Fatalf("DecodeLine of a re-encoded line: %v\nline: %s", err, out)
		}
		if diff := cmp.Diff(e, e3, ignore, jsonCompact); diff != "" {
			t.Fatalf("re-encoded round trip (-first +second):\n%s\nline: %s", diff, out)
		}
		// The timestamp is written in milliseconds, UTC.
		var want time.Time
		if !e.Timestamp.IsZero() {
			want, _ = time.Parse(time.RFC3339Nano, e.Timestamp.UTC().Format(session.TimeLayout))
		}
		if !want.Equal(e3.Timestamp) {
			t.Fatalf("timestamp %v re-encoded as %v, want %v", e.Timestamp, e3.Timestamp, want)
		}
	})
}

// FuzzEntryMessages checks that decoding any entry's messages never panics
// and that every message decoded is recorded exactly by NewMessageEntry.
func FuzzEntryMessages(f *testing.F) {
	for _, l := range append(realLines(), handLines(f)...) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := session.DecodeLine(line)
		if err != nil {
			return
		}
		var s session.Session
		s.Observe(e)
		session.Messages([]session.Entry{e, e})
		msgs, err := e.Messages()
		if err != nil {
			return
		}
		for _, m := range msgs {
			ne, err := session.NewMessageEntry(m)
			if err != nil {
				if !errors.Is(err, session.ErrInvalidEntry) {
					t.Fatalf("NewMessageEntry error %v does not wrap ErrInvalidEntry", err)
				}
				continue
			}
			l, err := session.MarshalLine(ne)
			if err != nil {
				t.Fatalf("MarshalLine: %v", err)
			}
			d, err := session.DecodeLine(l)
			if err != nil {
				t.Fatalf("DecodeLine(%s): %v", l, err)
			}
			got, err := d.Messages()
			if err != nil {
				t.Fatalf("Messages of a recorded message: %v\nline: %s", err, l)
			}
			if diff := cmp.Diff([]chat.Message{m}, got); diff != "" {
				t.Fatalf("message round trip (-want +got):\n%s\nline: %s", diff, l)
			}
		}
	})
}

// FuzzRead runs arbitrary bytes through everything that reads a
// transcript: Read, Resolve, Live, Messages, Check, Restore and Repair. None
// may panic, offsets must point into the input, and the repaired copy,
// written and read back, must hold every entry and check free of chain
// problems.
func FuzzRead(f *testing.F) {
	lines := realLines()
	chunk := 40
	if fuzzing() {
		chunk = 6 // small seeds minimize fast
	}
	for i := 0; i < len(lines); i += chunk {
		f.Add(bytes.Join(lines[i:min(i+chunk, len(lines))], []byte("\n")))
	}
	hand := handLines(f)
	f.Add(bytes.Join(hand, []byte("\n")))
	for _, c := range damagedChains(f) {
		f.Add(c.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		es, ps, err := session.Read(bytes.NewReader(data), session.ReadOptions{File: "fuzz", FirstLine: 1})
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		for _, p := range ps {
			if p.File != "fuzz" || p.Line < 1 || p.Offset < 0 || p.Offset > int64(len(data)) {
				t.Fatalf("problem %+v does not point into the input", p)
			}
		}
		for _, e := range es {
			if e.Offset < 0 || e.Offset > int64(len(data)) || !bytes.HasPrefix(data[e.Offset:], e.Raw) {
				t.Fatalf("entry %q: Raw is not at byte %d", e.UUID, e.Offset)
			}
		}
		res, _ := session.Resolve(es)
		start, _ := session.Live(res)
		session.Messages(res)
		rep := session.Check(es, ps)
		if rep.Entries != len(es) {
			t.Fatalf("Check counts %d entries, Read gave %d", rep.Entries, len(es))
		}
		if _, _, err := session.Restore(res[start:], window.Options{Counter: quarterCounter{}}); err != nil {
			t.Fatalf("Restore: %v", err)
		}
		fixed, _ := session.Repair(es)
		if len(fixed) != len(es) {
			t.Fatalf("Repair returned %d entries of %d", len(fixed), len(es))
		}
		var b bytes.Buffer
		for _, e := range fixed {
			l, err := session.MarshalLine(e)
			if err != nil {
				t.Fatalf("MarshalLine of a repaired entry: %v", err)
			}
			b.Write(l)
			b.WriteByte('\n')
		}
		again, aps, err := session.Read(&b, session.ReadOptions{FirstLine: 1})
		if err != nil || len(aps) > 0 || len(again) != len(fixed) {
			t.Fatalf("reading the repaired copy: %d of %d entries, problems %v, error %v", len(again), len(fixed), aps, err)
		}
		for _, p := range session.Check(again, aps).Problems {
			switch p.Kind {
			case session.ProblemDanglingParent, session.ProblemCycle, session.ProblemDuplicateUUID:
				t.Fatalf("repaired copy: %+v", p)
			}
		}
	})
}
