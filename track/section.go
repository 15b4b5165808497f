package track

import (
	"strconv"
	"strings"

	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/tooluse"
)

// Section renders the tracker's state as Markdown for the system prompt
// (seed 000's formatForPrompt): a "## Files read" part (each file with the
// first line of its preview cut to [SectionPreviewRunes] runes, "(stale)"
// when it changed since the read), "## Failed commands" (command and
// error line), "## Recent searches" (query and summary cut to
// [SectionSummaryRunes] runes) and "## Files changed" (path and last
// operation), each only when non-empty, joined by a blank line; "" when
// nothing was recorded. Entries dropped by the caps are announced by a
// line such as "- (3 earlier files omitted)".
//
// The result is at most [Options.MaxTokens] tokens as counted by
// [Options.Counter]: over the cap, the oldest entries of the longest list
// are left out first (and counted in its omitted line). Section does not
// touch the disk; call [Tracker.Stale] to refresh the stale marks.
func (t *Tracker) Section() string {
	out, _ := t.SectionTokens()
	return out
}

// SectionTokens is [Tracker.Section] with its size in tokens as
// [Options.Counter] counts it (0 for ""), for a caller that would
// otherwise count it again. Each entry is rendered and counted once
// while it stays the same, from call to call: each heading and entry line
// starts with "#" or "-" after a newline, where an exact tiktoken counter
// splits anyway (token.JoinCount), so for one the section's count is the
// sum of its lines' counts (each with the newlines after it), and the
// entries left out to fit MaxTokens are subtracted, not rendered again;
// other counters count the whole text at each try. While the state has
// not changed since the last call, the last section is returned as it
// was, neither rendered nor counted.
func (t *Tracker) SectionTokens() (string, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last.ok && t.last.gen == t.gen {
		// Nothing changed since the last call.
		return t.last.text, t.last.tokens
	}
	text, n := t.sectionTokens()
	t.last.gen, t.last.ok, t.last.text, t.last.tokens = t.gen, true, text, n
	return text, n
}

// HiddenTokens returns how many tokens fewer [Tracker.SectionTokens]
// holds than the section would with nothing shown ([Tracker.SetShown]):
// what a caller that reserves room for the section before compacting adds
// to its reserve, since compaction may show less and the section then
// grows by at most this much (0 when nothing is hidden). It renders the
// section without hiding, once per state version.
func (t *Tracker) HiddenTokens() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.shown == nil {
		return 0
	}
	if !t.last.ok || t.last.gen != t.gen {
		t.last.text, t.last.tokens = t.sectionTokens()
		t.last.gen, t.last.ok = t.gen, true
	}
	if !t.all.ok || t.all.gen != t.gen {
		shown := t.shown
		t.shown = nil
		_, t.all.tokens = t.section(false)
		t.shown = shown
		t.all.gen, t.all.ok = t.gen, true
	}
	return max(t.all.tokens-t.last.tokens, 0)
}

// sectionTokens renders and counts the section. Called with t.mu held.
func (t *Tracker) sectionTokens() (string, int) { return t.section(true) }

// section renders and counts the section, its text only when text is
// set (else "": its count alone is wanted). Called with t.mu held.
func (t *Tracker) section(text bool) (string, int) {
	defer t.counts.Turn()
	sec := t.newSection()
	// skip[i] entries are left out of list i, oldest first.
	var skip [4]int
	n := t.sectionCount(sec, skip)
	if n == 0 {
		return "", 0
	}
	limit := t.opts.MaxTokens
	for limit >= 0 && n > limit {
		best := -1
		for i, l := range sec.lists {
			left := len(l.entries) - skip[i]
			if left > 0 && (best < 0 || left > len(sec.lists[best].entries)-skip[best]) {
				best = i
			}
		}
		if best < 0 {
			// Nothing left but headings and omitted lines: cut as text.
			out := cutToTokens(sec.text(skip), limit, t.opts.Counter)
			return out, t.opts.Counter.Count(out)
		}
		// Drop about a quarter of the list at once to keep this cheap.
		skip[best] += max1((len(sec.lists[best].entries) - skip[best]) / 4)
		n = t.sectionCount(sec, skip)
	}
	if !text {
		return "", n
	}
	return sec.text(skip), n
}

// section is the tracker's section rendered entry by entry: one list per
// part, in order (files read, failed commands, recent searches, files
// changed).
type section struct {
	lists [4]list
}

// list is one part of the section: its heading line and its entries'
// lines, each with its newline; omitted and what render the line counting
// the entries the caps dropped (none when what is "").
type list struct {
	heading string
	entries []string
	// lines[j] is entries[j] with its counts, kept from call to call.
	lines   []*line
	omitted int
	what    string
	// before[j] is the size in tokens of entries[:j], each counted alone
	// (sectionCount); nil until counted.
	before []int
}

// line is the line of one entry of the section, with its counts once
// counted. The tracker keeps it from call to call while its entry stays
// the same, so that an entry is rendered once, and counted once, not at
// every call (lineCache).
type line struct {
	text string // "- …\n"
	// of are the entry's fields it was rendered from, besides its key.
	of lineOf
	// tokens is text's count; lastTokens[k] the count of text without
	// its newline followed by afters[k] (the part's last line); -1 until
	// counted.
	tokens     int
	lastTokens [len(afters)]int
	// call is the last call of newSection that used it.
	call uint64
}

// lineOf is what an entry's line is rendered from, besides its key: a
// file's preview and stale mark, a command's error, a search's summary,
// a change's operation.
type lineOf struct {
	text  string
	stale bool
}

// afters are what may follow a part's last line: nothing (the last
// part) or the blank line before the next part.
var afters = [...]string{"", "\n\n"}

// lineCache holds the lines of the last call's entries, by list and key
// (a file's path, a command, a search's query and summary).
type lineCache struct {
	lists [4]map[string]*line
	call  uint64
}

// get returns the line of list i's entry key rendered from of, rendering
// it when the cache has none or one rendered from other fields.
func (c *lineCache) get(i int, key string, of lineOf, render func() string) *line {
	m := c.lists[i]
	if m == nil {
		m = map[string]*line{}
		c.lists[i] = m
	}
	l := m[key]
	if l == nil || l.of != of {
		l = &line{text: render(), of: of, tokens: -1, lastTokens: [len(afters)]int{-1, -1}}
		m[key] = l
	}
	l.call = c.call
	return l
}

// keep marks the line of list i's entry key, if cached, as used by this
// call: an entry the section leaves out for now ([Tracker.SetShown]) keeps
// its line and count for the renderings that list it
// ([Tracker.HiddenTokens]).
func (c *lineCache) keep(i int, key string) {
	if l := c.lists[i][key]; l != nil {
		l.call = c.call
	}
}

// sweep forgets the lines the last call did not use.
func (c *lineCache) sweep() {
	for _, m := range c.lists {
		for k, l := range m {
			if l.call != c.call {
				delete(m, k)
			}
		}
	}
}

// omittedLine returns the line counting the entries the caps dropped and
// the skip more left out, with its newline; "" for none.
func (l *list) omittedLine(skip int) string {
	if n := l.omitted + skip; l.what != "" && n > 0 {
		return "- (" + strconv.Itoa(n) + " earlier " + l.what + " omitted)\n"
	}
	return ""
}

// add appends an entry's line to l.
func (l *list) add(e *line) {
	l.entries = append(l.entries, e.text)
	l.lines = append(l.lines, e)
}

// newSection renders the state's entries, taking the lines of unchanged
// entries from the last call. Called with t.mu held.
func (t *Tracker) newSection() *section {
	s, c := &t.state, &t.lines
	c.call++
	defer c.sweep()
	sec := &section{}
	sec.lists[0] = list{heading: "## Files read\n", omitted: s.OmittedFiles, what: "files"}
	hide := func(id string) bool { return id != "" && t.shown != nil && t.shown(id) }
	for _, f := range s.Files {
		if hide(f.Call) {
			c.keep(0, f.Path)
			continue
		}
		sec.lists[0].add(c.get(0, f.Path, lineOf{text: f.Preview, stale: f.Stale}, func() string {
			preview, _, _ := strings.Cut(f.Preview, "\n")
			stale := ""
			if f.Stale {
				stale = " (stale: changed since read)"
			}
			return "- " + f.Path + ": " + tooluse.HeadRunes(strings.TrimSpace(preview), SectionPreviewRunes) + stale + "\n"
		}))
	}
	sec.lists[1] = list{heading: "## Failed commands\n", omitted: s.OmittedCommands, what: "commands"}
	for _, cmd := range s.Commands {
		if hide(cmd.Call) {
			c.keep(1, cmd.Command)
			continue
		}
		sec.lists[1].add(c.get(1, cmd.Command, lineOf{text: cmd.Error}, func() string {
			text := strings.ReplaceAll(cmd.Command, "\n", " ")
			text = strings.ReplaceAll(text, "`", "'")
			return "- `" + text + "`: " + cmd.Error + "\n"
		}))
	}
	sec.lists[2] = list{heading: "## Recent searches\n"}
	for _, q := range s.Searches {
		if hide(q.Call) {
			c.keep(2, q.Query)
			continue
		}
		// Queries repeat: the key is the query, and the summary is
		// compared.
		sec.lists[2].add(c.get(2, q.Query, lineOf{text: q.Summary}, func() string {
			return "- " + strconv.Quote(strings.ReplaceAll(q.Query, "\n", " ")) + ": " + tooluse.HeadRunes(q.Summary, SectionSummaryRunes) + "\n"
		}))
	}
	sec.lists[3] = list{heading: "## Files changed\n", omitted: s.OmittedChanges, what: "files"}
	for _, ch := range s.Changes {
		if hide(ch.Call) {
			c.keep(3, ch.Path)
			continue
		}
		sec.lists[3].add(c.get(3, ch.Path, lineOf{text: ch.Op}, func() string {
			return "- " + ch.Path + ": " + ch.Op + "\n"
		}))
	}
	return sec
}

// units calls f with the section's text with skip[i] entries of list i
// left out, cut into its lines, each with the newlines that follow it (the
// last without). The parts
// are those of the lists with entries, joined by a blank line; within a
// part the heading is followed by a blank line when lines follow it.
func (sec *section) units(skip [4]int, f func(unit string)) {
	last := -1
	for i, l := range sec.lists {
		if len(l.entries) > 0 {
			last = i
		}
	}
	for i, l := range sec.lists {
		if len(l.entries) == 0 {
			continue
		}
		after := "" // what follows the part's last line
		if i < last {
			after = "\n\n"
		}
		lines := l.entries[skip[i]:]
		omitted := l.omittedLine(skip[i])
		if len(lines) == 0 && omitted == "" {
			f(l.heading + after)
			continue
		}
		f(l.heading + "\n")
		for j, e := range lines {
			if j < len(lines)-1 || omitted != "" {
				f(e)
			} else {
				f(e[:len(e)-1] + after)
			}
		}
		if omitted != "" {
			f(omitted[:len(omitted)-1] + after)
		}
	}
}

// text returns the section's text with skip[i] entries of list i left
// out.
func (sec *section) text(skip [4]int) string {
	var b strings.Builder
	size := 0
	for _, l := range sec.lists {
		size += len(l.heading) + 4 + 48 // the heading, blank lines, an omitted line
		for _, e := range l.entries {
			size += len(e)
		}
	}
	b.Grow(size)
	sec.units(skip, func(u string) { b.WriteString(u) })
	return b.String()
}

// sectionCount returns the size in tokens of sec's text with skip[i]
// entries of list i left out: for an exact tiktoken counter the sum of
// its lines' counts (as units cuts them), the entries' counts kept with
// their lines while they stay the same (lineCache), the headings' and
// omitted lines' remembered (token.Memo); the entries followed by another
// line of their part are summed from their counts alone. Other counters
// count the text whole.
func (t *Tracker) sectionCount(sec *section, skip [4]int) int {
	c := t.opts.Counter
	if !token.Joinable(c) {
		text := sec.text(skip)
		if text == "" {
			return 0
		}
		return c.Count(text)
	}
	last := -1
	for i, l := range sec.lists {
		if len(l.entries) > 0 {
			last = i
		}
	}
	n := 0
	for i := range sec.lists {
		l := &sec.lists[i]
		if len(l.entries) == 0 {
			continue
		}
		after := ""
		if i < last {
			after = "\n\n"
		}
		lines := l.entries[skip[i]:]
		omitted := l.omittedLine(skip[i])
		if len(lines) == 0 && omitted == "" {
			n += t.counts.Count(c, l.heading+after)
			continue
		}
		n += t.counts.Count(c, l.heading+"\n")
		if l.before == nil {
			l.before = make([]int, len(l.entries)+1)
			for j, e := range l.lines {
				if e.tokens < 0 {
					e.tokens = c.Count(e.text)
				}
				l.before[j+1] = l.before[j] + e.tokens
			}
		}
		end := len(l.entries) // entries before end are followed by a line of the part
		if omitted == "" {
			end--
			e, k := l.lines[end], 0
			if after == afters[1] {
				k = 1
			}
			if e.lastTokens[k] < 0 {
				if e.tokens < 0 {
					e.tokens = c.Count(e.text)
				}
				// Only the line's last piece is counted again.
				e.lastTokens[k] = token.LineEndCount(c, e.text[:len(e.text)-1], e.tokens, after)
			}
			n += e.lastTokens[k]
		} else {
			n += t.counts.Count(c, omitted[:len(omitted)-1]+after)
		}
		n += l.before[end] - l.before[skip[i]]
	}
	return n
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

// cutToTokens cuts s on a line boundary (else a rune boundary) until c
// counts at most max tokens.
func cutToTokens(s string, limit int, c interface{ Count(string) int }) string {
	for s != "" && c.Count(s) > limit {
		if i := strings.LastIndexByte(s, '\n'); i > 0 {
			s = s[:i]
		} else {
			s = tooluse.HeadRunes(s, len([]rune(s))/2)
		}
	}
	return s
}
