package token

import (
	"context"
	"unicode/utf8"
)

// LongPiece is the length, in bytes, over which [BPE.Count] counts a
// pre-tokenized piece in chunks instead of merging it whole. A piece is a
// run the pre-tokenizer cannot cut (letters without a space or a
// punctuation mark, one punctuation mark repeated, white space): ordinary
// text's pieces are words of a few dozen bytes at most, so its counts stay
// exact. A piece over LongPiece bytes (a megabyte of one letter, a blob of
// base64 letters) is cut into chunks of [longChunk] bytes (cut back to a
// rune start) and each chunk is merged alone; chunks equal to the one
// before are not merged again. Merging a whole piece costs O(n log n) with
// a heap over the piece, about a microsecond per byte on a busy 2-core
// machine, so 32 MiB of one letter took over half a minute; chunked, it
// takes well under a second (BenchmarkPathological).
//
// The price is a bounded error on such pieces only: a cut changes how
// the tokens next to it merge, so the count of a chunked piece differs
// from the exact one by a few tokens per cut at most, one cut per 2,048
// bytes. TestLongPieceError holds it to 4 tokens per cut and 1% of the
// piece's tokens; measured, it is 0 on runs of one character (the chunks
// hold whole tokens), and +1 token per cut at most (an over-count, never
// under) on random letters and repeated words, about 0.015% and 0.2%. [BPE.Encode] does not chunk: its ids
// stay exact, at the quadratic-free but slower heap cost.
const LongPiece = 4096

// longChunk is the length, in bytes, of the chunks a piece over
// [LongPiece] is counted in.
const longChunk = 2048

// longPieceTokens counts a piece longer than LongPiece chunk by chunk.
func (b *BPE) longPieceTokens(p string) int {
	n, _ := b.longPieceCount(context.Background(), p)
	return n
}

// longPieceCount is longPieceTokens checking ctx (when not nil) every 32
// chunks (64 KiB): 0 and ctx.Err() when ctx is done first.
func (b *BPE) longPieceCount(ctx context.Context, p string) (int, error) {
	n := 0
	last, lastN := "", 0
	for k := 0; len(p) > 0; k++ {
		if k%32 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		end := len(p)
		if end > longChunk {
			end = longChunk
			for end > 0 && !utf8.RuneStart(p[end]) {
				end--
			}
			if end == 0 {
				end = longChunk // not UTF-8 (Count makes it so); never loops
			}
		}
		c := p[:end]
		p = p[end:]
		if c != last {
			last, lastN = c, b.chunkTokens(c)
		}
		n += lastN
	}
	return n, nil
}

// chunkTokens is pieceTokens for a chunk of a long piece, never chunked
// again.
func (b *BPE) chunkTokens(c string) int {
	if len(c) <= smallPiece {
		return b.pieceTokens(c)
	}
	if b.v.rank(c) != noRank {
		return 1
	}
	return len(b.v.mergeLarge(c, nil))
}
