package transcript

import (
	"bytes"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// unquote returns the text of raw, a JSON string with its quotes, as
// encoding/json decodes it, in one pass that copies the runs between
// escapes whole. ok is false for a string it leaves to encoding/json:
// one that is not valid JSON, or that holds invalid UTF-8 (which
// encoding/json replaces, byte by byte, with U+FFFD). Surrogate escapes
// follow encoding/json: a valid pair is one rune, any other surrogate is
// U+FFFD. The text is the only copy made. Transcripts are mostly such
// strings (tool output with its escaped line breaks), which the JSON
// decoder would turn back into text rune by rune.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := bytes.IndexByte(s, '\\')
		run := s
		if i >= 0 {
			run = s[:i]
		}
		if !plainRun(run) {
			return "", false
		}
		b.Write(run)
		if i < 0 {
			return b.String(), true
		}
		s = s[i:]
		if len(s) < 2 {
			return "", false
		}
		switch c := s[1]; c {
		case '"', '\\', '/':
			b.WriteByte(c)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r := hex4(s)
			if r < 0 {
				return "", false
			}
			s = s[6:]
			if utf16.IsSurrogate(r) {
				if d := utf16.DecodeRune(r, hex4(s)); d != utf8.RuneError {
					r = d
					s = s[6:]
				} else {
					r = utf8.RuneError
				}
			}
			b.WriteRune(r)
			continue
		default:
			return "", false
		}
		s = s[2:]
	}
}

// plainRun reports whether run, a part of a JSON string between escapes,
// stands for itself: no quote, no control character, valid UTF-8.
func plainRun(run []byte) bool {
	ascii := true
	for _, c := range run {
		if c < 0x20 || c == '"' {
			return false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	return ascii || utf8.Valid(run)
}

// hex4 returns the code unit of the \uXXXX escape s starts with, or -1.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
