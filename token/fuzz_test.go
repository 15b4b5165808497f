package token

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// pkoukk returns pkoukk/tiktoken-go's encoders: a regular-expression
// implementation of tiktoken, used here as a differential oracle. It matches
// the reference tokenizer on every golden count but two kinds of input,
// which the fuzz test therefore skips: tiktoken's (?i:'s|…) follows Unicode
// case folding, under which "'ſ" (U+017F, long s) is a contraction, and
// pkoukk's regexp2 does not fold it (o200k_base " I'ſ": tiktoken " I'",
// "ſ"; pkoukk " I", "'", "ſ"; see the contraction_long_s vectors); and
// regexp2 classes runes with Go's unicode tables, older than tiktoken's
// (the code points where goClass and classOfRune differ, TestClassTable).
var pkoukk = sync.OnceValue(func() map[string]*tiktoken.Tiktoken {
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	m := map[string]*tiktoken.Tiktoken{}
	for _, enc := range encodings {
		e, err := tiktoken.GetEncoding(enc)
		if err != nil {
			panic(err)
		}
		m[enc] = e
	}
	return m
})

// FuzzBPE checks BPE against pkoukk/tiktoken-go token by token, and that
// Count, Encode and Decode agree with each other. Run it with
//
//	go test ./token -run '^$' -fuzz FuzzBPE -fuzztime 5m
func FuzzBPE(f *testing.F) {
	g, err := loadGolden()
	if err != nil {
		f.Fatal(err)
	}
	for _, v := range g.Vectors {
		if len(v.Text) < 2000 {
			f.Add(v.Text)
		}
	}
	f.Add("a\xffb\xc3")                     // invalid UTF-8
	f.Add("\U0002EBF0's \U00010D4A\u0897x") // Unicode 15.1 and 16.0, not in Go's tables
	var ref map[string]*tiktoken.Tiktoken
	if !raceEnabled {
		ref = pkoukk()
	}
	f.Fuzz(func(t *testing.T, s string) {
		// Under the race detector pkoukk's regular expressions are too slow
		// for the seed corpus; Count, Encode and Decode are still checked.
		oracle := !raceEnabled && !strings.ContainsRune(s, 'ſ') &&
			!strings.ContainsFunc(s, func(r rune) bool { return classOfRune(r) != goClass(r) })
		for _, enc := range encodings {
			b := mustBPE(t, enc)
			got := b.Encode(s)
			if oracle {
				want := ref[enc].EncodeOrdinary(s)
				if len(got) == 0 && len(want) == 0 {
					got, want = nil, nil
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("%s: Encode(%q) differs from pkoukk (-want +got):\n%s", enc, s, diff)
				}
			}
			if n := b.Count(s); n != len(got) {
				t.Fatalf("%s: Count(%q) = %d, len(Encode) = %d", enc, s, n, len(got))
			}
			if utf8.ValidString(s) {
				if d := b.Decode(got); d != s {
					t.Fatalf("%s: Decode(Encode(%q)) = %q", enc, s, d)
				}
			}
		}
	})
}

// TestMergeLargeMatchesSmall checks that the heap merge used for long
// pieces chooses the same merges as tiktoken's linear scan.
func TestMergeLargeMatchesSmall(t *testing.T) {
	t.Parallel()
	for _, enc := range encodings {
		t.Run(enc, func(t *testing.T) {
			t.Parallel()
			v := mustBPE(t, enc).v
			rng := rand.New(rand.NewPCG(1, 2))
			alphabets := []string{"ab", "abc ", "etaoinshrdlu", "0123456789abcdef", "上下文窗口", "=-_/"}
			for i := range 400 {
				alpha := []rune(alphabets[i%len(alphabets)])
				var sb []rune
				for range 2 + rng.IntN(80) {
					sb = append(sb, alpha[rng.IntN(len(alpha))])
				}
				p := string(sb)
				if len(p) > smallPiece {
					continue
				}
				bounds := make([]int32, len(p)+1)
				ranks := make([]int32, len(p))
				m := v.mergeSmall(p, bounds, ranks)
				want := slices.Clone(bounds[:m])
				got := v.mergeLarge(p, nil)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("piece %q: mergeLarge differs from mergeSmall (-small +large):\n%s", p, diff)
				}
			}
		})
	}
}
