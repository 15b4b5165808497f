package token_test

import (
	"context"
	"errors"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/token"
)

// randomLetters returns n bytes of random lowercase letters: one piece
// the pre-tokenizer cannot cut, the slowest text to count.
func randomLetters(n int) string {
	r := rand.New(rand.NewSource(2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + r.Intn(26))
	}
	return string(b)
}

// TestCountContextEqualsCount: with a live context the count is Count's,
// for ordinary text, long pieces and invalid UTF-8, for a BPE and for a
// counter that does not take a context.
func TestCountContextEqualsCount(t *testing.T) {
	bpe, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"",
		"The quick brown fox, 上下文窗口, func main() {}\n",
		strings.Repeat("word, and words.\n", 20_000),
		strings.Repeat("é", 100_000),
		randomLetters(300_000) + " tail",
		"bad \xff utf-8 " + strings.Repeat("a", 70_000),
	}
	for _, c := range []token.Counter{bpe, token.NewCache(bpe, 4), token.Estimator{}} {
		for i, text := range texts {
			got, err := token.CountContext(context.Background(), c, text)
			if err != nil {
				t.Fatalf("%s text %d: %v", c.Name(), i, err)
			}
			if want := c.Count(text); got != want {
				t.Errorf("%s text %d: CountContext = %d, Count = %d", c.Name(), i, got, want)
			}
		}
	}
}

// TestCountContextCancelled: counting stops soon after the context is
// done, with its error, for ordinary text and for one long piece.
func TestCountContextCancelled(t *testing.T) {
	bpe, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"words":          strings.Repeat("a few words of text, ", 1_500_000), // 31 MB
		"random letters": randomLetters(32 << 20),
	} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if n, err := token.CountContext(ctx, bpe, text); !errors.Is(err, context.Canceled) || n != 0 {
			t.Errorf("%s, cancelled before: %d, %v; want 0, context.Canceled", name, n, err)
		}
		ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		_, err := token.CountContext(ctx, bpe, text)
		d := time.Since(start)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err %v, want context.DeadlineExceeded", name, err)
		}
		if d > 2*time.Second {
			t.Errorf("%s: returned %v after the start, the deadline was 50ms", name, d)
		}
		t.Logf("%s: returned after %v (deadline 50ms)", name, d)
	}
}
