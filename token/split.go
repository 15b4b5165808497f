package token

import "unicode/utf8"

// This file is the pre-tokenizer: it splits text into the pieces that BPE
// then encodes one by one, exactly as tiktoken's regular expressions do. It
// is a hand-written matcher for each encoding's pattern (tiktoken_ext's
// openai_public.py), following the leftmost-first backtracking semantics of
// the fancy-regex crate tiktoken uses, in one forward pass with no
// allocation. The patterns are
//
//	cl100k_base:
//	  (?i:'s|'t|'re|'ve|'m|'ll|'d)
//	  | [^\r\n\p{L}\p{N}]?\p{L}+
//	  | \p{N}{1,3}
//	  |  ?[^\s\p{L}\p{N}]+[\r\n]*
//	  | \s*[\r\n]+
//	  | \s+(?!\S)
//	  | \s+
//
//	o200k_base:
//	  [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	  | [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	  | \p{N}{1,3}
//	  |  ?[^\s\p{L}\p{N}]+[\r\n/]*
//	  | \s*[\r\n]+
//	  | \s+(?!\S)
//	  | \s+
//
// Every rune is matched by some alternative (a letter, a number, white
// space or anything else), so the pieces cover the text.
//
// The classes \p{L}, \p{Lu}, \p{N}, \s... are Unicode 16.0's, the version
// of the Unicode tables of the Rust regex crate in tiktoken (npm tiktoken
// 1.0.22: its counts of every code point match a 16.0 table and not a 15.1
// or 17.0 one, TestCodePoints). Go's unicode package is older (15.0.0 in Go
// 1.26: 5,055 letters, marks and numbers of 15.1 and 16.0 are unassigned
// there), so the classes come from a table generated from the Unicode
// Character Database (unicode_tables.go, written by token/internal/genclasses
// and checked against Go's unicode package by TestClassTable).

//go:generate go run ./internal/genclasses -o unicode_tables.go

// Character classes of one rune, as bits. The classes a pattern tells
// apart only together are one bit: \p{Lu} and \p{Lt} appear only side by
// side, and so do \p{Lm} and \p{Lo}.
const (
	clLetter  = 1 << iota // \p{L}
	clNumber              // \p{N}
	clSpace               // \s: Unicode White_Space
	clNewline             // \r or \n
	clUpper               // \p{Lu} or \p{Lt}
	clLower               // \p{Ll}
	clOther               // \p{Lm} or \p{Lo}
	clMark                // \p{M}
)

// Class sets used by the patterns.
const (
	// setPrefix is [^\r\n\p{L}\p{N}]: tested as "none of these bits".
	setPrefix = clNewline | clLetter | clNumber
	// setPunct is [^\s\p{L}\p{N}]: tested as "none of these bits".
	setPunct = clSpace | clLetter | clNumber
	// setUpper is [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}].
	setUpper = clUpper | clOther | clMark
	// setLower is [\p{Ll}\p{Lm}\p{Lo}\p{M}].
	setLower = clLower | clOther | clMark
)

// classOfRune returns the class bits of r, 0 <= r <= unicode.MaxRune, from
// the generated table (unicode_tables.go).
func classOfRune(r rune) uint8 {
	return classBlocks[int(classIndex[r>>classBlockShift])<<classBlockShift|int(r&(1<<classBlockShift-1))]
}

// classAt returns the class of the rune at s[i] and its size in bytes. s
// must be valid UTF-8 and i < len(s).
func classAt(s string, i int) (uint8, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return classBlocks[b], 1 // block 0 holds U+0000..U+007F
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return classOfRune(r), n
}

// runEnd returns the end of the longest run starting at i of runes whose
// class has a bit in set.
func runEnd(s string, i int, set uint8) int {
	for i < len(s) {
		c, n := classAt(s, i)
		if c&set == 0 {
			break
		}
		i += n
	}
	return i
}

// punctEnd returns the end of the longest run starting at i of runes in
// [^\s\p{L}\p{N}].
func punctEnd(s string, i int) int {
	for i < len(s) {
		c, n := classAt(s, i)
		if c&setPunct != 0 {
			break
		}
		i += n
	}
	return i
}

// contraction returns the length in bytes of (?i:'s|'t|'re|'ve|'m|'ll|'d)
// matched at s[i], or 0. Case-insensitive matching follows Unicode simple
// case folding, under which "ſ" (U+017F) matches "s".
func contraction(s string, i int) int {
	if i >= len(s) || s[i] != '\'' || i+1 >= len(s) {
		return 0
	}
	switch s[i+1] {
	case 's', 'S', 't', 'T', 'm', 'M', 'd', 'D':
		return 2
	case 'r', 'R', 'v', 'V':
		if i+2 < len(s) && (s[i+2] == 'e' || s[i+2] == 'E') {
			return 3
		}
	case 'l', 'L':
		if i+2 < len(s) && (s[i+2] == 'l' || s[i+2] == 'L') {
			return 3
		}
	case 0xC5: // "ſ" is C5 BF
		if i+2 < len(s) && s[i+2] == 0xBF {
			return 3
		}
	}
	return 0
}

// spacePiece matches the three white-space alternatives shared by both
// encodings at s[i], which must be white space, and returns the piece's
// end:
//
//	\s*[\r\n]+ : up to and including the run's last \r or \n;
//	\s+(?!\S)  : the run but its last rune, when the run has two or more
//	             runes, or the whole run at the end of the text;
//	\s+        : the whole run (one rune).
func spacePiece(s string, i int) int {
	e := runEnd(s, i, clSpace)
	for k := e - 1; k >= i; k-- { // \r and \n are one byte each
		if s[k] == '\r' || s[k] == '\n' {
			return k + 1
		}
	}
	if e == len(s) {
		return e
	}
	_, last := utf8.DecodeLastRuneInString(s[i:e])
	if e-last > i {
		return e - last
	}
	return e
}

// nextCl100k returns the end of the cl100k_base piece that starts at s[i].
func nextCl100k(s string, i int) int {
	if n := contraction(s, i); n > 0 {
		return i + n
	}
	c, n := classAt(s, i)
	switch {
	case c&clLetter != 0:
		return runEnd(s, i, clLetter)
	case c&clNumber != 0:
		return numberEnd(s, i+n)
	}
	if c&setPrefix == 0 && i+n < len(s) {
		if c1, _ := classAt(s, i+n); c1&clLetter != 0 {
			return runEnd(s, i+n, clLetter)
		}
	}
	if e := punctPiece(s, i, c, n); e > 0 {
		for e < len(s) && (s[e] == '\r' || s[e] == '\n') {
			e++
		}
		return e
	}
	return spacePiece(s, i)
}

// nextO200k returns the end of the o200k_base piece that starts at s[i].
func nextO200k(s string, i int) int {
	c, n := classAt(s, i)
	if e := wordO200k(s, i, c, n); e > 0 {
		return e
	}
	if c&clNumber != 0 {
		return numberEnd(s, i+n)
	}
	if e := punctPiece(s, i, c, n); e > 0 {
		for e < len(s) && (s[e] == '\r' || s[e] == '\n' || s[e] == '/') {
			e++
		}
		return e
	}
	return spacePiece(s, i)
}

// numberEnd returns the end of \p{N}{1,3} whose first rune ends at i.
func numberEnd(s string, i int) int {
	for k := 1; k < 3 && i < len(s); k++ {
		c, n := classAt(s, i)
		if c&clNumber == 0 {
			break
		}
		i += n
	}
	return i
}

// punctPiece matches " ?[^\s\p{L}\p{N}]+" at s[i], whose rune has class c
// and size n, and returns its end, or 0 when it does not match.
func punctPiece(s string, i int, c uint8, n int) int {
	if s[i] == ' ' && i+1 < len(s) {
		if c1, _ := classAt(s, i+1); c1&setPunct == 0 {
			return punctEnd(s, i+1)
		}
	}
	if c&setPunct == 0 {
		return punctEnd(s, i+n)
	}
	return 0
}

// wordO200k matches o200k_base's two word alternatives at s[i], whose rune
// has class c and size n, and returns the piece's end, or 0.
func wordO200k(s string, i int, c uint8, n int) int {
	prefixed := c&setPrefix == 0 && i+n < len(s)
	// P? U* W+ C?
	if prefixed {
		if e := upperLower(s, i+n); e > 0 {
			return e + contraction(s, e)
		}
	}
	if e := upperLower(s, i); e > 0 {
		return e + contraction(s, e)
	}
	// P? U+ W* C?
	if prefixed {
		if b := runEnd(s, i+n, setUpper); b > i+n {
			e := runEnd(s, b, setLower)
			return e + contraction(s, e)
		}
	}
	if b := runEnd(s, i, setUpper); b > i {
		e := runEnd(s, b, setLower)
		return e + contraction(s, e)
	}
	return 0
}

// upperLower matches U*W+ at s[a] with backtracking and returns its end,
// or 0. U* first takes the longest run; the first position from the right
// where a W rune can start wins, and W+ then takes its longest run.
func upperLower(s string, a int) int {
	b := runEnd(s, a, setUpper)
	if b < len(s) {
		if c, _ := classAt(s, b); c&setLower != 0 {
			return runEnd(s, b, setLower)
		}
	}
	for k := b; k > a; {
		r, size := utf8.DecodeLastRuneInString(s[a:k])
		k -= size
		if classOfRune(r)&setLower != 0 {
			return runEnd(s, k, setLower)
		}
	}
	return 0
}
