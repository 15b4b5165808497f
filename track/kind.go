package track

import "maps"

// Kind is what a tool does, as far as the tracker cares. The zero value
// is [KindOther].
type Kind int

// The kinds of tool.
const (
	// KindOther is a tool whose calls are tracked only when they fail.
	KindOther Kind = iota
	// KindRead reads one file (path in file_path, path, notebook_path or
	// filename, or the first operand of a SWE-agent text command).
	KindRead
	// KindWrite writes or edits files (path arguments as for KindRead,
	// or the file headers of a Codex apply_patch input).
	KindWrite
	// KindSearch searches (query in pattern, query, search_term,
	// file_name, or the rest of a SWE-agent text command).
	KindSearch
	// KindShell runs a shell command (command or cmd, a string or an
	// argv array); the command itself is classified.
	KindShell
	// KindEditor is a multi-command file editor (str_replace_editor of
	// SWE-agent and OpenHands): "view" reads, "create" writes,
	// "str_replace", "insert" and "undo_edit" edit.
	KindEditor
)

// String returns the kind's lower-case name ("read", "shell", …).
func (k Kind) String() string {
	switch k {
	case KindRead:
		return "read"
	case KindWrite:
		return "write"
	case KindSearch:
		return "search"
	case KindShell:
		return "shell"
	case KindEditor:
		return "editor"
	default:
		return "other"
	}
}

var defaultTools = map[string]Kind{
	// Claude Code.
	"Read":         KindRead,
	"Bash":         KindShell,
	"Grep":         KindSearch,
	"Glob":         KindSearch,
	"Edit":         KindWrite,
	"Write":        KindWrite,
	"MultiEdit":    KindWrite,
	"NotebookEdit": KindWrite,
	"TodoWrite":    KindOther,
	"WebSearch":    KindSearch,
	// Codex.
	"exec_command": KindShell,
	"shell":        KindShell,
	"apply_patch":  KindWrite,
	// SWE-agent and mini-swe-agent.
	"bash":               KindShell,
	"open":               KindRead,
	"find_file":          KindSearch,
	"search_dir":         KindSearch,
	"search_file":        KindSearch,
	"str_replace_editor": KindEditor,
	"create":             KindWrite,
	"edit":               KindWrite,
	"insert":             KindWrite,
	// OpenHands (str_replace_editor above).
	"execute_bash": KindShell,
}

// DefaultTools returns a new copy of the default tool table: the tool
// names of the trajectories in ../shared/data — Claude Code (Read, Bash,
// Grep, Glob, Edit, Write, MultiEdit, NotebookEdit, TodoWrite,
// WebSearch), Codex (exec_command, shell, apply_patch), SWE-agent and
// mini-swe-agent (bash, open, find_file, search_dir, search_file,
// str_replace_editor, create, edit, insert), OpenHands (execute_bash,
// str_replace_editor). Callers may add to the copy and pass it in
// [Options.Tools].
func DefaultTools() map[string]Kind {
	return maps.Clone(defaultTools)
}
