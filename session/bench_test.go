package session_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/window"
)

// benchTranscript returns an agentctx transcript of n message entries in
// rounds (an assistant call, its result, now and then a user prompt).
func benchTranscript(b *testing.B, n int) []byte {
	b.Helper()
	var es []session.Entry
	parent := ""
	for i := 0; len(es) < n; i++ {
		id := fmt.Sprint("c", i)
		for _, m := range []chat.Message{
			user(fmt.Sprintf("prompt %d: fix the failing test in package window", i)),
			call(id, "Bash", `{"command":"go test ./window/"}`),
			chat.NewToolResult(id, "Bash", fmt.Sprintf("--- FAIL: TestAdd%d (0.00s)\n    window_test.go:42: got 3, want 4\nFAIL", i), false),
		} {
			e := mustEntry(b, m)
			e.UUID, e.ParentUUID, e.SessionID = session.NewID(), parent, "s"
			parent = e.UUID
			es = append(es, e)
		}
	}
	return marshalAll(b, es)
}

// BenchmarkRead reads a 30,000-entry transcript; MB/s is of the file.
func BenchmarkRead(b *testing.B) {
	data := benchTranscript(b, 30_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := session.Read(bytes.NewReader(data), session.ReadOptions{FirstLine: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolve resolves 100,000 entries: a sound chain, and one whose
// every link is broken (each fallback to the previous entry O(1)).
func BenchmarkResolve(b *testing.B) {
	for _, broken := range []bool{false, true} {
		b.Run(fmt.Sprintf("broken=%v", broken), func(b *testing.B) {
			es := make([]session.Entry, 100_000)
			for i := range es {
				es[i] = session.Entry{UUID: fmt.Sprint("e", i), Type: session.TypeUser, Line: i + 1}
				if i > 0 {
					es[i].ParentUUID = es[i-1].UUID
				}
				if broken {
					es[i].ParentUUID = fmt.Sprint("x", i)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				session.Resolve(es)
			}
		})
	}
}

// BenchmarkRestore restores a window from 30,000 resolved entries.
func BenchmarkRestore(b *testing.B) {
	es, _, err := session.Read(bytes.NewReader(benchTranscript(b, 30_000)), session.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	res, _ := session.Resolve(es)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := session.Restore(res, window.Options{Counter: quarterCounter{}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkObserve updates metadata from 30,000 entries, as a store does
// on load.
func BenchmarkObserve(b *testing.B) {
	es, _, err := session.Read(bytes.NewReader(benchTranscript(b, 30_000)), session.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var s session.Session
		for _, e := range es {
			s.Observe(e)
		}
	}
}
