// Package runes counts and finds runes in strings as ranging over a
// string does (utf8.RuneCountInString, for range s), faster on ASCII
// text: runs of ASCII bytes are skipped eight bytes at a time. Tool
// output is mostly ASCII and long, and the limiter, the compaction cuts
// and the text helpers count its runes on every result: with the
// standard library's one-rune-at-a-time loop that was a tenth of a
// replay's cost beyond its floor (docs/performance.md).
//
// Invalid UTF-8 counts as Go counts it: each byte of an invalid or
// short encoding is one rune ([utf8.DecodeRuneInString] returns width 1
// for it, as the range loop does).
package runes

import "unicode/utf8"

// hiBits has the high bit of each of eight bytes set: a word of ASCII
// bytes has none of them.
const hiBits = 0x8080808080808080

// word returns the eight bytes of s from i as a little-endian word. The
// caller checks that s has them.
func word(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// Count returns the number of runes in s: [utf8.RuneCountInString](s).
func Count(s string) int {
	n, i := 0, 0
	for i < len(s) {
		if i+8 <= len(s) && word(s, i)&hiBits == 0 {
			i += 8
			n += 8
			continue
		}
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		n++
	}
	return n
}

// Offset returns the byte offset in s of rune n (0-based), as ranging
// over s finds it, or len(s) when s has no rune n (n negative, or at
// least [Count](s)).
func Offset(s string, n int) int {
	if n < 0 {
		return len(s)
	}
	i := 0
	for n > 0 && i < len(s) {
		if n >= 8 && i+8 <= len(s) && word(s, i)&hiBits == 0 {
			i += 8
			n -= 8
			continue
		}
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		n--
	}
	return i
}
