package agentctx_test

import (
	"errors"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// TestSecondEngineBusy opens a second Engine, through a second store (as
// another process would), on a session the first one writes: Open and
// Resume fail at once with session.ErrSessionBusy (not at the first Add),
// a ReadOnly Resume works, and once the first store is closed the session
// resumes for writing.
func TestSecondEngineBusy(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	root := t.TempDir()
	first, err := jsonlstore.Open(jsonlstore.Options{Root: root, Sync: jsonlstore.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	e := openEngine(t, agentctx.Options{Store: first, Dir: t.TempDir(), NoWorkspace: true})
	mustAdd(t, e, chat.NewText(chat.RoleUser, "first writer"))

	second, err := jsonlstore.Open(jsonlstore.Options{Root: root, Sync: jsonlstore.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if _, err := agentctx.Resume(ctx, e.ID(), agentctx.Options{Store: second, NoWorkspace: true}); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("Resume of a busy session: %v, want ErrSessionBusy", err)
	}
	if _, err := agentctx.Open(ctx, agentctx.Options{Store: second, SessionID: e.ID(), NoWorkspace: true}); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("Open of a busy session: %v, want ErrSessionBusy", err)
	}
	ro, err := agentctx.Resume(ctx, e.ID(), agentctx.Options{Store: second, NoWorkspace: true, ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only Resume of a busy session: %v", err)
	}
	if n := len(ro.Messages()); n != 1 {
		t.Errorf("read-only engine sees %d messages, want 1", n)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := agentctx.Resume(ctx, e.ID(), agentctx.Options{Store: second, NoWorkspace: true})
	if err != nil {
		t.Fatalf("Resume after the first writer closed: %v", err)
	}
	if err := again.Add(ctx, chat.NewText(chat.RoleUser, "second writer")); err != nil {
		t.Errorf("Add after resuming: %v", err)
	}
}
