package track

import (
	"regexp"
	"strings"
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
