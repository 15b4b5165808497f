package workspace

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// splitWrites writes data to w in pieces whose sizes come from cuts (each
// byte a piece of 1 to 256 bytes, cycled), as a pipe may deliver it.
func splitWrites(t *testing.T, w interface{ Write([]byte) (int, error) }, data, cuts []byte) {
	t.Helper()
	for i := 0; len(data) > 0; i++ {
		n := len(data)
		if len(cuts) > 0 {
			n = min(n, int(cuts[i%len(cuts)])+1)
		}
		if k, err := w.Write(data[:n]); k != n || err != nil {
			t.Fatalf("Write = %d, %v; want %d, nil", k, err, n)
		}
		data = data[n:]
	}
}

// wantLines is what gitLineCap keeps of out, by its contract: the first
// maxLines lines (a last line without its newline counts), each cut to its
// first gitMaxLine bytes at a rune boundary and trimmed of "\r" at the
// end, and the count of the others.
func wantLines(out []byte, maxLines int) ([]string, int) {
	all := strings.Split(string(out), "\n")
	if all[len(all)-1] == "" {
		all = all[:len(all)-1]
	}
	var lines []string
	for i, l := range all {
		if i == maxLines {
			return lines, len(all) - maxLines
		}
		b, _ := appendCapped(nil, []byte(l), gitMaxLine)
		lines = append(lines, strings.TrimRight(string(b), "\r"))
	}
	return lines, 0
}

// FuzzGitOutput checks the parsing of git's output into the git status
// block: the porcelain status split into capped lines (gitLineCap) and a
// command's capped output (gitCapBuffer) keep the same bytes however the
// output is split into writes, keep valid UTF-8 valid, and follow their
// contract; and the block rendered from them holds every kept status
// line, the count of the others, and the branch, and never panics.
func FuzzGitOutput(f *testing.F) {
	for _, s := range []struct {
		status, log, branch string
	}{
		{" M a.go\n?? new.txt\nA  docs/é.md\n", "1a2b3c4 fix parse\n5d6e7f8 first commit", "main"},
		{"", "", ""},
		{"?? " + strings.Repeat("日本", 1500) + "\n M b\r\n", "abc1234 " + strings.Repeat("ü", 40), "feature/x"},
		{strings.Repeat("?? f\n", 80), "x", "detached"},
		{"no newline at the end", "\r\n\r\n", "a\nb"},
		{"\n\n\n", "\xff\xfe", "\xe6\x97"},
	} {
		f.Add([]byte(s.status), []byte{3, 0, 200}, uint8(50), s.log, s.branch, uint16(64))
	}
	f.Fuzz(func(t *testing.T, status, cuts []byte, maxLines uint8, log, branch string, capBytes uint16) {
		limit := int(maxLines%64) + 1
		// The status, in pieces and whole.
		l := &gitLineCap{max: limit}
		splitWrites(t, l, status, cuts)
		l.finish()
		whole := &gitLineCap{max: limit}
		splitWrites(t, whole, status, nil)
		whole.finish()
		if fmt.Sprint(l.lines, l.more) != fmt.Sprint(whole.lines, whole.more) {
			t.Fatalf("status %q split by %v: lines %q, %d more; written whole: %q, %d more", status, cuts, l.lines, l.more, whole.lines, whole.more)
		}
		lines, more := wantLines(status, limit)
		if fmt.Sprint(l.lines, l.more) != fmt.Sprint(lines, more) {
			t.Fatalf("status %q (max %d): lines %q, %d more; want %q, %d more", status, limit, l.lines, l.more, lines, more)
		}
		if utf8.Valid(status) {
			for _, line := range l.lines {
				if !utf8.ValidString(line) {
					t.Fatalf("status line %q of valid UTF-8 is not UTF-8", line)
				}
			}
		}
		// A command's output under a cap.
		c := &gitCapBuffer{max: int(capBytes)}
		splitWrites(t, c, []byte(log), cuts)
		if !bytes.HasPrefix([]byte(log), c.b) || len(c.b) > c.max {
			t.Fatalf("output %q capped at %d: kept %q", log, c.max, c.b)
		}
		if len(log) <= c.max && string(c.b) != log {
			t.Fatalf("output %q under the cap %d: kept %q", log, c.max, c.b)
		}
		if len(log) > c.max && len(c.b) < c.max-utf8.UTFMax {
			t.Fatalf("output %q capped at %d: kept only %d bytes", log, c.max, len(c.b))
		}
		if utf8.ValidString(log) && !utf8.Valid(c.b) {
			t.Fatalf("output %q capped at %d: kept %q, not UTF-8", log, c.max, c.b)
		}
		// The block.
		facts := &gitFacts{
			status: l, branch: strings.TrimRight(branch, "\r\n"), head: "1a2b3c4",
			log: strings.TrimRight(string(c.b), "\r\n"), email: "me@example.com", mine: "1a2b3c4 mine",
			refs: map[string]bool{"refs/heads/main": true},
		}
		if facts.branch == "" {
			facts.branchRun.code = 1 // symbolic-ref's answer for a detached HEAD
		}
		text, notes := facts.render(GitOptions{Commits: 5, MaxStatusLines: limit})
		if len(notes) != 0 || !strings.HasPrefix(text, gitIntro+"\n") {
			t.Fatalf("render: notices %v, text %q", notes, text)
		}
		_, status0, _ := strings.Cut(text, "\nStatus:\n")
		for _, line := range l.lines {
			if !strings.Contains(status0, line) {
				t.Fatalf("status line %q missing from the block:\n%s", line, text)
			}
		}
		if l.more > 0 && !strings.Contains(text, fmt.Sprintf("\n… %d more", l.more)) {
			t.Fatalf("block does not say %d more lines:\n%s", l.more, text)
		}
		if facts.branch != "" && !strings.Contains(text, "Current branch: "+facts.branch+"\n") {
			t.Fatalf("block does not name branch %q:\n%s", facts.branch, text)
		}
	})
}
