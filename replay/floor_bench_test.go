package replay_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/transcript"
)

// BenchmarkReplayFloor measures, for every file of the shared data
// folder, `agentctx replay FILE` in process (reading the file from
// memory, then replaying each trajectory at the model's window with the
// limiter, working memory and reminders, as the command does) against
// its floor: reading the file and counting every message once with the
// model's counter ([token.Messages]), which no replay can do without.
// Each iteration runs both; it reports ms/floor, ms/replay and x-floor,
// the replay over its floor (the target is at most 1.5). Process start-up,
// the same for both, is left out (docs/performance.md gives it).
func BenchmarkReplayFloor(b *testing.B) {
	root := sharedtest.Dir(b)
	for _, file := range sharedtest.Files(b) {
		data, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		trs, err := transcript.Read(bytes.NewReader(data), file, transcript.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, tr := range trs {
			if _, err := model.Counter(model.Lookup(tr.Model)); err != nil { // the vocabulary outside the timer
				b.Fatal(err)
			}
		}
		rel, _ := filepath.Rel(root, file)
		b.Run(strings.ReplaceAll(rel, "/", ":"), func(b *testing.B) {
			var tFloor, tReplay time.Duration
			for b.Loop() {
				start := time.Now()
				trs, err := transcript.Read(bytes.NewReader(data), file, transcript.Options{})
				if err != nil {
					b.Fatal(err)
				}
				for _, tr := range trs {
					m := model.Lookup(tr.Model)
					c, err := model.Counter(m)
					if err != nil {
						b.Fatal(err)
					}
					token.Messages(c, token.OpenAIOverhead, tr.Messages)
				}
				mid := time.Now()
				trs, err = transcript.Read(bytes.NewReader(data), file, transcript.Options{})
				if err != nil {
					b.Fatal(err)
				}
				for _, tr := range trs {
					if _, err := replay.Run(b.Context(), tr, replay.Options{
						LimitToolResults: true, WorkingMemory: true, Reminders: true}); err != nil {
						b.Fatal(err)
					}
				}
				tFloor += mid.Sub(start)
				tReplay += time.Since(mid)
			}
			n := float64(b.N)
			b.ReportMetric(float64(tFloor.Microseconds())/n/1000, "ms/floor")
			b.ReportMetric(float64(tReplay.Microseconds())/n/1000, "ms/replay")
			b.ReportMetric(float64(tReplay)/float64(tFloor), "x-floor")
		})
	}
}
