package prompt

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/reminder"
	"github.com/agentctx/agentctx/token"
)

// seamTexts are reminder texts chosen to tempt the pre-tokenizer across a
// block's edges: leading and trailing whitespace and newlines, angle
// brackets, slashes, digits, letters and non-Latin scripts at either end.
var seamTexts = []string{
	"", " ", "\n", "\n\n", "  \n ", "x", "12", "<", ">", "/", ">\n", "</x>", "\t#",
	"# Working memory\n\n## Task\nfix it\n", "Files changed: a.go, b.go.",
	"  indented line\n", "ends with spaces   ", "ends with newline and space\n ",
	"上下文窗口", "café\n", "'s", "'ll", "\r\n", "a\u00a0b", "😀", "-->", "<!--",
}

// checkBlocksAdd checks that the rendered tail counts as the sum of its
// blocks rendered alone: what Assemble relies on to count a tail once.
func checkBlocksAdd(t *testing.T, c token.Counter, texts []string) {
	t.Helper()
	var rs []reminder.Reminder
	sum := 0
	for _, x := range texts {
		r := reminder.Reminder{Kind: "k", Text: x}
		rs = append(rs, r)
		sum += c.Count(reminder.Render([]reminder.Reminder{r}))
	}
	if got := c.Count(reminder.Render(rs)); got != sum {
		t.Fatalf("%s: %q: the tail counts %d, its blocks %d", c.Name(), texts, got, sum)
	}
}

// TestTailBlocksAdd: for both tiktoken encodings, every pair of seam
// texts and random tails of up to five blocks count as the sum of their
// blocks.
func TestTailBlocksAdd(t *testing.T) {
	for _, enc := range []string{token.O200kBase, token.Cl100kBase} {
		c, err := token.ForEncoding(enc)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range seamTexts {
			for _, b := range seamTexts {
				checkBlocksAdd(t, c, []string{a, b})
			}
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for range 500 {
			texts := make([]string, 1+rng.IntN(5))
			for i := range texts {
				var sb strings.Builder
				for range rng.IntN(4) {
					sb.WriteString(seamTexts[rng.IntN(len(seamTexts))])
				}
				texts[i] = sb.String()
			}
			checkBlocksAdd(t, c, texts)
		}
	}
}

// FuzzTailBlocksAdd: any two texts.
func FuzzTailBlocksAdd(f *testing.F) {
	f.Add("a\n", "\nb")
	f.Add(">", "<")
	c, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		checkBlocksAdd(t, c, []string{a, b})
	})
}

// TestInjectedDelta: for both tiktoken encodings, the size a tail adds
// to a user message it is injected into, joined from the counts already
// made (injectedDelta), is what counting the injected message whole
// gives, whatever the message's text begins with (seamTexts), with one
// text part or several.
func TestInjectedDelta(t *testing.T) {
	t.Parallel()
	ov := token.OpenAIOverhead
	for _, enc := range []string{token.O200kBase, token.Cl100kBase} {
		c, err := token.ForEncoding(enc)
		if err != nil {
			t.Fatal(err)
		}
		for i, tail := range seamTexts {
			rs := []reminder.Reminder{{Kind: "k", Text: tail}, {Kind: "k", Text: seamTexts[(i+3)%len(seamTexts)]}}
			sum := 0
			for _, r := range rs {
				sum += c.Count(reminder.Render([]reminder.Reminder{r}))
			}
			for j, text := range seamTexts {
				msgs := []chat.Message{chat.NewText(chat.RoleUser, text)}
				if j%3 == 0 {
					msgs[0].Parts = append(msgs[0].Parts, chat.Text{Text: seamTexts[(j+5)%len(seamTexts)]})
				}
				out, ok := reminder.Inject(msgs, rs)
				if !ok {
					t.Fatal("not injected")
				}
				n := token.Message(c, ov, msgs[0])
				want := token.Message(c, ov, out[0]) - n
				if got := injectedDelta(c, ov, out[0], msgs[0], n, sum); got != want {
					t.Errorf("%s: tail %q, text %q: injectedDelta = %d, want %d", enc, tail, msgs[0].Text(), got, want)
				}
			}
		}
	}
}
