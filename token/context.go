package token

import (
	"context"
	"unicode/utf8"
)

// checkEvery is how much text, in bytes, [BPE.CountContext] counts between
// two checks of its context.
const checkEvery = 64 << 10

// ContextCounter is a [Counter] that can stop counting when a context is
// done. [BPE] implements it.
type ContextCounter interface {
	Counter
	// CountContext returns the number of tokens text encodes to, as Count
	// does, or 0 and ctx.Err() when ctx is done before the count is.
	CountContext(ctx context.Context, text string) (int, error)
}

// CountContext counts text with c, stopping when ctx is done: for a
// request's text (a system prompt, a message of a 32 MiB body) that must
// not be counted on after its client left. When c is a [ContextCounter]
// (a [BPE]) ctx is checked every 64 KiB of text; otherwise ctx is checked
// once before c.Count, which then runs to its end (an [Estimator] counts
// a gigabyte a second). The count equals c.Count(text). Errors: ctx.Err()
// (the count is then 0).
func CountContext(ctx context.Context, c Counter, text string) (int, error) {
	if cc, ok := c.(ContextCounter); ok {
		return cc.CountContext(ctx, text)
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return c.Count(text), nil
}

// CountContext is [BPE.Count] checking ctx every 64 KiB of text (at piece
// boundaries, and within a piece longer than [LongPiece] every 32 chunks,
// so the count is unchanged): it returns 0 and ctx.Err() when ctx is done
// before the count is. The work after cancellation is bounded by about
// 64 KiB of counting. Safe for concurrent use.
func (b *BPE) CountContext(ctx context.Context, text string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if text == "" {
		return 0, nil
	}
	b.counted.Add(int64(len(text)))
	if !utf8.ValidString(text) {
		text = string([]rune(text))
	}
	n := 0
	next := checkEvery
	for i := 0; i < len(text); {
		if i >= next {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			next = i + checkEvery
		}
		j := b.split(text, i)
		if j-i > LongPiece {
			m, err := b.longPieceCount(ctx, text[i:j])
			if err != nil {
				return 0, err
			}
			n += m
		} else {
			n += b.pieceTokens(text[i:j])
		}
		i = j
	}
	return n, nil
}
