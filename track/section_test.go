package track

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/tooluse"
)

// renderWhole is the section as Section rendered it before it was
// rendered entry by entry: each part whole, joined by a blank line. It is
// the oracle of TestSectionTokens.
func renderWhole(s *State, skip [4]int) string {
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

// sectionTexts are entry texts with awkward edges: trailing spaces and
// newlines, slashes, indentation, non-ASCII, punctuation runs.
var sectionTexts = []string{
	"", "x", "  indented", "/usr/bin/env", "ends with space ", "上下文", "a.\n/b", "error: exit 1\n\nmore",
	"?!", "'s", "tab\there", "\u00a0nbsp", "😀", "x\n", "line one\nline two",
}

// TestSectionTokens: for random states (some lists empty, entries with
// awkward edges, omitted counts) and caps from none to tiny, both
// encodings and the estimator, SectionTokens returns the text the whole
// render gives with the same entries left out, and its exact count; a
// second call, from remembered counts, returns the same.
func TestSectionTokens(t *testing.T) {
	t.Parallel()
	o, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := token.ForEncoding(token.Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	pick := func() string {
		return sectionTexts[rng.IntN(len(sectionTexts))] + sectionTexts[rng.IntN(len(sectionTexts))]
	}
	for _, c := range []token.Counter{o, cl, token.Estimator{}} {
		for i := range 150 {
			var s State
			for j := range rng.IntN(4) * rng.IntN(12) {
				s.Files = append(s.Files, FileRead{Path: fmt.Sprintf("src/f%d.go", j) + pick(), Preview: pick(), Stale: rng.IntN(3) == 0})
			}
			for range rng.IntN(2) * rng.IntN(6) {
				s.Commands = append(s.Commands, FailedCommand{Command: "go test `x`\n" + pick(), Error: pick()})
			}
			for range rng.IntN(2) * rng.IntN(6) {
				s.Searches = append(s.Searches, Search{Query: pick(), Summary: pick()})
			}
			for j := range rng.IntN(2) * rng.IntN(10) {
				s.Changes = append(s.Changes, FileChange{Path: fmt.Sprintf("f%d", j) + pick(), Op: "edit"})
			}
			s.OmittedFiles, s.OmittedCommands, s.OmittedChanges = rng.IntN(3), rng.IntN(3), rng.IntN(3)
			limit := []int{-1, 1, 5, 40, 120, 400, DefaultMaxTokens}[i%7]
			tr := New(Options{MaxTokens: limit, Counter: c, MaxFiles: 100, MaxCommands: 100, MaxSearches: 100})
			tr.SetState(s)
			got, n := tr.SectionTokens()
			if want := c.Count(got); n != want {
				t.Fatalf("%s: state %d: count %d, want %d for %q", c.Name(), i, n, want, got)
			}
			if limit >= 0 && n > limit && got != "" {
				t.Fatalf("%s: state %d: %d tokens over the cap %d", c.Name(), i, n, limit)
			}
			if !wholeRenders(&s, got) {
				t.Fatalf("%s: state %d: %q is not a render of the state with entries left out", c.Name(), i, got)
			}
			if again, m := tr.SectionTokens(); again != got || m != n {
				t.Fatalf("%s: state %d: second call gave %d tokens %q, want %d %q", c.Name(), i, m, again, n, got)
			}
		}
	}
}

// wholeRenders reports whether text is renderWhole of s with some
// entries left out, or a cut of such a render (the cap's last resort).
func wholeRenders(s *State, text string) bool {
	var skip [4]int
	for skip[0] = 0; skip[0] <= len(s.Files); skip[0]++ {
		for skip[1] = 0; skip[1] <= len(s.Commands); skip[1]++ {
			for skip[2] = 0; skip[2] <= len(s.Searches); skip[2]++ {
				for skip[3] = 0; skip[3] <= len(s.Changes); skip[3]++ {
					if w := renderWhole(s, skip); w == text || strings.HasPrefix(w, text) && (skip == [4]int{len(s.Files), len(s.Commands), len(s.Searches), len(s.Changes)}) {
						return true
					}
				}
			}
		}
	}
	return false
}

// TestSectionTokensAcrossChanges: one tracker whose state changes from
// call to call (entries added, moved, dropped, their previews, stale
// marks, errors and summaries changed, queries repeated with other
// summaries) returns at each call what a new tracker returns for the same
// state: the lines and counts it keeps from earlier calls are those of
// the entries as they are now.
func TestSectionTokensAcrossChanges(t *testing.T) {
	t.Parallel()
	o, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	pick := func() string { return sectionTexts[rng.IntN(len(sectionTexts))] }
	for _, c := range []token.Counter{o, token.Estimator{}} {
		for _, limit := range []int{-1, 60, 300} {
			opts := Options{MaxTokens: limit, Counter: c, MaxFiles: 100, MaxCommands: 100, MaxSearches: 100}
			tr := New(opts)
			var s State
			for step := range 300 {
				switch rng.IntN(6) {
				case 0:
					s.Files = append(s.Files, FileRead{Path: fmt.Sprintf("f%d", rng.IntN(8)), Preview: pick()})
				case 1:
					if len(s.Files) > 0 {
						i := rng.IntN(len(s.Files))
						f := s.Files[i]
						f.Preview, f.Stale = pick(), rng.IntN(2) == 0
						s.Files = append(append(s.Files[:i:i], s.Files[i+1:]...), f)
					}
				case 2:
					s.Commands = append(s.Commands, FailedCommand{Command: fmt.Sprintf("cmd %d", rng.IntN(4)), Error: pick()})
				case 3:
					s.Searches = append(s.Searches, Search{Query: fmt.Sprintf("q%d", rng.IntN(3)), Summary: pick()})
				case 4:
					s.Changes = append(s.Changes, FileChange{Path: fmt.Sprintf("f%d", rng.IntN(8)), Op: []string{"edit", "write", "delete"}[rng.IntN(3)]})
				case 5:
					if len(s.Files) > 2 {
						s.Files = s.Files[1:]
						s.OmittedFiles++
					}
				}
				tr.SetState(s)
				got, n := tr.SectionTokens()
				fresh := New(opts)
				fresh.SetState(s)
				want, m := fresh.SectionTokens()
				if got != want || n != m {
					t.Fatalf("%s, cap %d, step %d: %d tokens %q, a new tracker %d %q", c.Name(), limit, step, n, got, m, want)
				}
			}
		}
	}
}
