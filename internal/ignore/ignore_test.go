package ignore

import (
	"strings"
	"testing"
	"time"
)

func TestWildmatch(t *testing.T) {
	t.Parallel()
	// Expectations are git's (wildmatch with WM_PATHNAME), checked with
	// git check-ignore on the patterns where they are gitignore lines.
	tests := []struct {
		pattern, text string
		want          bool
	}{
		{"[!a].txt", "b.txt", true},
		{"[!a].txt", "a.txt", false},
		{"[^a].txt", "a.txt", false},
		{"[]a]", "]", true},
		{"[]a]", "a", true},
		{"[!]a]", "b", true},
		{"[!]a]", "]", false},
		{"[a-c]", "b", true},
		{"[a-c]", "d", false},
		{"[a-]", "-", true},
		{"[[:digit:]x]", "7", true},
		{"[[:digit:]x]", "x", true},
		{"[[:digit:]x]", "y", false},
		{"[[:nope:]]", "n", false},
		{"[[:alpha]", "[", true}, // no ":]": a plain '['
		{"[ab", "[ab", false},    // unclosed: matches nothing
		{"[\\]]", "]", true},
		{"a?c", "abc", true},
		{"a?c", "a/c", false},
		{"a*", "a/b", false},
		{"a/*", "a/b", true},
		{"a/*", "a/b/c", false},
		{"a/**", "a/b/c", true},
		{"a/**", "a", false},
		{"**/b", "b", true},
		{"**/b", "a/x/b", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b/c", "a/b/x/b/c", true},
		{"a**b", "axxb", true},
		{"a**b", "a/b", false},
		{"*", "", true}, // git: a trailing star matches the empty rest
		{"\\*", "*", true},
		{"\\*", "x", false},
		{"a\\", "a", false},
		{"*a*a*a*a*a*a*a*a*b", strings.Repeat("a", 60), false},
		{"**/**/**/**/**/**/z", strings.Repeat("a/", 30) + "y", false},
	}
	for _, tt := range tests {
		if got := wildmatch(tt.pattern, tt.text); got != tt.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", tt.pattern, tt.text, got, tt.want)
		}
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line   string
		domain []string
		path   string
		isDir  bool
		want   Result
	}{
		{"*.log", nil, "a/b/x.log", false, Exclude},
		{"!*.log", nil, "x.log", false, Include},
		{"build/", nil, "x/build", false, NoMatch},
		{"build/", nil, "x/build", true, Exclude},
		{"/out", nil, "out", false, Exclude},
		{"/out", nil, "x/out", false, NoMatch},
		{"d/*.txt", nil, "d/a.txt", false, Exclude},
		{"d/*.txt", nil, "x/d/a.txt", false, NoMatch},
		{"*.gen", []string{"sub"}, "sub/x/a.gen", false, Exclude},
		{"*.gen", []string{"sub"}, "other/a.gen", false, NoMatch},
		{"/local", []string{"sub"}, "sub/local", false, Exclude},
		{"/local", []string{"sub"}, "sub/x/local", false, NoMatch},
		{"a b  ", nil, "a b", false, Exclude},
		{"a\\ ", nil, "a ", false, Exclude},
		{"\\#x", nil, "#x", false, Exclude},
		{"\\!x", nil, "!x", false, Exclude},
		{"x\r", nil, "x", false, Exclude},
		{"a//", nil, "a", true, NoMatch}, // git strips one slash: "a/" matches nothing
	}
	for _, tt := range tests {
		p, ok := Parse(tt.line, tt.domain)
		if !ok {
			t.Errorf("Parse(%q) not ok", tt.line)
			continue
		}
		if got := p.Match(strings.Split(tt.path, "/"), tt.isDir); got != tt.want {
			t.Errorf("%q in %v: Match(%s, dir %v) = %v, want %v", tt.line, tt.domain, tt.path, tt.isDir, got, tt.want)
		}
	}
	for _, line := range []string{"", "   ", "# c", "!", "/", "\r"} {
		if _, ok := Parse(line, nil); ok {
			t.Errorf("Parse(%q) ok, want a line that matches nothing", line)
		}
	}
}

// TestWildmatchLinear bounds the backtracking: a pattern of many stars
// against a long text that does not match answers at once.
func TestWildmatchLinear(t *testing.T) {
	t.Parallel()
	start := time.Now()
	pat := strings.Repeat("*a", 40) + "*b"
	text := strings.Repeat("a", 4000)
	if wildmatch(pat, text) {
		t.Fatal("matched")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %v", d)
	}
}

// FuzzMatch checks that the fast paths for literal, "*suffix" and
// "prefix*" patterns agree with wildmatch, and that nothing panics.
func FuzzMatch(f *testing.F) {
	for _, s := range []string{"*.log", "!*.log", "build/", "tmp*", "!keep", "*", "a b ", `\#x`, "*.", "x*/", "[ab]", "**", "[!a]", "a/**/b", "[[:x"} {
		f.Add(s, "file.log", false)
		f.Add(s, "a/b", true)
	}
	f.Fuzz(func(t *testing.T, line, path string, isDir bool) {
		if path == "" || len(line) > 200 || len(path) > 200 {
			return
		}
		parts := strings.Split(path, "/")
		p, ok := Parse(line, nil)
		if !ok {
			return
		}
		got := p.Match(parts, isDir)
		if p.kind == kindWild || !p.basename {
			return
		}
		slow := p
		slow.kind = kindWild
		if want := slow.Match(parts, isDir); got != want {
			t.Fatalf("%q on %q (dir %v): fast %v, wildmatch %v", line, path, isDir, got, want)
		}
	})
}
