package tooluse

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentctx/agentctx/chat"
)

// Classify reads one tool call: its [Kind], the files it reads and
// writes, its searches and its command. It never fails: a call whose
// arguments do not decode is classified by its name alone.
//
// The name is looked up, in order:
//
//  1. in the agents' tables ([Agents]), exactly; a name several agents
//     share reports the first of them in [Agents] order;
//  2. in the same tables lower-cased without '_' and '-' ("read",
//     "todo_write", "web_search", "notebookread");
//  3. in the aliases other agents use (Agent "alias"): Anthropic's
//     str_replace_based_edit_tool, Gemini CLI's write_todos and
//     run_shell_command, and the names compact's limiter knew (rg, find,
//     cat, view, view_file, grep_search, codebase_search, file_search,
//     search_project_code, read_project_file, container.exec, run, …);
//  4. as a SWE-agent text action whose command starts with the tool's
//     name ({"command": "python reproduce.py"} named "python", as
//     transcript reads SWE-agent's text actions): a shell command. This
//     is tried first, before the tables, for every name but SWE-agent's
//     own tools and str_replace_editor, whose text actions their tables
//     read: "cat a.py" named "cat" and "grep -rn x ." named "grep" are
//     shell commands, not the alias cat or Claude Code's Grep;
//  5. otherwise [KindOther], with the paths of its path-like arguments
//     (file_path, path, notebook_path, filePath, filename, file,
//     target_file, target, source, destination, absolute_path,
//     relative_path, paths, files, and apply_patch headers in "input"):
//     writes when the name says so (it contains edit, write, create,
//     patch, replace, insert, delete, move, rename, mkdir or copy, as
//     compact's facts decided), reads when it contains read, view, open
//     or cat, else only in [Use.Paths].
//
// # Shell commands
//
// A shell command is parsed with mvdan.cc/sh/v3/syntax (bash) and every
// simple command in it is read: inside lists, pipelines, if, while,
// for and case bodies, subshells, { …; } blocks, functions, $(…),
// backticks and process substitutions, and the scripts of bash -c and
// sh -c. Words are resolved as the shell would resolve them (quotes and
// escapes); a word holding an expansion ($x, $(…), a glob, a brace list)
// names no file. Redirections write (>, >>, &>, >|) or read (<, <>) their
// target; descriptors (2>&1) and /dev/* are ignored; here-documents are
// not files. The commands read, and their flags, are listed in shellcmd.go. "cd DIR"
// with a literal DIR changes the directory that later relative paths of
// the same command are joined to ("cd src && grep -rn foo ." searches
// src); a cd inside a subshell, $(…) or a pipeline stage ends with it, and
// a cd whose target is not literal ("cd $D", "cd -") makes later paths
// stay as written. Commands longer than [MaxShellBytes] are cut there (at
// the last new line before it) before parsing; a command the parser
// rejects is split by a simple tokenizer instead (a documented heuristic in shellsplit.go), which
// never fails.
//
// Classify is safe for concurrent use.
func Classify(call chat.ToolCall) Use {
	classified.Add(1)
	return classify(call)
}

// classify is Classify without the count.
func classify(call chat.ToolCall) Use {
	a := decodeArgs(call.Arguments)
	var b builder
	t, agent := lookup(call.Name)
	switch {
	case textShell(call.Name, a) && !textTools[call.Name]:
		// A SWE-agent text action running a command that a table also
		// names as a tool ("cat a.py", "grep -rn x ."): the command.
		// The command as written, as for any other shell tool.
		b.u.Kind, b.u.Agent = KindShell, "swe-agent"
		cmd, _ := a.get("command").(string)
		b.shell(cmd)
	case t.kind != kindUnknown:
		b.u.Kind, b.u.Agent = t.kind, agent
		if t.read != nil {
			t.read(&b, a)
		}
	default:
		b.other(call.Name, a)
	}
	return b.done()
}

// textTools are the tools whose readers parse SWE-agent text actions
// themselves ("open a.py 3"); any other call whose command starts with
// its own name is a shell command (see textShell).
var textTools = func() map[string]bool {
	m := map[string]bool{"str_replace_editor": true, "str_replace_based_edit_tool": true}
	for _, t := range tables {
		if t.agent == "swe-agent" {
			for name := range t.tools {
				m[name] = true
			}
		}
	}
	return m
}()

// textShell reports whether a call is a SWE-agent text action that runs
// a shell command: its command's first word is the tool's name.
func textShell(name string, a args) bool {
	if name == "" || strings.ContainsAny(name, " \t\n") || todoShapeOf(name) != shapeNone {
		return false
	}
	f := firstWord(a.str("command"))
	return f == name
}

func firstWord(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, " \t\n"); i >= 0 {
		s = s[:i]
	}
	return s
}

// writingWords and readingWords classify an unknown tool by its name.
var (
	writingWords = []string{"edit", "write", "create", "patch", "replace", "insert", "delete", "move", "rename", "mkdir", "copy"}
	readingWords = []string{"read", "view", "open", "cat"}
)

func (b *builder) other(name string, a args) {
	b.u.Kind = KindOther
	ln := strings.ToLower(name)
	ps := a.argPaths()
	switch {
	case containsAny(ln, writingWords):
		for _, p := range ps {
			b.write(p, OpWrite)
		}
	case containsAny(ln, readingWords):
		for _, p := range ps {
			b.read(p)
		}
	default:
		b.paths = append(b.paths, ps...)
	}
	if q := a.str("query", "pattern", "search_term", "regex"); q != "" {
		b.u.Query = q
	}
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// builder accumulates a Use.
type builder struct {
	u     Use
	paths []string // extra paths of unknown tools
}

func (b *builder) read(p string) {
	if p = cleanFile(p); p != "" && !slices.Contains(b.u.Reads, p) {
		b.u.Reads = append(b.u.Reads, p)
		b.paths = append(b.paths, p)
	}
}

func (b *builder) write(p string, op Op) {
	p = cleanFile(p)
	if p == "" {
		return
	}
	for i := range b.u.Writes {
		if b.u.Writes[i].Path == p {
			b.u.Writes[i].Op = op // the last operation wins: rm after touch deletes
			return
		}
	}
	b.u.Writes = append(b.u.Writes, Write{Path: p, Op: op})
	b.paths = append(b.paths, p)
}

func (b *builder) search(q string, dirs []string, cmd string) {
	s := Search{Query: q, Command: cmd}
	for _, d := range dirs {
		if d = cleanDir(d); d != "" && !slices.Contains(s.Paths, d) {
			s.Paths = append(s.Paths, d)
		}
	}
	b.u.Searches = append(b.u.Searches, s)
	if b.u.Query == "" {
		b.u.Query = q
	}
}

func (b *builder) done() Use {
	for _, p := range b.paths {
		if p != "" && !slices.Contains(b.u.Paths, p) {
			b.u.Paths = append(b.u.Paths, p)
		}
	}
	return b.u
}

// KindOfName returns the kind of a tool by its name alone, as [Classify]
// gives it for a call without arguments: for tool definitions, and for
// readers that know a result's tool but not its call (compact's limiter).
// A multi-command tool has the kind of its default command
// (str_replace_editor: [KindEdit]). Safe for concurrent use.
func KindOfName(name string) Kind {
	if k, ok := kindOfName.Load(name); ok {
		return k.(Kind)
	}
	k := classify(chat.ToolCall{Name: name}).Kind
	if kindNames.Add(1) <= maxKindNames { // a few dozen names in practice
		kindOfName.Store(name, k)
	}
	return k
}

// kindOfName remembers KindOfName's answers, at most maxKindNames of
// them (kindNames counts them).
var (
	kindOfName sync.Map
	kindNames  atomic.Int64
)

const maxKindNames = 4096

// classified counts the calls of Classify.
var classified atomic.Int64

// Classified returns how many tool calls [Classify] has read since the
// process started ([KindOfName]'s readings of a name alone, once per name,
// are not counted). A benchmark reads it
// before and after a replay to hold the Engine to one reading per tool
// call ([Recent]). Safe for concurrent use.
func Classified() int64 { return classified.Load() }
