package cli

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestPasteReader: a bracketed paste's newlines and tabs become marks
// the line editor keeps on one line, Alt-Enter a newline mark; typed
// Enter stays Enter; a sequence split across reads is still read.
func TestPasteReader(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"hello\r", "hello\r"},
		{"\x1b[200~Here is the error:\r\tFAIL x\r\nok\x1b[201~\r", "Here is the error:⏎⇥FAIL x⏎ok\r"},
		{"\x1b[200~a\nb\n\x1b[201~", "a⏎b⏎"},
		{"one\x1b\rtwo\r", "one⏎two\r"},
		{"\x1b[200~x\x1b[Ay\x03\x1b[201~", "x[Ay"},
		{"\x1b[A", "\x1b[A"}, // an arrow key passes
		{"\x1b", "\x1b"},     // a lone Esc at the end of input
	} {
		for _, one := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tc.in)
			if one {
				r = iotest.OneByteReader(r)
			}
			b, err := io.ReadAll(&pasteReader{r: r})
			if err != nil || string(b) != tc.want {
				t.Errorf("%q (byte by byte %v): %q %v, want %q", tc.in, one, b, err, tc.want)
			}
		}
	}
	if got := unmarkLine("a⏎⇥b"); got != "a\n\tb" {
		t.Errorf("unmarkLine: %q", got)
	}
}

// FuzzPasteReader: whatever the terminal sends, the reader ends, keeps
// every byte outside a paste's markers and sequences, and never panics.
func FuzzPasteReader(f *testing.F) {
	f.Add([]byte("\x1b[200~a\r\nb\x1b[201~\r"), false)
	f.Add([]byte("\x1b[20"), true)
	f.Fuzz(func(t *testing.T, in []byte, one bool) {
		var r io.Reader = strings.NewReader(string(in))
		if one {
			r = iotest.OneByteReader(r)
		}
		out, err := io.ReadAll(&pasteReader{r: r})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(in), "\x1b") && string(out) != string(in) {
			t.Fatalf("%q became %q without any escape", in, out)
		}
	})
}
