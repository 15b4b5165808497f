package compact

import (
	"slices"
	"strings"
	"testing"
)

// textPathSamples are texts with paths, URLs, versions, e-mail addresses
// and runs without an extension, side by side.
var textPathSamples = []string{
	"",
	"see src/app.go:12 and ./x.py, then /etc/hosts.conf; README.md",
	"https://example.com/a/b.html user@host.org v1.2.3 1.2.3 ~/notes.txt ../up/x.tar.gz",
	"no paths here at all, just words and 42 numbers",
	"a.b.c.d.e.f/g.h/i.j x.Y z.9 .hidden/.x .. ... /// ~~ @@ ++ --",
	"日本語/ファイル.go ascii/after.go\tTAB/x.md\nnext/line.rs",
	strings.Repeat("pkg/sub/file_1.go ", 50),
}

// FuzzTextPathCandidates: the candidates found run by run are the
// regexp's on the whole text, for any text and limit.
func FuzzTextPathCandidates(f *testing.F) {
	for _, s := range textPathSamples {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, text string, n int) {
		n = n%20 - 1 // -1 (no limit) to 18
		got := textPathCandidates(text, max(n, 0))
		if n < 0 {
			got = textPathCandidates(text, len(text)+1)
		}
		want := textPathRe.FindAllStringIndex(text, n)
		if n == 0 {
			want = nil
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("textPathCandidates(%q, %d) = %v, want %v", text, n, got, want)
		}
	})
}

// TestTextPathCandidates: the samples and their limits, as the fuzzer
// checks them, and the cap TextPaths uses on a text with more
// candidates than it.
func TestTextPathCandidates(t *testing.T) {
	for _, text := range textPathSamples {
		for _, n := range []int{1, 2, 5, maxTextPathCandidates} {
			if got, want := textPathCandidates(text, n), textPathRe.FindAllStringIndex(text, n); !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("textPathCandidates(%q, %d) = %v, want %v", text, n, got, want)
			}
		}
	}
	many := strings.Repeat("a/b.go ", maxTextPathCandidates+5)
	if got := textPathCandidates(many, maxTextPathCandidates); len(got) != maxTextPathCandidates {
		t.Fatalf("%d candidates, want the cap %d", len(got), maxTextPathCandidates)
	}
}
