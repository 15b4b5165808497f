package reminder

import (
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/tooluse"
)

// Kinds of the built-in reminders.
const (
	// KindTodo reminds of the todo list: empty (once per session) or
	// changed (once per distinct state).
	KindTodo = "todo"
	// KindChangedFiles names files that changed on disk after the agent
	// read them.
	KindChangedFiles = "changed_files"
	// KindSecurity warns that a tool result looks like it holds a secret.
	KindSecurity = "security"
	// KindContextPressure says the context window is nearing the
	// compaction threshold.
	KindContextPressure = "context_pressure"
)

// Priorities of the built-in reminders: higher is more urgent and is
// kept first when the per-request cap bites.
const (
	PrioritySecurity        = 40
	PriorityChangedFiles    = 30
	PriorityContextPressure = 20
	PriorityTodo            = 10
)

// Reminder is one system reminder: a short text the engine prepends to
// the last user message of the next request inside <system-reminder>
// tags (seed 004).
type Reminder struct {
	// Key identifies the reminder for de-duplication: a reminder whose key
	// was already sent in the session is not sent again.
	Key string `json:"key"`
	// Kind is the generator's kind (Kind* or a custom one).
	Kind string `json:"kind"`
	// Priority orders reminders, highest first.
	Priority int `json:"priority"`
	// Text is the reminder's content, without the tags.
	Text string `json:"text"`
}

// Todo is one item of the agent's todo list, as Claude Code's TodoWrite,
// Codex's update_plan and OpenHands' task_tracker record it: an alias of
// [tooluse.Todo], which [TodosFromCall] reads.
type Todo = tooluse.Todo

// State is what generators look at before a request.
type State struct {
	// Todos is the current todo list; TodosKnown reports whether the
	// agent has a todo tool at all (no empty-list reminder otherwise).
	Todos      []Todo
	TodosKnown bool
	// ChangedFiles are the files read earlier that changed on disk since
	// (track.Tracker.Stale), sorted.
	ChangedFiles []string
	// Results are the tool results added since the previous request.
	Results []chat.ToolResult
	// Ratio is the window's usage ratio (size over budget) now, and
	// Threshold the ratio at which compaction runs (0: unknown).
	Ratio     float64
	Threshold float64
	// Tokens and Budget are the window's size and budget, in tokens.
	Tokens, Budget int
	// Compactions is the number of compactions the session has had so
	// far (0 before the first), so the context-pressure reminder fires
	// again after a compaction lowered the ratio and it rose again.
	Compactions int
}

// Generator makes reminders from the state. It must be deterministic and
// cheap; the [Manager] de-duplicates and caps what it returns.
type Generator interface {
	Generate(s State) []Reminder
}

// GeneratorFunc adapts a function to [Generator].
type GeneratorFunc func(s State) []Reminder

// Generate calls f(s).
func (f GeneratorFunc) Generate(s State) []Reminder { return f(s) }
