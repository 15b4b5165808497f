package workmem

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
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
// in lower case: a line without any of them, ignoring ASCII case, does
// not match it (mayNameError).
var errorWords = []string{"error", "exception", "traceback", "fatal", "panic", "failed", "cannot", "not found", "no such file", "denied"}

// mayNameError reports whether line, lowered (its ASCII letters in lower
// case), may match errorWordRe: whether it holds one of errorWords. Only
// valid for a text without the non-ASCII letters that fold to ASCII ones
// (U+212A KELVIN SIGN to k, U+017F LONG S to s): see foldsToASCII.
func mayNameError(lowered string) bool {
	for _, w := range errorWords {
		if strings.Contains(lowered, w) {
			return true
		}
	}
	return false
}

// foldsToASCII reports whether s holds a non-ASCII letter that a
// case-insensitive regexp matches with an ASCII one.
func foldsToASCII(s string) bool {
	return strings.ContainsRune(s, '\u212A') || strings.ContainsRune(s, '\u017F')
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
	o.IsError = res.FailedFor(chat.ToolCall{Name: act.Tool, Arguments: act.Arguments})
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

// digest is the 64-bit FNV-1a hash of tool, a zero byte and content,
// hashed in place (hash/fnv would take a copy of content as []byte).
func digest(tool, content string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < len(tool); i++ {
		h = (h ^ uint64(tool[i])) * prime
	}
	h *= prime // the zero byte
	for i := 0; i < len(content); i++ {
		h = (h ^ uint64(content[i])) * prime
	}
	return h
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
	if t := strings.TrimSpace(content); (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
		return ResultJSON
	}
	return ResultText
}

// keyFacts lists short facts about a result: the paths its call reads or
// writes ([tooluse.Use.Paths]), the exit code, the first error line,
// failing tests, and the size of a search or a file.
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
	lines := 0
	var firstErr, first string
	var failing []string
	// The regexps run only on the lines that may match them: a line
	// without one of errorWords cannot name an error, and a failed
	// test's line starts with "F" or "--- FAIL: "; and the first error
	// line only for the types that report it.
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
