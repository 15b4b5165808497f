package prompt

import (
	"fmt"
	"strings"

	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/workspace"
)

// Row is one line of a request's token table.
type Row struct {
	// Name is the part: [PartSystem], [PartInstructions], "context:" and
	// a block name, [PartTools], [PartRehydration], [PartMessages],
	// [PartTracker], [PartWorkingMemory], [PartReminders] or
	// [PartFraming].
	Name string `json:"name"`
	// Tokens is the part's size in tokens.
	Tokens int `json:"tokens"`
	// Cached reports that the part lies in a prefix marked for caching.
	Cached bool `json:"cached,omitempty"`
}

// Part names of the token table.
const (
	PartSystem        = "system prompt"
	PartInstructions  = "instruction files"
	PartContextPrefix = "context:"
	PartTools         = "tool schemas"
	PartRehydration   = "rehydration"
	PartMessages      = "messages"
	PartTracker       = "tracker"
	PartWorkingMemory = "working memory"
	PartReminders     = "reminders"
	// PartFraming is the chat format's overhead: per-message framing of
	// the system messages and the tail, and the reply priming.
	PartFraming = "framing"
)

// Static is the static system prompt of a session: built once, then
// byte-identical on every request.
type Static struct {
	// Text is the system prompt. Empty when there is nothing static.
	Text string
	// Rows are the sizes of its parts (base prompt, instruction files,
	// each context block), in tokens, counted separately: their sum may
	// differ from counting Text at once by a few tokens at the joins.
	Rows []Row
	// Tokens is Text's size in tokens, content only (the message framing
	// is counted by [Assemble]).
	Tokens int
	// Dropped names the context blocks left out to fit MaxTokens, and
	// Cut reports that the instruction files were cut.
	Dropped []string
	Cut     bool
}

// StaticOptions configures [BuildStatic].
type StaticOptions struct {
	// MaxTokens caps the static prompt in tokens. Optional. Zero means no
	// cap. Over the cap, context blocks are dropped in the order of
	// [DropOrder] (custom blocks last), then the instruction files are cut
	// from the end, then the base prompt; what was left out is reported
	// in [Static].Dropped and Cut.
	MaxTokens int
}

// DropOrder is the order in which context blocks are dropped when the
// static prompt is over its cap: the least useful first.
var DropOrder = []string{
	workspace.BlockReadme, workspace.BlockDirectory, workspace.BlockCodeStyle, workspace.BlockGit,
}

// contextIntro introduces the context blocks (seed 004).
const contextIntro = "As you answer the user's questions, you can use the following context:"

// BuildStatic renders the static system prompt from the base prompt and
// the workspace's context (nil for none): the base prompt, then the
// instruction files under a "# Project instructions" heading (each headed
// by its path relative to the project), then the context blocks as
// <context name="...">…</context> (seed 004). The result depends only on
// its inputs: the same inputs give the same bytes.
func BuildStatic(base string, ws *workspace.Context, counter token.Counter, opts StaticOptions) Static {
	if counter == nil {
		counter = token.Estimator{}
	}
	var blocks []workspace.Block
	var ins []workspace.Instruction
	if ws != nil {
		blocks = ws.Blocks
		ins = ws.Instructions
	}
	s := render(base, ins, blocks, counter)
	if opts.MaxTokens <= 0 || s.Tokens <= opts.MaxTokens {
		return s
	}
	// Drop blocks, least useful first, then custom blocks from the last.
	order := dropOrder(blocks)
	var dropped []string
	for _, name := range order {
		blocks = without(blocks, name)
		dropped = append(dropped, name)
		s = render(base, ins, blocks, counter)
		s.Dropped = dropped
		if s.Tokens <= opts.MaxTokens {
			return s
		}
	}
	// Cut the instruction files from the end, then the base prompt.
	over := s.Tokens - opts.MaxTokens
	cut := false
	for i := len(ins) - 1; i >= 0 && over > 0; i-- {
		in := ins[i]
		keep := max(0, in.Tokens-over)
		in.Text = CutTokens(in.Text, keep, counter)
		in.Truncated = true
		ins = append(ins[:i:i], append([]workspace.Instruction{in}, ins[i+1:]...)...)
		cut = true
		s = render(base, ins, blocks, counter)
		over = s.Tokens - opts.MaxTokens
	}
	if over > 0 {
		base = CutTokens(base, max(0, counter.Count(base)-over), counter)
		s = render(base, ins, blocks, counter)
		for s.Tokens > opts.MaxTokens && base != "" {
			base = CutTokens(base, max(0, counter.Count(base)-(s.Tokens-opts.MaxTokens)-1), counter)
			s = render(base, ins, blocks, counter)
		}
		cut = true
	}
	s.Dropped, s.Cut = dropped, cut
	return s
}

// render builds the prompt text and its rows.
func render(base string, ins []workspace.Instruction, blocks []workspace.Block, counter token.Counter) Static {
	var b strings.Builder
	var rows []Row
	if base = strings.TrimSpace(base); base != "" {
		b.WriteString(base)
		rows = append(rows, Row{Name: PartSystem, Tokens: counter.Count(base)})
	}
	var inText []string
	for _, in := range ins {
		if strings.TrimSpace(in.Text) == "" {
			continue
		}
		head := in.Rel
		if in.Scope == workspace.ScopeUser {
			head = "user instructions (" + in.Rel + ")"
		}
		inText = append(inText, fmt.Sprintf("## %s\n\n%s", head, strings.TrimSpace(in.Text)))
	}
	if len(inText) > 0 {
		sec := "# Project instructions\n\nThese files hold instructions from the user and the project. Follow them.\n\n" + strings.Join(inText, "\n\n")
		sep(&b)
		b.WriteString(sec)
		rows = append(rows, Row{Name: PartInstructions, Tokens: counter.Count(sec)})
	}
	first := true
	for _, bl := range blocks {
		if strings.TrimSpace(bl.Text) == "" {
			continue
		}
		if first {
			sep(&b)
			b.WriteString(contextIntro)
			first = false
		}
		blk := fmt.Sprintf("<context name=%q>\n%s\n</context>", bl.Name, strings.TrimSpace(bl.Text))
		b.WriteString("\n")
		b.WriteString(blk)
		rows = append(rows, Row{Name: PartContextPrefix + bl.Name, Tokens: counter.Count(blk)})
	}
	text := b.String()
	return Static{Text: text, Rows: rows, Tokens: counter.Count(text)}
}

func sep(b *strings.Builder) {
	if b.Len() > 0 {
		b.WriteString("\n\n")
	}
}

// dropOrder lists the blocks present in the order they are dropped.
func dropOrder(blocks []workspace.Block) []string {
	var out []string
	have := map[string]bool{}
	for _, bl := range blocks {
		have[bl.Name] = true
	}
	known := map[string]bool{}
	for _, n := range DropOrder {
		known[n] = true
		if have[n] {
			out = append(out, n)
		}
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		if !known[blocks[i].Name] {
			out = append(out, blocks[i].Name)
		}
	}
	return out
}

func without(blocks []workspace.Block, name string) []workspace.Block {
	out := make([]workspace.Block, 0, len(blocks))
	for _, b := range blocks {
		if b.Name != name {
			out = append(out, b)
		}
	}
	return out
}

// CutTokens returns text cut to at most n tokens counted with counter:
// on a line boundary (on a rune boundary when the first line alone is too
// long), ending with "[cut to fit the token budget]" when cut; "" when not
// even the marker fits. It never splits a rune. O(log(len(text))) counts.
func CutTokens(text string, n int, counter token.Counter) string {
	if counter.Count(text) <= n {
		return text
	}
	const marker = "\n[cut to fit the token budget]"
	budget := n - counter.Count(marker)
	if budget <= 0 {
		return ""
	}
	// Binary search on the byte length, snapped to a line start.
	lo, hi := 0, len(text)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if counter.Count(snap(text, mid)) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	out := snap(text, lo)
	if out == "" {
		return ""
	}
	return out + marker
}

// snap returns text[:n] moved back to the last newline, or to a rune
// boundary when text[:n] has no newline.
func snap(text string, n int) string {
	s := text[:n]
	if i := strings.LastIndexByte(s, '\n'); i > 0 {
		return s[:i]
	}
	for n > 0 && n < len(text) && !utf8Start(text[n]) {
		n--
	}
	return text[:n]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
