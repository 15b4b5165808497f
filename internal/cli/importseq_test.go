package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/transcript"
)

// TestImportSeq: importSeq hands Import the entries of a trajectory one
// at a time, every entry in order, and releases each message once
// converted.
func TestImportSeq(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 64<<10)
	tr := &transcript.Trajectory{Format: transcript.FormatClaudeCode}
	n := 200
	for i := range n {
		id := fmt.Sprint("c", i)
		tr.Messages = append(tr.Messages,
			chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: id, Name: "cat", Arguments: []byte(`{}`)}}},
			chat.NewToolResult(id, "cat", fmt.Sprint(i, big), false))
	}
	st, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Sync: jsonlstore.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var (
		count int
		notes []string
	)
	if _, err := st.Import(t.Context(), session.Session{ID: "s", Project: "/p"}, importSeq(tr, &count, &notes)); err != nil {
		t.Fatal(err)
	}
	if count != 2*n || len(notes) != 0 {
		t.Fatalf("importSeq yielded %d entries, notes %q; want %d", count, notes, 2*n)
	}
	for i, m := range tr.Messages {
		if m.Parts != nil {
			t.Fatalf("message %d was not released after its conversion", i)
		}
	}
	got, err := st.Load(t.Context(), "s", session.LoadOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	msgs, probs := session.Messages(got.Entries)
	if len(probs) != 0 || len(msgs) != 2*n {
		t.Fatalf("stored %d messages, problems %v; want %d", len(msgs), probs, 2*n)
	}
	for i := range n {
		r, ok := msgs[2*i+1].ToolResult()
		if !ok || r.Content != fmt.Sprint(i, big) {
			t.Fatalf("message %d is not result %d: order or content lost", 2*i+1, i)
		}
	}
}
