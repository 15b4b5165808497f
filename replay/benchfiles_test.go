package replay_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/transcript"
)

// BenchmarkReplayFiles replays every trajectory of the shared data folder,
// reading excluded, at 8,000 and 32,000 tokens, bare (the window and the
// tiered strategy only) and as `agentctx replay` does (limiter, working
// memory and reminders on): issue 15's "extras add at most 50 %" pair for
// each file, in one run. Sub-benchmark names are
// FILE#INDEX/budget=B/{bare,extras}, FILE relative to the data folder.
func BenchmarkReplayFiles(b *testing.B) {
	eachSharedTrajectory(b, func(name string, tr *transcript.Trajectory) {
		if _, err := model.Counter(model.Lookup(tr.Model)); err != nil { // the vocabulary outside the timer
			b.Fatal(err)
		}
		for _, budget := range []int{8000, 32000} {
			for _, extras := range []bool{false, true} {
				kind := "bare"
				if extras {
					kind = "extras"
				}
				b.Run(name+"/budget="+strconv.Itoa(budget)+"/"+kind, func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						opts := replay.Options{Budget: budget,
							LimitToolResults: extras, WorkingMemory: extras, Reminders: extras}
						if _, err := replay.Run(b.Context(), tr, opts); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	})
}

// eachSharedTrajectory calls f for every trajectory of the shared data
// folder, named FILE (relative to the folder, '/' as ':') and #INDEX when
// the file holds several: the sub-benchmark names of the replay
// benchmarks.
func eachSharedTrajectory(b *testing.B, f func(name string, tr *transcript.Trajectory)) {
	root := sharedtest.Dir(b)
	for _, file := range sharedtest.Files(b) {
		trs, err := transcript.ReadFile(file, transcript.Options{})
		if err != nil {
			b.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		rel = strings.ReplaceAll(rel, "/", ":")
		for i, tr := range trs {
			name := rel
			if len(trs) > 1 {
				name += "#" + strconv.Itoa(i)
			}
			f(name, tr)
		}
	}
}
