package replay_test

import (
	"fmt"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/transcript"
)

// TestCheckOracle replays every real trajectory of the shared data folder
// under small budgets (compaction removes, cuts and notes messages) with
// every strategy, and after every operation (each request built, each
// message added) compares the incremental invariant check with the full
// walk, its oracle: both must find the same violations. With CheckEvery
// 1 the replay itself runs the full walk after every call and must report
// what the incremental replay reports.
func TestCheckOracle(t *testing.T) {
	t.Parallel()
	files := sharedtest.Files(t)
	if len(files) == 0 {
		t.Fatal("no trajectory files found in the shared data folder")
	}
	for _, file := range files {
		trs, err := transcript.ReadFile(file, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range trs {
			for _, strat := range []string{"tiered", "mask", "summarize"} {
				t.Run(fmt.Sprintf("%s#%d/%s", file, tr.Index, strat), func(t *testing.T) {
					t.Parallel()
					ops := 0
					run := func(every int, observe func(int, *agentctx.Request, *agentctx.Engine)) *replay.Result {
						s, err := compact.ParseStrategy(strat, nil)
						if err != nil {
							t.Fatal(err)
						}
						res, err := replay.Run(t.Context(), tr, replay.Options{Budget: 4000, Strategy: s, CheckEvery: every,
							LimitToolResults: true, WorkingMemory: true, Reminders: true, Observe: observe})
						if err != nil {
							t.Fatal(err)
						}
						return res
					}
					inc := run(0, func(i int, _ *agentctx.Request, eng *agentctx.Engine) {
						ops++
						if got, want := fmt.Sprint(eng.Check()), fmt.Sprint(eng.CheckFull()); got != want {
							t.Fatalf("after message %d: Check() = %s, CheckFull() = %s", i, got, want)
						}
					})
					full := run(1, nil)
					if ops < len(tr.Messages) {
						t.Fatalf("%d operations checked for %d messages", ops, len(tr.Messages))
					}
					if inc.InvariantViolations != full.InvariantViolations {
						t.Fatalf("%d violations with the incremental check, %d with the full walk", inc.InvariantViolations, full.InvariantViolations)
					}
				})
			}
		}
	}
}
