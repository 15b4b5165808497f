package workspace

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentctx/agentctx/token"
)

// renderTree renders the walked tree under the entry and token caps. It
// tries the entry cap first and otherwise searches for the largest entry
// budget whose text fits in maxTokens. ok is false, and the Block empty,
// when not even the top folder's line fits.
func renderTree(top *node, counter token.Counter, maxEntries, maxTokens int, stopped bool, visited int) (Block, bool) {
	try := func(budget int) (string, int, bool) {
		text, cut := renderBudget(top, budget, stopped, visited)
		return text, counter.Count(text), cut
	}
	text, tokens, cut := try(maxEntries)
	if tokens > maxTokens {
		// The largest budget in [0, maxEntries) that fits; lo < 0: none.
		lo, hi := -1, maxEntries
		text = ""
		for lo+1 < hi {
			mid := lo + (hi-lo)/2
			t, n, c := try(mid)
			if n <= maxTokens {
				lo, text, tokens, cut = mid, t, n, c
			} else {
				hi = mid
			}
		}
		if lo < 0 {
			return Block{}, false
		}
	}
	return Block{
		Name:      BlockDirectory,
		Text:      text,
		Tokens:    tokens,
		Source:    "walk",
		Truncated: cut,
	}, true
}

// renderBudget renders the tree listing at most budget entries, chosen
// by allocate, and reports whether anything was left out.
func renderBudget(top *node, budget int, stopped bool, visited int) (string, bool) {
	allocate(top, budget)
	var b strings.Builder
	b.WriteString(treeHeader)
	b.WriteString("\n\n")
	name := filepath.ToSlash(top.name)
	if !strings.HasSuffix(name, "/") {
		name += "/"
	}
	cut := writeNode(&b, top, name, 0)
	if stopped {
		b.WriteString("\n(the walk stopped after ")
		b.WriteString(commas(visited))
		b.WriteString(" entries: folders marked \"not walked\" were not read)")
		cut = true
	}
	return strings.TrimSuffix(b.String(), "\n"), cut
}

// allocate sets show on every folder: breadth first, each level's folders
// share what is left of budget max-min fairly (water-filling), so that
// the top levels are listed in full before deeper ones and one huge
// folder cannot starve its siblings. Ties go to the earlier folder in
// listing order.
func allocate(top *node, budget int) {
	var reset func(n *node)
	reset = func(n *node) {
		n.show = 0
		for _, d := range n.dirs {
			reset(d)
		}
	}
	reset(top)
	level := []*node{top}
	demand := []int{}
	for len(level) > 0 && budget > 0 {
		demand = demand[:0]
		for _, n := range level {
			demand = append(demand, n.total())
		}
		shares := waterfill(demand, budget)
		var next []*node
		for i, n := range level {
			n.show = shares[i]
			budget -= shares[i]
			next = append(next, n.dirs[:min(n.show, len(n.dirs))]...)
		}
		level = next
	}
}

// waterfill shares budget among demands max-min fairly: every demand
// gets min(d, L) for the largest level L that fits, and what remains
// goes one each to the earliest demands above L.
func waterfill(demand []int, budget int) []int {
	shares := make([]int, len(demand))
	sum := 0
	for _, d := range demand {
		sum += d
	}
	if sum <= budget {
		copy(shares, demand)
		return shares
	}
	sorted := slices.Clone(demand)
	slices.Sort(sorted)
	// Find L: walk the sorted demands; with k demands left (all >= the
	// current one), a level of rest/k fits.
	rest := budget
	level := 0
	for i, d := range sorted {
		k := len(sorted) - i
		if d*k > rest {
			level = rest / k
			break
		}
		rest -= d
		level = d
	}
	left := budget
	for i, d := range demand {
		shares[i] = min(d, level)
		left -= shares[i]
	}
	for i, d := range demand {
		if left == 0 {
			break
		}
		if d > shares[i] {
			shares[i]++
			left--
		}
	}
	return shares
}

// writeNode writes n's line (label, at depth) and its listed children,
// and reports whether anything below n was left out. Folders end with
// "/"; each level is indented by two spaces. A folder none of whose
// entries are listed says what it holds, "src/ (3 folders, 12 files)";
// a folder partly listed ends with "… N more" where N counts the
// folder's own entries not listed (files and folders, not recursively).
func writeNode(b *strings.Builder, n *node, label string, depth int) bool {
	indent(b, depth)
	b.WriteString(label)
	cut := n.unread || n.partial || n.failed
	switch {
	case n.unread:
		b.WriteString(" (not walked)")
	case n.show == 0 && n.total() > 0:
		b.WriteString(" (")
		b.WriteString(counts(len(n.dirs), len(n.files)))
		if n.partial {
			b.WriteString("; more not walked")
		}
		b.WriteString(")")
		cut = true
	case n.show == 0 && n.partial:
		b.WriteString(" (not walked)")
	case n.show == 0 && n.failed:
		b.WriteString(" (unreadable)")
	}
	b.WriteByte('\n')
	if n.show == 0 {
		return cut
	}
	for i := range n.show {
		if i < len(n.dirs) {
			d := n.dirs[i]
			if writeNode(b, d, displayName(d.name)+"/", depth+1) {
				cut = true
			}
			continue
		}
		indent(b, depth+1)
		b.WriteString(displayName(n.files[i-len(n.dirs)]))
		b.WriteByte('\n')
	}
	if more := n.total() - n.show; more > 0 {
		dirs := max(0, len(n.dirs)-n.show)
		indent(b, depth+1)
		b.WriteString("… ")
		b.WriteString(moreText(dirs, more-dirs))
		b.WriteByte('\n')
		cut = true
	}
	switch {
	case n.partial:
		indent(b, depth+1)
		b.WriteString("… more not walked\n")
	case n.failed:
		indent(b, depth+1)
		b.WriteString("… more unreadable\n")
	}
	return cut
}

// moreText says how many of a folder's entries were not listed:
// "12 more files", "3 more folders", "15 more (3 folders, 12 files)".
func moreText(dirs, files int) string {
	switch {
	case dirs == 0:
		return commas(files) + " more " + word(files, "file", "files")
	case files == 0:
		return commas(dirs) + " more " + word(dirs, "folder", "folders")
	}
	return commas(dirs+files) + " more (" + counts(dirs, files) + ")"
}

// counts says "3 folders, 12 files", leaving out a zero part.
func counts(dirs, files int) string {
	switch {
	case dirs == 0:
		return plural(files, "file", "files")
	case files == 0:
		return plural(dirs, "folder", "folders")
	}
	return plural(dirs, "folder", "folders") + ", " + plural(files, "file", "files")
}

func plural(n int, one, many string) string { return commas(n) + " " + word(n, one, many) }

func word(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func indent(b *strings.Builder, depth int) {
	for range depth {
		b.WriteString("  ")
	}
}

// displayName returns a file name as it can appear on one line of the
// prompt: as is, or Go-quoted when it holds control characters or
// invalid UTF-8 (a newline in a name must not start a line of its own).
func displayName(name string) string {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < 0x20 || c == 0x7f || c >= utf8.RuneSelf {
			if c >= utf8.RuneSelf && utf8.ValidString(name) && !hasControl(name) {
				return name
			}
			return strconv.Quote(name)
		}
	}
	return name
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			return true
		}
	}
	return false
}

// commas formats n in decimal with a comma every three digits: 1,234.
func commas(n int) string {
	s := strconv.Itoa(n)
	if n < 0 || len(s) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	b.WriteString(s[:pre])
	for i := pre; i < len(s); i += 3 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}
