package replay_test

import (
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/transcript"
)

// BenchmarkReplayLargest replays the largest example, the 2.9 MB Claude
// Code session (1,593 lines, 323 messages, 143 model calls), reading
// excluded, at a small budget (much compaction) and at the default one.
func BenchmarkReplayLargest(b *testing.B) {
	file := filepath.Join(sharedtest.Dir(b), "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	trs, err := transcript.ReadFile(file, transcript.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := model.Counter(model.Lookup(trs[0].Model)); err != nil { // build the vocabulary outside the timer
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name     string
		budget   int
		strategy compact.Strategy
		// extras replays as `agentctx replay` does: limiter, working
		// memory and reminders on.
		extras bool
	}{
		{"tiered/budget=8000", 8000, &compact.Tiered{}, false},
		{"mask/budget=8000", 8000, &compact.Mask{}, false},
		{"tiered/default", 0, &compact.Tiered{}, false},
		{"tiered/budget=16000/engine-extras", 16000, &compact.Tiered{}, true},
		// The extras' cost (issue 15: at most +50 %): the same replay
		// bare and with limiter, working memory and reminders.
		{"tiered/budget=32000/bare", 32000, &compact.Tiered{}, false},
		{"tiered/budget=32000/engine-extras", 32000, &compact.Tiered{}, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				opts := replay.Options{Budget: bc.budget, Strategy: bc.strategy,
					LimitToolResults: bc.extras, WorkingMemory: bc.extras, Reminders: bc.extras}
				if _, err := replay.Run(b.Context(), trs[0], opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadAndReplayLargest includes reading the file.
func BenchmarkReadAndReplayLargest(b *testing.B) {
	file := filepath.Join(sharedtest.Dir(b), "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	b.ReportAllocs()
	for b.Loop() {
		trs, err := transcript.ReadFile(file, transcript.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := replay.Run(b.Context(), trs[0], replay.Options{Budget: 8000}); err != nil {
			b.Fatal(err)
		}
	}
}
