package transcript_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/transcript"
)

// writeSyntheticClaudeCode writes a Claude Code session of about size
// bytes: turns of a prompt, a tool call and an 8 KB tool result, which
// Claude Code stores twice (message.content and toolUseResult), as real
// files do. It returns the number of messages a reader must return.
func writeSyntheticClaudeCode(tb testing.TB, path string, size int) int {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	out := strings.Repeat(`line of tool output with \"quotes\" and \\backslashes\\ `, 8<<10/56)
	n, msgs := 0, 0
	parent := "null"
	for i := 0; n < size; i++ {
		u, a, r := fmt.Sprintf(`"u%d"`, i), fmt.Sprintf(`"a%d"`, i), fmt.Sprintf(`"r%d"`, i)
		lines := []string{
			fmt.Sprintf(`{"type":"user","sessionId":"s","uuid":%s,"parentUuid":%s,"cwd":"/p","timestamp":"2026-02-10T21:11:56.846Z","message":{"role":"user","content":"step %d"}}`, u, parent, i),
			fmt.Sprintf(`{"type":"assistant","sessionId":"s","uuid":%s,"parentUuid":%s,"timestamp":"2026-02-10T21:11:57.846Z","message":{"id":"m%d","model":"claude-x","role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"make %d"}}],"usage":{"input_tokens":3,"cache_read_input_tokens":%d,"output_tokens":40}}}`, a, u, i, i, i, 1000+i),
			fmt.Sprintf(`{"type":"user","sessionId":"s","uuid":%s,"parentUuid":%s,"timestamp":"2026-02-10T21:11:58.846Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"%s"}]},"toolUseResult":{"stdout":"%s","stderr":""}}`, r, a, i, out, out),
		}
		for _, l := range lines {
			k, _ := w.WriteString(l + "\n")
			n += k
		}
		msgs += 3
		parent = r
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return msgs
}

// TestReadHugeBoundedMemory reads a generated 50 MB Claude Code session
// (20 MB under the race detector) and asserts that the heap never holds
// much more than what the reader returns: the input is streamed, not
// read whole and not kept line by line. Reading it whole (the input, its
// lines and their decoded records at once) takes more than twice the
// result. GC runs at GOGC=20 during the read so that the peak measures
// what is held, not garbage; the test does not run in parallel.
func TestReadHugeBoundedMemory(t *testing.T) {
	size := 50 << 20
	if raceEnabled {
		size = 20 << 20
	}
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	want := writeSyntheticClaudeCode(t, path, size)
	defer debug.SetGCPercent(debug.SetGCPercent(20))

	stop := sharedtest.HeapPeak()
	trs, err := transcript.ReadFile(path, transcript.Options{})
	peak, base := stop()
	if err != nil {
		t.Fatal(err)
	}
	live := sharedtest.HeapLive() - base
	if len(trs) != 1 || len(trs[0].Messages) != want || len(trs[0].Problems) != 0 {
		t.Fatalf("read %d trajectories, %d messages, problems %v; want 1, %d, none", len(trs), len(trs[0].Messages), trs[0].Problems, want)
	}
	runtime.KeepAlive(trs)
	held := peak - base
	t.Logf("input %d MiB, result %d MiB, peak heap %d MiB above the start", size>>20, live>>20, held>>20)
	if limit := live*3/2 + 16<<20; held > limit {
		t.Errorf("peak heap %d MiB while reading a %d MiB session whose result holds %d MiB: more than 1.5x the result + 16 MiB (%d MiB); the input is held whole", held>>20, size>>20, live>>20, limit>>20)
	}
}

// BenchmarkReadHuge reads Claude Code sessions of 100 MB and 1 GB made
// from the shared data's largest session (sharedtest.WriteHuge) with
// ReadFile. It reports MB/s of the file, the peak heap above the start
// (peak-MiB), the heap the returned trajectory holds (result-MiB) and
// their ratio (peak/result), the memory bound of streaming: at most the
// result plus a line.
func BenchmarkReadHuge(b *testing.B) {
	for _, size := range []int64{100 << 20, 1 << 30} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			path, n := sharedtest.HugeClaudeCode(b, b.TempDir(), size)
			b.SetBytes(n)
			var peak, result uint64
			for b.Loop() {
				stop := sharedtest.HeapPeak()
				trs, err := transcript.ReadFile(path, transcript.Options{})
				p, base := stop()
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				result = sharedtest.HeapLive() - base
				runtime.KeepAlive(trs)
				trs = nil
				peak = max(peak, p-base)
				b.StartTimer()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			b.ReportMetric(float64(result)/(1<<20), "result-MiB")
			b.ReportMetric(float64(peak)/float64(max(result, 1)), "peak/result")
		})
	}
}
