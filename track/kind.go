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
	// file_name, search, regex or path, or the rest of a SWE-agent text
	// command); listing a folder (list_files) is a search of its path.
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
	// Seed 000 (read_file path, search query, run_command command) and
	// agentctx's reference agent (write_file and edit_file path,
	// list_files path; todo_write and note_finding change no file).
	"read_file":    KindRead,
	"search":       KindSearch,
	"run_command":  KindShell,
	"write_file":   KindWrite,
	"edit_file":    KindWrite,
	"list_files":   KindSearch,
	"todo_write":   KindOther,
	"note_finding": KindOther,
}

// DefaultTools returns a new copy of the default tool table: the tool
// names of the trajectories in ../shared/data — Claude Code (Read, Bash,
// Grep, Glob, Edit, Write, MultiEdit, NotebookEdit, TodoWrite,
// WebSearch), Codex (exec_command, shell, apply_patch), SWE-agent and
// mini-swe-agent (bash, open, find_file, search_dir, search_file,
// str_replace_editor, create, edit, insert), OpenHands (execute_bash,
// str_replace_editor), seed 000 (read_file, search, run_command) and
// agentctx's reference agent (write_file, edit_file, list_files,
// todo_write, note_finding). Callers may add to the copy and pass it in
// [Options.Tools].
func DefaultTools() map[string]Kind {
	return maps.Clone(defaultTools)
}
