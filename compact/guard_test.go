package compact_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/window"
)

// When the pinned parts and the recent rounds fill the window, a summary
// would free almost nothing: the guard escalates to the tiered levels
// instead, without calling the summarizer, and the record says why.
func TestSummarizeGuardFreesTooLittle(t *testing.T) {
	t.Parallel()
	// 2,500 pinned tokens, then 4 rounds of ~230 (L2 keeps 3): 85 % of
	// 4,000.
	msgs := concat(one(sys("you are a coding agent")), one(user(lines(10000))))
	for i := range 4 {
		msgs = append(msgs, round(fmt.Sprintf("c%d", i), "Read", fmt.Sprintf("f%d.go", i), lines(850))...)
	}
	w := newWindow(t, window.Options{Budget: 4000}, msgs...)
	if r := w.Ratio(); r < 0.8 || r >= 0.95 {
		t.Fatalf("setup: ratio %.2f, want 0.80-0.95", r)
	}
	sum := fixed("summary")
	s := &compact.Summarize{Summarizer: sum}
	recs, err := s.Compact(t.Context(), w)
	if err != nil {
		t.Fatal(err)
	}
	checkWindow(t, w)
	if len(sum.reqs) != 0 {
		t.Fatalf("the summarizer was called %d times", len(sum.reqs))
	}
	if len(recs) == 0 || recs[0].Level != compact.LevelL2 || !recs[0].Escalated || !strings.Contains(recs[0].EscalationReason, "could free at most") {
		t.Fatalf("records %+v, want L2 escalated because a summary frees too little", recs)
	}
	for _, r := range recs {
		if r.Level == compact.LevelSummary {
			t.Fatalf("a summary was made: %+v", r)
		}
	}
	if s.State.Escalations != 1 || s.State.Summaries != 0 || s.State.Calls != 1 {
		t.Fatalf("state %+v", s.State)
	}
}

// After a summary, the next automatic one waits DefaultMinCallsBetween
// calls; the tiered levels compact in between, and keep the summary in
// their note.
func TestSummarizeGuardCooldown(t *testing.T) {
	t.Parallel()
	w := newWindow(t, window.Options{Budget: 4000}, session(20, 600)...)
	s := &compact.Summarize{}
	var summarized []int
	for call := 1; call <= 24; call++ {
		if call > 1 {
			for _, m := range concat(one(user(fmt.Sprintf("step %d", call))), round(fmt.Sprintf("r%d", call), "Read", fmt.Sprintf("g%d.go", call), lines(4000))) {
				if err := w.Add(m); err != nil {
					t.Fatal(err)
				}
			}
		}
		recs, err := s.Compact(t.Context(), w)
		if err != nil {
			t.Fatal(err)
		}
		checkWindow(t, w)
		if !w.Fits() {
			t.Fatalf("call %d: window %d of %d", call, w.Size(), w.Budget())
		}
		for i, r := range recs {
			if r.Level == compact.LevelSummary {
				summarized = append(summarized, call)
			}
			if r.Escalated && (i != 0 || r.EscalationReason == "") {
				t.Fatalf("call %d: record %d escalated with reason %q", call, i, r.EscalationReason)
			}
		}
		if len(summarized) > 0 && !strings.Contains(w.At(w.Note()).Text(), compact.SummaryHeader) {
			t.Fatalf("call %d: the note lost the summary:\n%s", call, w.At(w.Note()).Text())
		}
	}
	if len(summarized) < 2 {
		t.Fatalf("summaries at calls %v, want several", summarized)
	}
	for i := 1; i < len(summarized); i++ {
		if d := summarized[i] - summarized[i-1]; d < compact.DefaultMinCallsBetween {
			t.Fatalf("summaries at calls %v: %d calls apart", summarized, d)
		}
	}
	if s.State.Summaries != len(summarized) || s.State.Escalations == 0 || s.State.Calls != 24 {
		t.Fatalf("state %+v, summaries at %v", s.State, summarized)
	}
	// Force (a user's /compact) is not held back by the guard, even one
	// round after a summary.
	for _, m := range concat(one(user("step 25")), round("r25", "Read", "g25.go", lines(4000))) {
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := (&compact.Summarize{Force: true, State: s.State}).Compact(t.Context(), w)
	if err != nil || len(recs) == 0 || recs[0].Level != compact.LevelSummary {
		t.Fatalf("forced: %v, %+v", err, recs)
	}
}

// countingSummarizer fails its first failures calls, then succeeds.
type countingSummarizer struct {
	calls, failures int
}

func (c *countingSummarizer) Name() string { return "llm:test" }
func (c *countingSummarizer) Summarize(ctx context.Context, req compact.SummaryRequest) (compact.SummaryResult, error) {
	c.calls++
	if c.calls <= c.failures {
		return compact.SummaryResult{}, errors.New("overloaded")
	}
	return compact.SummaryResult{Text: "the model's summary"}, nil
}

// Claude Code's circuit breaker: after 3 failures in a row the model is
// skipped (the extractive summarizer writes the summary) but for one try
// in every 3 summaries; one success closes it.
func TestSummarizeCircuitBreaker(t *testing.T) {
	t.Parallel()
	sum := &countingSummarizer{failures: 4}
	s := &compact.Summarize{Summarizer: sum, Force: true}
	var by []string
	for i := range 12 {
		w := newWindow(t, window.Options{Budget: 4000}, session(20, 400)...)
		recs, err := s.Compact(t.Context(), w)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) == 0 || recs[0].Level != compact.LevelSummary {
			t.Fatalf("summary %d: records %+v", i, recs)
		}
		by = append(by, recs[0].Summarizer)
	}
	// Tries 1-3 fail; 4 and 5 skip it; 6 tries and fails; 7 and 8 skip;
	// 9 tries and succeeds, and so does every one after.
	want := []string{"extractive", "extractive", "extractive", "extractive", "extractive", "extractive",
		"extractive", "extractive", "llm:test", "llm:test", "llm:test", "llm:test"}
	if diff := cmp.Diff(want, by); diff != "" {
		t.Fatalf("summarizers (-want +got):\n%s", diff)
	}
	if sum.calls != 3+1+1+3 || s.State.Failures != 0 || s.State.LastFailure != "" {
		t.Fatalf("%d calls of the model, state %+v", sum.calls, s.State)
	}
}

// The guard's state is plain data, for sessions to persist.
func TestSummarizeStateJSON(t *testing.T) {
	t.Parallel()
	st := compact.SummarizeState{Calls: 9, LastSummary: 7, Summaries: 2, Escalations: 3, Failures: 1, Skipped: 0, LastFailure: "x"}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"calls":9,"last_summary":7,"summaries":2,"escalations":3,"failures":1,"last_failure":"x"}`; string(b) != want {
		t.Fatalf("JSON %s, want %s", b, want)
	}
	var back compact.SummarizeState
	if err := json.Unmarshal(b, &back); err != nil || back != st {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
}

// A tiered level after a summary keeps the summary under its note, and
// the next summary rolls both in: its lists are parsed, the note becomes
// the earlier summary.
func TestTieredKeepsSummary(t *testing.T) {
	t.Parallel()
	w := newWindow(t, window.Options{Budget: 4000}, session(20, 600)...)
	if _, err := (&compact.Summarize{Force: true}).Compact(t.Context(), w); err != nil {
		t.Fatal(err)
	}
	first := w.At(w.Note()).Text()
	if !strings.HasPrefix(first, compact.SummaryHeader) || !strings.Contains(first, "now step 3 please") {
		t.Fatalf("first summary:\n%s", first)
	}
	for i := range 8 {
		for _, m := range concat(one(user(fmt.Sprintf("later %d", i))), round(fmt.Sprintf("t%d", i), "Read", "t.go", lines(1600))) {
			if err := w.Add(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	recs, err := (&compact.Tiered{}).Compact(t.Context(), w)
	if err != nil || len(recs) == 0 {
		t.Fatalf("tiered: %v %+v", err, recs)
	}
	tiered := w.At(w.Note()).Text()
	if !strings.HasPrefix(tiered, "[agentctx compaction note]") || !strings.HasSuffix(tiered, first) {
		t.Fatalf("the tiered note does not keep the summary:\n%s", tiered)
	}
	for i := range 4 {
		for _, m := range concat(one(user(fmt.Sprintf("after %d", i))), round(fmt.Sprintf("v%d", i), "Read", "v.go", lines(1600))) {
			if err := w.Add(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	if recs, err := (&compact.Summarize{Force: true}).Compact(t.Context(), w); err != nil || len(recs) == 0 || recs[0].Level != compact.LevelSummary {
		t.Fatalf("second summary: %v %+v", err, recs)
	}
	second := w.At(w.Note()).Text()
	if !strings.HasPrefix(second, compact.SummaryHeader) || strings.Count(second, compact.SummaryHeader) != 1 ||
		!strings.Contains(second, "now step 3 please") || !strings.Contains(second, "## Earlier summary") {
		t.Fatalf("second summary does not roll the first in:\n%s\n\nfrom the tiered note:\n%s", second, tiered)
	}
	// Once more through tiered: the summary is carried, not nested.
	for i := range 8 {
		for _, m := range concat(one(user(fmt.Sprintf("again %d", i))), round(fmt.Sprintf("u%d", i), "Read", "u.go", lines(1600))) {
			if err := w.Add(m); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := (&compact.Tiered{}).Compact(t.Context(), w); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(w.At(w.Note()).Text(), compact.SummaryHeader); n != 1 {
		t.Fatalf("%d summaries in the note", n)
	}
	checkWindow(t, w)
}
