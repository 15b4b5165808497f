package workmem

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/jsonx"
	"github.com/agentctx/agentctx/tooluse"
)

// Limits of the derived observation metadata.
const (
	// MaxKeyFacts is how many key facts an observation keeps.
	MaxKeyFacts = 5
	// KeyFactRunes is the length in runes a key fact is cut to.
	KeyFactRunes = 160
)

// errorWordRe matches a line that names an error.
var errorWordRe = regexp.MustCompile(`(?i)\b(?:[a-z]*error|[a-z]*exception|traceback|fatal|panic|failed|cannot|not found|no such file|denied)\b`)

// errorWords are the words one of which a match of errorWordRe holds,
// in lower case, followed by a byte that is not an ASCII letter, digit or
// '_' (or by the end): a line without such an occurrence, ignoring ASCII
// case, does not match it, unless it holds a letter that folds to ASCII
// (see foldsToASCII).
var errorWords = [...]string{"error", "exception", "traceback", "fatal", "panic", "failed", "cannot", "not found", "no such file", "denied"}

// foldsToASCII reports whether s holds a non-ASCII letter that a
// case-insensitive regexp matches with an ASCII one.
func foldsToASCII(s string) bool {
	return strings.ContainsRune(s, '\u212A') || strings.ContainsRune(s, '\u017F')
}

// failingTestRe matches the lines test runners print for a failed test.
var failingTestRe = regexp.MustCompile(`^(?:FAILED \S+|--- FAIL: \S+|FAIL:? \S+)`)

// describe derives an observation's metadata (seed 002
// buildObservationMeta), given u, act's call read by tooluse.Classify. It
// is called with a.mu held.
func (a *ActiveContext) describe(act Action, res chat.ToolResult, u tooluse.Use) Observation {
	content := res.Content
	o := Observation{ToolCallID: valid(res.ToolCallID), Tool: valid(act.Tool), Size: len(content)}
	o.Digest = strconv.FormatUint(digest(act.Tool, content), 16)
	exit, hasExit := exitCode(content)
	o.IsError = res.FailedForExit(chat.ToolCall{Name: act.Tool, Arguments: act.Arguments}, exit, hasExit)
	o.ResultType = classify(u.Kind, content, o.IsError)
	_, seen := a.seen[o.Digest]
	o.GotNewInfo = !o.IsError && o.ResultType != ResultEmpty && !seen
	a.seen[o.Digest] = struct{}{}
	if a.opts.Lightweight {
		return o
	}
	content = clean(content)
	o.Raw = cutBytes(content, a.opts.MaxRawBytes)
	o.KeyFacts = keyFacts(u.Paths, content, o, exit, hasExit)
	return o
}

// digest is the 64-bit xxHash (XXH64, seed 0) of tool, a zero byte and
// content, hashed in place: a result of many kilobytes is hashed at
// memory speed (FNV-1a, a multiply per byte, was a quarter of adding a
// 500 KiB result).
func digest(tool, content string) uint64 {
	d := xxhash.New()
	_, _ = d.WriteString(tool)
	_, _ = d.Write([]byte{0})
	_, _ = d.WriteString(content)
	return d.Sum64()
}

// exitCode is the exit code content reports ([chat.ToolResult.ExitCode]).
func exitCode(content string) (int, bool) {
	return chat.ToolResult{Content: content}.ExitCode()
}

// classify types a result by its call's kind: a search or a listing, a
// file read, an edit, a command; other tools' results are JSON or text.
func classify(kind tooluse.Kind, content string, isError bool) ResultType {
	switch {
	case isError:
		return ResultError
	case strings.TrimSpace(content) == "":
		return ResultEmpty
	}
	switch kind {
	case tooluse.KindSearch, tooluse.KindList:
		return ResultSearch
	case tooluse.KindRead:
		return ResultFile
	case tooluse.KindWrite, tooluse.KindEdit:
		return ResultEdit
	case tooluse.KindShell:
		return ResultCommand
	}
	if t := strings.TrimSpace(content); (t[0] == '{' || t[0] == '[') && jsonx.Valid([]byte(t)) {
		return ResultJSON
	}
	return ResultText
}

// keyFacts lists short facts about a result: the paths its call reads or
// writes ([tooluse.Use.Paths]), the exit code, the first error line,
// failing tests, and the size of a search or a file.
//
// The regexps run only where they may match, found by scanning the
// whole content rather than reading it line by line: the error word
// regexp around the places where one of errorWords ends a word
// (firstErrorLine, for the types that report an error line), the failed
// test regexp on the lines holding "FAIL" (failingLines). FuzzKeyFacts
// compares with the line-by-line reading.
func keyFacts(paths []string, content string, o Observation, exit int, hasExit bool) []string {
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
	switch o.ResultType {
	case ResultError:
		firstErr := firstErrorLine(content)
		if firstErr == "" {
			firstErr = firstLine(content)
		}
		add("error: " + firstErr)
	case ResultSearch:
		add(fmt.Sprintf("%d result lines", lineCount(content)))
	case ResultFile:
		add(fmt.Sprintf("%d lines", lineCount(content)))
	case ResultCommand, ResultText:
		if firstErr := firstErrorLine(content); firstErr != "" {
			add("error: " + firstErr)
		}
	}
	for _, f := range failingLines(content, 3) {
		add("failing: " + f)
	}
	return facts
}

// lineCount returns how many lines strings.Lines yields for s.
func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && s[len(s)-1] != '\n' {
		n++
	}
	return n
}

// firstLine returns the first line of s that is not blank, trimmed; ""
// when there is none.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if l := strings.TrimSpace(line); l != "" {
			return l
		}
	}
	return ""
}

// lineAt returns the line of s that holds byte i, trimmed, and the
// offset just past it (past its newline).
func lineAt(s string, i int) (string, int) {
	start := strings.LastIndexByte(s[:i], '\n') + 1
	end := len(s)
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		end = i + j + 1
	}
	return strings.TrimSpace(s[start:end]), end
}

// firstErrorLine returns the first line of s that errorWordRe matches,
// trimmed; "" when none does. It scans s once for the places where one
// of errorWords, in any ASCII case, ends a word (a match of errorWordRe
// ends at one: a byte that is not a word byte, or the end, after a
// letter that ends one of the words) and runs the regexp around each
// (errorAt), so that it never runs on a whole line. The matches are
// taken in the order of their ends, which is the order of their lines
// (a match does not span lines), and every match of a line gives that
// line. When s holds a letter that folds to ASCII (foldsToASCII) it runs
// the regexp on every line instead.
func firstErrorLine(s string) string {
	if foldsToASCII(s) {
		for line := range strings.Lines(s) {
			if l := strings.TrimSpace(line); l != "" && errorWordRe.MatchString(l) {
				return l
			}
		}
		return ""
	}
	for e := 1; e <= len(s); e++ {
		if e < len(s) && wordBytes[s[e]] {
			continue
		}
		for _, w := range errorEnds[s[e-1]] {
			if i := e - len(w); i >= 0 && equalFoldASCII(s[i:e], w) && errorAt(s, i, e) {
				l, _ := lineAt(s, i)
				return l
			}
		}
	}
	return ""
}

// errorEnds lists, for each byte, the errorWords that end with it in
// either ASCII case.
var errorEnds = func() (t [256][]string) {
	for _, w := range errorWords {
		c := w[len(w)-1]
		t[c] = append(t[c], w)
		t[c-'a'+'A'] = append(t[c-'a'+'A'], w)
	}
	return t
}()

// wordBytes is wordByte as a table.
var wordBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = wordByte(byte(c))
	}
	return t
}()

// equalFoldASCII reports whether s equals lower, a lower-case ASCII
// word, ignoring the case of s's ASCII letters.
func equalFoldASCII(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// errorAt reports whether errorWordRe matches at the word s[i:e] (one of
// errorWords, followed by the end or a byte that is not a word byte),
// running it on that word with the ASCII letters before it and one byte
// of context on each side. Exact: every match of errorWordRe starts and
// ends with a letter, so none starts or ends on a context byte (not an
// ASCII letter), and \b reads the same bytes as in s; and a match that
// ends at e starts at the first of the letters before it (where \b may
// hold), inside the window.
func errorAt(s string, i, e int) bool {
	q := i
	for q > 0 && asciiLetter(s[q-1]) {
		q--
	}
	return errorWordRe.MatchString(s[max(q-1, 0):min(e+1, len(s))])
}

// asciiLetter reports whether c is an ASCII letter.
func asciiLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// wordByte reports whether c is an ASCII letter, digit or '_': a word
// character of a regexp's \b.
func wordByte(c byte) bool { return asciiLetter(c) || '0' <= c && c <= '9' || c == '_' }

// failingLines returns the first n lines of s that failingTestRe matches,
// trimmed. It runs on the lines holding "FAIL", each found by a search
// of s: every match starts with "FAIL" or "--- FAIL: ".
func failingLines(s string, n int) []string {
	var out []string
	for from := 0; len(out) < n; {
		j := strings.Index(s[from:], "FAIL")
		if j < 0 {
			break
		}
		l, end := lineAt(s, from+j)
		if (l[0] == 'F' || strings.HasPrefix(l, "--- FAIL: ")) && failingTestRe.MatchString(l) {
			out = append(out, l)
		}
		from = end
	}
	return out
}

// cutBytes returns the longest prefix of s of at most n bytes that ends on
// a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
