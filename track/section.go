package track

import (
	"fmt"
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
// otherwise count it again. The size is counted once per entry: each
// heading and entry line starts with "#" or "-" after a newline, where an
// exact tiktoken counter splits anyway (token.JoinCount), so for one the
// section's count is the sum of its lines' counts, and a line that did
// not change since the last call is not counted again; other counters
// count the whole text.
func (t *Tracker) SectionTokens() (string, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.counts.Turn()
	s := &t.state
	// skip[i] entries are left out of list i, oldest first.
	var skip [4]int
	out, starts := render(s, skip)
	if out == "" {
		return "", 0
	}
	n := t.count(out, starts)
	limit := t.opts.MaxTokens
	if limit < 0 {
		return out, n
	}
	for n > limit {
		lens := [4]int{len(s.Files), len(s.Commands), len(s.Searches), len(s.Changes)}
		best := -1
		for i := range lens {
			if lens[i]-skip[i] > 0 && (best < 0 || lens[i]-skip[i] > lens[best]-skip[best]) {
				best = i
			}
		}
		if best < 0 {
			// Nothing left but headings and omitted lines: cut as text.
			out = cutToTokens(out, limit, t.opts.Counter)
			return out, t.opts.Counter.Count(out)
		}
		// Drop about a quarter of the list at once to keep this cheap.
		skip[best] += max1((lens[best] - skip[best]) / 4)
		out, starts = render(s, skip)
		n = t.count(out, starts)
	}
	return out, n
}

// count returns the size of the rendered section out in tokens, given
// the offsets of its lines that start a piece (render): for an exact
// tiktoken counter the sum of the spans' counts, remembered from the
// last call; else out counted whole.
func (t *Tracker) count(out string, starts []int) int {
	if !token.Joinable(t.opts.Counter) {
		return t.opts.Counter.Count(out)
	}
	n := 0
	for i, at := range starts {
		end := len(out)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		n += t.counts.Count(t.opts.Counter, out[at:end])
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

// render renders the section with skip[i] entries of list i left out,
// and returns the offsets in it of the lines that start a piece for an
// exact tiktoken counter: 0 and every heading or entry line, which begins
// with "#" or "-" after a newline (token.JoinCount's clean seam).
func render(s *State, skip [4]int) (string, []int) {
	var b strings.Builder
	var starts []int
	// line starts a heading or an entry; a line after the first one
	// follows a newline.
	line := func(format string, args ...any) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		starts = append(starts, b.Len())
		fmt.Fprintf(&b, format, args...)
	}
	// part starts a list: a blank line after the one before.
	part := func(heading string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		line("%s\n", heading)
	}
	omitted := func(n int, what string) {
		if n > 0 {
			line("- (%d earlier %s omitted)", n, what)
		}
	}
	if len(s.Files) > 0 {
		part("## Files read")
		for _, f := range s.Files[skip[0]:] {
			preview, _, _ := strings.Cut(f.Preview, "\n")
			line("- %s: %s", f.Path, tooluse.HeadRunes(strings.TrimSpace(preview), SectionPreviewRunes))
			if f.Stale {
				b.WriteString(" (stale: changed since read)")
			}
		}
		omitted(s.OmittedFiles+skip[0], "files")
	}
	if len(s.Commands) > 0 {
		part("## Failed commands")
		for _, c := range s.Commands[skip[1]:] {
			cmd := strings.ReplaceAll(c.Command, "\n", " ")
			cmd = strings.ReplaceAll(cmd, "`", "'")
			line("- `%s`: %s", cmd, c.Error)
		}
		omitted(s.OmittedCommands+skip[1], "commands")
	}
	if len(s.Searches) > 0 {
		part("## Recent searches")
		for _, q := range s.Searches[skip[2]:] {
			line("- %q: %s", strings.ReplaceAll(q.Query, "\n", " "), tooluse.HeadRunes(q.Summary, SectionSummaryRunes))
		}
	}
	if len(s.Changes) > 0 {
		part("## Files changed")
		for _, c := range s.Changes[skip[3]:] {
			line("- %s: %s", c.Path, c.Op)
		}
		omitted(s.OmittedChanges+skip[3], "files")
	}
	return b.String(), starts
}
