package token

import (
	"math/rand"
	"strings"
	"testing"
	"time"
)

// exactPieces counts text exactly, every piece merged whole (Encode's
// path), for comparison with Count's chunking of long pieces.
func exactPieces(b *BPE, text string) int {
	n := 0
	for i := 0; i < len(text); {
		j := b.split(text, i)
		p := text[i:j]
		i = j
		switch {
		case len(p) == 1 || b.v.rank(p) != noRank:
			n++
		case len(p) <= smallPiece:
			var bounds [smallPiece + 1]int32
			var ranks [smallPiece]int32
			n += b.v.mergeSmall(p, bounds[:len(p)+1], ranks[:len(p)])
		default:
			n += len(b.v.mergeLarge(p, nil))
		}
	}
	return n
}

// TestLongPieceError measures the error chunking brings to pieces over
// LongPiece bytes against the exact count, and holds it to the documented
// bound: at most 4 tokens per cut and under 1% of the piece's tokens.
func TestLongPieceError(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	letters := func(n int, alphabet string) string {
		var sb strings.Builder
		for sb.Len() < n {
			sb.WriteByte(alphabet[r.Intn(len(alphabet))])
		}
		return sb.String()
	}
	texts := map[string]string{
		"one letter":     strings.Repeat("a", 100_000),
		"one capital":    strings.Repeat("Q", 30_001),
		"spaces":         strings.Repeat(" ", 50_000),
		"punctuation":    strings.Repeat("!", 50_000),
		"han":            strings.Repeat("字", 20_000),
		"accented":       strings.Repeat("é", 20_000),
		"random letters": letters(200_000, "abcdefghijklmnopqrstuvwxyz"),
		"hex letters":    letters(100_000, "abcdef"),
		"word run":       strings.Repeat("hello", 20_000),
	}
	for _, enc := range []string{O200kBase, Cl100kBase} {
		b, err := ForEncoding(enc)
		if err != nil {
			t.Fatal(err)
		}
		for name, text := range texts {
			want := exactPieces(b, text)
			got := b.Count(text)
			cuts := len(text) / longChunk
			diff := got - want
			if diff < 0 {
				diff = -diff
			}
			t.Logf("%s %s: %d bytes, exact %d tokens, chunked %d (%+d, %d cuts)", enc, name, len(text), want, got, got-want, cuts)
			if diff > 4*cuts || diff*100 > want {
				t.Errorf("%s %s: chunked count %d, exact %d: error %d over the bound (%d cuts)", enc, name, got, want, diff, cuts)
			}
		}
	}
}

// TestShortPiecesExact checks that a text whose pieces are all at most
// LongPiece bytes is counted exactly, and that a piece of exactly
// LongPiece bytes is not chunked.
func TestShortPiecesExact(t *testing.T) {
	b, err := ForEncoding(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("abcdefghij", LongPiece/10) + strings.Repeat("z", LongPiece-LongPiece/10*10) + " " + strings.Repeat("word ", 1000)
	if got, want := b.Count(text), exactPieces(b, text); got != want {
		t.Errorf("Count = %d, exact %d", got, want)
	}
}

// TestPathologicalBounded checks that 8 MiB of one letter is counted in
// bounded time (seconds, not the minutes of a whole-piece merge).
func TestPathologicalBounded(t *testing.T) {
	b, err := ForEncoding(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n := b.Count(strings.Repeat("a", 8<<20))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("8 MiB of one letter took %v, want under 5s", d)
	}
	if n < 8<<20/16 || n > 8<<20/2 {
		t.Errorf("8 MiB of one letter: %d tokens, out of range", n)
	}
}

// BenchmarkPathological counts 32 MiB of one character, the largest body
// the server accepts, in each encoding.
func BenchmarkPathological(b *testing.B) {
	text := strings.Repeat("a", 32<<20)
	for _, enc := range []string{O200kBase, Cl100kBase} {
		c, err := ForEncoding(enc)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(enc, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				c.Count(text)
			}
		})
	}
}
