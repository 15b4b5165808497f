package window_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/transcript"
	"github.com/agentctx/agentctx/window"
)

// TestBreakdownByHand checks each category against sizes worked out by
// hand with the one-token-per-byte counter and the default overhead
// (3 per message + 1 for the role, 3 reply priming, 10 per tool call).
func TestBreakdownByHand(t *testing.T) {
	t.Parallel()
	ov := token.OpenAIOverhead
	tests := []struct {
		name  string
		opts  window.Options
		build func(t *testing.T, w *window.Window)
		want  window.Breakdown
	}{
		{
			name:  "empty",
			build: func(*testing.T, *window.Window) {},
			want:  window.Breakdown{Overhead: ov.ReplyPriming, Total: ov.ReplyPriming},
		},
		{
			name:  "reserve only",
			opts:  window.Options{Reserved: 100},
			build: func(*testing.T, *window.Window) {},
			want:  window.Breakdown{Reserved: 100, Overhead: ov.ReplyPriming, Total: 100 + ov.ReplyPriming},
		},
		{
			name: "every kind of part",
			opts: window.Options{Reserved: 7},
			build: func(t *testing.T, w *window.Window) {
				mustAdd(t, w,
					sys("be brief"), // 8
					user("fix it"),  // 6
					chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
						chat.Thinking{Text: "hmm", Encrypted: strings.Repeat("x", 16)}, // 3 + 3
						chat.Text{Text: "ok"},             // 2
						call("c1", "read", `{"p":1}`),     // 4 + 7 + 10
						call("c2", "bash", `{}`),          // 4 + 2 + 10
						chat.Image{Width: 75, Height: 10}, // 1
					}},
					chat.NewToolResult("c1", "", "abc", false),                                                              // 3, name from the call
					chat.NewToolResult("c2", "shell", "de", true),                                                           // 2, its own name
					chat.Message{Role: chat.RoleUser, Name: "bob", Parts: []chat.Part{chat.Text{Text: "hi"}, chat.Image{}}}, // 2 + 1600, name 3+1
				)
				w.SetNote("note!") // 5
			},
			want: window.Breakdown{
				System: 8, User: 6 + 2, Assistant: 2, Thinking: 3 + 3,
				ToolCalls: 21 + 16, ToolResults: 5, Summary: 5, Images: 1 + token.MaxImageTokens,
				Reserved: 7,
				// 7 messages framed, a name on one, reply priming.
				Overhead:          7*(ov.PerMessage+token.RoleTokens) + 3 + ov.PerName + ov.ReplyPriming,
				Messages:          7,
				ToolCallsByTool:   map[string]int{"read": 21, "bash": 16},
				ToolResultsByTool: map[string]int{"read": 3, "shell": 2},
			},
		},
		{
			name: "text in a tool message and an unnamed call",
			build: func(t *testing.T, w *window.Window) {
				mustAdd(t, w, user("u"), chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{call("x", "", `{}`)}},
					chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{ToolCallID: "x", Content: "out"}, chat.Text{Text: "more"}}})
			},
			want: window.Breakdown{
				User: 1, ToolCalls: 12, ToolResults: 3 + 4,
				Overhead: 3*(ov.PerMessage+token.RoleTokens) + ov.ReplyPriming, Messages: 3,
				ToolCallsByTool:   map[string]int{window.UnknownTool: 12},
				ToolResultsByTool: map[string]int{window.UnknownTool: 7},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWindow(t, tt.opts)
			tt.build(t, w)
			got := w.Breakdown()
			tt.want.Total = w.Tokens()
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Breakdown mismatch (-want +got):\n%s", d)
			}
			if got.Sum() != got.Total {
				t.Errorf("categories sum to %d, Total %d", got.Sum(), got.Total)
			}
		})
	}
}

func TestBreakdownCategoriesOrder(t *testing.T) {
	t.Parallel()
	b := window.Breakdown{System: 1, User: 2, Assistant: 3, Thinking: 4, ToolCalls: 5, ToolResults: 6, Summary: 7, Images: 8, Reserved: 9, Overhead: 10}
	var names []string
	for i, c := range b.Categories() {
		if c.Tokens != i+1 {
			t.Errorf("category %d (%s) = %d tokens, want %d", i, c.Name, c.Tokens, i+1)
		}
		names = append(names, c.Name)
	}
	want := []string{window.CategorySystem, window.CategoryUser, window.CategoryAssistant, window.CategoryThinking, window.CategoryToolCalls,
		window.CategoryToolResults, window.CategorySummary, window.CategoryImages, window.CategoryReserved, window.CategoryOverhead}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("names (-want +got):\n%s", d)
	}
	if b.Sum() != 55 {
		t.Errorf("Sum = %d, want 55", b.Sum())
	}
}

func TestByTool(t *testing.T) {
	t.Parallel()
	got := window.ByTool(map[string]int{"b": 5, "a": 5, "c": 9, "d": 1})
	want := []window.Category{{"c", 9}, {"a", 5}, {"b", 5}, {"d", 1}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ByTool (-want +got):\n%s", d)
	}
	if got := window.ByTool(nil); len(got) != 0 {
		t.Errorf("ByTool(nil) = %v", got)
	}
}

// assertBreakdown checks that b accounts for w exactly: the categories sum
// to Tokens, the per-tool maps to their categories, nothing is negative.
func assertBreakdown(t testing.TB, w *window.Window, b window.Breakdown) {
	t.Helper()
	if b.Total != w.Tokens() || b.Sum() != b.Total {
		t.Fatalf("Total %d, Sum %d, Tokens %d", b.Total, b.Sum(), w.Tokens())
	}
	for _, c := range b.Categories() {
		if c.Tokens < 0 {
			t.Fatalf("category %s is negative: %d", c.Name, c.Tokens)
		}
	}
	sum := func(m map[string]int) int {
		n := 0
		for _, v := range m {
			n += v
		}
		return n
	}
	if sum(b.ToolCallsByTool) != b.ToolCalls || sum(b.ToolResultsByTool) != b.ToolResults {
		t.Fatalf("per-tool sums %d/%d, categories %d/%d", sum(b.ToolCallsByTool), sum(b.ToolResultsByTool), b.ToolCalls, b.ToolResults)
	}
	if want := countedBreakdown(w); b.System != want.System || b.User != want.User || b.Assistant != want.Assistant ||
		b.Summary != want.Summary || b.ToolCalls != want.ToolCalls || b.ToolResults != want.ToolResults ||
		b.Thinking != want.Thinking || b.Images != want.Images || b.Overhead != want.Overhead {
		t.Fatalf("breakdown %+v, counting every part gives %+v", b, want)
	}
	if b.Messages != w.Len() {
		t.Fatalf("Messages %d, Len %d", b.Messages, w.Len())
	}
}

// TestBreakdownRandom builds random windows (every part kind, names,
// removals, replacements, notes, any reserve and overhead) and checks that
// the breakdown always sums to Tokens.
func TestBreakdownRandom(t *testing.T) {
	t.Parallel()
	for seed := range uint64(30) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 0xb7ea))
			ov := token.Overhead{PerMessage: rng.IntN(5), PerName: rng.IntN(3), ReplyPriming: rng.IntN(4), PerToolCall: rng.IntN(12)}
			var counter token.Counter = byteCounter{}
			if seed%2 == 0 {
				counter = token.Estimator{}
			}
			w := newWindow(t, window.Options{Counter: counter, Overhead: &ov, Reserved: rng.IntN(100)})
			text := func() string { return strings.Repeat("word ", rng.IntN(20)) + "日本語"[:rng.IntN(3)*3] }
			var open []string
			for op := range 200 {
				var err error
				switch k := rng.IntN(10); {
				case k < 2:
					m := user(text())
					if rng.IntN(3) == 0 {
						m.Name = "n"
						m.Parts = append(m.Parts, chat.Image{Width: rng.IntN(900), Height: rng.IntN(900)})
					}
					err = w.Add(m)
				case k < 4:
					m := chat.Message{Role: chat.RoleAssistant}
					if rng.IntN(2) == 0 {
						m.Parts = append(m.Parts, chat.Thinking{Text: text(), Encrypted: strings.Repeat("z", rng.IntN(40))})
					}
					m.Parts = append(m.Parts, chat.Text{Text: text()})
					for range rng.IntN(3) {
						id := fmt.Sprintf("c%d", op)
						open = append(open, id)
						m.Parts = append(m.Parts, call(id, []string{"read", "bash", ""}[rng.IntN(3)], `{"x":"`+text()+`"}`))
					}
					err = w.Add(m)
				case k < 7 && len(open) > 0:
					j := rng.IntN(len(open))
					err = w.Add(chat.NewToolResult(open[j], "", text(), false))
					open = append(open[:j], open[j+1:]...)
				case k < 8:
					us := w.Units()
					if len(us) > 0 {
						u := us[rng.IntN(len(us))]
						if !u.Pinned {
							err = w.Remove(u.Start, u.End)
						}
					}
				case k < 9:
					w.SetNote(text())
				default:
					err = w.Add(sys(text()))
				}
				if err != nil && !strings.Contains(err.Error(), "window:") {
					t.Fatalf("op %d: %v", op, err)
				}
				assertBreakdown(t, w, w.Breakdown())
			}
		})
	}
}

// TestBreakdownRealData adds every message of every real trajectory to a
// window counted with the model's own encoding and checks the sum.
func TestBreakdownRealData(t *testing.T) {
	t.Parallel()
	files, err := transcript.Collect([]string{sharedtest.Dir(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(f[len(sharedtest.Root())+1:], func(t *testing.T) {
			t.Parallel()
			trs, err := transcript.ReadFile(f, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range trs[:min(len(trs), 3)] {
				c, err := model.Counter(model.Lookup(tr.Model))
				if err != nil {
					t.Fatal(err)
				}
				w, err := window.New(window.Options{Counter: c, Reserved: token.Tools(c, tr.Tools)})
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range tr.Messages {
					if err := w.Add(m); err != nil {
						t.Fatalf("Add: %v", err)
					}
				}
				b := w.Breakdown()
				assertBreakdown(t, w, b)
				if b.ToolResults > 0 && len(b.ToolResultsByTool) == 0 {
					t.Errorf("tool results without names")
				}
				if _, ok := b.ToolResultsByTool[window.UnknownTool]; ok {
					t.Errorf("%s: tool results of unknown tools: %v", f, b.ToolResultsByTool)
				}
			}
		})
	}
}

// BenchmarkBreakdown breaks down the window of the largest real session
// (the 2.9 MB Claude Code file, every message added, about 320 messages),
// counted with the exact o200k_base counter.
func BenchmarkBreakdown(b *testing.B) {
	file := filepath.Join(sharedtest.Dir(b), "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	trs, err := transcript.ReadFile(file, transcript.Options{})
	if err != nil {
		b.Fatal(err)
	}
	c, err := model.Counter(model.Lookup(trs[0].Model))
	if err != nil {
		b.Fatal(err)
	}
	w, err := window.New(window.Options{Counter: c})
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range trs[0].Messages {
		if err := w.Add(m); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if bd := w.Breakdown(); bd.Total != w.Tokens() {
			b.Fatal("breakdown does not sum")
		}
	}
	b.ReportMetric(float64(w.Tokens()), "tokens")
}

// countedBreakdown is the window's breakdown by category (without the
// per-tool maps) with every part of every message counted again, as
// Breakdown did before it reused the messages' counts: the oracle of
// assertBreakdown.
func countedBreakdown(w *window.Window) window.Breakdown {
	c, ov := w.Counter(), w.Overhead()
	b := window.Breakdown{Overhead: ov.ReplyPriming}
	for i := range w.Len() {
		m := w.At(i)
		content, texts := 0, false
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.Text:
				texts = true
			case chat.ToolCall:
				n := c.Count(p.Name) + c.Count(string(p.Arguments)) + ov.PerToolCall
				b.ToolCalls += n
				content += n
			case chat.ToolResult:
				n := c.Count(p.Content)
				b.ToolResults += n
				content += n
			case chat.Thinking:
				n := c.Count(p.Text) + token.EncryptedTokens(len(p.Encrypted))
				b.Thinking += n
				content += n
			case chat.Image:
				n := token.ImageTokens(p.Width, p.Height)
				b.Images += n
				content += n
			}
		}
		if texts {
			n := c.Count(m.Text())
			content += n
			switch {
			case w.IsNote(i):
				b.Summary += n
			case m.Role == chat.RoleSystem:
				b.System += n
			case m.Role == chat.RoleUser:
				b.User += n
			case m.Role == chat.RoleAssistant:
				b.Assistant += n
			default:
				b.ToolResults += n
			}
		}
		b.Overhead += w.TokensAt(i) - content
	}
	return b
}

// textCounter counts as c does and sums the bytes it was given.
type textCounter struct {
	token.Counter
	bytes *int
}

func (c textCounter) Count(s string) int {
	*c.bytes += len(s)
	return c.Counter.Count(s)
}

// TestBreakdownReusesCounts: the breakdown of the largest shared
// trajectory's window counts well under half of the text it holds (each
// message's largest part is not counted again, its count coming from the
// message's), and equals counting every part.
func TestBreakdownReusesCounts(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedtest.Dir(t), "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	trs, err := transcript.ReadFile(file, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.Counter(model.Lookup(trs[0].Model))
	if err != nil {
		t.Fatal(err)
	}
	counted := 0
	w, err := window.New(window.Options{Counter: textCounter{c, &counted}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range trs[0].Messages {
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	added := counted
	counted = 0
	b := w.Breakdown()
	if counted*4 > added {
		t.Errorf("the breakdown counted %d bytes again, more than a quarter of the %d counted when adding", counted, added)
	}
	assertBreakdown(t, w, b)
}
