package token

import "sync"

// lineMemoTurnBytes bounds the text a [LineMemo] remembers in one round,
// in bytes: past it the memo turns by itself, so that a caller that adds
// a whole session without a request in between (a resume, an import)
// does not keep every line of it.
const lineMemoTurnBytes = 4 << 20

// LineMemo is a [Counter] that counts each text line by line ([Memo.CountLines]:
// from one clean line start to the next, exact for the tiktoken
// encodings) and remembers each line's count for this round and the next
// ([LineMemo.Turn]). Texts that share lines are counted once across the
// parts of a system that count them: the Engine counts tool results into
// the context window, their excerpts in the working memory and the
// limiter's cut of them through one LineMemo, so a line read back is not
// counted again. For a counter that is not [Joinable] it counts each
// text whole, remembered the same way. A round remembers at most about
// 4 MiB of text: past that it turns by itself. Safe for concurrent use.
type LineMemo struct {
	c     Counter
	mu    sync.Mutex
	m     Memo
	bytes int // text counted this round
}

// NewLineMemo returns a LineMemo over c.
func NewLineMemo(c Counter) *LineMemo { return &LineMemo{c: c} }

// Count returns the number of tokens text encodes to: c.Count(text).
func (l *LineMemo) Count(text string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bytes += len(text)
	if l.bytes > lineMemoTurnBytes {
		l.m.Turn()
		l.bytes = len(text)
	}
	return l.m.CountLines(l.c, text)
}

// Name returns the wrapped counter's name.
func (l *LineMemo) Name() string { return l.c.Name() }

// Turn ends a round: the lines counted in it are remembered through the
// next round, those of the round before are forgotten.
func (l *LineMemo) Turn() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.m.Turn()
	l.bytes = 0
}
