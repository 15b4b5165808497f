package jsonlstore_test

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// text returns about n bytes of code-like text.
func text(n int, seed int) string {
	unit := fmt.Sprintf("func f%d(x int) int { return x * %d } // \"quoted\" <tag>\n", seed, seed)
	return strings.Repeat(unit, n/len(unit)+1)[:n]
}

// turn returns the entries of one agent turn of about 1.5 KB each: a
// prompt, four tool rounds, a final answer.
func turn(tb testing.TB, i int) []session.Entry {
	es := []session.Entry{userMsg(tb, text(300, i))}
	for k := range 4 {
		id := fmt.Sprintf("call-%d-%d", i, k)
		es = append(es,
			msgEntry(tb, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: text(200, k)}, chat.ToolCall{ID: id, Name: "read", Arguments: []byte(`{"path":"pkg/file.go"}`)}}}),
			msgEntry(tb, chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{ToolCallID: id, ToolName: "read", Content: text(2400, k)}}}),
		)
	}
	return append(es, msgEntry(tb, chat.Message{Role: chat.RoleAssistant, Model: "m", Usage: &chat.Usage{InputTokens: 1000}, Parts: []chat.Part{chat.Text{Text: text(600, i)}}}))
}

// BenchmarkAppend measures Append of one entry (a realistic mix of 1.5 KB
// on average) per call, under each sync policy. SyncTurn fsyncs once per
// 10 entries (one turn).
func BenchmarkAppend(b *testing.B) {
	es := turn(b, 1)
	size := 0
	for _, e := range es {
		line, _ := session.MarshalLine(e)
		size += len(line) + 1
	}
	for _, policy := range []jsonlstore.SyncPolicy{jsonlstore.SyncNever, jsonlstore.SyncTurn, jsonlstore.SyncAlways} {
		b.Run(policy.String(), func(b *testing.B) {
			s := open(b, jsonlstore.Options{Sync: policy})
			sess := newSession(b, s)
			b.SetBytes(int64(size / len(es)))
			i := 0
			for b.Loop() {
				if _, err := s.Append(b.Context(), sess.ID, es[i%len(es)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

// BenchmarkLoad100MB loads a generated session of about 100 MB: with a
// compaction near the end (the live part is about 1 MB) and without one
// (everything is live). MB/s is of the whole file; peak-MiB is the highest
// heap in use sampled during the loads.
func BenchmarkLoad100MB(b *testing.B) {
	root := b.TempDir()
	w := open(b, jsonlstore.Options{Root: root, Sync: jsonlstore.SyncNever})
	const target = 100 << 20
	gen := func(withBoundary bool) (string, int64) {
		sess := newSession(b, w)
		var batch []session.Entry
		for i := 0; ; i++ {
			batch = append(batch, turn(b, i)...)
			if len(batch) < 500 {
				continue
			}
			if _, err := w.Append(b.Context(), sess.ID, batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
			size := fileSizeOf(b, w, sess.ID)
			if withBoundary && size > target-(1<<20) {
				live := append([]session.Entry{boundaryEntry(2), summaryEntry(b, text(4000, 0))}, userMsg(b, "go on"))
				if _, err := w.Append(b.Context(), sess.ID, live...); err != nil {
					b.Fatal(err)
				}
				withBoundary = false
			}
			if size > target {
				return sess.ID, size
			}
		}
	}
	type fixture struct {
		name string
		id   string
		size int64
	}
	var fs []fixture
	for _, withBoundary := range []bool{true, false} {
		id, size := gen(withBoundary)
		name := "no-boundary"
		if withBoundary {
			name = "boundary-near-end"
		}
		fs = append(fs, fixture{name, id, size})
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	for _, f := range fs {
		b.Run(f.name, func(b *testing.B) {
			s := open(b, jsonlstore.Options{Root: root})
			b.SetBytes(f.size)
			peak := sharedtest.HeapPeak()
			n := 0
			for b.Loop() {
				tr, err := s.Load(b.Context(), f.id, session.LoadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				n = len(tr.Entries)
			}
			p, _ := peak()
			b.ReportMetric(float64(p)/(1<<20), "peak-MiB")
			b.ReportMetric(float64(n), "entries")
		})
	}
}

func fileSizeOf(b *testing.B, s *jsonlstore.Store, id string) int64 {
	return fileSize(b, mustPath(b, s, id))
}

// BenchmarkLoadHuge loads Claude Code sessions of 100 MB and 1 GB made
// from the shared data's largest session (sharedtest.WriteHuge, one
// compaction every 2.9 MB), written into a store's session file. "first"
// is a Load whose sidecar indexes none of the file, which scans the whole
// file for its compact boundaries; "indexed" is a Load with the sidecar
// the store keeps (an Append wrote it), which seeks to the last
// boundary. MB/s is of the whole
// file; peak-MiB is the highest heap above the start during a Load,
// live-MiB what the returned transcript holds (the live tail), and
// peak/live their ratio.
func BenchmarkLoadHuge(b *testing.B) {
	for _, size := range []int64{100 << 20, 1 << 30} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			root := b.TempDir()
			w := open(b, jsonlstore.Options{Root: root})
			id := newSession(b, w).ID
			path := mustPath(b, w, id)
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			huge, n := sharedtest.HugeClaudeCode(b, b.TempDir(), size)
			if err := os.Rename(huge, path); err != nil {
				b.Fatal(err)
			}
			sidecar := strings.TrimSuffix(path, ".jsonl") + ".meta.json"
			empty, err := os.ReadFile(sidecar) // indexes none of the file
			if err != nil {
				b.Fatal(err)
			}
			// An append indexes the file, as the store keeps it.
			a := open(b, jsonlstore.Options{Root: root})
			if _, err := a.Append(b.Context(), id, userMsg(b, "go on")); err != nil {
				b.Fatal(err)
			}
			if err := a.Close(); err != nil {
				b.Fatal(err)
			}
			indexed, err := os.ReadFile(sidecar)
			if err != nil {
				b.Fatal(err)
			}
			for _, how := range []string{"first", "indexed"} {
				b.Run(how, func(b *testing.B) {
					b.SetBytes(n)
					var peak, live uint64
					for b.Loop() {
						b.StopTimer()
						idx := indexed
						if how == "first" {
							idx = empty
						}
						if err := os.WriteFile(sidecar, idx, 0o600); err != nil {
							b.Fatal(err)
						}
						s := open(b, jsonlstore.Options{Root: root})
						b.StartTimer()
						stop := sharedtest.HeapPeak()
						tr, err := s.Load(b.Context(), id, session.LoadOptions{})
						p, base := stop()
						if err != nil {
							b.Fatal(err)
						}
						b.StopTimer()
						peak = max(peak, p-base)
						live = sharedtest.HeapLive() - base
						runtime.KeepAlive(tr)
						if err := s.Close(); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
					}
					b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
					b.ReportMetric(float64(live)/(1<<20), "live-MiB")
					b.ReportMetric(float64(peak)/float64(max(live, 1)), "peak/live")
				})
			}
		})
	}
}
