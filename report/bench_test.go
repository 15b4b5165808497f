package report

import (
	"io"
	"testing"

	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/replay"
)

// BenchmarkReplayOnly and BenchmarkReport replay the same 1,000-call
// trajectory, plainly and for a report (each call observed, the page
// written): the difference is what the report costs.
func BenchmarkReplayOnly(b *testing.B) {
	tr := synthetic(1000)
	for b.Loop() {
		s, _ := compact.ParseStrategy("summarize", nil)
		if _, err := replay.Run(b.Context(), tr, replay.Options{Budget: 6000, Strategy: s, LimitToolResults: true, Reminders: true, WorkingMemory: true, Steps: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReport(b *testing.B) {
	tr := synthetic(1000)
	for b.Loop() {
		s, _ := compact.ParseStrategy("summarize", nil)
		rep, err := FromTrajectory(b.Context(), tr, replay.Options{Budget: 6000, Strategy: s, LimitToolResults: true, Reminders: true, WorkingMemory: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := Write(io.Discard, rep); err != nil {
			b.Fatal(err)
		}
	}
}
