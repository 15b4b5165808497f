package compact

import (
	"context"
	"fmt"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/tooluse"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/agentctx/agentctx/token"
)

// SummaryHeader is the first line of every summary that replaces history
// ([Extractive]'s and, prefixed by [Summarize], a model's). Texts starting
// with it are summaries, not user messages: [ExtractFacts] skips them and
// a later compaction rolls them into its own summary instead of nesting
// them.
const SummaryHeader = "[agentctx summary] The earlier part of this conversation was replaced by this summary."

// Section headings of the extractive summary. A previous summary is parsed
// by these headings when it is rolled into a new one.
const (
	secFocus      = "## Focus"
	secUser       = "## User requests and corrections (verbatim, oldest first)"
	secModified   = "## Files modified"
	secRead       = "## Files read"
	secCommands   = "## Commands that failed"
	secErrors     = "## Other errors"
	secTests      = "## Failing tests"
	secOpen       = "## Open tasks"
	secConclusion = "## Last assistant message (where work stopped)"
	secFiles      = "## Important files"
	secEarlier    = "## Earlier summary"
)

// Lengths of the extractive summary's items, in runes, before any
// shortening for the budget.
const (
	extractiveUserRunes       = 400  // each cut to ~400 runes when long
	extractiveConclusionRunes = 1200 // the last assistant message
	extractiveLineRunes       = 200  // commands, error lines, tasks
	extractiveFileLines       = 60   // lines of each important file's content
	extractiveMinUserRunes    = 100  // user messages are never cut shorter until nothing else is left
)

// Extractive is the summarizer that needs no model: it
// extracts, deterministically, what users of coding agents lose after a
// compaction and writes it as Markdown under [SummaryHeader]:
//
//   - the user's instruction sentences, verbatim, under [SecInstructions]
//     ([SummaryRequest.Carried], else [CarriedInstructions]: this span's
//     and the previous summary's, capped at [InstructionTokens], newest
//     kept), and the ids of the spans covered under [SecSpans]; both are
//     never shortened;
//   - the focus ([SummaryRequest.Instructions]), when given;
//   - every user request and correction, verbatim, each cut to 400 runes;
//   - the files modified, with the tools used on them, and the files read;
//   - the commands that failed, each with its first error line and whether
//     a later run of the same command succeeded; other errors; failing tests;
//   - open tasks: Claude Code TodoWrite / Codex update_plan items not
//     completed, or the plan lines of the last assistant message;
//   - the last assistant message, cut: where work stopped;
//   - the important files ([SummaryRequest.Files]) and their content.
//
// A [SummaryRequest.Previous] summary is rolled in, not nested: its
// sections are parsed and their lists merged, older items first (a
// previous summary in another format is kept, cut, under "Earlier
// summary").
//
// The summary fits [SummaryRequest.MaxTokens] counted exactly with
// Counter (0 means no limit). When it is too long it is shortened in this
// order: long items are cut, file contents dropped, then the oldest read
// files, the oldest errors and failed commands, failing tests, open tasks
// and the last assistant message are dropped; user messages and modified
// files are kept to the end, user messages cut shorter (down to 100
// runes) before any is dropped. As a last resort the text is cut.
//
// The same request always gives the same bytes. The zero value is ready to
// use and counts with o200k_base. Safe for concurrent use.
type Extractive struct {
	// Counter counts the summary's tokens. Optional. Defaults to the exact
	// o200k_base counter ([token.ForEncoding]).
	Counter token.Counter
	// classify reads the tool calls ([tooluse.Classify] when nil):
	// [Summarize] gives the compaction's, which reads each call once.
	classify func(chat.ToolCall) tooluse.Use
}

// Name returns "extractive".
func (Extractive) Name() string { return "extractive" }

var (
	defaultCounterOnce sync.Once
	defaultCounter     token.Counter
	defaultCounterErr  error
)

func (e Extractive) counter() (token.Counter, error) {
	if e.Counter != nil {
		return e.Counter, nil
	}
	defaultCounterOnce.Do(func() {
		defaultCounter, defaultCounterErr = token.ForEncoding(token.O200kBase)
	})
	return defaultCounter, defaultCounterErr
}

// Summarize writes the summary of req. Errors: ctx's error when it is
// done, an error from building the default counter. Usage is nil: no model
// is called.
func (e Extractive) Summarize(ctx context.Context, req SummaryRequest) (SummaryResult, error) {
	if err := ctx.Err(); err != nil {
		return SummaryResult{}, fmt.Errorf("compact: extractive summary: %w", err)
	}
	c, err := e.counter()
	if err != nil {
		return SummaryResult{}, fmt.Errorf("compact: extractive summary: %w", err)
	}
	d := buildDigest(req, e.classify)
	d.carried = req.Carried
	if d.carried == nil {
		d.carried = CarriedInstructions(req, c)
	}
	d.spans = req.Spans
	return SummaryResult{Text: d.fit(c, req.MaxTokens)}, nil
}

// digest is the content of an extractive summary before rendering.
type digest struct {
	carried    []string // the user's instructions, verbatim (SecInstructions)
	spans      []string // the span ids covered (SecSpans)
	focus      string
	users      []string
	modified   []string // "path (tools)"
	read       []string
	commands   []string // "cmd\n  → error (status)"
	errors     []string
	tests      []string
	open       []string
	conclusion string
	files      []digestFile
	earlier    string

	// Shortening state.
	userRunes       int
	lineRunes       int
	conclusionRunes int
	fileLines       int
}

type digestFile struct {
	head    string
	content string
}

func buildDigest(req SummaryRequest, classify func(chat.ToolCall) tooluse.Use) *digest {
	d := &digest{
		userRunes:       extractiveUserRunes,
		lineRunes:       extractiveLineRunes,
		conclusionRunes: extractiveConclusionRunes,
		fileLines:       extractiveFileLines,
		focus:           strings.TrimSpace(req.Instructions),
	}
	if prev := strings.TrimSpace(req.Previous); prev != "" {
		d.absorb(prev)
	}
	h := scanHistory(req.Messages, classify)
	for _, u := range h.users {
		d.users = append(d.users, u.text)
	}
	for _, f := range h.files {
		if f.modified {
			item := f.path
			if len(f.tools) > 0 {
				item += " (" + strings.Join(f.tools, ", ") + ")"
			}
			d.modified = appendNew(d.modified, item)
		}
	}
	for _, f := range h.files {
		if !f.modified && f.read {
			d.read = appendNew(d.read, f.path)
		}
	}
	// Errors shown with their command are not repeated under errors.
	shown := map[string]bool{}
	for i, e := range h.events {
		if !e.failed {
			continue
		}
		if e.command == "" {
			continue
		}
		status := "not run again"
		for _, later := range h.events[i+1:] {
			if later.command == e.command && later.done {
				if later.failed {
					status = "failed again later"
				} else {
					status = "a later run succeeded"
					break
				}
			}
		}
		item := e.command
		if e.errLine != "" {
			item += "\n→ " + e.errLine
			shown[e.errLine] = true
		}
		if e.cause != "" {
			item += "\n→ … " + e.cause
		}
		item += " (" + status + ")"
		d.commands = appendNew(d.commands, item)
	}
	for _, e := range h.events {
		if e.failed && e.errLine != "" && !shown[e.errLine] {
			d.errors = appendNew(d.errors, e.errLine)
		}
		for _, t := range e.tests {
			d.tests = appendNew(d.tests, t)
		}
	}
	if h.todos != nil {
		d.open = h.todos
	} else if len(h.lastText) > 0 {
		d.open = appendAll(d.open, planLines(h.lastText))
	}
	if h.lastText != "" {
		d.conclusion = h.lastText
	}
	for _, f := range req.Files {
		head := f.Path
		var tags []string
		if f.Modified {
			tags = append(tags, "modified")
		}
		if f.Mentions > 0 {
			tags = append(tags, fmt.Sprintf("%d mentions", f.Mentions))
		}
		if len(tags) > 0 {
			head += " (" + strings.Join(tags, ", ") + ")"
		}
		d.files = append(d.files, digestFile{head: head, content: f.Content})
	}
	return d
}

func appendNew(list []string, item string) []string {
	if item == "" || slices.Contains(list, item) {
		return list
	}
	return append(list, item)
}

func appendAll(list, items []string) []string {
	for _, it := range items {
		list = appendNew(list, it)
	}
	return list
}

var planLineRe = regexp.MustCompile(`^\s*(?:\d+[.)]|[-*+])\s+(?:\[[ xX]\]\s+)?(.+)$`)

// planLines returns the numbered or bulleted lines of an assistant text
// when it has at least two (a plan or a list of next steps), at most 10;
// checked boxes ("- [x]") are done and left out.
func planLines(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		m := planLineRe.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
		if m == nil {
			continue
		}
		t := strings.TrimSpace(line)
		if strings.Contains(t, "[x]") || strings.Contains(t, "[X]") {
			continue
		}
		out = append(out, normalizeSpace(m[1]))
		if len(out) == 10 {
			break
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// absorb parses a previous summary into d's lists (summaries roll). A
// note that keeps a summary under another note (a fallback's, a tiered
// level's) gives both: the summary's lists, and the note before it as the
// earlier summary.
func (d *digest) absorb(prev string) {
	if i := strings.Index(prev, earlierIntro+SummaryHeader); i > 0 {
		d.absorb(prev[i+len(earlierIntro):])
		if d.earlier != "" {
			d.earlier = strings.TrimSpace(prev[:i]) + "\n" + d.earlier
		} else {
			d.earlier = strings.TrimSpace(prev[:i])
		}
		return
	}
	if !strings.HasPrefix(prev, SummaryHeader) || !strings.Contains(prev, "\n## ") {
		d.earlier = prev
		return
	}
	sections := map[string][]string{}
	var cur string
	var item strings.Builder
	flush := func() {
		if cur != "" && item.Len() > 0 {
			sections[cur] = append(sections[cur], strings.TrimRight(item.String(), "\n "))
		}
		item.Reset()
	}
	for line := range strings.Lines(prev) {
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(line, "## ") {
			flush()
			cur = line
			continue
		}
		if cur == "" {
			continue
		}
		if cur == secConclusion || cur == secEarlier || cur == secFocus {
			if item.Len() > 0 {
				item.WriteByte('\n')
			}
			item.WriteString(strings.TrimPrefix(line, "  "))
			continue
		}
		if m := itemStartRe.FindStringSubmatchIndex(line); m != nil {
			flush()
			item.WriteString(line[m[1]:])
			continue
		}
		if item.Len() > 0 && strings.HasPrefix(line, "  ") {
			item.WriteByte('\n')
			item.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "   "), "  "))
			continue
		}
	}
	flush()
	d.users = append(d.users, sections[secUser]...)
	d.modified = appendAll(d.modified, sections[secModified])
	d.read = appendAll(d.read, sections[secRead])
	d.commands = appendAll(d.commands, sections[secCommands])
	d.errors = appendAll(d.errors, sections[secErrors])
	d.tests = appendAll(d.tests, sections[secTests])
	d.open = appendAll(d.open, sections[secOpen])
	if c := sections[secConclusion]; len(c) > 0 {
		d.conclusion = strings.Join(c, "\n")
	}
	if e := sections[secEarlier]; len(e) > 0 {
		d.earlier = strings.Join(e, "\n")
	}
	if d.focus == "" && len(sections[secFocus]) > 0 {
		d.focus = strings.Join(sections[secFocus], "\n")
	}
}

var itemStartRe = regexp.MustCompile(`^(?:\d+\. |- )`)

// render writes d as Markdown.
func (d *digest) render() string {
	var b strings.Builder
	b.WriteString(SummaryHeader)
	b.WriteByte('\n')
	// First, and never shortened: the sections every summary carries
	// (withCarried finds them in place and leaves the text as it is).
	for _, sec := range []string{renderSection(SecInstructions, d.carried), renderSection(SecSpans, d.spans)} {
		if sec != "" {
			b.WriteString("\n" + sec + "\n")
		}
	}
	if d.focus != "" {
		b.WriteString("\n" + secFocus + "\n")
		b.WriteString("  ")
		writeIndented(&b, d.focus, "  ")
	}
	if len(d.users) > 0 {
		b.WriteString("\n" + secUser + "\n")
		for i, u := range d.users {
			fmt.Fprintf(&b, "%d. ", i+1)
			writeIndented(&b, cutCollapsed(u, d.userRunes), "   ")
		}
	}
	list := func(head string, items []string, n int) {
		if len(items) == 0 {
			return
		}
		b.WriteString("\n" + head + "\n")
		for _, it := range items {
			b.WriteString("- ")
			writeIndented(&b, cutLines(it, n), "  ")
		}
	}
	list(secModified, d.modified, 0)
	list(secRead, d.read, 0)
	list(secCommands, d.commands, d.lineRunes)
	list(secErrors, d.errors, d.lineRunes)
	list(secTests, d.tests, d.lineRunes)
	list(secOpen, d.open, d.lineRunes)
	if d.conclusion != "" && d.conclusionRunes > 0 {
		b.WriteString("\n" + secConclusion + "\n")
		b.WriteString("  ")
		writeIndented(&b, cutMarked(d.conclusion, d.conclusionRunes), "  ")
	}
	if len(d.files) > 0 {
		b.WriteString("\n" + secFiles + "\n")
		for _, f := range d.files {
			b.WriteString("- " + f.head + "\n")
			if c := headLines(f.content, d.fileLines); c != "" {
				b.WriteString("  ```\n  ")
				writeIndented(&b, c, "  ")
				b.WriteString("  ```\n")
			}
		}
	}
	if d.earlier != "" {
		b.WriteString("\n" + secEarlier + "\n")
		b.WriteString("  ")
		writeIndented(&b, cutMarked(d.earlier, 4*extractiveConclusionRunes), "  ")
	}
	return strings.TrimRight(b.String(), "\n")
}

// writeIndented writes s, its lines after the first indented by ind
// (continuation lines of a list item), and a final newline.
func writeIndented(b *strings.Builder, s, ind string) {
	first := true
	for line := range strings.Lines(s) {
		line = strings.TrimRight(line, "\r\n")
		if !first {
			b.WriteString(ind)
		}
		b.WriteString(line)
		b.WriteByte('\n')
		first = false
	}
	if first {
		b.WriteByte('\n')
	}
}

// cutMarked cuts s to n runes and marks the cut with "…"; n <= 0 means no
// cut.
func cutMarked(s string, n int) string {
	if n <= 0 {
		return s
	}
	c := tooluse.HeadRunes(s, n)
	if len(c) < len(s) {
		return strings.TrimRight(c, " \n") + "…"
	}
	return s
}

// cutCollapsed cuts s after n runes counting each run of white space as
// one, and marks the cut with "…": the cut keeps the first n runes of s
// with white space collapsed (what [MeasureRetention] looks for).
func cutCollapsed(s string, n int) string {
	count := 0
	space := false
	for i, r := range s {
		isSpace := unicode.IsSpace(r)
		if isSpace && space {
			continue
		}
		space = isSpace
		if count == n {
			return strings.TrimRightFunc(s[:i], unicode.IsSpace) + "…"
		}
		count++
	}
	return s
}

// cutLines cuts each line of a multi-line item to n runes (0: no cut).
func cutLines(s string, n int) string {
	if n <= 0 || !strings.Contains(s, "\n") {
		return cutMarked(s, n)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = cutMarked(l, n)
	}
	return strings.Join(lines, "\n")
}

// headLines returns the first n lines of s (n <= 0: none).
func headLines(s string, n int) string {
	if n <= 0 || s == "" {
		return ""
	}
	i, count := 0, 0
	for count < n {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return s
		}
		i += j + 1
		count++
	}
	return s[:i] + "…"
}

// fit renders d within limit tokens (0: no limit), shortening in the order
// documented on [Extractive].
func (d *digest) fit(c token.Counter, limit int) string {
	text := d.render()
	if limit <= 0 {
		return text
	}
	n := c.Count(text)
	if n <= limit {
		return text
	}
	// Each step shortens d; after each, re-render and count.
	steps := []func() bool{
		func() bool { return d.shrink(&d.conclusionRunes, 400) },
		func() bool { return d.shrink(&d.fileLines, 20) },
		func() bool { return d.shrink(&d.lineRunes, 120) },
		func() bool { return d.shrink(&d.userRunes, 300) },
		func() bool { return d.shrink(&d.fileLines, 0) },
		func() bool { r := len(d.files) > 0; d.files = nil; return r },
		func() bool { r := d.earlier != ""; d.earlier = ""; return r },
	}
	for _, step := range steps {
		if !step() {
			continue
		}
		text = d.render()
		if n = c.Count(text); n <= limit {
			return text
		}
	}
	// Drop the oldest items of the lists, in order, by how many tokens are
	// over: read files, errors, failed commands, failing tests, open tasks.
	for _, l := range []*[]string{&d.read, &d.errors, &d.commands, &d.tests, &d.open} {
		for len(*l) > 0 && n > limit {
			d.dropOldest(l, c, n-limit)
			text = d.render()
			n = c.Count(text)
		}
		if n <= limit {
			return text
		}
	}
	for _, step := range []func() bool{
		func() bool { return d.shrink(&d.conclusionRunes, 150) },
		func() bool { r := d.conclusionRunes > 0; d.conclusionRunes = 0; return r },
		func() bool { return d.shrink(&d.userRunes, 200) },
		func() bool { return d.shrink(&d.userRunes, 150) },
		func() bool { return d.shrink(&d.userRunes, extractiveMinUserRunes) },
	} {
		if !step() {
			continue
		}
		text = d.render()
		if n = c.Count(text); n <= limit {
			return text
		}
	}
	// Last resort: the oldest user messages, then the oldest modified
	// files, then cut the text.
	for _, l := range []*[]string{&d.users, &d.modified} {
		for len(*l) > 0 && n > limit {
			d.dropOldest(l, c, n-limit)
			text = d.render()
			n = c.Count(text)
		}
		if n <= limit {
			return text
		}
	}
	return cutToTokens(c, text, limit)
}

// shrink lowers *v to to when it is larger (0 means unlimited for
// fileLines only when the caller says so); it reports whether it changed.
func (d *digest) shrink(v *int, to int) bool {
	if *v > to {
		*v = to
		return true
	}
	return false
}

// dropOldest removes items from the front of *l whose token counts add
// up to at least over (at least one item).
func (d *digest) dropOldest(l *[]string, c token.Counter, over int) {
	k, sum := 0, 0
	for k < len(*l) && sum < over {
		sum += c.Count((*l)[k]) + 2
		k++
	}
	if k == 0 {
		k = 1
	}
	*l = (*l)[k:]
}

// cutToTokens cuts text to at most limit tokens, at a rune boundary, by
// binary search on the rune count.
func cutToTokens(c token.Counter, text string, limit int) string {
	runes := []rune(text)
	lo, hi := 0, len(runes)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if c.Count(string(runes[:mid])) <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(runes[:lo])
}
