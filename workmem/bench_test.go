package workmem

import (
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/agentctx/agentctx/transcript"
)

// BenchmarkObserveLargest feeds the messages of the shared data's largest
// Claude Code session (2.9 MB) to a working memory, as the Engine does
// on Add: what observing costs, rendering and counting excluded.
func BenchmarkObserveLargest(b *testing.B) {
	trs, err := transcript.ReadFile(filepath.Join(sharedtest.Dir(b), sharedtest.BigClaudeCode), transcript.Options{})
	if err != nil {
		b.Fatal(err)
	}
	c, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	msgs := trs[0].Messages
	b.ReportAllocs()
	for b.Loop() {
		var uses tooluse.Recent
		a := New(firstUser(msgs), Options{Counter: c, Classify: uses.Classify})
		for _, m := range msgs {
			a.ObserveMessage(m)
		}
	}
}

// BenchmarkToJSONLargest encodes the working memory of the shared data's
// largest Claude Code session once it has observed every message, as an
// Engine saves it at a compaction: its settled rounds' JSON is kept
// between two saves, as in a session, where one or two rounds close
// between compactions.
func BenchmarkToJSONLargest(b *testing.B) {
	trs, err := transcript.ReadFile(filepath.Join(sharedtest.Dir(b), sharedtest.BigClaudeCode), transcript.Options{})
	if err != nil {
		b.Fatal(err)
	}
	msgs := trs[0].Messages
	var uses tooluse.Recent
	a := New(firstUser(msgs), Options{Classify: uses.Classify})
	for _, m := range msgs {
		a.ObserveMessage(m)
	}
	js, err := a.ToJSON()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.ToJSON(); err != nil {
			b.Fatal(err)
		}
	}
}
