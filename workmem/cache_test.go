package workmem

import (
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/transcript"
)

// TestBuildContextCached: fed the largest shared trajectory message by
// message, a memory that renders and counts its closed rounds once
// (cached; its open round's actions and observations rendered as they
// come, which is checked after every message) builds, after every third
// assistant message and at several budgets,
// the same context and count as a fresh copy of its state (nothing
// cached), and the count is exact.
func TestBuildContextCached(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedtest.Dir(t), "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	trs, err := transcript.ReadFile(file, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Counter: c}
	a := New("the task", opts)
	calls := 0
	for i, m := range trs[0].Messages {
		a.ObserveMessage(m)
		// The open round, rendered as its actions and observations
		// come, is rendered as a whole would be.
		a.mu.Lock()
		if last := len(a.st.Rounds) - 1; last >= 0 && a.st.Rounds[last].Open() {
			got, n := a.roundFull(last)
			if want := wholeRound(a.st.Rounds[last]); got != want || n != c.Count(want) {
				t.Fatalf("message %d: the open round rendered as it grew differs from its rendering (%d tokens, exact %d):\n%s\nwant\n%s", i, n, c.Count(want), got, want)
			}
		}
		a.mu.Unlock()
		if m.Role != "assistant" {
			continue
		}
		if calls++; calls%3 != 0 {
			continue
		}
		data, err := a.ToJSON()
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := FromJSON(data, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, budget := range []int{300, 1600} {
			got, n := a.BuildContextTokens(budget)
			want, wn := fresh.BuildContextTokens(budget)
			if got != want || n != wn {
				t.Fatalf("message %d, budget %d: cached memory built %d tokens, fresh %d; texts equal: %v", i, budget, n, wn, got == want)
			}
			if exact := c.Count(got); n != exact {
				t.Fatalf("message %d, budget %d: count %d, exact %d", i, budget, n, exact)
			}
		}
	}
}

// wholeRound renders r in full from scratch, every action and
// observation at once: what roundFull must give for it.
func wholeRound(r Round) string {
	acts := make([]string, len(r.Actions))
	for i, act := range r.Actions {
		acts[i] = actionLine(act)
	}
	obs := make([]string, len(r.Observations))
	for i, o := range r.Observations {
		obs[i] = observationBlock(o)
	}
	return joinRound(r, acts, obs)
}
