package loadgen_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/loadgen"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// TestVerifyUnobserved: steps logged without an entry count (messages
// sent with their request: Config.Combine) are checked by the steps
// around them; a session whose last step is one (its messages landed,
// the request then given up) is checked up to the last count observed,
// and what it holds after that is reported, not cut at -1.
func TestVerifyUnobserved(t *testing.T) {
	ctx := context.Background()
	st, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Sync: jsonlstore.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	script := &loadgen.Script{File: "x.jsonl", Budget: 8000, Ops: []loadgen.Op{
		{Kind: loadgen.OpMessages, Messages: []chat.Message{chat.NewText(chat.RoleUser, "read main.go")}},
		{Kind: loadgen.OpRequest},
		{Kind: loadgen.OpReply, Messages: []chat.Message{chat.NewText(chat.RoleAssistant, "It is empty.")}},
		{Kind: loadgen.OpMessages, Messages: []chat.Message{chat.NewText(chat.RoleUser, "and go.mod?")}},
		{Kind: loadgen.OpRequest},
	}}
	// fleet writes a session as a server would for the script's first
	// steps, and logs them as the combining driver does.
	fleet := func(landed bool) *loadgen.SessionLog {
		id := session.NewID()
		eng, err := agentctx.Open(ctx, loadgen.ReferenceOptions(st, id, script.Budget, map[string]string{"file": script.File}))
		if err != nil {
			t.Fatal(err)
		}
		count := func() int {
			s, err := st.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return s.Entries
		}
		l := &loadgen.SessionLog{ID: id, Script: script, Created: count()}
		if err := eng.Add(ctx, script.Ops[0].Messages...); err != nil {
			t.Fatal(err)
		}
		req, err := eng.Request(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := req.Sent(ctx); err != nil {
			t.Fatal(err)
		}
		l.Done = append(l.Done, loadgen.Done{Op: 0, Entries: -1}, loadgen.Done{Op: 1, Entries: count()})
		if err := eng.Add(ctx, script.Ops[2].Messages...); err != nil {
			t.Fatal(err)
		}
		l.Done = append(l.Done, loadgen.Done{Op: 2, Entries: count()})
		if landed {
			if err := eng.Add(ctx, script.Ops[3].Messages...); err != nil {
				t.Fatal(err)
			}
			l.Done = append(l.Done, loadgen.Done{Op: 3, Entries: -1, Server: -1, Landed: true})
		}
		return l
	}
	if errs := loadgen.Verify(ctx, st, &loadgen.Report{Logs: []*loadgen.SessionLog{fleet(false)}}, t.TempDir()); len(errs) != 0 {
		t.Errorf("a session that holds its steps: %v", errs)
	}
	errs := loadgen.Verify(ctx, st, &loadgen.Report{Logs: []*loadgen.SessionLog{fleet(true)}}, t.TempDir())
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "after the last step") {
		t.Errorf("a session whose last step was not observed: %v, want its landed messages reported after the last step", errs)
	}
}
