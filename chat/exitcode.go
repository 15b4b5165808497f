package chat

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
)

// exitCodeRes match the exit code a tool reports in its output, one
// pattern per agent format (FORMATS.md), each applied to one trimmed line.
var exitCodeRes = []*regexp.Regexp{
	regexp.MustCompile(`(?i)^exit code:? (-?\d+)`),                        // Claude Code Bash, any case
	regexp.MustCompile(`^<returncode>(-?\d+)</returncode>`),               // mini-swe-agent
	regexp.MustCompile(`^Process exited with code (-?\d+)`),               // Codex exec_command
	regexp.MustCompile(`^\[Command finished with exit code (-?\d+)`),      // OpenHands
	regexp.MustCompile(`^\[The command completed with exit code (-?\d+)`), // OpenHands suffix
	regexp.MustCompile(`^<exit_code>(-?\d+)</exit_code>`),                 // Claude Code TaskOutput
	regexp.MustCompile(`"(?:exit_code|returncode)"\s*:\s*(-?\d+)`),        // Codex and other JSON output
}

// ExitCode returns the exit code the tool reported in r's content and
// true, or 0 and false when the content reports none. Agents print it at
// the start or the end of a command's output, each in its own way: Claude
// Code "Exit code 1", mini-swe-agent "<returncode>1</returncode>", Codex
// "Process exited with code 1", OpenHands "[Command finished with exit
// code 1]", JSON {"exit_code": 1}; the first 8 and last 3 lines are
// searched. A non-zero code marks a failure even where the transcript
// sets no error flag (IsError).
func (r ToolResult) ExitCode() (int, bool) {
	// The tracker and the working memory each read the same result's
	// exit code, one after the other: the last answer is remembered.
	if m := lastExitCode.Load(); m != nil && m.content == r.Content {
		return m.code, m.ok
	}
	code, ok := exitCode(r.Content)
	lastExitCode.Store(&exitCodeMemo{content: r.Content, code: code, ok: ok})
	return code, ok
}

// exitCodeMemo is the last answer of [ToolResult.ExitCode].
type exitCodeMemo struct {
	content string
	code    int
	ok      bool
}

var lastExitCode atomic.Pointer[exitCodeMemo]

// exitCode is [ToolResult.ExitCode] of content.
func exitCode(content string) (int, bool) {
	for _, l := range edgeLines(content, 8, 3) {
		if !mayReportExit(l) {
			continue
		}
		for i, re := range exitCodeRes {
			if !mayMatchExit(i, l) {
				continue
			}
			if m := re.FindStringSubmatch(l); m != nil {
				if n, err := strconv.Atoi(m[1]); err == nil {
					return n, true
				}
			}
		}
	}
	return 0, false
}

// mayReportExit reports whether a trimmed line may match one of
// exitCodeRes: each but the last is anchored at the start, which is "e"
// or "E" (no other rune folds to them), "<", "P" or "["; the last holds
// `code"`. The patterns run only on the lines that pass.
func mayReportExit(l string) bool {
	if l == "" {
		return false
	}
	switch l[0] {
	case 'e', 'E', '<', 'P', '[':
		return true
	}
	return strings.Contains(l, `code"`)
}

// exitCodeStarts[i] is the literal start of exitCodeRes[i], which a line
// must have for it to match ("" for the first, any case of "exit code",
// and the last, unanchored).
var exitCodeStarts = []string{"", "<returncode>", "Process exited with code ", "[Command finished with exit code ",
	"[The command completed with exit code ", "<exit_code>", ""}

// mayMatchExit reports whether exitCodeRes[i] may match l, a non-empty
// trimmed line: l starts with the pattern's literal start ("e" or "E" for
// the first), or holds `code"` for the last. Only those run: a pattern
// that cannot match costs the regexp's setup for the whole line.
func mayMatchExit(i int, l string) bool {
	switch i {
	case 0:
		return l[0] == 'e' || l[0] == 'E'
	case len(exitCodeRes) - 1:
		return strings.Contains(l, `code"`)
	}
	return strings.HasPrefix(l, exitCodeStarts[i])
}

// Failed reports whether r is a failure: its error flag is set, or its
// content reports a non-zero exit code ([ToolResult.ExitCode]). It does
// not know the command: use [ToolResult.FailedFor] when the call is known.
func (r ToolResult) Failed() bool {
	if r.IsError {
		return true
	}
	code, ok := r.ExitCode()
	return ok && code != 0
}

// edgeLines returns up to head first and tail last lines of s, trimmed.
func edgeLines(s string, head, tail int) []string {
	var out []string
	rest := s
	for len(out) < head && rest != "" {
		line, r, _ := strings.Cut(rest, "\n")
		rest = r
		out = append(out, strings.TrimSpace(line))
	}
	for n := 0; n < tail && rest != ""; n++ {
		i := strings.LastIndexByte(rest, '\n')
		out = append(out, strings.TrimSpace(rest[i+1:]))
		if i < 0 {
			break
		}
		rest = rest[:i]
	}
	return out
}

// FailedFor reports whether r, the result of call, is a failure: as
// [ToolResult.Failed], except that exit code 1 of a shell command
// ([ToolCall.Command]) whose last simple command is grep, egrep, fgrep,
// zgrep, rg, ag, ack or git grep means "no match", and of diff, cmp or
// git diff "the inputs differ" (POSIX grep, diff and cmp; ripgrep's, ag's
// and git's documentation): not a failure, even with the error flag set,
// which Claude Code sets on every non-zero exit. The last command of a
// list or pipeline decides, as its exit code is the line's: "cd x && grep
// foo" and "cat f | grep foo" exiting 1 did not fail. Exit codes 2 and
// above remain failures. The tracker, the working memory and the
// compaction facts all decide failures here, so they agree.
func (r ToolResult) FailedFor(call ToolCall) bool {
	code, ok := r.ExitCode() // read once: Failed would read it again
	return r.FailedForExit(call, code, ok)
}

// FailedForExit is [ToolResult.FailedFor] given r's exit code as
// [ToolResult.ExitCode] returns it (code, ok), for a caller that read it
// already: the content is not searched again.
func (r ToolResult) FailedForExit(call ToolCall, code int, ok bool) bool {
	if ok && code == 1 && call.exitOneRemembered() {
		return false
	}
	return r.IsError || ok && code != 0
}

// exitOneRemembered is exitOneAnswers(c.Command()), remembered for the last
// arguments it was asked about: the tracker and the working memory each
// decide the same result's failure, one after the other, and a command's
// arguments (a heredoc script) can take more to decode than the rest of
// the decision.
func (c ToolCall) exitOneRemembered() bool {
	if m := lastExitOne.Load(); m != nil && bytes.Equal(m.args, c.Arguments) {
		return m.answers
	}
	answers := exitOneAnswers(c.Command())
	lastExitOne.Store(&exitOneMemo{args: bytes.Clone(c.Arguments), answers: answers})
	return answers
}

// exitOneMemo is one remembered answer of [ToolCall.exitOneRemembered].
type exitOneMemo struct {
	args    []byte
	answers bool
}

var lastExitOne atomic.Pointer[exitOneMemo]
