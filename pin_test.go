package agentctx_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// bigRound adds a user turn, a Bash call whose output of about size
// bytes holds the marker "mark-<i>" on its first line, and the reply.
func bigRound(t *testing.T, e *agentctx.Engine, i, size int) {
	t.Helper()
	id := fmt.Sprintf("b%d", i)
	var out strings.Builder
	fmt.Fprintf(&out, "mark-%d found here\n", i)
	for n := 0; out.Len() < size; n++ {
		fmt.Fprintf(&out, "row %d of step %d: ordinary build output\n", n, i)
	}
	mustAdd(t, e, chat.NewText(chat.RoleUser, fmt.Sprintf("step %d, go on", i)),
		call(id, "Bash", fmt.Sprintf(`{"command":"make step%d"}`, i)),
		chat.NewToolResult(id, "Bash", out.String(), false))
}

// requestText is every message of req joined.
func requestText(req *agentctx.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Text())
		b.WriteByte('\n')
	}
	return b.String()
}

// TestPinSurvivesCompaction: a pinned instruction is in every request,
// verbatim, through several summaries at a small budget; a resumed
// session keeps it; Unpin removes it. The summarized spans are named in
// the summary and read back by id, whole or by query, live and after the
// resume, and Recoverable lists them.
func TestPinSurvivesCompaction(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	opts := agentctx.Options{Store: store, Dir: t.TempDir(), NoWorkspace: true, Model: "gpt-4o", Budget: 4000,
		Strategy: &compact.Summarize{}, Tools: []chat.ToolDef{agentctx.RecallTool()}}
	e, err := agentctx.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	const rule = "Never edit the generated files under gen/."
	mustAdd(t, e, chat.NewText(chat.RoleUser, "Build the project step by step."))
	p, err := e.Pin(ctx, rule)
	if err != nil || p.ID != "p1" || p.Text != rule {
		t.Fatalf("Pin = %+v, %v", p, err)
	}
	if again, _ := e.Pin(ctx, "  "+rule+"\n"); again != p {
		t.Fatalf("pinning the same text again made %+v", again)
	}
	summaries := 0
	for i := range 24 {
		bigRound(t, e, i, 1400)
		req, err := e.Request(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range req.Compactions {
			if r.Level == compact.LevelSummary {
				summaries++
			}
		}
		if !strings.Contains(requestText(req), rule) {
			t.Fatalf("request %d (after %d summaries) lacks the pinned rule", i, summaries)
		}
		if req.Over > 0 {
			t.Fatalf("request %d over budget by %d", i, req.Over)
		}
		mustAdd(t, e, chat.NewText(chat.RoleAssistant, fmt.Sprintf("step %d done", i)))
	}
	if summaries < 2 {
		t.Fatalf("%d summaries: the test proves less than it should", summaries)
	}
	msgs := e.Messages()
	note := ""
	for _, m := range msgs {
		if strings.HasPrefix(m.Text(), compact.SummaryHeader) {
			note = m.Text()
		}
	}
	spans := compact.SummarySpans(note)
	if len(spans) < 2 || spans[0] != "s1" {
		t.Fatalf("summary names spans %v, want s1 and more:\n%s", spans, note)
	}
	check := func(e *agentctx.Engine, where string) {
		t.Helper()
		got, err := e.Recall(ctx, agentctx.RecallArgs{SpanID: "s1"})
		if err != nil {
			t.Fatalf("%s: recall s1: %v", where, err)
		}
		if !strings.HasPrefix(got, "[messages of span s1, lines 1-") || !strings.Contains(got, "step 0, go on") || !strings.Contains(got, "make step0") {
			t.Fatalf("%s: span s1 does not hold the first summarized round:\n%.400s", where, got)
		}
		hit, err := e.Recall(ctx, agentctx.RecallArgs{SpanID: "s1", Query: "MARK-0 found"})
		if err != nil || !strings.Contains(hit, "1 of ") || !strings.Contains(hit, ": ← Bash: mark-0 found here") {
			t.Fatalf("%s: query in s1 = %q, %v", where, hit, err)
		}
		res := e.HandleRecall(ctx, chat.ToolCall{ID: "rc", Name: agentctx.RecallToolName, Arguments: []byte(`{"span_id":"s99"}`)})
		if !res.IsError || !strings.Contains(res.Content, "s99") {
			t.Fatalf("%s: recall of an unknown span = %+v", where, res)
		}
		rec, err := e.Recoverable(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(rec, "\n"), "mark-0 found here") {
			t.Fatalf("%s: Recoverable lacks the first span's output", where)
		}
	}
	check(e, "live")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := agentctx.Resume(ctx, e.ID(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if pins := r.Pins(); len(pins) != 1 || pins[0] != p {
		t.Fatalf("resumed pins %+v, want %+v", pins, p)
	}
	check(r, "resumed")
	bigRound(t, r, 100, 200)
	req, err := r.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(requestText(req), rule) {
		t.Fatal("the resumed session's request lacks the pinned rule")
	}
	if err := r.Unpin(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	if err := r.Unpin(ctx, "p1"); !errors.Is(err, agentctx.ErrNoPin) {
		t.Fatalf("Unpin twice = %v, want ErrNoPin", err)
	}
	req, err = r.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(requestText(req), rule) {
		t.Fatal("an unpinned rule is still sent")
	}
	if _, err := r.Pin(ctx, " "); !errors.Is(err, agentctx.ErrEmptyPin) {
		t.Fatalf("Pin of blank text = %v", err)
	}
}

// TestCompactionThrash: when every round refills the window, three
// compactions in a row come within RefillCalls model calls of the one
// before: each records what regrew, and the third's request carries
// ErrCompactionThrash naming the tool results.
func TestCompactionThrash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := openEngine(t, agentctx.Options{Dir: t.TempDir(), NoWorkspace: true, NoReminders: true, Model: "gpt-4o", Budget: 3000,
		Strategy: &compact.Summarize{}, NoLimit: true})
	mustAdd(t, e, chat.NewText(chat.RoleUser, "Build it."))
	var thrash error
	refills := 0
	for i := range 12 {
		bigRound(t, e, i, 6000)
		req, err := e.Request(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range req.Compactions {
			if r.Refill != nil {
				refills++
				if r.Refill.Tokens[compact.RefillToolResults] <= 0 || r.Refill.Calls > agentctx.RefillCalls {
					t.Fatalf("call %d: refill %+v: want tool results to have regrown within %d calls", i, r.Refill, agentctx.RefillCalls)
				}
			}
		}
		if req.Thrash != nil {
			thrash = req.Thrash
			break
		}
		mustAdd(t, e, chat.NewText(chat.RoleAssistant, "ok"))
	}
	if thrash == nil {
		t.Fatalf("no thrash error after 12 refilled windows (%d refills recorded)", refills)
	}
	var te *agentctx.ThrashError
	if !errors.Is(thrash, agentctx.ErrCompactionThrash) || !errors.As(thrash, &te) || len(te.Refills) != agentctx.ThrashCompactions {
		t.Fatalf("thrash error %v (%T), want a ThrashError of %d refills", thrash, thrash, agentctx.ThrashCompactions)
	}
	if !strings.Contains(thrash.Error(), "3 times in a row") || !strings.Contains(thrash.Error(), compact.RefillToolResults) {
		t.Fatalf("thrash message %q", thrash)
	}
	if e.Thrashing() == nil {
		t.Fatal("Thrashing() = nil after the thrash error")
	}
}
