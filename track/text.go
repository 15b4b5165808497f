package track

import (
	"strings"

	"github.com/agentctx/agentctx/tooluse"
)

// body returns content without its leading wrapper lines
// ([tooluse.IsWrapperLine]).
func body(content string) string {
	rest := content
	for n := 0; n < 8 && rest != ""; n++ {
		line, r, _ := strings.Cut(rest, "\n")
		l := strings.TrimSpace(line)
		if l != "" && !tooluse.IsWrapperLine(l) {
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
		if tooluse.IsWrapperLine(strings.TrimSpace(l)) {
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
