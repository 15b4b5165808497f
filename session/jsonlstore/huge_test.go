package jsonlstore_test

import (
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// TestHugeLine appends one 64 MiB tool result (one line of more than
// 64 MiB once JSON-escaped) and loads it back intact, in the writing store
// and in a fresh one (no bufio.Scanner limit anywhere). Under the race
// detector, which makes it 12x slower, the result is 2 MiB: still far
// past every buffer on the way (64 KiB, 256 KiB).
func TestHugeLine(t *testing.T) {
	t.Parallel()
	size := 64 << 20
	if raceEnabled || !sharedtest.Long(t) {
		size = 2 << 20 // 64 MiB with the long tests, without -race
	}
	unit := "out: \"quoted\" <tag> & C:\\path\tcol\n"
	big := strings.Repeat(unit, size/len(unit)+1)[:size]

	root := t.TempDir()
	s := open(t, jsonlstore.Options{Root: root})
	sess := newSession(t, s)
	call := msgEntry(t, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "c1", Name: "cat", Arguments: []byte(`{"path":"huge.log"}`)}}})
	result := msgEntry(t, chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{ToolCallID: "c1", ToolName: "cat", Content: big}}})
	written := mustAppend(t, s, sess.ID, userMsg(t, "show the log"), call, result)
	after := mustAppend(t, s, sess.ID, assistantMsg(t, "it is long"))
	if after[0].ParentUUID != written[2].UUID {
		t.Errorf("entry after the huge line has parent %q, want %q", after[0].ParentUUID, written[2].UUID)
	}
	check := func(name string, s *jsonlstore.Store) {
		t.Helper()
		tr := mustLoad(t, s, sess.ID, false)
		if len(tr.Entries) != 4 || len(tr.Problems) != 0 {
			t.Fatalf("%s: %d entries, problems %v; want 4, none", name, len(tr.Entries), tr.Problems)
		}
		msgs, err := tr.Entries[2].Messages()
		if err != nil || len(msgs) != 1 || len(msgs[0].Parts) != 1 {
			t.Fatalf("%s: huge entry decodes to %d messages, %v", name, len(msgs), err)
		}
		r, ok := msgs[0].Parts[0].(chat.ToolResult)
		if !ok || r.ToolCallID != "c1" || len(r.Content) != size || r.Content != big {
			t.Fatalf("%s: huge tool result came back as %T with %d bytes, want %d bytes intact", name, msgs[0].Parts[0], len(r.Content), size)
		}
	}
	check("writer", s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	fresh := open(t, jsonlstore.Options{Root: root})
	check("fresh store", fresh)
	// Appending after a huge last line reads it backwards for its uuid.
	s2 := open(t, jsonlstore.Options{Root: root})
	if err := fresh.Close(); err != nil {
		t.Fatal(err)
	}
	p := mustAppend(t, s2, sess.ID, userMsg(t, "thanks"))
	if p[0].ParentUUID != after[0].UUID {
		t.Errorf("parent after reopening = %q, want %q", p[0].ParentUUID, after[0].UUID)
	}
}
