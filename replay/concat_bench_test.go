package replay_test

import (
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/transcript"
)

// concatSessionCalls is the size, in model calls, of the session
// [BenchmarkReplayConcat] builds: the real Claude Code session of the
// measurement that found per-call cost growing with the window (1,159
// calls; ten of them concatenated replayed 7.7x slower than one tenth of
// the time allows).
const concatSessionCalls = 1159

// BenchmarkReplayConcat replays, as `agentctx replay` does (limiter,
// working memory, reminders), a Claude Code session of at least 1,159
// model calls made of the shared data's Claude Code trajectories one
// after the other (concatTrajectories), and the ten-session concatenation
// of it, at the model's window and at 16,000 tokens. Each iteration
// replays the one session ten times and the ten sessions once and reports
// ms/one, ms/ten and x-ten (ten sessions over ten times one): 1 is a
// per-call cost that does not grow with the session; the target is at
// most 1.5.
func BenchmarkReplayConcat(b *testing.B) {
	var trs []*transcript.Trajectory
	for _, f := range sharedtest.Files(b) {
		got, err := transcript.ReadFile(f, transcript.Options{})
		if err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		for _, tr := range got {
			if tr.Format == transcript.FormatClaudeCode && len(tr.Messages) > 0 {
				trs = append(trs, tr)
			}
		}
	}
	if len(trs) == 0 {
		b.Fatal("no Claude Code trajectory in the shared data")
	}
	one := &transcript.Trajectory{File: "one.jsonl", Format: transcript.FormatClaudeCode, Model: trs[0].Model}
	concatTrajectories(one, trs, func(t *transcript.Trajectory) bool { return calls(t) >= concatSessionCalls }, 0)
	ten := &transcript.Trajectory{File: "ten.jsonl", Format: transcript.FormatClaudeCode, Model: one.Model}
	concatTrajectories(ten, []*transcript.Trajectory{one}, func(t *transcript.Trajectory) bool { return calls(t) >= 10*calls(one) }, 0)
	if _, err := model.Counter(model.Lookup(one.Model)); err != nil { // the vocabulary outside the timer
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		budget int
	}{{"default", 0}, {"budget=16000", 16000}} {
		b.Run(bc.name, func(b *testing.B) {
			run := func(tr *transcript.Trajectory) time.Duration {
				start := time.Now()
				res, err := replay.Run(b.Context(), tr, replay.Options{Budget: bc.budget,
					LimitToolResults: true, WorkingMemory: true, Reminders: true})
				if err != nil {
					b.Fatal(err)
				}
				if res.Messages != len(tr.Messages) {
					b.Fatalf("replayed %d messages, want %d", res.Messages, len(tr.Messages))
				}
				return time.Since(start)
			}
			var tOne, tTen time.Duration
			for b.Loop() {
				for range 10 {
					tOne += run(one)
				}
				tTen += run(ten)
			}
			n := float64(b.N)
			b.ReportMetric(float64(tOne.Milliseconds())/n/10, "ms/one")
			b.ReportMetric(float64(tTen.Milliseconds())/n, "ms/ten")
			b.ReportMetric(float64(tTen)/float64(tOne), "x-ten")
			b.ReportMetric(float64(calls(one)), "calls/one")
		})
	}
}

// calls counts tr's model calls: its assistant messages.
func calls(tr *transcript.Trajectory) int {
	n := 0
	for _, m := range tr.Messages {
		if m.Role == chat.RoleAssistant {
			n++
		}
	}
	return n
}
