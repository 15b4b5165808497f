package agentctx_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
)

// TestRecallStored: a process that holds no engine (agentctx mcp) reads a
// cut output back from the store while the engine that cut it still has
// the session open, with the answers Engine.Recall gives; the note of
// the cut names the tool by Options.RecallToolName.
func TestRecallStored(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	var b strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&b, "line %d of the build log: compiling pkg%d\n", i, i%13)
	}
	full := b.String()
	st := newStore(t)
	const tool = "mcp__agentctx__recall_output"
	e := openEngine(t, agentctx.Options{Store: st, Dir: t.TempDir(), Budget: 8000, NoWorkspace: true, RecallToolName: tool})
	if err := e.Add(ctx, chat.NewText(chat.RoleUser, "build it"),
		call("b1", "Bash", `{"command":"make"}`),
		chat.NewToolResult("b1", "Bash", full, false)); err != nil {
		t.Fatal(err)
	}
	msgs := e.Messages()
	cut, _ := msgs[len(msgs)-1].ToolResult()
	if len(cut.Content) >= len(full) {
		t.Fatalf("the limiter did not cut a %d-byte result", len(full))
	}
	if !strings.Contains(cut.Content, "call "+tool+` with call_id="b1"`) {
		t.Errorf("the cut note does not name %s with the call id: %q", tool, cut.Content[max(0, len(cut.Content)-300):])
	}
	for _, args := range []agentctx.RecallArgs{
		{CallID: "b1", StartLine: 1500, EndLine: 1510},
		{CallID: "b1", Query: "pkg7"},
		{CallID: "b1", Offset: 10, Length: 30},
		{CallID: "b1"},
	} {
		want, err := e.Recall(ctx, args)
		if err != nil {
			t.Fatal(err)
		}
		got, err := agentctx.RecallStored(ctx, st, e.ID(), args)
		if err != nil {
			t.Fatalf("RecallStored(%+v): %v", args, err)
		}
		if got != want {
			t.Errorf("RecallStored(%+v) = %.200q, Engine.Recall gives %.200q", args, got, want)
		}
	}
	if _, err := agentctx.RecallStored(ctx, st, e.ID(), agentctx.RecallArgs{CallID: "nope"}); !errors.Is(err, agentctx.ErrNoOutput) {
		t.Errorf("unknown call id: %v, want ErrNoOutput", err)
	}
	if _, err := agentctx.RecallStored(ctx, st, e.ID(), agentctx.RecallArgs{SpanID: "s9"}); !errors.Is(err, agentctx.ErrNoSpan) {
		t.Errorf("unknown span id: %v, want ErrNoSpan", err)
	}
	if _, err := agentctx.RecallStored(ctx, st, "no-such-session", agentctx.RecallArgs{CallID: "b1"}); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("unknown session: %v, want session.ErrNotFound", err)
	}
	if _, err := agentctx.RecallStored(ctx, st, e.ID(), agentctx.RecallArgs{}); err == nil {
		t.Error("a recall without call_id or span_id is not an error")
	}
}
