package compact

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/secret"
	"github.com/agentctx/agentctx/tooluse"
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
//   - FilesModified, FilesRead: the files each tool call reads and writes
//     ([tooluse.Classify]: Claude Code Read/Edit/Write/MultiEdit/
//     NotebookEdit, Codex apply_patch headers, str_replace_editor's
//     command, SWE-agent open/create/edit, parsed shell commands), with
//     SWE-agent's open file followed across calls (an edit that names no
//     file writes it); an unknown tool's path-like arguments are read
//     unless its name says it writes. A path written anywhere is not also
//     listed as read.
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
func ExtractFacts(msgs []chat.Message) Facts { return extractFacts(msgs, nil) }

// extractFacts is ExtractFacts with the tool calls read by classify
// (nil: [tooluse.Classify]).
func extractFacts(msgs []chat.Message, classify func(chat.ToolCall) tooluse.Use) Facts {
	s := scanHistory(msgs, classify)
	var f Facts
	for _, u := range s.users {
		f.UserMessages = append(f.UserMessages, tooluse.HeadRunes(normalizeSpace(secret.Redact(u.text)), FactUserRunes))
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
	// classifyFn reads a tool call ([tooluse.Classify] when nil).
	classifyFn func(chat.ToolCall) tooluse.Use
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

// file returns the entry of p, cleaned, added on its first use; nil
// when p is not a usable path.
func (h *history) file(p string) *fileUse {
	p = cleanPath(p)
	if p == "" {
		return nil
	}
	f := h.byPath[p]
	if f == nil {
		f = &fileUse{path: p}
		h.byPath[p] = f
		h.files = append(h.files, f)
	}
	return f
}

// use records that the tool call of message at read or wrote p.
func (h *history) use(p string, at int, tool string, write bool) {
	f := h.file(p)
	if f == nil {
		return
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

// scanHistory walks msgs once, each tool call read by classify (nil:
// [tooluse.Classify]). Tool results are paired with the most recent
// unanswered call of the same id (FORMATS.md: ids repeat), by a
// [tooluse.Pairer].
func scanHistory(msgs []chat.Message, classify func(chat.ToolCall) tooluse.Use) *history {
	if classify == nil {
		classify = tooluse.Classify
	}
	h := &history{byPath: map[string]*fileUse{}, lastTextAt: -1, classifyFn: classify}
	var open tooluse.Pairer[int] // call id -> event index
	openFile := ""               // SWE-agent's currently open file
	var calls []chat.ToolCall    // the call of each event
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
				ev.command = h.classify(c, i, &openFile)
				if todos, ok := tooluse.Todos(c); ok {
					h.todos = openTodos(todos)
				}
				open.Call(c.ID, len(h.events))
				h.events = append(h.events, ev)
				calls = append(calls, c)
			}
		case chat.RoleTool:
			r, ok := m.ToolResult()
			if !ok {
				continue
			}
			at, ok := open.Result(r.ToolCallID)
			if !ok {
				continue
			}
			ev := &h.events[at]
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

// classify records the files a tool call reads and writes
// (h.classifyFn) and returns its command (normalized, redacted,
// cut), or "". openFile is SWE-agent's open file: an open or create sets
// it, and an edit or insert that names no file ([tooluse.Use.OpenFile])
// writes it.
func (h *history) classify(c chat.ToolCall, at int, openFile *string) string {
	u := h.classifyFn(c)
	tool := c.Name
	if u.Action != "" && u.Action != c.Name {
		tool += " " + u.Action
	}
	shell := u.Kind == tooluse.KindShell
	for _, p := range u.Reads {
		h.use(p, at, "", false)
	}
	for _, w := range u.Writes {
		by := tool
		if shell {
			by = "shell " + w.Op.String()
		}
		h.use(w.Path, at, by, true)
	}
	if u.Kind == tooluse.KindOther {
		// An unknown tool's path-like arguments, neither read nor
		// written by its name, are taken as read.
		for _, p := range u.Paths {
			if !slices.Contains(u.Reads, p) && !slices.ContainsFunc(u.Writes, func(w tooluse.Write) bool { return w.Path == p }) {
				h.use(p, at, "", false)
			}
		}
	}
	switch {
	case u.OpenFile && *openFile != "" && (u.Kind == tooluse.KindEdit || u.Kind == tooluse.KindWrite):
		h.use(*openFile, at, tool, true)
	case u.Agent == "swe-agent" && (u.Action == "open" || u.Action == "create") && len(u.Paths) > 0:
		*openFile = u.Paths[0]
	}
	return tooluse.HeadRunes(normalizeSpace(secret.Redact(u.Command)), FactLineRunes)
}

// cleanPath trims a path as a text names it: quotes, a leading "./", a
// trailing ":line". "" for what is not a usable path.
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

// openTodos returns the items of a todo list that are not completed, as
// "[status] text".
func openTodos(todos []tooluse.Todo) []string {
	out := []string{}
	for _, t := range todos {
		if t.Status == tooluse.TodoCompleted {
			continue
		}
		out = append(out, "["+t.Status+"] "+normalizeSpace(t.Content))
	}
	return out
}

// errorLine returns the first informative line of a failed result
// ([tooluse.ErrorLine]), cut to [FactLineRunes] runes; when every line
// is a wrapper, the first non-blank one ("Exit code 1").
func errorLine(content string) string {
	l := tooluse.ErrorLine(content)
	if l == "" {
		for line := range strings.Lines(content) {
			if l = normalizeSpace(line); l != "" {
				break
			}
		}
	}
	return tooluse.HeadRunes(l, FactLineRunes)
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
		if l != "" && causeRe.MatchString(l) && tooluse.ErrorLine(l) != "" {
			return tooluse.HeadRunes(normalizeSpace(l), FactLineRunes)
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

// sortedSet sorts s and removes duplicates and empty strings.
func sortedSet(s []string) []string {
	s = slices.DeleteFunc(s, func(x string) bool { return x == "" })
	if len(s) == 0 {
		return nil
	}
	slices.Sort(s)
	return slices.Compact(s)
}
