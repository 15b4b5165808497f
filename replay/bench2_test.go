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

// BenchmarkReplayEngine replays the largest example as `agentctx replay`
// does: limiter, working memory and reminders on.
func BenchmarkReplayEngine(b *testing.B) {
	file := filepath.Join(sharedtest.Dir(b), "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	trs, err := transcript.ReadFile(file, transcript.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := model.Counter(model.Lookup(trs[0].Model)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := replay.Run(b.Context(), trs[0], replay.Options{Budget: 16000, Strategy: &compact.Tiered{},
			LimitToolResults: true, WorkingMemory: true, Reminders: true}); err != nil {
			b.Fatal(err)
		}
	}
}
