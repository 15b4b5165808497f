package workmem

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/agentctx/agentctx/tooluse"
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

// lowerASCII returns s with its ASCII letters in lower case, byte for
// byte (the same length, the same line breaks).
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// mayNameError reports whether line, lowered (its ASCII letters in lower
// case), may match errorWordRe: whether it holds one of errorWords. Only
// valid for a text without the non-ASCII letters that fold to ASCII ones
// (U+212A KELVIN SIGN to k, U+017F LONG S to s): see foldsToASCII.
// keyFactsLines filtered lines with it.
func mayNameError(lowered string) bool {
	for _, w := range errorWords {
		if strings.Contains(lowered, w) {
			return true
		}
	}
	return false
}

// keyFactsLines is keyFacts as it was before it searched the content for
// the lines its regexps may match: it read the content line by line,
// filtering by mayNameError. FuzzKeyFacts compares the two.
func keyFactsLines(paths []string, content string, o Observation, exit int, hasExit bool) []string {
	var facts []string
	add := func(s string) {
		s = tooluse.CutRunes(strings.Join(strings.Fields(s), " "), KeyFactRunes)
		if s == "" || len(facts) >= MaxKeyFacts {
			return
		}
		for _, f := range facts {
			if f == s {
				return
			}
		}
		facts = append(facts, s)
	}
	for _, p := range paths {
		add("path: " + p)
		if len(facts) >= 2 {
			break
		}
	}
	if hasExit {
		add(fmt.Sprintf("exit code %d", exit))
	}
	lines := 0
	var firstErr, first string
	var failing []string
	needErr := o.ResultType == ResultError || o.ResultType == ResultCommand || o.ResultType == ResultText
	lowered, filter := "", needErr && !foldsToASCII(content)
	if filter {
		lowered = lowerASCII(content)
	}
	at := 0
	for line := range strings.Lines(content) {
		lines++
		low := ""
		if filter {
			low = lowered[at : at+len(line)]
		}
		at += len(line)
		l := strings.TrimSpace(line)
		if l == "" {
			continue
		}
		if first == "" {
			first = l
		}
		if needErr && firstErr == "" && (!filter || mayNameError(low)) && errorWordRe.MatchString(l) {
			firstErr = l
		}
		if len(failing) < 3 && (l[0] == 'F' || strings.HasPrefix(l, "--- FAIL: ")) && failingTestRe.MatchString(l) {
			failing = append(failing, l)
		}
	}
	switch o.ResultType {
	case ResultError:
		if firstErr == "" {
			firstErr = first
		}
		add("error: " + firstErr)
	case ResultSearch:
		add(fmt.Sprintf("%d result lines", lines))
	case ResultFile:
		add(fmt.Sprintf("%d lines", lines))
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

// FuzzKeyFacts checks keyFacts, which searches the content for the lines
// its regexps may match, against keyFactsLines, which read it line by
// line, for every result type.
func FuzzKeyFacts(f *testing.F) {
	for _, s := range []string{
		"ok\nall good\n",
		"building\nmain.go:3: undefined: x\nerror: build failed\n",
		"errors.New(\"x\")\nreturn fmt.Errorf(\"y\")\n_error x\n1error\nerror_x\nTypeError: z",
		"--- FAIL: TestX (0.01s)\nFAIL\tpkg\t0.1s\nFAILED tests/a.py::t\n  FAIL: b\nxFAIL y\nFAIL\n",
		"line\nTRACEBAC\u212A here\nmore\n",
		"\u00a0FAIL x\n\u3000Error: y\n",
		"no such\tfile\nNot Found\nno such file or directory",
		"\n\n  \n",
		"",
		"a\r\nerror\r\n",
		"ERROR",
		"é error é\nPanic!",
		"9terror x\na_terror\nxTerror-y\n\terror\nno_such file\nNOT FOUNDx\n" + strings.Repeat("long line ", 500) + "Error",
		"fatalerror\nFatal\u00e9\n\u00e9fatal\nexceptions\nNullPointerException\n",
	} {
		f.Add(s)
	}
	types := []ResultType{ResultError, ResultEmpty, ResultSearch, ResultFile, ResultEdit, ResultCommand, ResultJSON, ResultText}
	f.Fuzz(func(t *testing.T, content string) {
		for _, rt := range types {
			o := Observation{ResultType: rt}
			got := keyFacts([]string{"a.go"}, content, o, 1, true)
			want := keyFactsLines([]string{"a.go"}, content, o, 1, true)
			if !slices.Equal(got, want) {
				t.Fatalf("%s %q: keyFacts = %q, line by line %q", rt, content, got, want)
			}
		}
	})
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

// TestDigest: digest is XXH64 (seed 0) of the tool, a zero byte and the
// content, as the library's one-shot hash of the joined bytes gives it;
// the library's is XXH64's reference value for the empty input.
func TestDigest(t *testing.T) {
	t.Parallel()
	if got := xxhash.Sum64String(""); got != 0xef46db3751d8e999 {
		t.Fatalf("XXH64(\"\") = %x, want ef46db3751d8e999", got)
	}
	for _, c := range [][2]string{{"", ""}, {"Bash", "ok\n"}, {"Read", "上下文\x00\xff"}, {"Bash", strings.Repeat("x", 1000)}} {
		if got, want := digest(c[0], c[1]), xxhash.Sum64String(c[0]+"\x00"+c[1]); got != want {
			t.Errorf("digest(%q, %.20q) = %x, want %x", c[0], c[1], got, want)
		}
	}
	if digest("a", "b") == digest("a\x00b", "") {
		t.Error("the tool and the content are not kept apart")
	}
}
