package replay_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/transcript"
)

// TestSummarizeRealTrajectories is issue 4's acceptance check: every real
// trajectory, at budgets 8,000 and 16,000, replayed with the summarizing
// strategy and the extractive summarizer, stays sound (no invariant
// violation, no orphan), within budget wherever its pinned parts fit,
// with retention measured on every summary; at 16,000 the retention over
// all of them meets the targets (≥ 95 % of user messages and modified
// files, ≥ 90 % overall).
func TestSummarizeRealTrajectories(t *testing.T) {
	t.Parallel()
	files := sharedtest.Files(t)
	root := sharedtest.Root()
	var trs []*transcript.Trajectory
	for _, file := range files {
		got, err := transcript.ReadFile(file, transcript.Options{})
		if err != nil {
			t.Fatalf("read %s: %v", file, err)
		}
		trs = append(trs, got...)
	}
	for _, budget := range []int{8000, 16000} {
		t.Run(fmt.Sprintf("budget=%d", budget), func(t *testing.T) {
			t.Parallel()
			var total compact.Retention
			summaries := 0
			for _, tr := range trs {
				rel, _ := filepath.Rel(root, tr.File)
				res, err := replay.Run(t.Context(), tr, replay.Options{Budget: budget, Strategy: &compact.Summarize{}})
				if err != nil {
					t.Fatalf("%s#%d: Run: %v", rel, tr.Index, err)
				}
				if res.InvariantViolations != 0 {
					t.Errorf("%s#%d: invariant violations = %d", rel, tr.Index, res.InvariantViolations)
				}
				if vs := res.Window.Check(); len(vs) > 0 {
					t.Errorf("%s#%d: final window: %v", rel, tr.Index, vs)
				}
				if n := res.CallsOverBudget - res.CallsOverBudgetPinned; n != 0 {
					t.Errorf("%s#%d: %d calls over budget although their pinned parts fit", rel, tr.Index, n)
				}
				for i, r := range res.Summaries {
					if r.Retention == nil {
						t.Errorf("%s#%d: summary %d has no retention", rel, tr.Index, i)
						continue
					}
					if r.Summarizer != "extractive" || r.Fallback {
						t.Errorf("%s#%d: summary %d: summarizer %q fallback %v (%s)", rel, tr.Index, i, r.Summarizer, r.Fallback, r.FallbackReason)
					}
					total.Add(*r.Retention)
					summaries++
				}
				if len(res.Summaries) > 0 && res.Retention == nil {
					t.Errorf("%s#%d: no overall retention", rel, tr.Index)
				}
			}
			if summaries == 0 {
				t.Fatal("no summarizing compaction at all")
			}
			t.Logf("budget %d: %d summaries; retention overall %.3f, user messages %.3f, files modified %.3f, files read %.3f, errors %.3f, failing tests %.3f, failed commands %.3f (%d of %d facts)",
				budget, summaries, total.Overall, total.UserMessages, total.FilesModified, total.FilesRead, total.Errors, total.FailingTests, total.FailedCommands, total.Kept, total.Total)
			if budget == 16000 {
				if total.UserMessages < 0.95 || total.FilesModified < 0.95 || total.Overall < 0.90 {
					t.Errorf("retention below target: user messages %.3f, files modified %.3f (want ≥ 0.95), overall %.3f (want ≥ 0.90); missing %v",
						total.UserMessages, total.FilesModified, total.Overall, total.Missing)
				}
			}
		})
	}
}

// failing is a summarizer that always fails.
type failing struct{}

func (failing) Name() string { return "failing" }
func (failing) Summarize(context.Context, compact.SummaryRequest) (compact.SummaryResult, error) {
	return compact.SummaryResult{}, errors.New("no model")
}

// A summarizer that always fails falls back to the extractive summarizer
// at every summary; after 3 failures in a row it is skipped but for one
// try in every 3 summaries (the circuit breaker).
func TestSummarizeFallbackReplay(t *testing.T) {
	t.Parallel()
	res, err := replay.Run(t.Context(), synthetic(40), replay.Options{Budget: 4000, Strategy: &compact.Summarize{Summarizer: failing{}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Summaries) == 0 || res.InvariantViolations != 0 || res.CallsOverBudget != 0 {
		t.Fatalf("%d summaries, %d violations, %d calls over budget", len(res.Summaries), res.InvariantViolations, res.CallsOverBudget)
	}
	for _, r := range res.Summaries {
		if !r.Fallback || !strings.Contains(r.FallbackReason, "no model") || r.Summarizer != "extractive" {
			t.Fatalf("record %+v, want a fallback to the extractive summarizer", r)
		}
	}
	w := res.Window
	if n := w.Note(); n < 0 || !strings.HasPrefix(w.At(n).Text(), compact.SummaryHeader) {
		t.Fatalf("the note is not the extractive summary")
	}
}

// countingFailing fails, and counts its calls.
type countingFailing struct{ calls *int }

func (countingFailing) Name() string { return "llm:down" }
func (f countingFailing) Summarize(context.Context, compact.SummaryRequest) (compact.SummaryResult, error) {
	*f.calls++
	return compact.SummaryResult{}, errors.New("503 overloaded")
}

// With a failing LLM summarizer, every summary falls back to the
// extractive summarizer (not to seed 001's keep-30 % truncation), so
// retention on a real trajectory is the extractive summarizer's, and the
// failing model is called at most once in 3 summaries after the first 3.
func TestFailingSummarizerRetention(t *testing.T) {
	t.Parallel()
	files := sharedtest.Files(t)
	var tr *transcript.Trajectory
	for _, f := range files {
		if strings.Contains(f, "claude-code") && strings.HasSuffix(f, "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl") {
			trs, err := transcript.ReadFile(f, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			tr = trs[0]
		}
	}
	if tr == nil {
		t.Fatal("claude-code/8463c716-….jsonl not in the shared data")
	}
	const budget = 16000
	ext, err := replay.Run(t.Context(), tr, replay.Options{Budget: budget, Strategy: &compact.Summarize{}})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	fail, err := replay.Run(t.Context(), tr, replay.Options{Budget: budget, Strategy: &compact.Summarize{Summarizer: countingFailing{&calls}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ext.Summaries) == 0 || ext.Retention == nil || fail.Retention == nil {
		t.Fatalf("%d summaries; retention %v, %v", len(ext.Summaries), ext.Retention, fail.Retention)
	}
	for i, r := range fail.Summaries {
		if r.Summarizer != "extractive" || !r.Fallback || !strings.Contains(r.FallbackReason, "503 overloaded") {
			t.Errorf("summary %d: by %q, fallback %v (%s); want the extractive summarizer after the failure", i, r.Summarizer, r.Fallback, r.FallbackReason)
		}
	}
	opts := cmp.Options{cmpopts.IgnoreFields(compact.Retention{}, "Missing")}
	if diff := cmp.Diff(ext.Retention, fail.Retention, opts); diff != "" {
		t.Errorf("retention with a failing LLM differs from the extractive summarizer's (-extractive +failing):\n%s", diff)
	}
	if len(ext.Summaries) != len(fail.Summaries) || ext.FinalPromptTokens != fail.FinalPromptTokens {
		t.Errorf("extractive: %d summaries, final %d tokens; failing LLM: %d, %d", len(ext.Summaries), ext.FinalPromptTokens, len(fail.Summaries), fail.FinalPromptTokens)
	}
	n := len(fail.Summaries)
	if want := min(n, compact.DefaultMaxFailures) + max(n-compact.DefaultMaxFailures, 0)/compact.DefaultMaxFailures; calls > want {
		t.Errorf("the failing summarizer was called %d times in %d summaries, want at most %d (circuit breaker)", calls, n, want)
	}
	t.Logf("%d summaries, %d calls of the failing summarizer; retention overall %.3f (extractive %.3f)", n, calls, fail.Retention.Overall, ext.Retention.Overall)
}

// A saved replay records each summary as a compact boundary with the
// summary metadata, and the summary as the isCompactSummary entry; the
// session restores to the replay's window.
func TestSaveSummarize(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	res, err := replay.Run(t.Context(), synthetic(40), replay.Options{Budget: 4000, Strategy: &compact.Summarize{}, Store: st, Project: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Summaries) == 0 {
		t.Fatal("no summary")
	}
	w, loaded := restore(t, st, res)
	if diff := cmp.Diff(res.Window.Messages(), w.Messages()); diff != "" {
		t.Fatalf("restored window differs (-replay +restored):\n%s", diff)
	}
	es := loaded.Entries
	if len(es) == 0 || !es[0].IsBoundary() {
		t.Fatalf("load does not start at a boundary")
	}
	meta := es[0].CompactMetadata
	last := res.Summaries[len(res.Summaries)-1]
	if meta.Level != "summary" || meta.Strategy != "summarize" || meta.Fallback || meta.PreTokens == 0 || meta.PostTokens == 0 ||
		!cmp.Equal(meta.FilesIncluded, last.FilesIncluded) || meta.Summarizer != "extractive" || meta.DurationMS <= 0 || meta.Usage != nil {
		t.Fatalf("boundary metadata %+v; last summary files %v", meta, last.FilesIncluded)
	}
	found := false
	for _, e := range es {
		if e.IsCompactSummary {
			msgs, err := e.Messages()
			if err != nil || len(msgs) != 1 || !strings.HasPrefix(msgs[0].Text(), compact.SummaryHeader) {
				t.Fatalf("summary entry %v %v", msgs, err)
			}
			found = true
		}
	}
	if !found {
		t.Fatal("no isCompactSummary entry")
	}
}

// TestSummarizeGuardRealTrajectories replays every real trajectory with
// the summarizing strategy at budgets from 2,500 to 16,000 tokens: the
// guard keeps summaries to at most one per
// compact.DefaultMinCallsBetween model calls after the first (before the
// guard, a SWE-agent trajectory at 2,500 ran 10 summaries in 12 calls),
// with no call over budget where the pinned parts fit and no broken
// invariant.
func TestSummarizeGuardRealTrajectories(t *testing.T) {
	t.Parallel()
	files := sharedtest.Files(t)
	root := sharedtest.Root()
	var trs []*transcript.Trajectory
	for _, file := range files {
		got, err := transcript.ReadFile(file, transcript.Options{})
		if err != nil {
			t.Fatalf("read %s: %v", file, err)
		}
		trs = append(trs, got...)
	}
	for _, budget := range []int{2500, 4000, 8000, 16000} {
		t.Run(fmt.Sprintf("budget=%d", budget), func(t *testing.T) {
			t.Parallel()
			worst, worstName := 0.0, ""
			for _, tr := range trs {
				rel, _ := filepath.Rel(root, tr.File)
				name := fmt.Sprintf("%s#%d", rel, tr.Index)
				res, err := replay.Run(t.Context(), tr, replay.Options{Budget: budget, Strategy: &compact.Summarize{},
					LimitToolResults: true, Reminders: true, WorkingMemory: true})
				if err != nil {
					t.Fatalf("%s: Run: %v", name, err)
				}
				if res.InvariantViolations != 0 {
					t.Errorf("%s: invariant violations = %d", name, res.InvariantViolations)
				}
				if n := res.CallsOverBudget - res.CallsOverBudgetPinned; n != 0 {
					t.Errorf("%s: %d calls over budget although their pinned parts fit", name, n)
				}
				n := len(res.Summaries)
				if limit := 1 + max(res.ModelCalls-1, 0)/compact.DefaultMinCallsBetween; n > limit {
					t.Errorf("%s: %d summaries in %d model calls, want at most %d", name, n, res.ModelCalls, limit)
				}
				if want := float64(n) / float64(max(res.ModelCalls, 1)); res.ModelCalls > 0 && res.SummariesPerCall != want {
					t.Errorf("%s: SummariesPerCall = %v, want %v", name, res.SummariesPerCall, want)
				}
				if res.ModelCalls >= 4 && res.SummariesPerCall > worst {
					worst, worstName = res.SummariesPerCall, fmt.Sprintf("%s (%d in %d calls, %d declined)", name, n, res.ModelCalls, res.SummaryEscalations)
				}
			}
			t.Logf("budget %d: at most %.2f summaries per model call (files of 4 calls or more): %s", budget, worst, worstName)
		})
	}
}
