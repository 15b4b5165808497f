package session_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/session"
	"github.com/google/go-cmp/cmp"
)

// checkInputs are transcripts whose reports CheckReader must give exactly
// as Check does: real Claude Code lines, hand-made lines of every kind,
// the damaged chains, long strings, and compaction snapshots whole, torn
// and followed by later appends.
func checkInputs(t testing.TB) map[string][]byte {
	in := map[string][]byte{}
	rl, chunk := realLines(), 400
	if fuzzing() {
		chunk = 6 // small seeds mutate fast
	}
	for i := 0; i < len(rl); i += chunk {
		in[fmt.Sprintf("real %d", i)] = bytes.Join(rl[i:min(i+chunk, len(rl))], []byte("\n"))
	}
	in["hand"] = bytes.Join(handLines(t), []byte("\n"))
	for _, c := range damagedChains(t) {
		in["damaged: "+c.name] = c.data
	}
	line := func(e session.Entry) string {
		l, err := session.MarshalLine(e)
		if err != nil {
			t.Fatal(err)
		}
		return string(l)
	}
	long := strings.Repeat(`long "text" \ with escapes `, 40)
	ent := func(m chat.Message, uuid, parent string) string {
		e := mustEntry(t, m)
		e.UUID, e.ParentUUID = uuid, parent
		return line(e)
	}
	boundary := func(uuid, logical string, n int) string {
		return line(session.Entry{Type: session.TypeSystem, Subtype: session.SubtypeCompactBoundary, UUID: uuid,
			LogicalParentUUID: logical, CompactMetadata: &session.CompactMetadata{Trigger: "auto", Messages: n}})
	}
	u1 := ent(user(long), "u1", "")
	c1 := ent(call("c1", "Bash", `{"command":"`+strings.Repeat("x", 200)+`"}`), "a1", "u1")
	r1 := ent(chat.NewToolResult("c1", "Bash", long, false), "r1", "a1")
	b1 := boundary("b1", "r1", 2)
	s1 := ent(user("summary: "+long), "s1", "b1")
	s2 := ent(asst(long), "s2", "s1")
	after := ent(user("go on "+long), "u2", "s2")
	torn := s2[:len(s2)/2]
	in["long strings"] = lines(u1, c1, r1)
	in["snapshot whole"] = lines(u1, c1, r1, b1, s1, s2, after)
	in["snapshot torn, appended after"] = lines(u1, c1, r1, b1, s1, torn, after)
	in["snapshot torn at the end"] = append(lines(u1, c1, r1, b1, s1), torn...)
	in["orphan result"] = lines(u1, ent(chat.NewToolResult("zz", "Bash", long, false), "r9", "u1"))
	return in
}

// TestCheckReaderMatchesCheck: CheckReader, which keeps each entry with
// its long strings cut and without its line, reports exactly what Check
// reports on the entries Read returns.
func TestCheckReaderMatchesCheck(t *testing.T) {
	t.Parallel()
	for name, data := range checkInputs(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			es, ps := read(t, "s.jsonl", data)
			want := session.Check(es, ps)
			want.SetFile("s.jsonl")
			got, err := session.CheckReader(bytes.NewReader(data), session.ReadOptions{File: "s.jsonl", FirstLine: 1})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("CheckReader report (-Check +CheckReader):\n%s", diff)
			}
		})
	}
}

// FuzzCheckReader: on any input, CheckReader gives Check's report.
func FuzzCheckReader(f *testing.F) {
	for _, data := range checkInputs(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		es, ps, err := session.Read(bytes.NewReader(data), session.ReadOptions{File: "f", FirstLine: 1})
		if err != nil {
			t.Fatal(err)
		}
		want := session.Check(es, ps)
		want.SetFile("f")
		got, err := session.CheckReader(bytes.NewReader(data), session.ReadOptions{File: "f", FirstLine: 1})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("CheckReader report (-Check +CheckReader):\n%s", diff)
		}
	})
}

// writeBigSession writes an agentctx session of about size bytes: turns
// of a prompt, a tool call and an 8 KB tool result.
func writeBigSession(t testing.TB, path string, size int) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	out := strings.Repeat("line of tool output with \"quotes\" and \\backslashes\\\n", 8<<10/52)
	parent, n := "", 0
	for i := 0; n < size; i++ {
		id := fmt.Sprintf("c%d", i)
		for k, m := range []chat.Message{user(fmt.Sprintf("step %d", i)), call(id, "Bash", `{"command":"make"}`), chat.NewToolResult(id, "Bash", out, false)} {
			e := mustEntry(t, m)
			e.UUID, e.ParentUUID = fmt.Sprintf("e%d-%d", i, k), parent
			parent = e.UUID
			l, err := session.MarshalLine(e)
			if err != nil {
				t.Fatal(err)
			}
			k, _ := w.Write(append(l, '\n'))
			n += k
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCheckFileBoundedMemory checks a generated 50 MB session (20 MB
// under the race detector) and asserts that the heap stays proportional to
// the number of entries, not to their size: CheckFile keeps entries
// without their text. Check of the entries ReadFile returns holds the
// whole file and every message (more than twice the limit). GC
// runs at GOGC=20 so that the peak measures what is held; the test does
// not run in parallel.
func TestCheckFileBoundedMemory(t *testing.T) {
	size := 50 << 20
	if raceEnabled {
		size = 20 << 20
	}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	writeBigSession(t, path, size)
	defer debug.SetGCPercent(debug.SetGCPercent(20))

	stop := sharedtest.HeapPeak()
	rep, err := session.CheckFile(path)
	peak, base := stop()
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Entries < 3*(size/(10<<10)) {
		t.Fatalf("report: %d entries, problems %v", rep.Entries, rep.Problems)
	}
	runtime.KeepAlive(rep)
	held := peak - base
	t.Logf("%d MiB session, %d entries: peak heap %d MiB above the start", size>>20, rep.Entries, held>>20)
	// What an entry costs without its text: the Entry, its copy in the
	// resolved conversation, its message without text, the chain's index.
	if limit := uint64(rep.Entries)*1536 + 8<<20; held > limit {
		t.Errorf("peak heap %d MiB while checking a %d MiB session of %d entries: more than 1.5 KiB per entry + 8 MiB (%d MiB); the entries are held whole", held>>20, size>>20, rep.Entries, limit>>20)
	}
}

// BenchmarkCheckHuge checks Claude Code sessions of 100 MB and 1 GB made
// from the shared data's largest session (sharedtest.WriteHuge): with
// CheckFile (what `sessions check` runs) and, for comparison, with Check
// of the entries ReadFile returns. It reports MB/s and the peak heap
// above the start (peak-MiB).
func BenchmarkCheckHuge(b *testing.B) {
	for _, size := range []int64{100 << 20, 1 << 30} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			path, n := sharedtest.HugeClaudeCode(b, b.TempDir(), size)
			for _, how := range []string{"CheckFile", "ReadFile+Check"} {
				b.Run(how, func(b *testing.B) {
					b.SetBytes(n)
					var peak uint64
					for b.Loop() {
						stop := sharedtest.HeapPeak()
						var rep session.Report
						var err error
						if how == "CheckFile" {
							rep, err = session.CheckFile(path)
						} else {
							var es []session.Entry
							var ps []session.Problem
							es, ps, err = session.ReadFile(path)
							rep = session.Check(es, ps)
						}
						p, base := stop()
						if err != nil || !rep.OK() {
							b.Fatalf("report %v, problems %v", err, rep.Problems)
						}
						peak = max(peak, p-base)
					}
					b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
				})
			}
		})
	}
}
