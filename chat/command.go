package chat

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// Command returns the shell command c runs: its "command" or "cmd"
// argument as a string, or as an argv array (Codex shell's ["bash",
// "-lc", script] gives the script; other arrays are joined with spaces).
// "" when c has neither, or its arguments are not a JSON object. It does
// not look at the tool's name: a str_replace_editor call's "command" is
// "view" or "create", which no shell rule matches. The arguments are
// decoded as encoding/json decodes them, by internal/jsonx's fast path.
func (c ToolCall) Command() string {
	if len(c.Arguments) == 0 || c.Arguments[0] != '{' {
		return ""
	}
	var args map[string]json.RawMessage
	if jsonx.Unmarshal(c.Arguments, &args) != nil {
		return ""
	}
	for _, k := range []string{"command", "cmd"} {
		raw, ok := args[k]
		if !ok {
			continue
		}
		var s string
		if jsonx.Unmarshal(raw, &s) == nil {
			return s
		}
		var argv []string
		if jsonx.Unmarshal(raw, &argv) == nil {
			if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
				return argv[2]
			}
			return strings.Join(argv, " ")
		}
	}
	return ""
}

// noMatchCommands exit with 1 to answer "no" rather than to fail: grep
// and its kin when nothing matched (POSIX grep; ripgrep, ag, ack and git
// grep document the same), diff, cmp and git diff (with --exit-code or
// --quiet) when the inputs differ (POSIX diff and cmp). Exit 2 and above
// are their errors.
var noMatchCommands = map[string]bool{
	"grep": true, "egrep": true, "fgrep": true, "zgrep": true, "rg": true, "ag": true, "ack": true,
	"git grep": true, "diff": true, "cmp": true, "git diff": true,
}

// commandWrappers run the command that follows them and pass its exit
// code on.
var commandWrappers = map[string]bool{"sudo": true, "time": true, "nohup": true, "env": true, "command": true, "exec": true}

// exitOneAnswers reports whether cmd's exit code 1 is an answer, not a
// failure: the simple command that sets a list's or pipeline's exit code,
// its last, is one of [noMatchCommands] ("cd x && grep foo", "cat f |
// grep foo").
func exitOneAnswers(cmd string) bool {
	words := lastCommand(cmd)
	for len(words) > 0 && (commandWrappers[words[0]] || strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-")) {
		words = words[1:]
	}
	if len(words) == 0 {
		return false
	}
	name := path.Base(words[0])
	if name == "git" && len(words) > 1 {
		name += " " + words[1]
	}
	return noMatchCommands[name]
}

// lastCommand returns the words of the last simple command of a shell
// command line: what follows the last ;, &, &&, ||, |, parenthesis or new
// line outside quotes, with quotes removed and redirections dropped. It
// is a tokenizer, not a shell parser, and never fails. Only the last
// command's words are built: a first pass finds where it starts
// ([lastCommandStart]), and the whole line is tokenized only when that
// command has no words (a trailing separator, a bare redirection).
func lastCommand(cmd string) []string {
	if start := lastCommandStart(cmd); start > 0 {
		if words := commandWords(cmd[start:]); len(words) > 0 {
			return words
		}
	}
	return commandWords(cmd)
}

// lastCommandStart returns the offset in cmd just after the last
// separator that [commandWords] would end a command at: the same reading
// of quotes, backslashes and redirections ("2>&1" holds no separator),
// without building any word.
func lastCommandStart(cmd string) int {
	start := 0
	for i := 0; i < len(cmd); i++ {
		switch c := cmd[i]; c {
		case '\'', '"':
			j := strings.IndexByte(cmd[i+1:], c)
			if j < 0 {
				return start // an unclosed quote runs to the end
			}
			i += j + 1
		case '\\':
			i++
		case '\n', ';', '&', '|', '(', ')':
			start = i + 1
		case '>', '<':
			for i+1 < len(cmd) && (cmd[i+1] == '>' || cmd[i+1] == '&') {
				i++
			}
		}
	}
	return start
}

// commandWords is [lastCommand] read from the start of cmd.
func commandWords(cmd string) []string {
	var (
		words, last []string
		word        strings.Builder
		inWord      bool
		quote       byte
		redirect    bool
	)
	endWord := func() {
		if inWord {
			if !redirect {
				words = append(words, word.String())
			}
			redirect = false
		}
		word.Reset()
		inWord = false
	}
	endCommand := func() {
		endWord()
		if len(words) > 0 {
			last = words
		}
		words = nil
		redirect = false
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		if quote != 0 {
			if c == quote {
				quote = 0
			} else {
				word.WriteByte(c)
			}
			continue
		}
		switch c {
		case '\'', '"':
			quote, inWord = c, true
		case '\\':
			if i+1 < len(cmd) {
				i++
				word.WriteByte(cmd[i])
				inWord = true
			}
		case ' ', '\t', '\r':
			endWord()
		case '\n', ';', '&', '|', '(', ')':
			endCommand()
		case '>', '<':
			// "2>/dev/null", "> out", "<in": the target is not a word.
			if inWord && strings.Trim(word.String(), "0123456789") == "" {
				word.Reset()
				inWord = false
			}
			endWord()
			for i+1 < len(cmd) && (cmd[i+1] == '>' || cmd[i+1] == '&') {
				i++
			}
			redirect = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	endCommand()
	return last
}
