package cli

import (
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/agentctx/agentctx/agent/tools"
)

// What the chat shows of a tool call: the change a write or an edit
// would make, as a unified diff, before it is asked about; the first and
// last lines of each tool's output after it ran (Ctrl-O or /expand shows
// the whole of the last one).

const (
	// outputHead and outputTail are the lines shown of a tool's output.
	outputHead, outputTail = 4, 4
	// diffMaxLines is the most diff lines shown before a question.
	diffMaxLines = 80
)

// unifiedDiff is the unified diff (3 lines of context) of c, with
// "a/PATH" and "b/PATH" headers ("/dev/null" for a new file); "" when
// nothing changes.
func unifiedDiff(c tools.Change) string {
	if c.Before == c.After {
		return ""
	}
	if c.Created || c.Before == "" {
		// difflib writes an empty side as one empty line: a new file's
		// diff is written here, every line added.
		lines := splitLines(c.After)
		var b strings.Builder
		from := "a/" + c.Path
		if c.Created {
			from = "/dev/null"
		}
		fmt.Fprintf(&b, "--- %s\n+++ b/%s\n@@ -0,0 +1,%d @@\n", from, c.Path, len(lines))
		for _, l := range lines {
			b.WriteString("+" + l)
		}
		return b.String()
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: splitLines(c.Before), B: splitLines(c.After),
		FromFile: "a/" + c.Path, ToFile: "b/" + c.Path, Context: 3,
	})
	if err != nil {
		return ""
	}
	return d
}

// splitLines splits s into lines, each ending in a newline (a last line
// without one gets one, so that it diffs like the others); none for "".
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	ls := strings.SplitAfter(s, "\n")
	return ls[:len(ls)-1]
}

// showDiff prints the diff of the change call would make, coloured on a
// terminal: + lines green, - lines red, hunk headers cyan; at most
// diffMaxLines lines.
func (r *repl) showDiff(c tools.Change) {
	d := unifiedDiff(c)
	if d == "" {
		r.println(r.paint("2", "  (no change to "+escapeTerm(c.Path)+")"))
		return
	}
	lines := strings.Split(strings.TrimRight(d, "\n"), "\n")
	shown := lines
	if len(lines) > diffMaxLines {
		shown = lines[:diffMaxLines]
	}
	for _, l := range shown {
		code := ""
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			code = "1"
		case strings.HasPrefix(l, "@@"):
			code = "36"
		case strings.HasPrefix(l, "+"):
			code = "32"
		case strings.HasPrefix(l, "-"):
			code = "31"
		}
		r.println("  " + r.paint(code, escapeTerm(l)))
	}
	if len(lines) > len(shown) {
		r.println(r.paint("2", fmt.Sprintf("  … %d more diff lines", len(lines)-len(shown))))
	}
}

// showOutput prints the first outputHead and last outputTail lines of a
// tool's output, indented, and how many lines were left out between.
func (r *repl) showOutput(out string) {
	out = strings.TrimRight(out, "\n")
	if strings.TrimSpace(out) == "" {
		return
	}
	lines := strings.Split(out, "\n")
	show := func(ls []string) {
		for _, l := range ls {
			r.println(r.paint("2", "    "+escapeTerm(cut(l, 200))))
		}
	}
	if len(lines) <= outputHead+outputTail+1 {
		show(lines)
		return
	}
	show(lines[:outputHead])
	r.println(r.paint("2", fmt.Sprintf("    … %d lines (Ctrl-O or /expand shows them all)", len(lines)-outputHead-outputTail)))
	show(lines[len(lines)-outputTail:])
}

// expand prints the whole of the last tool output.
func (r *repl) expand() {
	if r.lastOutput == "" {
		r.println("no tool output yet")
		return
	}
	for _, l := range strings.Split(strings.TrimRight(r.lastOutput, "\n"), "\n") {
		r.println("    " + escapeTerm(l))
	}
}
