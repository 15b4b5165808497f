package report

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/transcript"
)

// checkReport asserts what every report holds: one call per model call,
// numbered in order; one compaction per level applied, each pointed to by
// its call; each call's window summing to its prompt.
func checkReport(t *testing.T, rep *Report, res *replay.Result) {
	t.Helper()
	if len(rep.Calls) != res.ModelCalls || rep.Totals.ModelCalls != res.ModelCalls {
		t.Errorf("%d calls (totals %d), replay made %d model calls", len(rep.Calls), rep.Totals.ModelCalls, res.ModelCalls)
	}
	levels := 0
	for _, n := range res.Compactions {
		levels += n
	}
	if len(rep.Compactions) != levels {
		t.Errorf("%d compactions, replay applied %d levels %v", len(rep.Compactions), levels, res.Compactions)
	}
	if rep.Totals.PeakPrompt != res.PeakPromptTokens || rep.Totals.TokensRemoved != res.TokensRemoved {
		t.Errorf("peak %d, removed %d; replay: %d, %d", rep.Totals.PeakPrompt, rep.Totals.TokensRemoved, res.PeakPromptTokens, res.TokensRemoved)
	}
	// The calls cost what the replay's cost (a session's uncompacted
	// history is the stored one, not the transcript's: not compared).
	if c, rc := rep.Totals.Cost, res.Cost; (c == nil) != (rc == nil) || c != nil && (c.USD != rc.USD || c.CacheWriteTokens != rc.CacheWriteTokens) {
		t.Errorf("cost %+v, replay's %+v", c, rc)
	}
	if !cmp.Equal(rep.Categories, Categories()) {
		t.Errorf("categories %v", rep.Categories)
	}
	t.Logf("%d calls, %d compactions %v", len(rep.Calls), len(rep.Compactions), res.Compactions)
	pointed, removed, cached := 0, 0, 0
	for i, c := range rep.Calls {
		if c.N != i+1 {
			t.Fatalf("call %d numbered %d", i+1, c.N)
		}
		if len(c.Window) != len(rep.Categories) {
			t.Fatalf("call %d: %d categories, want %d", c.N, len(c.Window), len(rep.Categories))
		}
		sum := 0
		for k, v := range c.Window {
			if v < 0 {
				t.Errorf("call %d: %s %d tokens", c.N, rep.Categories[k], v)
			}
			sum += v
		}
		if sum != c.Prompt {
			t.Errorf("call %d: window sums to %d, prompt %d (%v)", c.N, sum, c.Prompt, c.Window)
		}
		if c.CacheRead > c.Prompt || c.Uncompacted <= 0 {
			t.Errorf("call %d: cache read %d of %d, uncompacted %d", c.N, c.CacheRead, c.Prompt, c.Uncompacted)
		}
		for _, j := range c.Compactions {
			if rep.Compactions[j].Call != c.N {
				t.Errorf("call %d points to compaction %d of call %d", c.N, j, rep.Compactions[j].Call)
			}
			removed += rep.Compactions[j].Removed
		}
		pointed += len(c.Compactions)
		cached += c.CacheRead
	}
	if pointed != len(rep.Compactions) || removed != res.TokensRemoved || cached != res.CacheReadTokens {
		t.Errorf("calls point to %d compactions removing %d tokens, %d cached; want %d, %d, %d",
			pointed, removed, cached, len(rep.Compactions), res.TokensRemoved, res.CacheReadTokens)
	}
}

func TestSynthetic(t *testing.T) {
	t.Parallel()
	tr := synthetic(60)
	strategy, err := compact.ParseStrategy("summarize", nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := replay.Options{Budget: 6000, Strategy: strategy, LimitToolResults: true, Reminders: true, WorkingMemory: true}
	res, err := replay.Run(t.Context(), tr, opts)
	if err != nil {
		t.Fatal(err)
	}
	rep := syntheticReport(t, 60)
	checkReport(t, rep, res)
	if len(rep.Calls) != 61 {
		t.Errorf("%d calls, want 61", len(rep.Calls))
	}
	if c := rep.Totals.Cost; c == nil || c.USD <= 0 || c.UncompactedUSD <= 0 {
		t.Errorf("gpt-4o has a price: cost %+v, want one with and without compaction", c)
	}
	summaries := 0
	for _, c := range rep.Compactions {
		if c.Level == "summary" {
			summaries++
			if c.Retention == nil || c.Summarizer == "" {
				t.Errorf("summary before call %d: retention %v, summarizer %q", c.Call, c.Retention, c.Summarizer)
			}
		}
	}
	if summaries == 0 || summaries != len(res.Summaries) {
		t.Errorf("%d summaries, replay made %d", summaries, len(res.Summaries))
	}
	// The history grows past the budget: the uncompacted size does too,
	// and every message's tool result is counted whole.
	last := rep.Calls[len(rep.Calls)-1]
	if last.Uncompacted <= rep.Budget || last.Prompt > rep.Budget {
		t.Errorf("last call: prompt %d, uncompacted %d, budget %d", last.Prompt, last.Uncompacted, rep.Budget)
	}
	var parts [8]int
	for _, c := range rep.Calls {
		for k, v := range c.Window {
			parts[k] += v
		}
	}
	for _, name := range []string{CategorySystem, CategoryMessages, CategoryToolResults, CategorySummary, CategoryWorkingMemory} {
		if k := index(name); parts[k] == 0 {
			t.Errorf("no call had %s tokens", name)
		}
	}
}

func index(name string) int {
	for i, c := range Categories() {
		if c == name {
			return i
		}
	}
	return -1
}

func TestNoCalls(t *testing.T) {
	t.Parallel()
	tr := synthetic(0)
	tr.Messages = tr.Messages[:2]
	rep, err := FromTrajectory(t.Context(), tr, replay.Options{})
	if err != nil || len(rep.Calls) != 0 || len(rep.Compactions) != 0 || rep.Messages != 2 {
		t.Fatalf("report %+v, err %v; want one without calls", rep, err)
	}
}

// TestFromSession saves a replay as a session and reports the session: the
// history replayed under the recorded configuration makes the same calls
// and compactions as the replay that wrote it.
func TestFromSession(t *testing.T) {
	t.Parallel()
	st, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Sync: jsonlstore.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tr := synthetic(40)
	opts := func() replay.Options {
		s, err := compact.ParseStrategy("summarize", nil)
		if err != nil {
			t.Fatal(err)
		}
		return replay.Options{Budget: 6000, Strategy: s, LimitToolResults: true, Reminders: true, WorkingMemory: true}
	}
	saved := opts()
	saved.Store, saved.Project = st, t.TempDir()
	res, err := replay.Run(t.Context(), tr, saved)
	if err != nil {
		t.Fatal(err)
	}
	// The budget and strategy are the ones the session recorded.
	rep, err := FromSession(t.Context(), st, res.SessionID, cliOptions())
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, res)
	if rep.Source != res.SessionID || rep.Format != "session" || rep.Budget != 6000 || rep.Note == "" {
		t.Errorf("source %q format %q budget %d note %q", rep.Source, rep.Format, rep.Budget, rep.Note)
	}
	if _, err := FromSession(t.Context(), st, "no-such-session", opts()); err == nil {
		t.Error("an unknown session: no error")
	}
}

// largest returns the largest trajectory file of the shared data.
func largest(t testing.TB) string {
	t.Helper()
	best, size := "", int64(-1)
	for _, f := range sharedtest.Files(t) {
		if st, err := os.Stat(f); err == nil && st.Size() > size {
			best, size = f, st.Size()
		}
	}
	return best
}

// cliOptions are `agentctx report`'s defaults.
func cliOptions() replay.Options {
	return replay.Options{LimitToolResults: true, Reminders: true, WorkingMemory: true}
}

// TestLargestFile reports the largest real trajectory and checks it
// against a plain replay of it: observing the calls changes nothing.
func TestLargestFile(t *testing.T) {
	t.Parallel()
	file := largest(t)
	trs, err := transcript.ReadFile(file, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Run(context.Background(), trs[0], cliOptions())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := FromTrajectory(t.Context(), trs[0], cliOptions())
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, res)
	if rep.Title != file {
		t.Errorf("title %q", rep.Title)
	}
}
