package agentctx_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// appendCounter is a session.Store that counts its Append calls.
type appendCounter struct {
	session.Store
	n atomic.Int64
}

func (s *appendCounter) Append(ctx context.Context, id string, es ...session.Entry) ([]session.Entry, error) {
	s.n.Add(1)
	return s.Store.Append(ctx, id, es...)
}

// TestAddOneAppend: each Add writes its entries in one append, so that a
// crash leaves all of them or none (a client that lost the answer tells
// by the entry count: internal/loadgen's fleet test): tool results with
// the full output of the one the limiter cut, then a turn's last reply
// with the reminders of its request and the turn's state.
func TestAddOneAppend(t *testing.T) {
	t.Parallel()
	js, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Sync: jsonlstore.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = js.Close() })
	st := &appendCounter{Store: js}
	ctx := t.Context()
	e := openEngine(t, agentctx.Options{Store: st, Dir: t.TempDir(), NoWorkspace: true, Budget: 8000})
	if err := e.Add(ctx, chat.NewText(chat.RoleUser, "look at the logs")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Request(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Add(ctx, chat.NewAssistant("", chat.ToolCall{ID: "c1", Name: "bash", Arguments: []byte(`{"command":"cat big.log"}`)},
		chat.ToolCall{ID: "c2", Name: "bash", Arguments: []byte(`{"command":"ls"}`)})); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("a line of the log that goes on and on, with numbers 0123456789\n", 3000)
	for _, step := range []struct {
		name  string
		msgs  []chat.Message
		types []string // entry types the append must hold
	}{
		{"results, one cut", []chat.Message{chat.NewToolResult("c1", "bash", big, false), chat.NewToolResult("c2", "bash", "big.log\n", false)},
			[]string{session.TypeToolOutput, session.TypeToolResult, session.TypeToolResult}},
		{"turn's end", []chat.Message{chat.NewAssistant("The log repeats one line.")},
			[]string{session.TypeAssistant, session.TypeState}},
	} {
		if step.name == "turn's end" {
			if _, err := e.Request(ctx); err != nil {
				t.Fatal(err)
			}
		}
		before, err := st.Get(ctx, e.ID())
		if err != nil {
			t.Fatal(err)
		}
		n := st.n.Load()
		if err := e.Add(ctx, step.msgs...); err != nil {
			t.Fatal(err)
		}
		if got := st.n.Load() - n; got != 1 {
			t.Errorf("%s: %d appends, want 1", step.name, got)
		}
		tr, err := st.Load(ctx, e.ID(), session.LoadOptions{All: true})
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, en := range tr.Entries[before.Entries:] {
			if en.Type != session.TypeReminder {
				types = append(types, en.Type)
			}
		}
		if strings.Join(types, " ") != strings.Join(step.types, " ") {
			t.Errorf("%s: wrote %v, want %v (reminders aside)", step.name, types, step.types)
		}
	}
}
