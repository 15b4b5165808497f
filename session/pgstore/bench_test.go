package pgstore_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/pgtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/pgstore"
)

// benchEntries returns n entries of about 1.5 KB each, alternating user
// prompts and assistant replies, as jsonlstore's BenchmarkAppend.
func benchEntries(b *testing.B, n int) []session.Entry {
	pad := strings.Repeat("some tool output line\n", 64)
	es := make([]session.Entry, n)
	for i := range es {
		role := chat.RoleUser
		if i%2 == 1 {
			role = chat.RoleAssistant
		}
		es[i] = msgEntry(b, chat.NewText(role, fmt.Sprint(i, pad)))
	}
	return es
}

// BenchmarkAppend measures Append throughput on the local server, one
// transaction per Append (committed, so durable), with batches of 1 and
// 10 entries of ~1.5 KB; entries/s is the figure to compare with
// jsonlstore's BenchmarkAppend.
func BenchmarkAppend(b *testing.B) {
	for _, batch := range []int{1, 10} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			s := open(b, pgstore.Options{Schema: pgtest.Schema(b, "test_")})
			sess := newSession(b, s)
			es := benchEntries(b, batch)
			b.SetBytes(int64(batch * 1500))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := s.Append(b.Context(), sess.ID, es...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "entries/s")
		})
	}
}

// BenchmarkAppendParallel measures Append throughput with 8 writers on 8
// sessions (commits overlap, as on a server), batch 1.
func BenchmarkAppendParallel(b *testing.B) {
	s := open(b, pgstore.Options{Schema: pgtest.Schema(b, "test_"), MaxConns: 8})
	es := benchEntries(b, 1)
	ids := make(chan string, 64)
	for range 64 {
		ids <- newSession(b, s).ID
	}
	b.SetParallelism(8)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		id := <-ids
		for pb.Next() {
			if _, err := s.Append(b.Context(), id, es...); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}

// BenchmarkLoad10k measures Load of a 10,000-entry session (~15 MB):
// the whole of it (All, or a live part without a boundary) and the live
// part after a compaction 100 entries before the end.
func BenchmarkLoad10k(b *testing.B) {
	s := open(b, pgstore.Options{Schema: pgtest.Schema(b, "test_")})
	plain, compacted := newSession(b, s), newSession(b, s)
	es := benchEntries(b, 100)
	for range 100 {
		mustAppend(b, s, plain.ID, es...)
		mustAppend(b, s, compacted.ID, es...)
	}
	mustAppend(b, s, compacted.ID, boundaryEntry(1), assistantMsg(b, "summary"))
	mustAppend(b, s, compacted.ID, es...)
	for _, c := range []struct {
		name string
		id   string
		all  bool
		want int
	}{{"all", plain.ID, true, 10000}, {"live-compacted", compacted.ID, false, 102}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tr, err := s.Load(b.Context(), c.id, session.LoadOptions{All: c.all})
				if err != nil {
					b.Fatal(err)
				}
				if len(tr.Entries) != c.want {
					b.Fatalf("%d entries, want %d", len(tr.Entries), c.want)
				}
			}
		})
	}
}
