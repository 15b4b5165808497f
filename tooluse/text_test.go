package tooluse

import (
	"testing"
	"unicode/utf8"
)

func TestErrorLine(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"claude code", "Exit code 1\nmain.go:3:1: syntax error\n", "main.go:3:1: syntax error"},
		{"tool_use_error", "<tool_use_error>File does not exist.</tool_use_error>", "File does not exist."},
		{"mini-swe-agent", "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n", "Traceback (most recent call last):"},
		{"returncode on the line", "<returncode>2</returncode>ls: cannot access 'x'", "ls: cannot access 'x'"},
		{"codex", "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 1\nOriginal token count: 9\nOutput:\nerror[E0425]: cannot find value", "error[E0425]: cannot find value"},
		{"openhands", "[The command completed with exit code 1.]\n  bash:   foo:   command not found  ", "bash: foo: command not found"},
		{"json output", "{\"output\": \"\nfatal: not a git repository", "fatal: not a git repository"},
		{"warning wrapper", "<warning>output cut</warning>\nE   AssertionError", "E AssertionError"},
		{"only wrappers", "Exit code 1\n\n<output>\n</output>\n", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ErrorLine(tt.in); got != tt.want {
				t.Errorf("ErrorLine(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestErrorLineScansFifty(t *testing.T) {
	t.Parallel()
	in := ""
	for range ErrorLineScan {
		in += "Exit code 1\n"
	}
	if got := ErrorLine(in + "late error\n"); got != "" {
		t.Errorf("ErrorLine read past %d lines: %q", ErrorLineScan, got)
	}
}

func TestCutRunes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        string
		n         int
		cut, head string
	}{
		{"hello", 10, "hello", "hello"},
		{"hello", 5, "hello", "hello"},
		{"hello", 4, "hel…", "hell"},
		{"hello", 1, "…", "h"},
		{"hello", 0, "", ""},
		{"hello", -1, "hello", "hello"},
		{"héllo wörld", 3, "hé…", "hél"},
		{"日本語テキスト", 4, "日本語…", "日本語テ"},
		{"a\xffb\xfec", 3, "a\uFFFD…", "a\uFFFDb"},
		{"", 3, "", ""},
	}
	for _, tt := range tests {
		if got := CutRunes(tt.in, tt.n); got != tt.cut {
			t.Errorf("CutRunes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.cut)
		}
		if got := HeadRunes(tt.in, tt.n); got != tt.head {
			t.Errorf("HeadRunes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.head)
		}
		for _, got := range []string{CutRunes(tt.in, tt.n), HeadRunes(tt.in, tt.n)} {
			if !utf8.ValidString(got) || tt.n >= 0 && utf8.RuneCountInString(got) > tt.n {
				t.Errorf("cut of %q to %d = %q: invalid or too long", tt.in, tt.n, got)
			}
		}
	}
}

// FuzzIsWrapperLine: the first-byte filter of IsWrapperLine answers as
// the wrapper rule itself does, for any line.
func FuzzIsWrapperLine(f *testing.F) {
	for _, s := range []string{"Exit code 1", "<returncode>0</returncode>", "</output>", "Process exited with code 2", "Chunk ID: 9",
		"Wall time: 0.1 seconds", "Original token count: 3", "Output:", "output", `{"output": "`, `"output":`, "[Command finished with exit code 1]",
		"<warning>cut", "<error>", "def main():", "", "E   AssertionError",
		"<returncode>-12</returncode>", "<returncode></returncode>", "<returncode>-</returncode>", "<returncode>1</returncode>x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, l string) {
		if got, want := IsWrapperLine(l), wrapperLine.MatchString(l); got != want {
			t.Fatalf("IsWrapperLine(%q) = %v, the rule says %v", l, got, want)
		}
	})
}
