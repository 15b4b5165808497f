package compact

import (
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/secret"
	"github.com/agentctx/agentctx/window"
)

// Limits of fact extraction, in runes.
const (
	// FactUserRunes is the length in runes a user message is cut to in
	// [Facts.UserMessages] (issue 4: "user messages, or their first 200
	// chars").
	FactUserRunes = 200
	// FactLineRunes is the length in runes an error line or a failed
	// command is cut to in [Facts].
	FactLineRunes = 200
)

// noteMarker starts every compaction note written by this package (see
// note in compact.go).
const noteMarker = "[agentctx compaction note]"

// metaPrefixes start user-role texts that are not the user's words:
// Claude Code's slash-command echoes, local command output, caveats,
// interruption markers and its own compaction summaries.
var metaPrefixes = []string{
	"<command-", "<local-command", "Caveat:", "[Request interrupted",
	"This session is being continued from a previous conversation",
	noteMarker, SummaryHeader,
}

// ExtractFacts returns the key facts of msgs that a compaction must not
// lose (issue 4's retention categories), deterministically and without a
// model. Every list is sorted and free of duplicates.
//
//   - UserMessages: each [chat.RoleUser] message's text, whitespace
//     collapsed to single spaces, cut to its first [FactUserRunes] runes.
//     Compaction notes, summaries ([SummaryHeader]) and Claude Code meta
//     lines ("<command-", "<local-command", "Caveat:", "[Request
//     interrupted") are skipped.
//   - FilesModified, FilesRead: paths from tool-call arguments
//     ([window.ArgumentPaths]) and from the conventions of the real tools:
//     Claude Code Read/Edit/Write/MultiEdit/NotebookEdit, Codex apply_patch
//     headers, str_replace_editor's command (view reads; create,
//     str_replace, insert, undo_edit write), SWE-agent open/create/edit
//     (edit writes the open file), and shell commands (cat, sed -n, nl,
//     head, tail read; sed -i, tee, touch, redirections write). A path
//     written anywhere is not also listed as read.
//   - Errors: the first informative line of each failed tool result (the
//     structured error flag, or a non-zero exit code the tool reports:
//     Claude Code "Exit code 1", mini-swe-agent "<returncode>1", Codex
//     "Process exited with code 1" or a JSON exit_code, OpenHands
//     "[Command finished with exit code 1]"), skipping the exit-code
//     wrapper lines themselves, cut to [FactLineRunes] runes.
//   - FailingTests: pytest "FAILED a.py::t" and "a.py::t FAILED", Go
//     "--- FAIL: TestX", Jest "✕ name", unittest "FAIL: test_x (m.C)".
//   - FailedCommands: the shell command of each failed tool call,
//     whitespace collapsed, cut to [FactLineRunes] runes.
//
// Every fact is redacted ([secret.Redact]), as summaries are: a secret in
// the history is matched as its marker, and never listed among the facts
// a compaction lost ([Retention].Missing). ExtractFacts never panics on
// any input and is safe for concurrent use.
func ExtractFacts(msgs []chat.Message) Facts {
	s := scanHistory(msgs)
	var f Facts
	for _, u := range s.users {
		f.UserMessages = append(f.UserMessages, cutPlain(normalizeSpace(secret.Redact(u.text)), FactUserRunes))
	}
	for _, fi := range s.files {
		if fi.modified {
			f.FilesModified = append(f.FilesModified, fi.path)
		} else if fi.read {
			f.FilesRead = append(f.FilesRead, fi.path)
		}
	}
	for _, e := range s.events {
		f.FailingTests = append(f.FailingTests, e.tests...)
		if !e.failed {
			continue
		}
		if e.errLine != "" {
			f.Errors = append(f.Errors, e.errLine)
		}
		if e.command != "" {
			f.FailedCommands = append(f.FailedCommands, e.command)
		}
	}
	f.UserMessages = sortedSet(f.UserMessages)
	f.FilesModified = sortedSet(f.FilesModified)
	f.FilesRead = sortedSet(f.FilesRead)
	f.Errors = sortedSet(f.Errors)
	f.FailingTests = sortedSet(f.FailingTests)
	f.FailedCommands = sortedSet(f.FailedCommands)
	return f
}

// history is one pass over a message list: what ExtractFacts, Extractive
// and FileAnalyzer need.
type history struct {
	users  []userText
	events []toolEvent
	files  []*fileUse // in order of first use
	byPath map[string]*fileUse
	// lastText is the last assistant text (trimmed), lastTextAt its index.
	lastText   string
	lastTextAt int
	// todos are the open items of the last TodoWrite / update_plan call.
	todos []string
}

type userText struct {
	at   int
	text string // trimmed, not normalized
}

// toolEvent is one tool call and its result.
type toolEvent struct {
	at      int // index of the assistant message
	name    string
	command string // normalized shell command, cut; "" when none
	failed  bool
	done    bool   // a result answered the call
	errLine string // first informative line of a failed result
	cause   string // the line that names the error, when errLine does not
	tests   []string
}

// fileUse is what a history did to one path.
type fileUse struct {
	path     string
	modified bool
	read     bool
	tools    []string // tools that wrote it, in first-use order
	mentions int
	last     int // index of the last message naming it
}

func (h *history) use(p string, at int, tool string, write bool) {
	p = cleanPath(p)
	if p == "" {
		return
	}
	f := h.byPath[p]
	if f == nil {
		f = &fileUse{path: p}
		h.byPath[p] = f
		h.files = append(h.files, f)
	}
	f.mentions++
	f.last = at
	if write {
		f.modified = true
		if tool != "" && !slices.Contains(f.tools, tool) {
			f.tools = append(f.tools, tool)
		}
	} else {
		f.read = true
	}
}

// scanHistory walks msgs once. Tool results are paired with the most
// recent unanswered call of the same id (FORMATS.md: ids repeat).
func scanHistory(msgs []chat.Message) *history {
	h := &history{byPath: map[string]*fileUse{}, lastTextAt: -1}
	open := map[string][]int{} // call id -> stack of event indexes
	openFile := ""             // SWE-agent's currently open file
	var calls []chat.ToolCall  // the call of each event
	for i, m := range msgs {
		switch m.Role {
		case chat.RoleUser:
			t := strings.TrimSpace(m.Text())
			if t == "" || isMeta(t) {
				continue
			}
			h.users = append(h.users, userText{at: i, text: t})
		case chat.RoleAssistant:
			if t := strings.TrimSpace(m.Text()); t != "" {
				h.lastText, h.lastTextAt = t, i
			}
			for _, p := range m.Parts {
				c, ok := p.(chat.ToolCall)
				if !ok {
					continue
				}
				ev := toolEvent{at: i, name: c.Name}
				args := decodeArgs(c.Arguments)
				ev.command = h.classify(c, args, i, &openFile)
				if todos, ok := openTodos(c.Name, args); ok {
					h.todos = todos
				}
				open[c.ID] = append(open[c.ID], len(h.events))
				h.events = append(h.events, ev)
				calls = append(calls, c)
			}
		case chat.RoleTool:
			r, ok := m.ToolResult()
			if !ok {
				continue
			}
			stack := open[r.ToolCallID]
			if len(stack) == 0 {
				continue
			}
			at := stack[len(stack)-1]
			ev := &h.events[at]
			open[r.ToolCallID] = stack[:len(stack)-1]
			ev.done = true
			ev.failed = r.FailedFor(calls[at])
			if ev.failed {
				content := secret.Redact(r.Content) // before the lines are cut
				ev.errLine = errorLine(content)
				if c := causeLine(content); c != ev.errLine {
					ev.cause = c
				}
			}
			ev.tests = failingTests(r.Content)
		}
	}
	return h
}

func isMeta(t string) bool {
	for _, p := range metaPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// decodeArgs decodes a tool call's arguments as a JSON object; nil when
// they are not one.
func decodeArgs(raw json.RawMessage) map[string]any {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var obj map[string]any
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	return obj
}

func argString(args map[string]any, key string) string {
	s, _ := args[key].(string)
	return s
}

// shellTools are tools whose "command" argument is a shell command.
var shellTools = map[string]bool{
	"bash": true, "Bash": true, "execute_bash": true, "shell": true,
	"exec_command": true, "run_shell_command": true, "local_shell": true,
	"container.exec": true, "terminal": true, "run": true,
}

// classify records the files a tool call reads and writes and returns its
// shell command (normalized, cut), or "".
func (h *history) classify(c chat.ToolCall, args map[string]any, at int, openFile *string) string {
	name := c.Name
	lname := strings.ToLower(name)
	writes := isWritingTool(lname)
	sub := argString(args, "command")
	// str_replace_editor (OpenHands, SWE-agent function calling).
	if lname == "str_replace_editor" || lname == "edit_file" || strings.HasSuffix(lname, "str_replace_editor") {
		p := argString(args, "path")
		switch sub {
		case "view":
			h.use(p, at, name, false)
		case "":
		default:
			h.use(p, at, name+" "+sub, true)
		}
		return ""
	}
	for _, p := range window.ArgumentPaths(c.Arguments) {
		switch lname {
		case "grep", "glob", "ls", "find_file", "search_dir", "search_file":
			if !hasExt(p) {
				continue
			}
		case "open", "goto":
			*openFile = p
		}
		h.use(p, at, name, writes)
	}
	if (lname == "edit" || lname == "insert") && sub == "" && *openFile != "" && len(window.ArgumentPaths(c.Arguments)) == 0 {
		h.use(*openFile, at, name, true)
	}
	cmd := secret.Redact(commandOf(args)) // before it is cut
	if cmd == "" {
		return ""
	}
	// SWE-agent text actions: the first word is the tool.
	fields := strings.Fields(cmd)
	if len(fields) > 0 {
		switch fields[0] {
		case "open":
			if len(fields) > 1 {
				p := strings.Trim(fields[1], `"'`)
				*openFile = p
				h.use(p, at, "open", false)
			}
			return cutPlain(normalizeSpace(cmd), FactLineRunes)
		case "create":
			if len(fields) > 1 {
				p := strings.Trim(fields[1], `"'`)
				*openFile = p
				h.use(p, at, "create", true)
			}
			return cutPlain(normalizeSpace(cmd), FactLineRunes)
		case "edit", "insert":
			if len(fields) > 1 && *openFile != "" && isLineRange(fields[1]) {
				h.use(*openFile, at, fields[0], true)
			}
			return cutPlain(normalizeSpace(cmd), FactLineRunes)
		}
	}
	if shellTools[name] || shellTools[lname] || name == fields0(cmd) {
		for _, r := range shellFiles(cmd) {
			h.use(r.path, at, r.tool, r.write)
		}
	}
	return cutPlain(normalizeSpace(cmd), FactLineRunes)
}

func fields0(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func isLineRange(s string) bool {
	a, b, _ := strings.Cut(s, ":")
	_, err := strconv.Atoi(a)
	if err != nil {
		return false
	}
	if b == "" {
		return true
	}
	_, err = strconv.Atoi(b)
	return err == nil
}

// isWritingTool reports whether a tool, by its name, writes the files its
// arguments name (Claude Code Edit/Write/MultiEdit/NotebookEdit, Codex
// apply_patch, seed 001's write/edit/create/move tools).
func isWritingTool(lname string) bool {
	for _, w := range []string{"edit", "write", "create", "patch", "replace", "insert", "delete", "move", "rename", "mkdir", "copy"} {
		if strings.Contains(lname, w) {
			return true
		}
	}
	return false
}

// commandOf returns a tool call's shell command: "command" or "cmd" as a
// string, or as an argv array (Codex shell ["bash","-lc","…"]).
func commandOf(args map[string]any) string {
	for _, k := range []string{"command", "cmd"} {
		switch v := args[k].(type) {
		case string:
			if strings.TrimSpace(v) != "" {
				return v
			}
		case []any:
			var parts []string
			for _, x := range v {
				if s, ok := x.(string); ok {
					parts = append(parts, s)
				}
			}
			if n := len(parts); n >= 3 && (parts[n-2] == "-lc" || parts[n-2] == "-c") {
				return parts[n-1]
			}
			if len(parts) > 0 {
				return strings.Join(parts, " ")
			}
		}
	}
	return ""
}

type shellFile struct {
	path  string
	tool  string
	write bool
}

// shellSplit splits a command line into simple commands at ; && || | and
// newlines, then into words, honouring single and double quotes. Heredoc
// bodies are skipped. It is a heuristic, not a shell parser.
func shellSplit(cmd string) [][]string {
	var out [][]string
	var words []string
	var cur strings.Builder
	inWord := false
	flushWord := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	flushCmd := func() {
		flushWord()
		if len(words) > 0 {
			out = append(out, words)
			words = nil
		}
	}
	heredoc := ""
	for i := 0; i < len(cmd); i++ {
		ch := cmd[i]
		switch {
		case ch == '\n':
			flushCmd()
			if heredoc != "" {
				// Skip to the terminator line.
				rest := cmd[i+1:]
				for line := range strings.Lines(rest) {
					i += len(line)
					if strings.TrimSpace(line) == heredoc {
						break
					}
				}
				heredoc = ""
			}
		case ch == '\'' || ch == '"':
			j := strings.IndexByte(cmd[i+1:], ch)
			if j < 0 {
				cur.WriteString(cmd[i+1:])
				i = len(cmd)
			} else {
				cur.WriteString(cmd[i+1 : i+1+j])
				i += j + 1
			}
			inWord = true
		case ch == ';' || ch == '|' || ch == '&' || ch == '(' || ch == ')':
			flushCmd()
		case ch == '<' && i+1 < len(cmd) && cmd[i+1] == '<':
			flushWord()
			j := i + 2
			for j < len(cmd) && (cmd[j] == '-' || cmd[j] == ' ') {
				j++
			}
			k := j
			for k < len(cmd) && cmd[k] != '\n' && cmd[k] != ' ' && cmd[k] != ';' {
				k++
			}
			heredoc = strings.Trim(cmd[j:k], `'"`)
			i = k - 1
		case ch == '<':
			flushWord()
			words = append(words, "<")
		case ch == '>':
			flushWord()
			if i+1 < len(cmd) && cmd[i+1] == '>' {
				i++
			}
			words = append(words, ">")
		case ch == ' ' || ch == '\t' || ch == '\r':
			flushWord()
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	flushCmd()
	return out
}

// shellFiles returns the files a shell command reads (cat, sed -n, nl,
// head, tail, less, more, wc) and writes (redirections, tee, sed -i,
// touch).
func shellFiles(cmd string) []shellFile {
	if len(cmd) > 64<<10 {
		cmd = cmd[:64<<10]
	}
	var out []shellFile
	for _, words := range shellSplit(cmd) {
		// Redirections write their target.
		for j := 0; j+1 < len(words); j++ {
			if words[j] == ">" && looksLikePath(words[j+1]) && !strings.HasPrefix(words[j+1], "/dev/") {
				out = append(out, shellFile{words[j+1], "shell redirect", true})
			}
		}
		// Skip env assignments, sudo, time.
		k := 0
		for k < len(words) && (strings.Contains(words[k], "=") && !strings.HasPrefix(words[k], "-") || words[k] == "sudo" || words[k] == "time" || words[k] == "command") {
			k++
		}
		if k >= len(words) {
			continue
		}
		prog := path.Base(words[k])
		args := words[k+1:]
		if i := slices.Index(args, ">"); i >= 0 {
			args = args[:i]
		}
		switch prog {
		case "cat", "nl", "head", "tail", "less", "more", "wc", "bat":
			for _, a := range operands(args, prog == "head" || prog == "tail") {
				out = append(out, shellFile{a, prog, false})
			}
		case "sed":
			inPlace := false
			script := true
			var files []string
			for j := 0; j < len(args); j++ {
				a := args[j]
				switch {
				case a == "-i" || strings.HasPrefix(a, "-i") || a == "--in-place":
					inPlace = true
				case a == "-e" || a == "-f":
					script = false
					j++
				case strings.HasPrefix(a, "-"):
				case script:
					script = false
				default:
					files = append(files, a)
				}
			}
			for _, f := range files {
				if looksLikePath(f) {
					if inPlace {
						out = append(out, shellFile{f, "sed -i", true})
					} else {
						out = append(out, shellFile{f, "sed", false})
					}
				}
			}
		case "tee", "touch":
			for _, a := range operands(args, false) {
				out = append(out, shellFile{a, prog, true})
			}
		}
	}
	return out
}

// operands returns the non-option arguments that look like file paths;
// numeric skips the value of -n/-c.
func operands(args []string, numeric bool) []string {
	var out []string
	for j := 0; j < len(args); j++ {
		a := args[j]
		if a == "<" {
			j++
			continue
		}
		if strings.HasPrefix(a, "-") {
			if numeric && (a == "-n" || a == "-c") {
				j++
			}
			continue
		}
		if looksLikePath(a) {
			out = append(out, a)
		}
	}
	return out
}

// looksLikePath reports whether a shell word names a file: no wildcards
// or variables, and a slash or an extension.
func looksLikePath(s string) bool {
	if s == "" || len(s) > 1024 || strings.ContainsAny(s, "*?$`{}<>\x00\n") || strings.HasPrefix(s, "/dev/") {
		return false
	}
	return strings.Contains(s, "/") || hasExt(s)
}

// hasExt reports whether a path's base name has an extension starting
// with a letter ("app.go", not "1.2" or "dir").
func hasExt(p string) bool {
	b := path.Base(p)
	i := strings.LastIndexByte(b, '.')
	if i <= 0 || i == len(b)-1 {
		return false
	}
	c := b[i+1]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// cleanPath trims a path as the transcript names it: quotes, a leading
// "./", a trailing ":line". "" for what is not a usable path.
func cleanPath(p string) string {
	p = strings.TrimSpace(strings.Trim(p, "\"'`"))
	if p == "" || len(p) > 4096 || strings.ContainsAny(p, "\n\x00") {
		return ""
	}
	p = strings.TrimPrefix(p, "./")
	if i := strings.LastIndexByte(p, ':'); i > 0 {
		if _, err := strconv.Atoi(p[i+1:]); err == nil {
			p = p[:i]
		}
	}
	if p == "" || p == "." || p == "/" {
		return ""
	}
	return p
}

// openTodos returns the items of a Claude Code TodoWrite call (todos with
// status other than "completed") or a Codex update_plan call (plan steps
// not completed); ok is false for any other call.
func openTodos(name string, args map[string]any) ([]string, bool) {
	var list []any
	var textKey string
	switch name {
	case "TodoWrite":
		list, _ = args["todos"].([]any)
		textKey = "content"
	case "update_plan":
		list, _ = args["plan"].([]any)
		textKey = "step"
	default:
		return nil, false
	}
	out := []string{}
	for _, x := range list {
		item, _ := x.(map[string]any)
		text, _ := item[textKey].(string)
		status, _ := item["status"].(string)
		if strings.TrimSpace(text) == "" || status == "completed" {
			continue
		}
		if status == "" {
			status = "pending"
		}
		out = append(out, "["+status+"] "+normalizeSpace(text))
	}
	return out, true
}

// wrapperLine matches lines of a result that only frame the output.
var wrapperLine = regexp.MustCompile(`^(?:Exit code:? -?\d+|</?returncode>.*|</?output>|<output_head>|Process exited with code -?\d+|Chunk ID: .*|Wall time: .*|Original token count: .*|Output:|\[Command finished with exit code -?\d+\]|</?tool_use_error>|<exit_code>.*|<error>|</error>|\{?"?output"?:?\s*"?)$`)

// errorLine returns the first informative line of a failed result: the
// first non-empty line that is not an exit-code or output wrapper, with
// tags stripped, whitespace collapsed and cut to [FactLineRunes] runes.
// It falls back to the first non-empty line.
func errorLine(content string) string {
	first := ""
	n := 0
	for line := range strings.Lines(content) {
		if n++; n > 50 {
			break
		}
		l := strings.TrimSpace(line)
		if l == "" {
			continue
		}
		if first == "" {
			first = l
		}
		if wrapperLine.MatchString(l) {
			continue
		}
		l = strings.TrimPrefix(l, "<tool_use_error>")
		l = strings.TrimSuffix(l, "</tool_use_error>")
		l = strings.TrimPrefix(l, "<returncode>1</returncode>")
		if l = strings.TrimSpace(l); l != "" {
			return cutPlain(normalizeSpace(l), FactLineRunes)
		}
	}
	return cutPlain(normalizeSpace(first), FactLineRunes)
}

// causeRe matches a line that names an error: what a reader of a failed
// command's output looks for first.
var causeRe = regexp.MustCompile(`(?i)\b(?:[a-z]*error|[a-z]*exception|traceback|fatal|panic|fail(?:ed|ure|ures)?|cannot|could not|not found|undefined|denied|refused|invalid)\b`)

// causeLine returns the last line of a failed result that names an error
// (the last, because tracebacks and compilers end with the cause), cut
// like [errorLine], or "" when no line does. It reads at most the last
// 200 lines.
func causeLine(content string) string {
	lines := strings.Split(content, "\n")
	if len(lines) > 200 {
		lines = lines[len(lines)-200:]
	}
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && causeRe.MatchString(l) && !wrapperLine.MatchString(l) {
			return cutPlain(normalizeSpace(l), FactLineRunes)
		}
	}
	return ""
}

// Test-failure lines of common runners.
var (
	pytestFailedRe = regexp.MustCompile(`(?m)^(?:FAILED|ERROR) (\S+::\S+)`)
	pytestAfterRe  = regexp.MustCompile(`(?m)^(\S+::\S+) (?:FAILED|ERROR)\b`)
	goFailRe       = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)
	jestFailRe     = regexp.MustCompile(`(?m)^\s*✕ (.+?)(?: \(\d+(?:\.\d+)? ?m?s\))?\s*$`)
	unittestRe     = regexp.MustCompile(`(?m)^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)`)
)

// failingTests returns the failing test ids a tool result reports.
func failingTests(content string) []string {
	if !strings.Contains(content, "FAIL") && !strings.Contains(content, "✕") && !strings.Contains(content, "ERROR") {
		return nil
	}
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && utf8.RuneCountInString(s) <= FactLineRunes {
			out = append(out, s)
		}
	}
	for _, m := range pytestFailedRe.FindAllStringSubmatch(content, 200) {
		add(strings.TrimRight(m[1], " -"))
	}
	for _, m := range pytestAfterRe.FindAllStringSubmatch(content, 200) {
		add(m[1])
	}
	for _, m := range goFailRe.FindAllStringSubmatch(content, 200) {
		add(m[1])
	}
	for _, m := range jestFailRe.FindAllStringSubmatch(content, 200) {
		add(m[1])
	}
	for _, m := range unittestRe.FindAllStringSubmatch(content, 200) {
		add(m[1] + " (" + m[2] + ")")
	}
	return out
}

// normalizeSpace collapses every run of white space to one space and
// trims the ends.
func normalizeSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// cutPlain cuts s to at most n runes, without a marker.
func cutPlain(s string, n int) string {
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// sortedSet sorts s and removes duplicates and empty strings.
func sortedSet(s []string) []string {
	s = slices.DeleteFunc(s, func(x string) bool { return x == "" })
	if len(s) == 0 {
		return nil
	}
	slices.Sort(s)
	return slices.Compact(s)
}
