package agentctx_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// TestTurnEndStateLag: over a session of many short turns, a turn's end
// saves the engine's state only when the content written since the last
// state is at least that state's size (the working memory keeps every
// round, so saving it at each turn's end grew with the session), every
// state it does save follows that rule, and an Engine resumed after any
// number of turns without a state (it observes them again) has the
// tracker and the working memory of the one that wrote them.
func TestTurnEndStateLag(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Sync: jsonlstore.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	dir := project(t)
	opts := agentctx.Options{Store: store, Dir: dir, SessionID: "state-lag", Model: "gpt-4o", Budget: 200_000, NoWorkspace: true}
	e, err := agentctx.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	const turns = 40
	for i := range turns {
		id := fmt.Sprintf("c%d", i)
		if err := e.Add(ctx, chat.NewText(chat.RoleUser, fmt.Sprintf("run step %d of the migration", i))); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Request(ctx); err != nil {
			t.Fatal(err)
		}
		if err := e.Add(ctx, call(id, "Bash", fmt.Sprintf(`{"command":"./migrate --step %d"}`, i))); err != nil {
			t.Fatal(err)
		}
		out := strings.Repeat(fmt.Sprintf("step %d: table %d migrated\n", i, i), 1+i%5)
		if err := e.Add(ctx, chat.NewToolResult(id, "Bash", out, false)); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Request(ctx); err != nil {
			t.Fatal(err)
		}
		if err := e.Add(ctx, chat.NewAssistant(fmt.Sprintf("Step %d is done.", i))); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := store.Load(ctx, opts.SessionID, session.LoadOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	states, turnEnds := 0, 0
	lag, last := 0, -1
	for i := range tr.Entries {
		en := &tr.Entries[i]
		if ms, err := en.Messages(); err == nil && len(ms) == 1 && ms[0].Role == chat.RoleAssistant && !ms[0].HasToolCalls() {
			turnEnds++
		}
		if en.Type != session.TypeState {
			lag += session.ContentBytes(en)
			continue
		}
		states++
		if last >= 0 && lag < last && i > 0 && tr.Entries[i-1].Type == session.TypeAssistant {
			t.Errorf("line %d: a state saved at a turn's end after %d bytes, the last state being %d", en.Line, lag, last)
		}
		lag, last = 0, len(en.State)
	}
	if turnEnds != turns {
		t.Fatalf("%d turn ends in the session, want %d", turnEnds, turns)
	}
	if states < 2 || states > turns/2 {
		t.Errorf("%d states for %d turns: want more than one, and at most one every other turn", states, turns)
	}
	if got, want := session.StateLag(tr.Entries), lag; got != want {
		t.Errorf("StateLag %d, counted %d", got, want)
	}
	if lag == 0 {
		t.Fatal("the session ends with a state: nothing for a resume to observe again")
	}
	r, err := agentctx.Resume(ctx, opts.SessionID, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	wantTr, _ := e.TrackerState()
	gotTr, _ := r.TrackerState()
	if d := cmp.Diff(wantTr, gotTr); d != "" {
		t.Errorf("resumed tracker (-live +resumed):\n%s", d)
	}
	wantMem, _ := e.WorkingMemory(100_000)
	gotMem, _ := r.WorkingMemory(100_000)
	if wantMem != gotMem {
		t.Errorf("resumed working memory:\n%s\nlive:\n%s", gotMem, wantMem)
	}
}
