package replay_test

import (
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/agentctx/agentctx/transcript"
)

// BenchmarkReplayReads replays every trajectory of the shared data
// folder as `agentctx replay` does (limiter, working memory, reminders;
// budget 8,000: compaction removes calls) and reports how often the
// Engine read its input: classify/call, the tool calls [tooluse.Classify]
// read per distinct tool call of the trajectory, and counted/byte, the
// bytes the counter counted ([token.BPE.Counted]) per byte of the
// trajectory's content (what [token.Message] counts of each message,
// once). Issue 29's budget is one reading of each call and each text:
// scripts/bench.sh fails its report when classify/call or counted/byte
// exceeds 1 (the extras' own texts, reminders and the working memory's
// context, count against it too).
func BenchmarkReplayReads(b *testing.B) {
	eachSharedTrajectory(b, func(name string, tr *transcript.Trajectory) {
		c, err := model.Counter(model.Lookup(tr.Model))
		if err != nil {
			b.Fatal(err)
		}
		bpe, ok := c.(*token.BPE)
		if !ok {
			b.Skipf("%s: counter %T is not a BPE", name, c)
		}
		var content byteCounter
		calls := map[string]bool{}
		for _, m := range tr.Messages {
			token.Message(&content, token.OpenAIOverhead, m)
			for _, p := range m.Parts {
				if tc, ok := p.(chat.ToolCall); ok {
					calls[tc.ID+"\x00"+tc.Name+"\x00"+string(tc.Arguments)] = true
				}
			}
		}
		b.Run(name, func(b *testing.B) {
			var classified, counted int64
			for b.Loop() {
				c0, n0 := tooluse.Classified(), bpe.Counted()
				if _, err := replay.Run(b.Context(), tr, replay.Options{Budget: 8000,
					LimitToolResults: true, WorkingMemory: true, Reminders: true}); err != nil {
					b.Fatal(err)
				}
				classified += tooluse.Classified() - c0
				counted += bpe.Counted() - n0
			}
			runs := float64(b.N)
			if len(calls) > 0 {
				b.ReportMetric(float64(classified)/runs/float64(len(calls)), "classify/call")
			}
			if content.n > 0 {
				b.ReportMetric(float64(counted)/runs/float64(content.n), "counted/byte")
			}
		})
	})
}

// byteCounter is a token.Counter that counts bytes: what token.Message
// counts of a message.
type byteCounter struct{ n int64 }

func (c *byteCounter) Count(s string) int {
	c.n += int64(len(s))
	return len(s)
}

func (c *byteCounter) Name() string { return "bytes" }
