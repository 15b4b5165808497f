package token

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// appendTexts are lines and fragments that meet at awkward seams: leading
// and trailing whitespace, slashes after newlines, punctuation runs,
// digits, contractions, non-ASCII letters and spaces, invalid UTF-8.
var appendTexts = []string{
	"", "\n", "\n\n", " ", "x", "foo\n", "foo.\n", "foo \n", "/path/to/file\n", "// comment\n",
	"  indented\n", "\tTab\n", "- [4] finding (a.go:7)\n", "## Heading\n", "12345\n", "'s", "'ll\n",
	"\n</system-reminder>\n", "<system-reminder>\n", ">\n", "上下文窗口\n", "\u00a0nbsp\n", "café\n",
	"\xff\xfe\n", "ends with \r\n", "a\n/b", "x.\n\n", "?!\n/", "😀\n",
	// Lines that start with blanks (clean when something follows them
	// on the line: CleanLineStart), blank lines, and line-numbered file
	// reads as agents print them.
	"     1\u2192package main\n", "  \n", " \t \n", "\t\t}\n", "    return x, nil\n", "   /* c */\n",
	"  \u00a0x\n", " \r\n", "\n  ", "  12\n", "  's\n", "  .\n", "\v x\n", ";\n", ":\n  \n",
}

// TestAppendCount: for both encodings, every pair of texts and random
// concatenations count with AppendCount as c.Count does.
func TestAppendCount(t *testing.T) {
	for _, enc := range []string{O200kBase, Cl100kBase} {
		c := mustBPE(t, enc)
		check := func(a, b string) {
			t.Helper()
			if got, want := AppendCount(c, a, c.Count(a), b), c.Count(a+b); got != want {
				t.Fatalf("%s: AppendCount(%q, %q) = %d, want %d", enc, a, b, got, want)
			}
		}
		for _, a := range appendTexts {
			for _, b := range appendTexts {
				check(a, b)
				check("line one\n"+a, b)
			}
		}
		rng := rand.New(rand.NewPCG(3, 4))
		pick := func() string {
			var sb strings.Builder
			for range rng.IntN(6) {
				sb.WriteString(appendTexts[rng.IntN(len(appendTexts))])
			}
			return sb.String()
		}
		for range 2000 {
			check(pick(), pick())
		}
	}
}

// TestAppendCountOtherCounters: a counter that is not tiktoken's counts
// the whole text.
func TestAppendCountOtherCounters(t *testing.T) {
	e := Estimator{}
	a, b := "word\nline two\n", "three"
	if got, want := AppendCount(e, a, e.Count(a), b), e.Count(a+b); got != want {
		t.Errorf("estimator: %d, want %d", got, want)
	}
	c := NewCache(mustBPE(t, O200kBase), 8)
	if got, want := AppendCount(c, a, c.Count(a), b), c.Count(a+b); got != want {
		t.Errorf("cache: %d, want %d", got, want)
	}
}

// FuzzAppendCount: any two texts, both encodings, AppendCount and
// JoinCount.
func FuzzAppendCount(f *testing.F) {
	f.Add("foo\nbar", "\n/x")
	f.Add("a.\nb", "\n</system-reminder>\n")
	o, cl := mustBPE(f, O200kBase), mustBPE(f, Cl100kBase)
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, c := range []*BPE{o, cl} {
			want := c.Count(a + b)
			if got := AppendCount(c, a, c.Count(a), b); got != want {
				t.Fatalf("%s: AppendCount(%q, %q) = %d, want %d", c.Name(), a, b, got, want)
			}
			if got := JoinCount(c, a, c.Count(a), b, c.Count(b)); got != want {
				t.Fatalf("%s: JoinCount(%q, %q) = %d, want %d", c.Name(), a, b, got, want)
			}
		}
	})
}

// TestJoinCount: every pair of texts joins to the whole's count, for both
// encodings and for the estimator.
func TestJoinCount(t *testing.T) {
	counters := []Counter{mustBPE(t, O200kBase), mustBPE(t, Cl100kBase), Estimator{}}
	for _, c := range counters {
		for _, a := range appendTexts {
			for _, b := range appendTexts {
				for _, pre := range []string{"", "head line\n"} {
					x := pre + a
					if got, want := JoinCount(c, x, c.Count(x), b, c.Count(b)), c.Count(x+b); got != want {
						t.Fatalf("%s: JoinCount(%q, %q) = %d, want %d", c.Name(), x, b, got, want)
					}
				}
			}
		}
	}
}

// FuzzLineEndCount: LineEndCount counts a line with each ending as the
// whole text counts, for both encodings and the estimator.
func FuzzLineEndCount(f *testing.F) {
	for _, s := range []string{"\x80?", "x …?", "x\x01.", "→ )", "- a.go: package main", "- a.go: func f() {", "- `go test`: exit status 1 (stale: changed since read)", "x  :)", "x\t.)",
		"a's", "it's.", "1234", "- \"q\": main.go:12:", " ", "é.", "x //", "x '", "a ?!", "- a: 1.2"} {
		f.Add(s)
	}
	o, cl := mustBPE(f, O200kBase), mustBPE(f, Cl100kBase)
	// Random bytes are seldom ASCII: each input is also tried mapped onto
	// letters, digits, punctuation and blanks.
	const alphabet = "aZ09 .:,;()[]{}'\"`/\\-_=+*!?<>#$%&|~^@\tsT\x01\x0b\x1f\x7f\x80\xc3\xa9\xe2"
	f.Fuzz(func(t *testing.T, x string) {
		mapped := []byte(x)
		for i, b := range mapped {
			mapped[i] = alphabet[int(b)%len(alphabet)]
		}
		for _, c := range []Counter{o, cl, Estimator{}} {
			for _, end := range []string{"", "\n\n"} {
				if got, want := LineEndCount(c, string(mapped), c.Count(string(mapped)+"\n"), end), c.Count(string(mapped)+end); got != want {
					t.Fatalf("%s: LineEndCount(%q, %q) = %d, want %d", c.Name(), mapped, end, got, want)
				}
				if got, want := LineEndCount(c, x, c.Count(x+"\n"), end), c.Count(x+end); got != want {
					t.Fatalf("%s: LineEndCount(%q, %q) = %d, want %d", c.Name(), x, end, got, want)
				}
			}
		}
	})
}
