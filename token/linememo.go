package token

import "sync"

// lineMemoTurnBytes bounds the text a [LineMemo] remembers in one round,
// in bytes: past it the memo turns by itself, so that a caller that adds
// a whole session without a request in between (a resume, an import)
// does not keep every line of it.
const lineMemoTurnBytes = 4 << 20

// lineMemoRoundBytes is the least text a [LineMemo] round counts, in
// bytes (what it was asked to count, remembered or not): a [LineMemo.Turn]
// before that does not end the round. A round of one request forgot the
// lines of a tool result after two requests, and the working memory,
// which first shows a round's excerpts after compaction took the result
// out of the window, several requests later, counted them again (a
// tenth of the Engine's extras on the largest example at 32,000 tokens:
// docs/performance.md).
const lineMemoRoundBytes = 1 << 20

// LineMemo is a [Counter] that counts each text line by line ([Memo.CountLines]:
// from one clean line start to the next, exact for the tiktoken
// encodings) and remembers each line's count for this round and the next
// ([LineMemo.Turn]; a round counts at least 1 MiB of text, several
// requests of the Engine). Texts that share lines are counted once across the
// parts of a system that count them: the Engine counts tool results into
// the context window, their excerpts in the working memory and the
// limiter's cut of them through one LineMemo, so a line read back is not
// counted again. For a counter that is not [Joinable] it counts each
// text whole, remembered the same way. A round remembers at most about
// 4 MiB of text: past that it turns by itself, so a LineMemo holds at
// most about 8 MiB of lines. Safe for concurrent use.
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

// Turn ends a round once it counted at least 1 MiB of text
// (lineMemoRoundBytes; before that the round goes on): the lines counted
// in it are remembered through the next round, those of the round before
// are forgotten.
func (l *LineMemo) Turn() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bytes < lineMemoRoundBytes {
		return
	}
	l.m.Turn()
	l.bytes = 0
}
