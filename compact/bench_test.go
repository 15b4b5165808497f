package compact_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/window"
	"github.com/google/go-cmp/cmp"
)

// memoCounter is the exact o200k_base counter with a memo that is used
// only while a benchmark rebuilds its window outside the timer, so that
// the rebuild is cheap and every count made by compaction (timed) is
// exact and uncached.
type memoCounter struct {
	bpe  *token.BPE
	memo map[string]int
	on   bool
}

func (c *memoCounter) Count(s string) int {
	if !c.on {
		return c.bpe.Count(s)
	}
	n, ok := c.memo[s]
	if !ok {
		n = c.bpe.Count(s)
		c.memo[s] = n
	}
	return n
}

func (c *memoCounter) Name() string { return c.bpe.Name() }

// session500 returns a realistic 500-message agent session: a system
// prompt, the task, then rounds of one or two calls (read, grep, bash,
// edit) with results of 200-8,000 runes (a fifth of them JSON), and now
// and then a user message or a text reply. The last result holds
// lastResult runes.
func session500(lastResult int) []chat.Message {
	rng := rand.New(rand.NewPCG(500, 1))
	a := &agent{rng: rng, jsonResult: map[string]bool{}}
	code := corpora()[0]
	msgs := []chat.Message{
		sys(code.take(rng, 1500)),
		user("The integration tests in ./server fail since the last refactor. Find the cause, fix it, and make sure `go test ./...` passes."),
	}
	tools := []string{"read", "grep", "bash", "edit"}
	for n := 0; len(msgs) < 496; n++ {
		switch rng.IntN(20) {
		case 0:
			msgs = append(msgs, user(a.text(rng.IntN(300))))
			continue
		case 1:
			msgs = append(msgs, asst(a.text(rng.IntN(600))))
			continue
		}
		m := chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: a.text(rng.IntN(200))}}}
		k := 1 + rng.IntN(2)
		for c := range k {
			args, _ := json.Marshal(map[string]string{"path": fmt.Sprintf("server/f%d.go", rng.IntN(60))})
			m.Parts = append(m.Parts, chat.ToolCall{ID: fmt.Sprintf("call_%d_%d", n, c), Name: tools[rng.IntN(len(tools))], Arguments: args})
		}
		msgs = append(msgs, m)
		for c := range k {
			size := 200 + rng.IntN(7800)
			content := code.take(rng, size)
			if rng.IntN(5) == 0 {
				content = a.jsonText(size)
			}
			msgs = append(msgs, chat.NewToolResult(fmt.Sprintf("call_%d_%d", n, c), "", content, false))
		}
	}
	last := round("last", "bash", "", code.take(rng, 100)+strings.Repeat(code.take(rng, 1000), lastResult/1000))
	msgs = append(msgs, last...)
	return append(msgs, user("Go on."))
}

func benchCompact(b *testing.B, s compact.Strategy, lastResult int, budget func(size int) int, want []compact.Level) {
	bpe, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	msgs := session500(lastResult)
	c := &memoCounter{bpe: bpe, memo: map[string]int{}}
	build := func() *window.Window {
		c.on = true
		defer func() { c.on = false }()
		w, err := window.New(window.Options{Counter: c})
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range msgs {
			if err := w.Add(m); err != nil {
				b.Fatal(err)
			}
		}
		w.SetBudget(budget(w.Size()))
		return w
	}
	// Check once, untimed, that the window triggers the intended levels.
	w := build()
	recs, err := s.Compact(b.Context(), w)
	if err != nil {
		b.Fatal(err)
	}
	if d := cmp.Diff(want, levels(recs)); d != "" {
		b.Fatalf("levels (-want +got):\n%s", d)
	}
	if !w.Fits() {
		b.Fatalf("over budget after compaction")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		w := build()
		b.StartTimer()
		if _, err := s.Compact(b.Context(), w); err != nil {
			b.Fatal(err)
		}
	}
}

func ratio(r float64) func(int) int {
	return func(size int) int { return int(float64(size)/r) + 1 }
}

// The compaction benchmarks run on a realistic 500-message session
// (session500, about 270k tokens) with the exact o200k_base counter, at
// the usage ratio that triggers each level.

func BenchmarkCompactL1(b *testing.B) {
	benchCompact(b, &compact.Tiered{}, 1000, ratio(0.7), []compact.Level{compact.LevelL1})
}

func BenchmarkCompactL2(b *testing.B) {
	benchCompact(b, &compact.Tiered{}, 1000, ratio(0.87), []compact.Level{compact.LevelL2})
}

func BenchmarkCompactL3(b *testing.B) {
	benchCompact(b, &compact.Tiered{}, 1000, ratio(0.97), []compact.Level{compact.LevelL3})
}

// BenchmarkCompactCut: the last tool result is a 200,000-rune log and the
// budget is 16,000 tokens, so L3 is not enough and the cut runs.
func BenchmarkCompactCut(b *testing.B) {
	benchCompact(b, &compact.Tiered{}, 200000, func(int) int { return 16000 }, []compact.Level{compact.LevelL3, compact.LevelCut})
}

// BenchmarkMask masks every result but the last 10 rounds' of a window
// that fits (no escalation).
func BenchmarkMask(b *testing.B) {
	benchCompact(b, &compact.Mask{}, 1000, ratio(0.5), []compact.Level{compact.LevelMask})
}

func BenchmarkShrinkJSON(b *testing.B) {
	for _, size := range []int{10000, 1000000} {
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			raw := []byte(jsonResult(size))
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for range b.N {
				if _, ok := compact.ShrinkJSON(raw, 600); !ok {
					b.Fatal("not shrunk")
				}
			}
		})
	}
}
