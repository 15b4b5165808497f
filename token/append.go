package token

import (
	"slices"
	"strings"
)

// AppendCount returns c.Count(a+b) given n = c.Count(a), counting only the
// end of a and b instead of the whole text: for an exact tiktoken counter
// (a counter named [O200kBase] or [Cl100kBase], a [Cache] of one
// included) it recounts from the start of a's last line that begins with
// a character other than whitespace or "/", where tiktoken's
// pre-tokenizer always starts a new piece whatever follows (its patterns
// look no further back than the piece they match, and none runs from a
// newline into such a character, except o200k's punctuation pattern into
// "/"); other counters, and a with no such line, count a+b whole. The
// result equals c.Count(a+b) (TestAppendCount, FuzzAppendCount). Costs
// O(len(a's last line) + len(b)) tokens counted, plus a scan back for the
// line start.
func AppendCount(c Counter, a string, n int, b string) int {
	if b == "" {
		return n
	}
	if a == "" {
		return c.Count(b)
	}
	if !Joinable(c) {
		return c.Count(a + b)
	}
	at := cleanLineStart(a)
	if at <= 0 {
		return c.Count(a + b)
	}
	tail := a[at:]
	return n - c.Count(tail) + c.Count(tail+b)
}

// cleanLineStart returns the offset in s of the last line start (just
// after a '\n') whose first byte is not ASCII whitespace or '/' and not a
// byte ≥ 0x80 (a non-ASCII space such as U+00A0 is whitespace to the
// pre-tokenizer: such lines are skipped rather than decoded), or -1 when
// there is none.
func cleanLineStart(s string) int {
	for end := len(s); end > 0; {
		i := strings.LastIndexByte(s[:end], '\n')
		if i < 0 {
			return -1
		}
		if i+1 < len(s) && cleanStart(s[i+1]) {
			return i + 1
		}
		end = i
	}
	return -1
}

// Joinable reports whether c is an exact tiktoken counter (named
// [O200kBase] or [Cl100kBase], a [Cache] of one included), for which
// [AppendCount] and [JoinCount] count only near the seam; for other
// counters they count the whole text.
func Joinable(c Counter) bool {
	name := c.Name()
	return name == O200kBase || name == Cl100kBase
}

// JoinCount returns c.Count(a+b) given na = c.Count(a) and nb =
// c.Count(b). For an exact tiktoken counter, when a ends a line and b
// starts one with a character other than whitespace or "/", the two
// tokenize independently and the count is na+nb with nothing counted;
// otherwise it is [AppendCount]'s. Exact (TestJoinCount).
func JoinCount(c Counter, a string, na int, b string, nb int) int {
	if a == "" {
		return nb
	}
	if b == "" {
		return na
	}
	if Joinable(c) && a[len(a)-1] == '\n' && cleanStart(b[0]) {
		return na + nb
	}
	return AppendCount(c, a, na, b)
}

// cleanStart reports whether a line starting with byte ch starts a new
// piece in tiktoken's pre-tokenizer whatever precedes the newline: ch is
// ASCII, not whitespace and not '/'.
func cleanStart(ch byte) bool {
	switch {
	case ch == ' ', ch == '\t', ch == '\n', ch == '\r', ch == '\v', ch == '\f', ch == '/', ch >= 0x80:
		return false
	}
	return true
}

// Prefixes counts prefixes of one text, each followed by a suffix, for a
// caller that tries many cuts of the same text (a binary search for the
// longest prefix that fits): [Prefixes.Count] returns c.Count(text[:k] +
// suffix) counting, for an exact tiktoken counter ([Joinable]), only the
// prefix's last line from a clean line start (as [AppendCount]) plus the
// suffix: the text's lines are counted once, by [NewPrefixes]. Other
// counters count the whole prefix each time.
type Prefixes struct {
	c    Counter
	text string
	// starts are 0 and the offsets of text's clean line starts, and
	// before[j] the count of text[:starts[j]]; nil for other counters.
	starts, before []int
}

// NewPrefixes returns the prefix counter of text under c. It counts text
// once, line by line, when c is an exact tiktoken counter.
func NewPrefixes(c Counter, text string) *Prefixes {
	p := &Prefixes{c: c, text: text}
	if !Joinable(c) {
		return p
	}
	p.starts, p.before = []int{0}, []int{0}
	forCleanLineStarts(text, func(i int) {
		last := p.starts[len(p.starts)-1]
		p.before = append(p.before, p.before[len(p.before)-1]+c.Count(text[last:i]))
		p.starts = append(p.starts, i)
	})
	return p
}

// forCleanLineStarts calls f with the offset of every clean line start of
// text after its first line, in order: just after a newline, a byte that
// cleanStart accepts.
func forCleanLineStarts(text string, f func(i int)) {
	for i := 0; i < len(text); {
		nl := strings.IndexByte(text[i:], '\n')
		if nl < 0 {
			return
		}
		i += nl + 1
		if i < len(text) && cleanStart(text[i]) {
			f(i)
		}
	}
}

// Count returns c.Count(text[:k] + suffix), 0 <= k <= len(text). Exact:
// text[:L] for a clean line start L < k ends a line and text[L:k]+suffix
// starts one with a clean character, so they tokenize independently
// ([JoinCount]).
func (p *Prefixes) Count(k int, suffix string) int {
	if p.starts == nil {
		return p.c.Count(p.text[:k] + suffix)
	}
	// The last start before k: text[L:k] is not empty, so it begins with
	// the clean character.
	j, _ := slices.BinarySearch(p.starts, k)
	j--
	if j < 0 {
		return p.c.Count(suffix)
	}
	return p.before[j] + p.c.Count(p.text[p.starts[j]:k]+suffix)
}
