package cli

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Text from transcripts, sessions, project files and models reaches the
// terminal: a title, a tool result or a README can carry escape sequences
// that clear the screen (ESC [2J), set the window title (OSC 0), ring the
// bell or, on some terminals, write to the clipboard or a file. Everything
// the commands print goes through [escapeTerm]: every [env] writer is a
// [termWriter], and the interactive chat, which writes its own colours
// and line editing to the raw terminal, escapes what it prints of the
// model's and the tools' text with escapeTerm itself.

// escapeTerm returns s with every character a terminal would act on
// written as a visible escape, so that printing it can only show text:
// the C0 controls (U+0000–U+001F) but tab and newline, DEL (U+007F) and
// the C1 controls (U+0080–U+009F, which some terminals read as ESC
// sequences: U+009B is CSI) become \u00XX, the way JSON writes them; a
// carriage return is kept before a newline (CRLF line ends) and escaped
// elsewhere (it would let a line overwrite itself). A byte that is not
// UTF-8 becomes U+FFFD, as encoding/json writes it.
//
// JSON that encoding/json wrote stays valid and decodes to the same
// values: it holds no raw C0 control but the newline after a value, and
// DEL, the C1 controls and invalid bytes can only stand inside its
// strings, where \u00XX and U+FFFD are what they are.
//
// The result holds no control character but tab, newline and CR before a
// newline, so escapeTerm(escapeTerm(s)) == escapeTerm(s).
func escapeTerm(s string) string {
	i := unsafeAt(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\t' || c == '\n' || (c == '\r' && i+1 < len(s) && s[i+1] == '\n'):
			b.WriteByte(c)
			i++
		case c < 0x20 || c == 0x7f:
			writeU(&b, rune(c))
			i++
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				b.WriteRune(utf8.RuneError)
			case r >= 0x80 && r <= 0x9f:
				writeU(&b, r)
			default:
				b.WriteString(s[i : i+n])
			}
			i += n
		}
	}
	return b.String()
}

// unsafeAt returns the index of the first byte of s that escapeTerm
// changes, or -1 when s prints as it is. It reads a []byte in place.
func unsafeAt[T ~string | ~[]byte](s T) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\t' || c == '\n':
		case c == '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				return i
			}
		case c < 0x20 || c == 0x7f:
			return i
		case c >= utf8.RuneSelf:
			// At most UTFMax bytes: a conversion the compiler keeps off
			// the heap.
			r, n := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
			if (r == utf8.RuneError && n == 1) || (r >= 0x80 && r <= 0x9f) {
				return i
			}
			i += n - 1
		}
	}
	return -1
}

// writeU writes r (below U+0100) as \u00XX.
func writeU(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	b.WriteString(`\u00`)
	b.WriteByte(hex[r>>4])
	b.WriteByte(hex[r&0xf])
}

// termWriter is the writer of every command's output: it writes each
// Write's bytes through [escapeTerm] to w. A Write is escaped on its own
// (a CRLF or a UTF-8 sequence split between two Writes is escaped as
// its parts: fmt, tabwriter and json.Encoder write whole lines, cells
// and values). Not safe for concurrent use unless w is.
type termWriter struct{ w io.Writer }

// Write escapes p and writes it to the underlying writer. It returns
// len(p) when the escaped bytes were all written, else the underlying
// writer's error and 0.
func (t *termWriter) Write(p []byte) (int, error) {
	if unsafeAt(p) < 0 {
		return t.w.Write(p)
	}
	if _, err := io.WriteString(t.w, escapeTerm(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// escapingWriter returns w wrapped in a [termWriter], or w itself when it
// already is one.
func escapingWriter(w io.Writer) io.Writer {
	if _, ok := w.(*termWriter); ok {
		return w
	}
	return &termWriter{w: w}
}

// rawWriter returns the writer under a [termWriter] (w itself for any
// other writer): for what writes the terminal's own sequences on purpose
// (colours, a progress bar, the chat's line editor) and checks whether
// the output is a terminal.
func rawWriter(w io.Writer) io.Writer {
	if t, ok := w.(*termWriter); ok {
		return t.w
	}
	return w
}
