package chat

import (
	"slices"
	"strings"
	"testing"
)

// FuzzMayReportExit checks the pre-filters of ExitCode against its
// patterns: a trimmed line one of them matches always passes
// mayReportExit, and mayMatchExit for that pattern.
func FuzzMayReportExit(f *testing.F) {
	for _, s := range []string{
		"Exit code 1", "exit code: 2", "EXIT CODE 3", "<returncode>0</returncode>",
		"Process exited with code 1", "[Command finished with exit code 2]",
		"[The command completed with exit code 1.]", "<exit_code>1</exit_code>",
		`{"exit_code": 1}`, `{"returncode":0}`, `"output": "x", "exit_code" : -1`,
		"ok", "", "\u212Axit code 1", "Process exited with code x", "[Command finished with exit code",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, l string) {
		l = strings.TrimSpace(l)
		for i, re := range exitCodeRes {
			if re.MatchString(l) && !mayReportExit(l) {
				t.Fatalf("%q matches %s but mayReportExit is false", l, re)
			}
			if re.MatchString(l) && !mayMatchExit(i, l) {
				t.Fatalf("%q matches %s but mayMatchExit is false", l, re)
			}
		}
	})
}

// FuzzLastCommand: lastCommand, which builds only the last command's
// words, returns what tokenizing the whole line does (commandWords).
func FuzzLastCommand(f *testing.F) {
	for _, s := range []string{"grep -r foo . 2>&1 | head", "cd x && grep 'a;b' f;", "echo \"a|b\" > out", "python3 <<'EOF'\nprint('x')\nEOF",
		`a \; b`, "x >", "diff a b ; > log", "'unclosed ; grep x", "a & b &", "(cd d; rg x)", "env A=1 git diff --quiet"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if got, want := lastCommand(cmd), commandWords(cmd); !slices.Equal(got, want) {
			t.Fatalf("lastCommand(%q) = %q, the whole line's tokenizer reads %q", cmd, got, want)
		}
	})
}
