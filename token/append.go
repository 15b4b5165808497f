package token

import (
	"slices"
	"strings"
)

// AppendCount returns c.Count(a+b) given n = c.Count(a), counting only the
// end of a and b instead of the whole text: for an exact tiktoken counter
// (a counter named [O200kBase] or [Cl100kBase], a [Cache] of one
// included) it recounts from a's last clean line start (see
// [CleanLineStart]), where tiktoken's pre-tokenizer always starts a new
// piece whatever follows; other counters, and a with no such line, count
// a+b whole. The
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

// LineEndCount returns c.Count(x + end) given n = c.Count(x + "\n"),
// for x a line without its newline and end one of "" and "\n\n" (a line
// that ends a text, or one a blank line follows). For an exact tiktoken
// counter ([Joinable]) and x ending with an ASCII letter, digit or
// punctuation, only x's last pre-tokenizer piece is counted again: the
// newlines follow a letter or digit as a piece of their own (the
// pattern \s*[\r\n]+), and a punctuation piece ( ?[^\s\p{L}\p{N}]+,
// from the run of punctuation that ends x and the one space before it)
// takes them in ([\r\n/]*), so the pieces before it are the same
// whatever follows; when a control byte or a non-ASCII rune precedes the
// run, which may belong to it, the line is counted whole. Other counters
// and other endings count x+end whole. Exact (FuzzLineEndCount).
func LineEndCount(c Counter, x string, n int, end string) int {
	if x == "" || !Joinable(c) || (end != "" && end != "\n\n") || strings.IndexByte(x, '\n') >= 0 {
		return c.Count(x + end)
	}
	last := x[len(x)-1]
	switch {
	case 'a' <= last && last <= 'z' || 'A' <= last && last <= 'Z' || '0' <= last && last <= '9':
		return n - c.Count("\n") + c.Count(end)
	case last < 0x21 || last >= 0x7f:
		return c.Count(x + end) // white space or not ASCII
	}
	p := len(x) // the start of the punctuation piece
	for p > 0 && asciiPunct(x[p-1]) {
		p--
	}
	if p > 0 && x[p-1] == ' ' {
		p--
	}
	if p > 0 && !alnumOrBlank(x[p-1]) {
		// A control byte or a non-ASCII rune may be punctuation of the
		// same piece ("…?", "\x80?"): count whole.
		return c.Count(x + end)
	}
	piece := x[p:]
	return n - c.Count(piece+"\n") + c.Count(piece+end)
}

// alnumOrBlank reports an ASCII letter, digit, space or tab: a byte no
// punctuation piece takes in.
func alnumOrBlank(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == ' ' || b == '\t'
}

// asciiPunct reports an ASCII byte that is neither white space, a
// letter nor a digit: [^\s\p{L}\p{N}] in ASCII.
func asciiPunct(b byte) bool {
	return b > ' ' && b < 0x7f && !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9')
}

// cleanLineStart returns the offset in s of its last clean line start
// ([CleanLineStart]), or -1 when there is none.
func cleanLineStart(s string) int {
	for end := len(s); end > 0; {
		i := strings.LastIndexByte(s[:end], '\n')
		if i < 0 {
			return -1
		}
		if CleanLineStart(s, i+1) {
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
// starts with a clean line start ([CleanLineStart]), the two tokenize
// independently and the count is na+nb with nothing counted;
// otherwise it is [AppendCount]'s. Exact (TestJoinCount).
func JoinCount(c Counter, a string, na int, b string, nb int) int {
	if a == "" {
		return nb
	}
	if b == "" {
		return na
	}
	if Joinable(c) && a[len(a)-1] == '\n' && CleanLineStart(b, 0) {
		return na + nb
	}
	return AppendCount(c, a, na, b)
}

// CleanLineStart reports whether offset i of s, 0 or just after a '\n',
// is a clean line start: a place where tiktoken's pre-tokenizer (o200k
// and cl100k) starts a new piece whatever precedes it, so that for text
// a ending with a newline, Count(a+s[i:]) = Count(a) + Count(s[i:]).
// That holds when the line begins with an ASCII byte other than
// whitespace and '/', or with spaces and tabs followed by such a byte on
// the same line. The patterns look no further back than the piece they
// match; the only ones that reach over a newline are the newline run
// (`\s*[\r\n]+`, which ends at the last newline of its whitespace, so not
// inside a line that holds something other than blanks) and o200k's
// punctuation pattern, whose trailing `[\r\n/]*` runs into a '/' just
// after the newline. A line of blanks only, or starting with a byte ≥
// 0x80 (a non-ASCII space such as U+00A0 is whitespace to the
// pre-tokenizer) or with '\r', '\v' or '\f', is not clean. Exact for
// both encodings (TestAppendCount, FuzzAppendCount, FuzzCountLines).
func CleanLineStart(s string, i int) bool {
	for ; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == ' ' || ch == '\t':
			continue
		case ch == '\n', ch == '\r', ch == '\v', ch == '\f', ch == '/', ch >= 0x80:
			return false
		}
		return true
	}
	return false
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
// text after its first line ([CleanLineStart]), in order.
func forCleanLineStarts(text string, f func(i int)) {
	for i := 0; i < len(text); {
		nl := strings.IndexByte(text[i:], '\n')
		if nl < 0 {
			return
		}
		i += nl + 1
		if CleanLineStart(text, i) {
			f(i)
		}
	}
}

// Count returns c.Count(text[:k] + suffix), 0 <= k <= len(text). Exact:
// text[:L] for a line start L < k that is clean in text[:k]
// ([CleanLineStart]) ends a line and text[L:k]+suffix starts one clean
// whatever the suffix, so they tokenize independently ([JoinCount]).
func (p *Prefixes) Count(k int, suffix string) int {
	if p.starts == nil {
		return p.c.Count(p.text[:k] + suffix)
	}
	// The last start before k: text[L:k] is not empty, so it begins with
	// the clean character.
	j, _ := slices.BinarySearch(p.starts, k)
	j--
	if j > 0 && !CleanLineStart(p.text[:k], p.starts[j]) {
		// The cut leaves that line blanks only: what it is depends on
		// the suffix. The line before ends before k, so its start is
		// clean in the prefix too.
		j--
	}
	if j < 0 {
		return p.c.Count(suffix)
	}
	return p.before[j] + p.c.Count(p.text[p.starts[j]:k]+suffix)
}
