package compact_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/agentctx/agentctx/window"
)

// fakeSummarizer answers with fn and remembers every request.
type fakeSummarizer struct {
	fn   func(ctx context.Context, req compact.SummaryRequest) (compact.SummaryResult, error)
	mu   sync.Mutex
	reqs []compact.SummaryRequest
}

func (f *fakeSummarizer) Name() string { return "fake" }

func (f *fakeSummarizer) Summarize(ctx context.Context, req compact.SummaryRequest) (compact.SummaryResult, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	return f.fn(ctx, req)
}

func fixed(text string) *fakeSummarizer {
	return &fakeSummarizer{fn: func(context.Context, compact.SummaryRequest) (compact.SummaryResult, error) {
		return compact.SummaryResult{Text: text, Usage: &chat.Usage{InputTokens: 10, OutputTokens: 3}}, nil
	}}
}

// session returns a conversation of n rounds, each a user message, a
// tool round reading a file with a result of about size bytes, and an
// assistant reply.
func session(n, size int) []chat.Message {
	msgs := []chat.Message{sys("you are a coding agent"), user("fix the parser in parse.go")}
	for i := range n {
		if i > 0 {
			msgs = append(msgs, user(fmt.Sprintf("now step %d please", i)))
		}
		msgs = append(msgs, round(fmt.Sprintf("c%d", i), "Read", fmt.Sprintf("src/f%d.go", i), lines(size))...)
		msgs = append(msgs, asst(fmt.Sprintf("done with step %d", i)))
	}
	return msgs
}

// unitTokens returns the size in tokens of each unit of w, pinned ones as
// -1.
func unitTokens(w *window.Window) []int {
	var out []int
	for _, u := range w.Units() {
		if u.Pinned {
			out = append(out, -1)
			continue
		}
		t := 0
		for j := u.Start; j < u.End; j++ {
			t += w.TokensAt(j)
		}
		out = append(out, t)
	}
	return out
}

func TestKeepFrom(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		msgs   []chat.Message
		budget int
		share  float64
	}{
		{"rounds", session(10, 400), 2000, 0.2},
		{"big share", session(10, 400), 2000, 0.9},
		{"last unit over the share", session(3, 4000), 3000, 0.2},
		{"last unit over the budget", concat(session(2, 100), round("big", "Read", "x.go", lines(20000))), 3000, 0.2},
		{"no share", session(4, 100), 2000, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWindow(t, window.Options{Budget: tc.budget}, tc.msgs...)
			units := w.Units()
			k := compact.KeepFrom(w, units, tc.share)
			ts := unitTokens(w)
			limit := int(tc.share * float64(tc.budget))
			kept, some := 0, 0
			for i := k; i < len(units); i++ {
				if ts[i] >= 0 {
					kept += ts[i]
					some++
				}
			}
			last := len(ts) - 1
			for last >= 0 && ts[last] < 0 {
				last--
			}
			switch {
			case ts[last] > tc.budget:
				if k != len(units) {
					t.Fatalf("kept from %d though the last unit (%d tokens) exceeds the budget", k, ts[last])
				}
			case ts[last] > limit:
				if some != 1 || k != last {
					t.Fatalf("kept %d units from %d, want only the last unit %d (%d tokens)", some, k, last, ts[last])
				}
			default:
				if kept > limit {
					t.Fatalf("kept %d tokens, share is %d", kept, limit)
				}
				// Maximal: the unit before the kept run does not fit.
				prev := k - 1
				for prev >= 0 && ts[prev] < 0 {
					prev--
				}
				if prev >= 0 && kept+ts[prev] <= limit {
					t.Fatalf("kept %d tokens from unit %d; unit %d (%d tokens) would fit the share %d too", kept, k, prev, ts[prev], limit)
				}
			}
			// Whole units: k is a unit boundary, so the kept messages
			// start with no tool result.
			if k < len(units) && w.At(units[k].Start).Role == chat.RoleTool {
				t.Fatalf("kept suffix starts with a tool result")
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	w := newWindow(t, window.Options{Budget: 4000}, withIDs(session(20, 600))...)
	before := w.Size()
	if r := w.Ratio(); r < 0.8 || r > 1 {
		t.Fatalf("setup: ratio %.2f, want 0.8-1", r)
	}
	sum := fixed("## Primary request\nfix the parser")
	s := &compact.Summarize{Summarizer: sum}
	recs, err := s.Compact(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	checkWindow(t, w)
	if len(recs) != 1 {
		t.Fatalf("records %+v, want one", recs)
	}
	r := recs[0]
	if r.Level != compact.LevelSummary || r.Strategy != "summarize" || r.Summarizer != "fake" || r.Fallback {
		t.Fatalf("record %+v", r)
	}
	if r.TokensBefore != before || r.TokensAfter != w.Size() || r.OverBudget || !w.Fits() {
		t.Fatalf("tokens %d → %d (window %d of %d)", r.TokensBefore, r.TokensAfter, w.Size(), w.Budget())
	}
	if r.Usage == nil || r.Usage.OutputTokens != 3 || r.Retention == nil || r.SummaryTokens == 0 {
		t.Fatalf("usage %v retention %v summary tokens %d", r.Usage, r.Retention, r.SummaryTokens)
	}
	n := w.Note()
	if n != 2 {
		t.Fatalf("note at %d, want 2 (after system and first user)", n)
	}
	// The model's summary gets the span it covers named (withCarried).
	want := compact.SummaryHeader + "\n\n" + compact.SecSpans + "\n- s1\n\n## Primary request\nfix the parser"
	if got := w.At(n).Text(); got != want || r.Summary != want {
		t.Fatalf("note %q, record %q; want %q", got, r.Summary, want)
	}
	// The kept part is whole units within 20 % of the budget.
	kept := 0
	for i := n + 1; i < w.Len(); i++ {
		kept += w.TokensAt(i)
	}
	if kept > 800 || kept == 0 {
		t.Fatalf("kept %d tokens verbatim, want (0, 800]", kept)
	}
	if w.At(n+1).Role == chat.RoleTool {
		t.Fatalf("kept part starts with a tool result")
	}
	if got := len(sum.reqs); got != 1 {
		t.Fatalf("%d summarizer calls", got)
	}
	req := sum.reqs[0]
	if req.Previous != "" || req.MaxTokens != 600 || len(req.Messages) != r.MessagesRemoved || len(req.Kept) != w.Len()-3 {
		t.Fatalf("request: previous %q, max %d, %d messages (removed %d), %d kept (window keeps %d)",
			req.Previous, req.MaxTokens, len(req.Messages), r.MessagesRemoved, len(req.Kept), w.Len()-3)
	}
	if req.Messages[0].ID != "m2" {
		t.Fatalf("summarized history starts at %q, want m2 (the first unpinned message)", req.Messages[0].ID)
	}

	// A second compaction rolls the first summary in: it is Previous, not
	// history.
	for i := 20; i < 40; i++ {
		for _, m := range concat(one(user(fmt.Sprintf("more %d", i))), round(fmt.Sprintf("d%d", i), "Read", "a.go", lines(400))) {
			if err := w.Add(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	sum2 := fixed("second")
	s.Summarizer = sum2
	// Model calls passed since the first summary (the guard waits 3).
	s.State.Calls += compact.DefaultMinCallsBetween
	if _, err := s.Compact(ctx, w); err != nil {
		t.Fatal(err)
	}
	checkWindow(t, w)
	if got := sum2.reqs[0].Previous; got != want {
		t.Fatalf("Previous = %q, want the first summary", got)
	}
	for _, m := range sum2.reqs[0].Messages {
		if strings.Contains(m.Text(), compact.SummaryHeader) {
			t.Fatalf("the previous summary is summarized as history")
		}
	}
	// The rolled summary names both spans: the first's and its own.
	if got := w.At(w.Note()).Text(); got != compact.SummaryHeader+"\n\n"+compact.SecSpans+"\n- s1\n- s2\n\nsecond" {
		t.Fatalf("note %q", got)
	}
}

func TestSummarizeThreshold(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		threshold float64
		force     bool
		want      bool
	}{
		{"under the default", 0, false, false},
		{"threshold lowered", 0.5, false, true},
		{"forced", 0, true, true},
		{"threshold raised", 0.95, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWindow(t, window.Options{Budget: 10000}, session(10, 2400)...)
			if r := w.Ratio(); r < 0.6 || r > 0.8 {
				t.Fatalf("setup: ratio %.2f, want 0.6-0.8", r)
			}
			recs, err := (&compact.Summarize{Summarizer: fixed("s"), Threshold: tc.threshold, Force: tc.force}).Compact(t.Context(), w)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(recs) > 0; got != tc.want {
				t.Fatalf("compacted %v, want %v", got, tc.want)
			}
			checkWindow(t, w)
		})
	}
}

func TestSummarizeFallback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		fn     func(ctx context.Context, req compact.SummaryRequest) (compact.SummaryResult, error)
		reason string
	}{
		{"error", func(context.Context, compact.SummaryRequest) (compact.SummaryResult, error) {
			return compact.SummaryResult{}, errors.New("model down")
		}, "failed: model down"},
		{"timeout", func(ctx context.Context, _ compact.SummaryRequest) (compact.SummaryResult, error) {
			<-ctx.Done()
			return compact.SummaryResult{}, ctx.Err()
		}, "timed out"},
		{"oversized", func(_ context.Context, req compact.SummaryRequest) (compact.SummaryResult, error) {
			return compact.SummaryResult{Text: lines(40 * req.MaxTokens)}, nil
		}, "not smaller than what it replaces"},
		{"over the limit", func(_ context.Context, req compact.SummaryRequest) (compact.SummaryResult, error) {
			return compact.SummaryResult{Text: lines(4*req.MaxTokens + 400)}, nil
		}, "over its limit"},
		{"empty", func(context.Context, compact.SummaryRequest) (compact.SummaryResult, error) {
			return compact.SummaryResult{Text: "  \n"}, nil
		}, "empty summary"},
	}
	for _, tc := range tests {
		// The configured summarizer fails: the extractive one writes the
		// summary, the same it writes when it is the only one.
		t.Run(tc.name+"/extractive", func(t *testing.T) {
			t.Parallel()
			w := newWindow(t, window.Options{Budget: 4000}, session(20, 400)...)
			s := &compact.Summarize{Summarizer: &fakeSummarizer{fn: tc.fn}, Timeout: 50 * time.Millisecond, Force: true}
			recs, err := s.Compact(t.Context(), w)
			if err != nil {
				t.Fatal(err)
			}
			checkWindow(t, w)
			if len(recs) == 0 {
				t.Fatal("no record")
			}
			r := recs[0]
			if !r.Fallback || !strings.Contains(r.FallbackReason, tc.reason) || r.Summarizer != "extractive" {
				t.Fatalf("fallback %v by %q, reason %q; want the extractive summarizer, a reason containing %q", r.Fallback, r.Summarizer, r.FallbackReason, tc.reason)
			}
			alone := newWindow(t, window.Options{Budget: 4000}, session(20, 400)...)
			if _, err := (&compact.Summarize{Force: true}).Compact(t.Context(), alone); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(alone.Messages(), w.Messages()); diff != "" {
				t.Fatalf("window differs from the extractive summarizer's (-extractive +fallback):\n%s", diff)
			}
			if s.State.Failures != 1 {
				t.Fatalf("State.Failures = %d, want 1", s.State.Failures)
			}
		})
		// Both fail: seed 001's fallback keeps 30 %.
		t.Run(tc.name+"/truncation", func(t *testing.T) {
			t.Parallel()
			w := newWindow(t, window.Options{Budget: 4000}, session(20, 400)...)
			before := w.Len()
			s := &compact.Summarize{Summarizer: &fakeSummarizer{fn: tc.fn}, FallbackSummarizer: &fakeSummarizer{fn: tc.fn},
				Timeout: 50 * time.Millisecond, Force: true}
			recs, err := s.Compact(t.Context(), w)
			if err != nil {
				t.Fatal(err)
			}
			checkWindow(t, w)
			if len(recs) == 0 {
				t.Fatal("no record")
			}
			r := recs[0]
			if !r.Fallback || strings.Count(r.FallbackReason, tc.reason) != 2 || r.Summarizer != compact.TruncationSummarizer {
				t.Fatalf("fallback %v by %q, reason %q; want truncation, two reasons containing %q", r.Fallback, r.Summarizer, r.FallbackReason, tc.reason)
			}
			if !w.Fits() || r.MessagesRemoved == 0 || w.Len() >= before {
				t.Fatalf("window %d of %d tokens, %d messages removed", w.Size(), w.Budget(), r.MessagesRemoved)
			}
			note := w.At(w.Note()).Text()
			if !strings.Contains(note, "summary of the earlier conversation failed") || !strings.Contains(note, tc.reason) ||
				!strings.Contains(note, "removed:") {
				t.Fatalf("note does not say it fell back:\n%s", note)
			}
			// 30 % is kept: more than the 20 % a summary keeps.
			kept := 0
			for i := w.Note() + 1; i < w.Len(); i++ {
				kept += w.TokensAt(i)
			}
			if kept > 1200 || kept <= 800 {
				t.Fatalf("kept %d tokens, want (800, 1200]", kept)
			}
		})
	}
}

func TestSummarizeCancelled(t *testing.T) {
	t.Parallel()
	w := newWindow(t, window.Options{Budget: 4000}, withIDs(session(20, 400))...)
	want := ids(w)
	ctx, cancel := context.WithCancel(t.Context())
	s := &compact.Summarize{Force: true, Summarizer: &fakeSummarizer{fn: func(ctx context.Context, _ compact.SummaryRequest) (compact.SummaryResult, error) {
		cancel()
		<-ctx.Done()
		return compact.SummaryResult{}, ctx.Err()
	}}}
	if _, err := s.Compact(ctx, w); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if diff := cmp.Diff(want, ids(w)); diff != "" {
		t.Fatalf("window changed (-want +got):\n%s", diff)
	}
}

func TestSummarizeEscalates(t *testing.T) {
	t.Parallel()
	// The last round alone is 90 % of the budget: it is kept, and the
	// summary on top of it needs the tiered cut.
	msgs := concat(session(6, 400), round("big", "Read", "big.go", lines(3600)))
	w := newWindow(t, window.Options{Budget: 1000}, msgs...)
	recs, err := (&compact.Summarize{Summarizer: fixed(lines(400))}).Compact(t.Context(), w)
	if err != nil {
		t.Fatal(err)
	}
	checkWindow(t, w)
	if !w.Fits() {
		t.Fatalf("window %d of %d after escalation", w.Size(), w.Budget())
	}
	if len(recs) < 2 || recs[0].Level != compact.LevelSummary || !recs[0].OverBudget {
		t.Fatalf("levels %v, want summary then escalation", levels(recs))
	}
	if !strings.HasPrefix(w.At(w.Note()).Text(), compact.SummaryHeader) {
		t.Fatalf("escalation replaced the summary: %q", w.At(w.Note()).Text())
	}
}

func TestParseStrategySummarize(t *testing.T) {
	t.Parallel()
	s, err := compact.ParseStrategy("summarize", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.(*compact.Summarize); !ok || s.Name() != "summarize" {
		t.Fatalf("ParseStrategy(summarize) = %T %q", s, s.Name())
	}
}

// TestSummarizeReadsEachCallOnce: a summarizing compaction's scans of the
// removed part (its files, the extractive summary, the retention's facts)
// read each removed tool call through the window's reading (the
// Engine's cache), once: none of them parses a call again.
func TestSummarizeReadsEachCallOnce(t *testing.T) {
	t.Parallel()
	peeks := map[string]int{}
	peek := func(c chat.ToolCall) tooluse.Use {
		peeks[c.ID]++
		return tooluse.Classify(c)
	}
	msgs := []chat.Message{sys("you are a coding agent"), user("fix the failing tests in the parser")}
	for i := range 12 {
		id := fmt.Sprintf("call_%d", i)
		args, _ := json.Marshal(map[string]string{"command": fmt.Sprintf("go test ./pkg%d/... && sed -n 1,40p pkg%d/parse.go", i, i)})
		msgs = append(msgs,
			chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "Running the tests."}, chat.ToolCall{ID: id, Name: "bash", Arguments: args}}},
			chat.NewToolResult(id, "bash", "--- FAIL: TestParse (0.00s)\n"+lines(400), false))
	}
	w := newWindow(t, window.Options{Budget: 1500, Peek: peek}, msgs...)
	recs, err := (&compact.Summarize{}).Compact(t.Context(), w)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 || recs[0].Level != compact.LevelSummary || recs[0].Retention == nil || len(recs[0].SpanMessages) == 0 {
		t.Fatalf("no summary with its retention: %+v", recs)
	}
	removed := 0
	for _, m := range recs[0].SpanMessages {
		for _, c := range m.ToolCalls() {
			removed++
			if peeks[c.ID] != 1 {
				t.Errorf("removed call %s read %d times through the window, want 1", c.ID, peeks[c.ID])
			}
		}
	}
	if removed == 0 {
		t.Fatal("the compaction removed no tool call")
	}
}
