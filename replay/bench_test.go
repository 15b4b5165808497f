package replay_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/transcript"
)

// BenchmarkReplayLargest replays the largest example, the 2.9 MB Claude
// Code session (1,593 lines, 323 messages, 143 model calls), reading
// excluded, at a small budget (much compaction) and at the default one.
func BenchmarkReplayLargest(b *testing.B) {
	file := filepath.Join(sharedtest.Dir(b), "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	trs, err := transcript.ReadFile(file, transcript.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := model.Counter(model.Lookup(trs[0].Model)); err != nil { // build the vocabulary outside the timer
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name     string
		budget   int
		strategy compact.Strategy
		// extras replays as `agentctx replay` does: limiter, working
		// memory and reminders on.
		extras bool
	}{
		{"tiered/budget=8000", 8000, &compact.Tiered{}, false},
		{"mask/budget=8000", 8000, &compact.Mask{}, false},
		{"tiered/default", 0, &compact.Tiered{}, false},
		{"tiered/budget=16000/engine-extras", 16000, &compact.Tiered{}, true},
		// The extras' cost (issue 15: at most +50 %): the same replay
		// bare and with limiter, working memory and reminders.
		{"tiered/budget=32000/bare", 32000, &compact.Tiered{}, false},
		{"tiered/budget=32000/engine-extras", 32000, &compact.Tiered{}, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				opts := replay.Options{Budget: bc.budget, Strategy: bc.strategy,
					LimitToolResults: bc.extras, WorkingMemory: bc.extras, Reminders: bc.extras}
				if _, err := replay.Run(b.Context(), trs[0], opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadAndReplayLargest includes reading the file.
func BenchmarkReadAndReplayLargest(b *testing.B) {
	file := filepath.Join(sharedtest.Dir(b), "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	b.ReportAllocs()
	for b.Loop() {
		trs, err := transcript.ReadFile(file, transcript.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := replay.Run(b.Context(), trs[0], replay.Options{Budget: 8000}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplay10k replays a 10,000-message trajectory made in the
// benchmark from the real ones in ../shared/data (longTrajectory), reading
// excluded, at a 32,000-token budget, bare and with the extras as
// `agentctx replay` runs (limiter, working memory, reminders). Issue 15's
// target: the whole replay under 2 s. The engine stays incremental: a
// replay of n messages costs O(n), not O(n²).
func BenchmarkReplay10k(b *testing.B) {
	tr := longTrajectory(b, 10_000)
	if _, err := model.Counter(model.Lookup(tr.Model)); err != nil { // build the vocabulary outside the timer
		b.Fatal(err)
	}
	for _, extras := range []bool{false, true} {
		name := "bare"
		if extras {
			name = "engine-extras"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				opts := replay.Options{Budget: 32000, Strategy: &compact.Tiered{},
					LimitToolResults: extras, WorkingMemory: extras, Reminders: extras}
				res, err := replay.Run(b.Context(), tr, opts)
				if err != nil {
					b.Fatal(err)
				}
				if res.Messages != len(tr.Messages) {
					b.Fatalf("replayed %d messages, want %d", res.Messages, len(tr.Messages))
				}
			}
		})
	}
}

// longTrajectory returns a trajectory of n messages made of the real
// trajectories in ../shared/data, one after the other and again from the
// first until there are n: a long session of many tasks (see
// [concatTrajectories]). The model is gpt-4o (exact o200k counts).
func longTrajectory(tb testing.TB, n int) *transcript.Trajectory {
	tb.Helper()
	var trs []*transcript.Trajectory
	for _, f := range sharedtest.Files(tb) {
		got, err := transcript.ReadFile(f, transcript.Options{})
		if err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		for _, tr := range got {
			if len(tr.Messages) > 0 {
				trs = append(trs, tr)
			}
		}
	}
	if len(trs) == 0 {
		tb.Fatal("no trajectory in the shared data")
	}
	out := &transcript.Trajectory{File: "long.jsonl", Format: transcript.FormatOpenAI, Model: "gpt-4o"}
	concatTrajectories(out, trs, func(t *transcript.Trajectory) bool { return len(t.Messages) >= n }, n)
	return out
}

// concatTrajectories appends trs to out one after the other, and again
// from the first, until done(out) holds, stopping at limit messages (no
// limit when 0). Only out's first system message is kept; each copy's
// tool-call ids get a prefix of their own so that every id is unique;
// recorded usage is dropped (it described the original sessions).
func concatTrajectories(out *transcript.Trajectory, trs []*transcript.Trajectory, done func(*transcript.Trajectory) bool, limit int) {
	for k := 0; !done(out); k++ {
		tr := trs[k%len(trs)]
		prefix := fmt.Sprintf("c%d-", k)
		for _, m := range tr.Messages {
			if limit > 0 && len(out.Messages) == limit {
				return
			}
			if m.Role == chat.RoleSystem && len(out.Messages) > 0 {
				continue
			}
			m.Usage = nil
			parts := make([]chat.Part, len(m.Parts))
			for i, p := range m.Parts {
				switch p := p.(type) {
				case chat.ToolCall:
					p.ID = prefix + p.ID
					parts[i] = p
				case chat.ToolResult:
					p.ToolCallID = prefix + p.ToolCallID
					parts[i] = p
				default:
					parts[i] = p
				}
			}
			m.Parts = parts
			out.Messages = append(out.Messages, m)
		}
	}
}
