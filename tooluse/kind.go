package tooluse

// Kind is what a tool call does, as one word. The zero value is
// [KindOther].
type Kind int

// The kinds of tool call.
const (
	// KindOther is a call none of the other kinds describes (Claude Code
	// ExitPlanMode, SWE-agent submit, OpenHands finish, unknown tools).
	KindOther Kind = iota
	// KindRead reads files: Claude Code Read, SWE-agent open, a
	// str_replace_editor view, the seeds' read_file.
	KindRead
	// KindWrite creates or overwrites whole files: Claude Code Write,
	// SWE-agent create, a str_replace_editor create, the seeds' write_file.
	KindWrite
	// KindEdit changes files in place: Claude Code Edit and MultiEdit,
	// Codex apply_patch, SWE-agent edit, a str_replace_editor str_replace,
	// insert or undo_edit.
	KindEdit
	// KindSearch searches file contents or file names for a query:
	// Claude Code Grep and Glob, SWE-agent search_dir, search_file and
	// find_file, the seeds' search.
	KindSearch
	// KindList lists a directory: Claude Code LS, the reference agent's
	// list_files.
	KindList
	// KindShell runs a command: Claude Code Bash, Codex shell,
	// exec_command and local_shell, OpenHands execute_bash (and
	// execute_ipython_cell, whose command is Python), SWE-agent and
	// mini-swe-agent bash, the seeds' run_command. Shell commands are
	// parsed: see [Use.Reads].
	KindShell
	// KindTodo sets or shows the agent's todo list or plan: Claude Code
	// TodoWrite, Codex update_plan, OpenHands task_tracker, the reference
	// agent's todo_write. See [Todos].
	KindTodo
	// KindWeb fetches or searches the web: Claude Code WebFetch and
	// WebSearch (its query in [Use.Query]), OpenHands browser and
	// web_read.
	KindWeb
	// KindNote records the agent's own thoughts or findings and touches
	// nothing: OpenHands think, the reference agent's note_finding.
	KindNote
	// KindTask hands work to a sub-agent: Claude Code Task (Agent).
	KindTask
)

// String returns the kind's lower-case name ("read", "shell", …).
func (k Kind) String() string {
	switch k {
	case KindRead:
		return "read"
	case KindWrite:
		return "write"
	case KindEdit:
		return "edit"
	case KindSearch:
		return "search"
	case KindList:
		return "list"
	case KindShell:
		return "shell"
	case KindTodo:
		return "todo"
	case KindWeb:
		return "web"
	case KindNote:
		return "note"
	case KindTask:
		return "task"
	}
	return "other"
}

// Op is what a call does to a file it writes. The zero value is
// [OpWrite].
type Op int

// The operations on a written file.
const (
	// OpWrite creates or overwrites the file (Write, a ">" redirection,
	// tee, a cp or mv destination).
	OpWrite Op = iota
	// OpEdit changes the file in place (Edit, apply_patch's Update File,
	// sed -i, a ">>" redirection).
	OpEdit
	// OpCreate creates the file or directory (apply_patch's Add File,
	// touch, mkdir, a str_replace_editor create).
	OpCreate
	// OpDelete removes it (rm, apply_patch's Delete File, a mv source).
	OpDelete
)

// String returns "write", "edit", "create" or "delete".
func (o Op) String() string {
	switch o {
	case OpEdit:
		return "edit"
	case OpCreate:
		return "create"
	case OpDelete:
		return "delete"
	}
	return "write"
}

// Write is one file a call writes and how.
type Write struct {
	Path string
	Op   Op
}

// Search is one search a call makes: the query (a regular expression, a
// glob or a file name, as the tool takes it; "" for a find without a
// name test) and the files or directories searched (never ""; none when
// the call does not name them: a search tool's default directory, or the
// files find -exec hands to grep). Command is the simple shell command that searched, as written
// ("" for a search tool).
type Search struct {
	Query   string
	Paths   []string
	Command string
}

// Use is what [Classify] reads from one tool call. Every path is
// non-empty, cleaned (path.Clean; "./a" is "a") and listed once per list.
// Relative paths are relative to the agent's working directory, except
// where a shell command changed directory first (see [Classify]).
type Use struct {
	// Kind is what the call does.
	Kind Kind
	// Agent names the table that matched the tool's name: "claude-code",
	// "codex", "openhands", "swe-agent", "mini-swe-agent", "seed",
	// "reference", "alias" (a common alias, see [Classify]) or "" for an
	// unknown tool. See [Agents].
	Agent string
	// Action is the sub-command of a multi-command tool: str_replace_editor's
	// "view", "create", "str_replace", "insert" or "undo_edit";
	// task_tracker's "plan" or "view"; a SWE-agent text action's command
	// name ("open", "edit", …). "" otherwise.
	Action string
	// Paths lists every file the call reads or writes, in the order the
	// call names them: the union of Reads and Writes' paths, and for an
	// unknown tool the values of its path-like arguments.
	Paths []string
	// Reads lists the files the call reads.
	Reads []string
	// Writes lists the files the call writes, edits, creates or deletes.
	Writes []Write
	// Searches lists the searches the call makes; a shell command may
	// make several.
	Searches []Search
	// Command is the command the call runs: a shell command (an argv
	// array joined with spaces), Python code for execute_ipython_cell, or
	// a SWE-agent text action as written. "" for other tools.
	Command string
	// Query is the first non-empty query of Searches, or a web search's
	// query.
	Query string
	// OpenFile reports that the call acts on the file SWE-agent has open
	// (edit, insert, goto, scroll_up, scroll_down) without naming it; a
	// reader following the history knows it from the last open or create.
	OpenFile bool
}
