package token

import (
	"sync/atomic"

	"github.com/agentctx/agentctx/token/internal/vocabfile"
)

// memoSlots is the number of pieces a pieceMemo holds (a power of two),
// and memoBytes the longest piece it holds, in bytes (three words).
const (
	memoSlots = 1 << 12
	memoBytes = 24
)

// pieceMemo remembers the token counts of the pre-tokenized pieces
// counted last, one per slot, a slot chosen by the piece's hash (a
// direct-mapped cache, 128 KiB, small enough to stay in a core's L2
// cache). Text repeats its pieces (" the", " =", "func", "\n\t"), and a
// piece's count otherwise costs a lookup in the vocabulary's table of
// several megabytes (cache misses) and, for a piece that is not itself a
// token, one more per merge candidate. It is shared by every goroutine
// counting with the same [BPE]: each slot is a sequence lock made of
// atomic words, so a reader sees a whole entry or misses, and allocates
// nothing.
type pieceMemo [memoSlots]memoSlot

// memoSlot is one entry: meta holds the piece's length (bits 0-7), its
// token count (bits 8-31) and a sequence number (bits 32-63), odd while
// a writer fills the slot; w the piece's bytes, little-endian, zero past
// its length.
type memoSlot struct {
	meta atomic.Uint64
	w    [memoBytes / 8]atomic.Uint64
}

// pieceWords returns p's bytes (len(p) ≤ memoBytes) as words, zero past
// its length.
func pieceWords(p string) (w [memoBytes / 8]uint64) {
	i := 0
	for ; i+8 <= len(p); i += 8 {
		w[i>>3] = uint64(p[i]) | uint64(p[i+1])<<8 | uint64(p[i+2])<<16 | uint64(p[i+3])<<24 |
			uint64(p[i+4])<<32 | uint64(p[i+5])<<40 | uint64(p[i+6])<<48 | uint64(p[i+7])<<56
	}
	for k := i; k < len(p); k++ {
		w[i>>3] |= uint64(p[k]) << (8 * (k - i))
	}
	return w
}

// get returns the count remembered for piece p (2 to memoBytes bytes)
// and whether there was one.
func (m *pieceMemo) get(p string) (int, bool) {
	s := &m[vocabfile.Hash(p)&(memoSlots-1)]
	m1 := s.meta.Load()
	if m1&(1<<32) != 0 || int(m1&0xff) != len(p) {
		return 0, false
	}
	w := pieceWords(p)
	for i := range (len(p) + 7) / 8 { // the words past them are zero in both
		if s.w[i].Load() != w[i] {
			return 0, false
		}
	}
	if s.meta.Load() != m1 {
		return 0, false // rewritten meanwhile
	}
	return int(m1 >> 8 & 0xffffff), true
}

// put remembers that piece p (2 to memoBytes bytes) counts n tokens, in
// place of the slot's piece, unless another goroutine is writing the
// slot.
func (m *pieceMemo) put(p string, n int) {
	s := &m[vocabfile.Hash(p)&(memoSlots-1)]
	m1 := s.meta.Load()
	seq := m1 >> 32
	if seq&1 != 0 || !s.meta.CompareAndSwap(m1, (seq+1)<<32) {
		return
	}
	w := pieceWords(p)
	for i := range w {
		s.w[i].Store(w[i])
	}
	s.meta.Store((seq+2)<<32 | uint64(n)<<8 | uint64(len(p)))
}
