package track

import (
	"fmt"
	"github.com/agentctx/agentctx/tooluse"
	"strings"
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
	t.mu.Lock()
	defer t.mu.Unlock()
	s := &t.state
	// skip[i] entries are left out of list i, oldest first.
	var skip [4]int
	out := render(s, skip)
	limit := t.opts.MaxTokens
	if limit < 0 || out == "" {
		return out
	}
	for t.opts.Counter.Count(out) > limit {
		lens := [4]int{len(s.Files), len(s.Commands), len(s.Searches), len(s.Changes)}
		best := -1
		for i := range lens {
			if lens[i]-skip[i] > 0 && (best < 0 || lens[i]-skip[i] > lens[best]-skip[best]) {
				best = i
			}
		}
		if best < 0 {
			// Nothing left but headings and omitted lines: cut as text.
			return cutToTokens(out, limit, t.opts.Counter)
		}
		// Drop about a quarter of the list at once to keep this cheap.
		skip[best] += max1((lens[best] - skip[best]) / 4)
		out = render(s, skip)
	}
	return out
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

func render(s *State, skip [4]int) string {
	var parts []string
	omitted := func(b *strings.Builder, n int, what string) {
		if n > 0 {
			fmt.Fprintf(b, "\n- (%d earlier %s omitted)", n, what)
		}
	}
	if len(s.Files) > 0 {
		var b strings.Builder
		b.WriteString("## Files read\n")
		for _, f := range s.Files[skip[0]:] {
			preview, _, _ := strings.Cut(f.Preview, "\n")
			fmt.Fprintf(&b, "\n- %s: %s", f.Path, tooluse.HeadRunes(strings.TrimSpace(preview), SectionPreviewRunes))
			if f.Stale {
				b.WriteString(" (stale: changed since read)")
			}
		}
		omitted(&b, s.OmittedFiles+skip[0], "files")
		parts = append(parts, b.String())
	}
	if len(s.Commands) > 0 {
		var b strings.Builder
		b.WriteString("## Failed commands\n")
		for _, c := range s.Commands[skip[1]:] {
			cmd := strings.ReplaceAll(c.Command, "\n", " ")
			cmd = strings.ReplaceAll(cmd, "`", "'")
			fmt.Fprintf(&b, "\n- `%s`: %s", cmd, c.Error)
		}
		omitted(&b, s.OmittedCommands+skip[1], "commands")
		parts = append(parts, b.String())
	}
	if len(s.Searches) > 0 {
		var b strings.Builder
		b.WriteString("## Recent searches\n")
		for _, q := range s.Searches[skip[2]:] {
			fmt.Fprintf(&b, "\n- %q: %s", strings.ReplaceAll(q.Query, "\n", " "), tooluse.HeadRunes(q.Summary, SectionSummaryRunes))
		}
		parts = append(parts, b.String())
	}
	if len(s.Changes) > 0 {
		var b strings.Builder
		b.WriteString("## Files changed\n")
		for _, c := range s.Changes[skip[3]:] {
			fmt.Fprintf(&b, "\n- %s: %s", c.Path, c.Op)
		}
		omitted(&b, s.OmittedChanges+skip[3], "files")
		parts = append(parts, b.String())
	}
	return strings.Join(parts, "\n\n")
}
