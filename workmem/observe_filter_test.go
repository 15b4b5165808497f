package workmem

import (
	"hash/fnv"
	"strconv"
	"strings"
	"testing"
)

// TestMayNameError: every line errorWordRe matches holds one of
// errorWords once lowered, unless it holds a letter that folds to ASCII
// (then keyFacts does not filter); lines it does not match may or may
// not. Case variants, word boundaries, the Kelvin sign and the long s.
func TestMayNameError(t *testing.T) {
	lines := []string{
		"ERROR: x", "TypeError: y", "an exception occurred", "Traceback (most recent call last):", "FATAL",
		"panic: runtime error", "Build FAILED", "cannot open", "command not found", "No Such File or directory",
		"permission denied", "errors.New", "no errors", "ok", "", "error", "xerror", "errorCode", "deniedx",
		"TRACEBAC\u212A", "no \u017Fuch file", "faTal", "Not  found", "not\tfound", "é error é", "ERRORS",
	}
	for _, l := range lines {
		if !errorWordRe.MatchString(l) {
			continue
		}
		if foldsToASCII(l) {
			continue
		}
		if !mayNameError(lowerASCII(l)) {
			t.Errorf("%q matches errorWordRe but the filter drops it", l)
		}
	}
	if !foldsToASCII("TRACEBAC\u212A") || !foldsToASCII("\u017Fuch") || foldsToASCII("plain error") {
		t.Error("foldsToASCII misses a folding letter or flags plain ASCII")
	}
	if got := lowerASCII("AbC é Z\n"); got != "abc é z\n" {
		t.Errorf("lowerASCII = %q", got)
	}
}

// TestKeyFactsFilter: keyFacts with its line filter gives what running
// the regexps on every line gives, on outputs mixing errors, failed
// tests and folding letters.
func TestKeyFactsFilter(t *testing.T) {
	contents := []string{
		"ok\nall good\n",
		"building\nmain.go:3: undefined: x\nerror: build failed\n",
		"--- FAIL: TestX (0.01s)\nFAIL\tpkg\t0.1s\nFAILED tests/a.py::t\n",
		"line\nTRACEBAC\u212A here\nmore\n",
		"errors.New(\"x\")\nreturn errors\nError: real one\n",
		"  indented Exception: y\n\nFAIL: b\n",
	}
	for _, c := range contents {
		for _, rt := range []ResultType{ResultError, ResultCommand, ResultText, ResultFile, ResultSearch} {
			o := Observation{ResultType: rt}
			got := keyFacts(nil, c, o, 0, false)
			want := keyFactsUnfiltered(c, o)
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("%s %q: keyFacts = %q, want %q", rt, c, got, want)
			}
		}
	}
}

// keyFactsUnfiltered is keyFacts' error and failing-test facts with the
// regexps run on every line, as before the filter.
func keyFactsUnfiltered(content string, o Observation) []string {
	var facts []string
	lines := 0
	var firstErr, first string
	var failing []string
	for line := range strings.Lines(content) {
		lines++
		l := strings.TrimSpace(line)
		if l == "" {
			continue
		}
		if first == "" {
			first = l
		}
		if firstErr == "" && errorWordRe.MatchString(l) {
			firstErr = l
		}
		if len(failing) < 3 && failingTestRe.MatchString(l) {
			failing = append(failing, l)
		}
	}
	add := func(s string) { facts = append(facts, strings.Join(strings.Fields(s), " ")) }
	switch o.ResultType {
	case ResultError:
		if firstErr == "" {
			firstErr = first
		}
		add("error: " + firstErr)
	case ResultSearch:
		add(strconv.Itoa(lines) + " result lines")
	case ResultFile:
		add(strconv.Itoa(lines) + " lines")
	case ResultCommand, ResultText:
		if firstErr != "" {
			add("error: " + firstErr)
		}
	}
	for _, f := range failing {
		add("failing: " + f)
	}
	return facts
}

// TestDigest: digest is hash/fnv's 64-bit FNV-1a of the tool, a zero
// byte and the content.
func TestDigest(t *testing.T) {
	t.Parallel()
	for _, c := range [][2]string{{"", ""}, {"Bash", "ok\n"}, {"Read", "上下文\x00\xff"}} {
		h := fnv.New64a()
		h.Write([]byte(c[0] + "\x00" + c[1]))
		if got, want := digest(c[0], c[1]), h.Sum64(); got != want {
			t.Errorf("digest(%q, %q) = %x, want %x", c[0], c[1], got, want)
		}
	}
}
