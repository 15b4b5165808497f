package runes

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// rangeOffset is Offset as a range loop finds it: the reference.
func rangeOffset(s string, n int) int {
	k := 0
	for i := range s {
		if k == n {
			return i
		}
		k++
	}
	return len(s)
}

var cases = []string{
	"", "a", "abcdefg", "abcdefgh", "abcdefghi", "héllo wörld, long enough to skip", "日本語のテキスト and ASCII after it",
	"\xff", "abc\xffdefghijklmnop", "\xe2\x82", "ab\xe2\x82cdefghijkl", "\xf0\x9f\x98\x80\x80xyz",
	"\xed\xa0\x80surrogate", "\xc0\xafoverlong", strings.Repeat("x", 100) + "é" + strings.Repeat("y", 17),
	"1234567\xc3\xa9 then ASCII for more than eight bytes",
}

func TestCountOffset(t *testing.T) {
	for _, s := range cases {
		if got, want := Count(s), utf8.RuneCountInString(s); got != want {
			t.Errorf("Count(%q) = %d, want %d", s, got, want)
		}
		for n := -2; n <= len(s)+2; n++ {
			if got, want := Offset(s, n), rangeOffset(s, n); got != want {
				t.Errorf("Offset(%q, %d) = %d, want %d", s, n, got, want)
			}
		}
	}
}

func FuzzCountOffset(f *testing.F) {
	for _, s := range cases {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		if got, want := Count(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("Count(%q) = %d, want %d", s, got, want)
		}
		if got, want := Offset(s, n), rangeOffset(s, n); got != want {
			t.Fatalf("Offset(%q, %d) = %d, want %d", s, n, got, want)
		}
	})
}

func BenchmarkCount(b *testing.B) {
	s := strings.Repeat("func main() {\n\tfmt.Println(\"héllo\")\n}\n", 2000)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Count(s)
	}
}
