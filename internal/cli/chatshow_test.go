package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/agent/tools"
)

func TestUnifiedDiff(t *testing.T) {
	for _, tc := range []struct {
		c    tools.Change
		want string
	}{
		{tools.Change{Path: "calc.py", Before: "a\nb\nc\n", After: "a\nB\nc\n"},
			"--- a/calc.py\n+++ b/calc.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{tools.Change{Path: "new.txt", After: "x\ny", Created: true},
			"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{tools.Change{Path: "same", Before: "x\n", After: "x\n"}, ""},
	} {
		if got := unifiedDiff(tc.c); got != tc.want {
			t.Errorf("diff of %s:\n%s\nwant:\n%s", tc.c.Path, got, tc.want)
		}
	}
}

// TestShowOutput: a tool's output shows its first and last lines (a
// failing test's last lines among them), /expand the whole; colour only
// when asked.
func TestShowOutput(t *testing.T) {
	var lines []string
	for i := 1; i <= 30; i++ {
		lines = append(lines, "line "+strings.Repeat("x", i%3)+string(rune('a'+i%26)))
	}
	lines[29] = "FAIL calc_test.go:12: got 3, want 4"
	out := strings.Join(lines, "\n")
	var b bytes.Buffer
	r := &repl{out: &b}
	r.showOutput(out)
	s := b.String()
	if !strings.Contains(s, lines[0]) || !strings.Contains(s, lines[3]) || strings.Contains(s, lines[4]+"\n") ||
		!strings.Contains(s, "FAIL calc_test.go:12") || !strings.Contains(s, "… 22 lines") {
		t.Errorf("head and tail:\n%s", s)
	}
	b.Reset()
	r.lastOutput = out
	r.expand()
	if strings.Count(b.String(), "\n") != 30 {
		t.Errorf("/expand shows %d lines, want 30", strings.Count(b.String(), "\n"))
	}
	for _, color := range []bool{false, true} {
		b.Reset()
		r := &repl{out: &b, color: color}
		r.showDiff(tools.Change{Path: "a", Before: "1\n", After: "2\n"})
		if got := strings.Contains(b.String(), "\x1b[32m+2"); got != color {
			t.Errorf("colour %v: %q", color, b.String())
		}
	}
}
