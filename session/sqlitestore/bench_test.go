package sqlitestore_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/session/sqlitestore"
)

// text returns about n bytes of code-like text.
func text(n int, seed int) string {
	unit := fmt.Sprintf("func f%d(x int) int { return x * %d } // \"quoted\" <tag>\n", seed, seed)
	return strings.Repeat(unit, n/len(unit)+1)[:n]
}

// turn returns the entries of one agent turn, as jsonlstore's benchmarks
// do: a prompt, four tool rounds, a final answer (about 1.5 KB an
// entry).
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

// BenchmarkAppend measures Append of one entry per call (the mix of
// turn), under each sync policy, as jsonlstore's BenchmarkAppend does.
func BenchmarkAppend(b *testing.B) {
	es := turn(b, 1)
	for _, policy := range []jsonlstore.SyncPolicy{jsonlstore.SyncNever, jsonlstore.SyncTurn, jsonlstore.SyncAlways} {
		b.Run(policy.String(), func(b *testing.B) {
			s := open(b, sqlitestore.Options{Path: filepath.Join(b.TempDir(), "s.db"), Sync: policy})
			sess := newSession(b, s)
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

// BenchmarkLoad10k loads a session of 10,000 entries (about 15 MB): all
// of it, and the live part when a compaction sits 100 entries from the
// end (only those rows are read).
func BenchmarkLoad10k(b *testing.B) {
	s := open(b, sqlitestore.Options{Path: filepath.Join(b.TempDir(), "s.db"), Sync: jsonlstore.SyncNever})
	gen := func(boundary bool) string {
		sess := newSession(b, s)
		var batch []session.Entry
		for i := 0; len(batch) < 10000; i++ {
			batch = append(batch, turn(b, i)...)
		}
		batch = batch[:10000]
		if boundary {
			batch = append(batch[:9900], append([]session.Entry{boundaryEntry(1), summaryEntry(b, "summary")}, batch[9900:9998]...)...)
		}
		if _, err := s.Append(b.Context(), sess.ID, batch...); err != nil {
			b.Fatal(err)
		}
		return sess.ID
	}
	for _, c := range []struct {
		name     string
		boundary bool
		all      bool
	}{{"all", false, true}, {"live", true, false}} {
		id := gen(c.boundary)
		b.Run(c.name, func(b *testing.B) {
			n := 0
			for b.Loop() {
				tr, err := s.Load(b.Context(), id, session.LoadOptions{All: c.all})
				if err != nil {
					b.Fatal(err)
				}
				n = len(tr.Entries)
			}
			b.ReportMetric(float64(n), "entries")
		})
	}
}

// BenchmarkAppendTurnEnds measures durable appends (turn ends, under
// the default SyncTurn) from 16 writers on sessions of their own at
// once, as a server's sessions end their turns: each Append returns
// once an fsync of the log covers it, and the writers' appends share
// fsyncs (group commit).
func BenchmarkAppendTurnEnds(b *testing.B) {
	s := open(b, sqlitestore.Options{Path: filepath.Join(b.TempDir(), "s.db")})
	end := msgEntry(b, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: text(600, 1)}}})
	if !session.EndsTurn(&end) {
		b.Fatal("the entry does not end a turn")
	}
	b.SetParallelism(8) // 16 writers on 2 cores
	b.RunParallel(func(pb *testing.PB) {
		sess := newSession(b, s)
		for pb.Next() {
			if _, err := s.Append(b.Context(), sess.ID, end); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}

// BenchmarkAppendSnapshot measures the append a compaction makes: its
// boundary and the window after it, 60 entries of turn's mix (about
// 90 KB), as session.Recorder.Compacted writes them; each append goes to
// the same session, as a session's compactions do.
func BenchmarkAppendSnapshot(b *testing.B) {
	s := open(b, sqlitestore.Options{Path: filepath.Join(b.TempDir(), "s.db"), Sync: jsonlstore.SyncNever})
	sess := newSession(b, s)
	var window []session.Entry
	for i := 0; len(window) < 60; i++ {
		window = append(window, turn(b, i)...)
	}
	snap := append([]session.Entry{boundaryEntry(60)}, window[:60]...)
	size := 0
	for _, e := range snap {
		size += len(e.Message)
		if e.ToolResult != nil {
			size += len(e.ToolResult.Output)
		}
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		if _, err := s.Append(b.Context(), sess.ID, snap...); err != nil {
			b.Fatal(err)
		}
	}
}
