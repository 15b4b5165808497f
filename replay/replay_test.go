package replay_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/transcript"
)

// TestRealTrajectories is the acceptance check of the main job: every real
// trajectory, at a small and at the default budget, with each strategy that
// promises to fit, replays with no invariant violation and no call over
// budget.
func TestRealTrajectories(t *testing.T) {
	t.Parallel()
	files := sharedtest.Files(t)
	if len(files) == 0 {
		t.Fatal("no trajectory files found in the shared data folder")
	}
	root := sharedtest.Root()
	for _, file := range files {
		rel, _ := filepath.Rel(root, file)
		trs, err := transcript.ReadFile(file, transcript.Options{})
		if err != nil {
			t.Fatalf("read %s: %v", rel, err)
		}
		for _, tr := range trs {
			for _, budget := range []int{8000, 0} {
				for _, strat := range []string{"tiered", "mask"} {
					name := fmt.Sprintf("%s#%d/budget=%d/%s", rel, tr.Index, budget, strat)
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						s, err := compact.ParseStrategy(strat, nil)
						if err != nil {
							t.Fatal(err)
						}
						res, err := replay.Run(t.Context(), tr, replay.Options{Budget: budget, Strategy: s})
						if err != nil {
							t.Fatalf("Run: %v", err)
						}
						if res.InvariantViolations != 0 {
							t.Errorf("invariant violations = %d, want 0", res.InvariantViolations)
						}
						if res.CallsOverBudget != 0 {
							t.Errorf("calls over budget = %d (pinned %d), want 0", res.CallsOverBudget, res.CallsOverBudgetPinned)
						}
						if res.PeakPromptTokens > res.Budget {
							t.Errorf("peak %d > budget %d", res.PeakPromptTokens, res.Budget)
						}
						wantCalls := 0
						for _, m := range tr.Messages {
							if m.Role == chat.RoleAssistant {
								wantCalls++
							}
						}
						if res.ModelCalls != wantCalls {
							t.Errorf("model calls = %d, want %d", res.ModelCalls, wantCalls)
						}
						if res.Messages != len(tr.Messages) {
							t.Errorf("messages = %d, want %d", res.Messages, len(tr.Messages))
						}
					})
				}
			}
		}
	}
}

// TestNoneOverBudget checks that the baseline does overflow a small budget
// on a long trajectory, so that the zero over-budget result of the other
// strategies means something.
func TestNoneOverBudget(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedtest.Dir(t), "swe-agent", "pydicom__pydicom-1458.traj")
	trs, err := transcript.ReadFile(file, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Run(t.Context(), trs[0], replay.Options{Budget: 8000, Strategy: compact.None{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.CallsOverBudget == 0 || res.TokensRemoved != 0 {
		t.Errorf("strategy none: over budget %d, removed %d; want >0 and 0", res.CallsOverBudget, res.TokensRemoved)
	}
	tiered, err := replay.Run(t.Context(), trs[0], replay.Options{Budget: 8000})
	if err != nil {
		t.Fatal(err)
	}
	if tiered.TokensRemoved == 0 || tiered.Compactions["L1"]+tiered.Compactions["L2"]+tiered.Compactions["L3"] == 0 {
		t.Errorf("tiered at 8000: removed %d tokens, compactions %v; want some", tiered.TokensRemoved, tiered.Compactions)
	}
}

// TestUsageDiff checks the comparison with provider-reported usage on the
// mini-swe-agent run, whose usage is recorded on every call.
func TestUsageDiff(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedtest.Dir(t), "mini-swe-agent", "deepseek_bench_dev", "pydicom__pydicom-1694.traj.json")
	trs, err := transcript.ReadFile(file, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Run(t.Context(), trs[0], replay.Options{Steps: true})
	if err != nil {
		t.Fatal(err)
	}
	d := res.UsageDiff
	if d == nil {
		t.Fatal("usage diff is nil for a transcript with per-call usage")
	}
	if d.Calls == 0 || d.Calls > res.ModelCalls {
		t.Errorf("usage calls = %d, model calls %d", d.Calls, res.ModelCalls)
	}
	// DeepSeek's tokenizer is not o200k_base, but the counts of the same
	// text must be close: within 25 % on average.
	if d.Mean > 0.25 || d.AnchoredMean > d.Mean+0.01 {
		t.Errorf("usage diff mean %.3f, anchored %.3f: counting is off", d.Mean, d.AnchoredMean)
	}
	if len(res.Steps) != res.Messages {
		t.Errorf("steps = %d, want one per message (%d)", len(res.Steps), res.Messages)
	}
}

// TestPromptCache: with nothing compacted, each request's cached prefix
// is a prefix of the next (the cache would serve nearly every token but
// the new turn's); summarizing compaction, which rewrites the history
// rarely, keeps most of that, and both count no more than was sent.
func TestPromptCache(t *testing.T) {
	t.Parallel()
	var none, sum [2]int // cached, prompt
	for _, file := range sharedtest.Files(t) {
		trs, err := transcript.ReadFile(file, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			acc      *[2]int
			budget   int
			strategy compact.Strategy
		}{{&none, 10_000_000, compact.None{}}, {&sum, 16000, &compact.Summarize{}}} {
			res, err := replay.Run(t.Context(), trs[0], replay.Options{Budget: c.budget, Strategy: c.strategy,
				LimitToolResults: true, WorkingMemory: true, Reminders: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.CacheReadTokens > res.PromptTokens || res.CacheReadTokens < 0 {
				t.Errorf("%s: %d cached of %d prompt tokens", file, res.CacheReadTokens, res.PromptTokens)
			}
			c.acc[0] += res.CacheReadTokens
			c.acc[1] += res.PromptTokens
		}
	}
	ratio := func(a [2]int) float64 { return float64(a[0]) / float64(max(a[1], 1)) }
	t.Logf("prompt cache: %.1f%% without compaction, %.1f%% with summaries at 16,000", 100*ratio(none), 100*ratio(sum))
	if ratio(none) < 0.9 {
		t.Errorf("without compaction only %.1f%% of prompt tokens were a cached prefix, want ≥ 90%%", 100*ratio(none))
	}
	if ratio(sum) < 0.6 {
		t.Errorf("with summaries only %.1f%% of prompt tokens were a cached prefix, want ≥ 60%%", 100*ratio(sum))
	}
}

// TestStepsPerCall checks the per-call figures of the steps: the cache
// reads add up to the result's, and the uncompacted history grows by every
// message, whole, however much compaction removed.
func TestStepsPerCall(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedtest.Dir(t), "swe-agent", "pydicom__pydicom-1458.traj")
	trs, err := transcript.ReadFile(file, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Run(t.Context(), trs[0], replay.Options{Budget: 8000, Steps: true, LimitToolResults: true})
	if err != nil {
		t.Fatal(err)
	}
	read, prev, calls := 0, 0, 0
	for _, s := range res.Steps {
		if s.Role != "assistant" {
			if s.UncompactedTokens != 0 || s.CacheReadTokens != 0 {
				t.Errorf("step %d (%s): uncompacted %d, cache read %d; want 0", s.Step, s.Role, s.UncompactedTokens, s.CacheReadTokens)
			}
			continue
		}
		calls++
		read += s.CacheReadTokens
		if s.CacheReadTokens > s.PromptTokens || s.UncompactedTokens <= prev {
			t.Errorf("step %d: cache read %d of %d; uncompacted %d after %d", s.Step, s.CacheReadTokens, s.PromptTokens, s.UncompactedTokens, prev)
		}
		prev = s.UncompactedTokens
	}
	if calls != res.ModelCalls || read != res.CacheReadTokens {
		t.Errorf("%d calls reading %d cached tokens; result: %d, %d", calls, read, res.ModelCalls, res.CacheReadTokens)
	}
	if res.TokensRemoved == 0 || prev <= res.PeakPromptTokens {
		t.Errorf("uncompacted %d at the last call, peak prompt %d, removed %d: want a history past what compaction kept", prev, res.PeakPromptTokens, res.TokensRemoved)
	}
}

// TestReplayCost: a session replayed under a priced model has a cost with
// and without compaction; only a strategy that compacts causes cache writes
// after compaction; under a model without a price there is no cost.
func TestReplayCost(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedtest.Dir(t), "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	trs, err := transcript.ReadFile(file, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run := func(opts replay.Options) *replay.Result {
		opts.LimitToolResults, opts.WorkingMemory, opts.Reminders = true, true, true
		res, err := replay.Run(t.Context(), trs[0], opts)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	none := run(replay.Options{Budget: 10_000_000, Strategy: compact.None{}})
	sum := run(replay.Options{Budget: 16000, Strategy: &compact.Summarize{}})
	for _, r := range []*replay.Result{none, sum} {
		c := r.Cost
		if c == nil || c.USD <= 0 || c.UncompactedUSD <= 0 || c.OutputTokens <= 0 {
			t.Fatalf("%s: cost %+v", r.Strategy, c)
		}
		if c.CacheReadTokens != r.CacheReadTokens {
			t.Errorf("%s: cost's cache reads %d, the result's %d", r.Strategy, c.CacheReadTokens, r.CacheReadTokens)
		}
	}
	// The uncompacted session is the same whatever the strategy.
	if none.Cost.UncompactedUSD != sum.Cost.UncompactedUSD || none.Cost.OutputTokens != sum.Cost.OutputTokens {
		t.Errorf("uncompacted cost differs by strategy: %+v vs %+v", *none.Cost, *sum.Cost)
	}
	if none.Cost.CompactionCacheWriteTokens != 0 || sum.Cost.CompactionCacheWriteTokens == 0 {
		t.Errorf("cache writes after compaction: none %d, summarize %d", none.Cost.CompactionCacheWriteTokens, sum.Cost.CompactionCacheWriteTokens)
	}
	t.Logf("claude-opus-4-6 session: $%.4f uncompacted, $%.4f with summaries at 16,000 (%d tokens rewritten to the cache after compactions)",
		sum.Cost.UncompactedUSD, sum.Cost.USD, sum.Cost.CompactionCacheWriteTokens)
	if r := run(replay.Options{Budget: 16000, Model: "my-local-model"}); r.Cost != nil {
		t.Errorf("unknown model: cost %+v, want none", *r.Cost)
	}
}
