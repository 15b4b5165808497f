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
	s, ok := stringBody(raw)
	if !ok {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		run, r, rest, ok := unescapeNext(s)
		if !ok {
			return "", false
		}
		b.Write(run)
		if r < 0 {
			return b.String(), true
		}
		b.WriteRune(r)
		s = rest
	}
}

// unquoteBytes is [unquote] returning the text as bytes, in a slice of
// its own (tool-call arguments recorded as a JSON string are kept as
// bytes).
func unquoteBytes(raw []byte) ([]byte, bool) {
	s, ok := stringBody(raw)
	if !ok {
		return nil, false
	}
	b := make([]byte, 0, len(s))
	for {
		run, r, rest, ok := unescapeNext(s)
		if !ok {
			return nil, false
		}
		b = append(b, run...)
		if r < 0 {
			return b, true
		}
		b = utf8.AppendRune(b, r)
		s = rest
	}
}

// stringBody returns raw without its quotes; ok is false when raw is
// not quoted.
func stringBody(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	return raw[1 : len(raw)-1], true
}

// unescapeNext splits s, the body of a JSON string, at its first escape:
// run is the text before it, r the rune the escape stands for (-1 when
// s holds no escape: run is all of s) and rest what follows the escape.
// ok is false for what [unquote] leaves to encoding/json: a run that is
// not plain text ([plainRun]) or an escape that is not valid.
func unescapeNext(s []byte) (run []byte, r rune, rest []byte, ok bool) {
	i := bytes.IndexByte(s, '\\')
	run = s
	if i >= 0 {
		run = s[:i]
	}
	if !plainRun(run) {
		return nil, 0, nil, false
	}
	if i < 0 {
		return run, -1, nil, true
	}
	s = s[i:]
	if len(s) < 2 {
		return nil, 0, nil, false
	}
	switch c := s[1]; c {
	case '"', '\\', '/':
		r = rune(c)
	case 'b':
		r = '\b'
	case 'f':
		r = '\f'
	case 'n':
		r = '\n'
	case 'r':
		r = '\r'
	case 't':
		r = '\t'
	case 'u':
		r = hex4(s)
		if r < 0 {
			return nil, 0, nil, false
		}
		s = s[6:]
		if utf16.IsSurrogate(r) {
			if d := utf16.DecodeRune(r, hex4(s)); d != utf8.RuneError {
				return run, d, s[6:], true
			}
			r = utf8.RuneError
		}
		return run, r, s, true
	default:
		return nil, 0, nil, false
	}
	return run, r, s[2:], true
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
