package track

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// wrapperLine matches lines that only frame a tool's output.
var wrapperLine = regexp.MustCompile(`^(?:Exit code:? -?\d+|<returncode>-?\d+</returncode>|</?output>|<output_head>|</output_head>|<warning>.*|Process exited with code -?\d+|Chunk ID: .*|Wall time: .*|Original token count: .*|Output:|\[Command finished with exit code -?\d+\]|\[The command completed with exit code -?\d+\.?\]|</?tool_use_error>|<exit_code>-?\d+</exit_code>|<error>|</error>)$`)

// body returns content without its leading wrapper lines.
func body(content string) string {
	rest := content
	for n := 0; n < 8 && rest != ""; n++ {
		line, r, _ := strings.Cut(rest, "\n")
		l := strings.TrimSpace(line)
		if l != "" && !wrapperLine.MatchString(l) {
			break
		}
		rest = r
	}
	return rest
}

// firstLines returns the first n lines of s, without trailing wrapper
// lines or a trailing new line.
func firstLines(s string, n int) string {
	var out []string
	for line := range strings.Lines(s) {
		if len(out) == n {
			break
		}
		l := strings.TrimRight(line, "\r\n")
		if wrapperLine.MatchString(strings.TrimSpace(l)) {
			break
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// firstLine returns the first non-wrapper line of s, trimmed.
func firstLine(s string) string {
	return strings.TrimSpace(firstLines(s, 1))
}

// errorLine returns the first informative line of a failed result: the
// first non-empty line that is not an exit-code or output wrapper, tags
// stripped; else "".
func errorLine(content string) string {
	n := 0
	for line := range strings.Lines(content) {
		if n++; n > 50 {
			break
		}
		l := strings.TrimSpace(line)
		if l == "" || wrapperLine.MatchString(l) {
			continue
		}
		for _, tag := range []string{"<tool_use_error>", "</tool_use_error>", "<error>", "</error>", "<output>"} {
			l = strings.ReplaceAll(l, tag, "")
		}
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// cutRunes cuts s to at most n runes, never inside a rune; invalid UTF-8
// is replaced so that the result is valid.
func cutRunes(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
