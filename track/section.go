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
// otherwise count it again. Each entry is rendered once per call and
// counted once while it stays the same: each heading and entry line
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

// sectionTokens renders and counts the section. Called with t.mu held.
func (t *Tracker) sectionTokens() (string, int) {
	defer t.counts.Turn()
	sec := newSection(&t.state)
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
	omitted int
	what    string
	// before[j] is the size in tokens of entries[:j], each counted alone
	// (sectionCount); nil until counted.
	before []int
}

// omittedLine returns the line counting the entries the caps dropped and
// the skip more left out, with its newline; "" for none.
func (l *list) omittedLine(skip int) string {
	if n := l.omitted + skip; l.what != "" && n > 0 {
		return "- (" + strconv.Itoa(n) + " earlier " + l.what + " omitted)\n"
	}
	return ""
}

// newSection renders s's entries.
func newSection(s *State) *section {
	sec := &section{}
	sec.lists[0] = list{heading: "## Files read\n", omitted: s.OmittedFiles, what: "files"}
	for _, f := range s.Files {
		preview, _, _ := strings.Cut(f.Preview, "\n")
		stale := ""
		if f.Stale {
			stale = " (stale: changed since read)"
		}
		sec.lists[0].entries = append(sec.lists[0].entries, "- "+f.Path+": "+tooluse.HeadRunes(strings.TrimSpace(preview), SectionPreviewRunes)+stale+"\n")
	}
	sec.lists[1] = list{heading: "## Failed commands\n", omitted: s.OmittedCommands, what: "commands"}
	for _, c := range s.Commands {
		cmd := strings.ReplaceAll(c.Command, "\n", " ")
		cmd = strings.ReplaceAll(cmd, "`", "'")
		sec.lists[1].entries = append(sec.lists[1].entries, "- `"+cmd+"`: "+c.Error+"\n")
	}
	sec.lists[2] = list{heading: "## Recent searches\n"}
	for _, q := range s.Searches {
		sec.lists[2].entries = append(sec.lists[2].entries, "- "+strconv.Quote(strings.ReplaceAll(q.Query, "\n", " "))+": "+tooluse.HeadRunes(q.Summary, SectionSummaryRunes)+"\n")
	}
	sec.lists[3] = list{heading: "## Files changed\n", omitted: s.OmittedChanges, what: "files"}
	for _, c := range s.Changes {
		sec.lists[3].entries = append(sec.lists[3].entries, "- "+c.Path+": "+c.Op+"\n")
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
// its lines' counts (as units cuts them), remembered from call to call
// (token.Memo), the entries followed by another line of their part summed
// from their counts alone; else the text counted whole.
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
			for j, e := range l.entries {
				l.before[j+1] = l.before[j] + t.counts.Count(c, e)
			}
		}
		end := len(l.entries) // entries before end are followed by a line of the part
		if omitted == "" {
			end--
			e := l.entries[end]
			n += t.counts.Count(c, e[:len(e)-1]+after)
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
