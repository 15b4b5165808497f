package tooluse

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/agentctx/agentctx/internal/runes"
)

// wrapperLine matches the lines agents put around a command's output,
// which name no error: exit-code lines (Claude Code "Exit code 1",
// mini-swe-agent "<returncode>1</returncode>", Codex "Process exited with
// code 1", "Chunk ID:", "Wall time:", "Original token count:", "Output:",
// OpenHands "[Command finished with exit code 1]" and "[The command
// completed with exit code 1.]"), output tags (<output>, <output_head>,
// <warning>…, <error>, <tool_use_error>, <exit_code>…) and the opening of a
// JSON output object ({"output": ). It is the union of the rules track
// and compact had, and the one rule now ([IsWrapperLine]).
var wrapperLine = regexp.MustCompile(`^(?:Exit code:? -?\d+|</?returncode>(?:-?\d+</returncode>)?|</?output>|</?output_head>|<warning>.*|Process exited with code -?\d+|Chunk ID: .*|Wall time: .*|Original token count: .*|Output:|\[Command finished with exit code -?\d+\]|\[The command completed with exit code -?\d+\.?\]|</?tool_use_error>|</?exit_code>(?:-?\d+</exit_code>)?|</?error>|\{?"?output"?:?\s*"?)$`)

// IsWrapperLine reports whether l, a trimmed line of a tool's output,
// only frames the output (see wrapperLine: exit codes, output tags, the
// opening of a JSON output object) and names nothing. Lines that cannot
// start a wrapper are answered from their first byte, without the
// regular expression: most lines of a file read.
func IsWrapperLine(l string) bool {
	if l == "" {
		return false
	}
	switch l[0] {
	case 'E', '<', 'P', 'C', 'W', 'O', 'o', '[', '{', '"':
		if bareWrappers[l] || returnCodeLine(l) {
			return true // the commonest, without the expression
		}
		return wrapperLine.MatchString(l)
	}
	return false
}

// bareWrappers are the wrapper lines that hold no number: the output tags
// mini-swe-agent, SWE-agent and Claude Code write around each output.
var bareWrappers = map[string]bool{
	"<output>": true, "</output>": true, "<output_head>": true, "</output_head>": true, "<error>": true, "</error>": true,
	"<tool_use_error>": true, "</tool_use_error>": true, "<returncode>": true, "</returncode>": true, "<exit_code>": true,
	"</exit_code>": true, "Output:": true,
}

// returnCodeLine reports mini-swe-agent's exit code line,
// "<returncode>N</returncode>" (N an integer, maybe negative).
func returnCodeLine(l string) bool {
	rest, ok := strings.CutPrefix(l, "<returncode>")
	if !ok {
		return false
	}
	rest, ok = strings.CutSuffix(rest, "</returncode>")
	rest = strings.TrimPrefix(rest, "-")
	return ok && rest != "" && strings.Trim(rest, "0123456789") == ""
}

// errorTags are stripped from an error line wherever they stand.
var errorTags = strings.NewReplacer("<tool_use_error>", "", "</tool_use_error>", "", "<error>", "", "</error>", "", "<output>", "", "</output>", "")

// returnCodePrefix is mini-swe-agent's exit code when it shares the line
// with the output.
var returnCodePrefix = regexp.MustCompile(`^<returncode>-?\d+</returncode>`)

// ErrorLineScan is how many lines of output [ErrorLine] reads.
const ErrorLineScan = 50

// ErrorLine returns the first informative line of a failed command's
// output: among its first [ErrorLineScan] lines, the first that is not
// blank and not a wrapper line (see wrapperLine: exit codes, output
// tags), with error tags (<tool_use_error>, <error>, <output>) and a
// leading "<returncode>N</returncode>" removed, trimmed and with every
// run of white space collapsed to one space. It returns "" when no line
// qualifies. It does not cut: callers cut to their own limits
// ([CutRunes], [HeadRunes]).
//
// It unites track's errorLine (the wrappers <warning>, </output_head>,
// "[The command completed with exit code N.]"; tags stripped anywhere in
// the line; "" when nothing qualifies) and compact's (the wrappers
// <returncode>N</returncode>, <exit_code>N</exit_code>, {"output": ; the
// <returncode>N</returncode> prefix; white space collapsed). compact
// skipped any line starting with <returncode>, output included;
// ErrorLine keeps the output after the tag. compact fell back to the first
// non-blank line, a wrapper ("Exit code 1") that repeats the exit code;
// ErrorLine returns "" instead and the caller says "exit code N".
func ErrorLine(output string) string {
	n := 0
	for line := range strings.Lines(output) {
		if n++; n > ErrorLineScan {
			break
		}
		l := strings.TrimSpace(line)
		if IsWrapperLine(l) || l == "" {
			continue
		}
		if strings.HasPrefix(l, "<returncode>") {
			l = returnCodePrefix.ReplaceAllString(l, "")
		}
		l = strings.Join(strings.Fields(errorTags.Replace(l)), " ")
		if l != "" && !IsWrapperLine(l) {
			return l
		}
	}
	return ""
}

// Ellipsis is the mark [CutRunes] ends a cut string with.
const Ellipsis = "…"

// CutRunes returns s cut to at most n runes, the last of which is
// [Ellipsis] when s was cut: workmem's, reminder's and window's rule for
// key facts, user messages and reminders (window's copy added the mark
// after n runes, one rune over). n < 0 means no cut; n == 0 gives "".
// Invalid UTF-8 is replaced by U+FFFD first, so the result is always
// valid UTF-8 and never ends inside a rune.
func CutRunes(s string, n int) string {
	s = validUTF8(s)
	if n < 0 || runes.Count(s) <= n {
		return s
	}
	if n == 0 {
		return ""
	}
	return s[:runeOffset(s, n-1)] + Ellipsis
}

// HeadRunes returns the first n runes of s, without a mark: track's and
// compact's rule for commands and error lines kept whole or cut. n < 0
// means no cut. Invalid UTF-8 is replaced by U+FFFD first.
func HeadRunes(s string, n int) string {
	s = validUTF8(s)
	if n < 0 {
		return s
	}
	return s[:runeOffset(s, n)]
}

// runeOffset returns the byte offset of rune n of s, or len(s).
func runeOffset(s string, n int) int { return runes.Offset(s, n) }

func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
