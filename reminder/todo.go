package reminder

import (
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/secret"
	"github.com/agentctx/agentctx/tooluse"
)

// Todo statuses after [TodosFromCall] normalized them. Other values
// ("cancelled", a tool's own) are kept lower-cased as given.
const (
	TodoPending    = tooluse.TodoPending
	TodoInProgress = tooluse.TodoInProgress
	TodoCompleted  = tooluse.TodoCompleted
)

// TodosFromCall returns the todo list a todo tool call sets and whether
// call is such a call with well-formed arguments. It knows:
//
//   - Claude Code and Kode TodoWrite, OpenHands-style todo_write and
//     Gemini CLI write_todos: {"todos":[{"content" (or "description"),
//     "status", "activeForm", "priority", "id"}]}; activeForm is ignored;
//   - Codex update_plan: {"plan":[{"step","status"}],"explanation"}; the
//     explanation is not part of the list;
//   - OpenHands task_tracker with "command":"plan": {"task_list":[{"id",
//     "title","notes","status"}]} ("view" does not change the list:
//     false).
//
// Tool names are matched case-insensitively without '_' and '-'.
// Statuses are normalized to [TodoPending] ("todo", "not_started", "open",
// or missing), [TodoInProgress] ("in-progress", "active", "doing") and
// [TodoCompleted] ("done", "complete"); priorities are lower-cased. Ids may
// be strings or numbers. Each item's text is redacted ([secret.Redact]):
// the list is repeated in reminders, the rehydration block and the
// session's state. Arguments that are a JSON string holding the
// object (double-encoded) are decoded once more.
//
// It is [tooluse.Todos] with each item's text redacted.
//
// It returns false for other tools and for malformed arguments: not a JSON
// object, the list missing or not an array, an item that is not an object,
// a field of the wrong type, or an item without text. An empty list is
// well-formed: (empty non-nil slice, true). It never panics and is safe
// for concurrent use.
func TodosFromCall(call chat.ToolCall) ([]Todo, bool) {
	todos, ok := tooluse.Todos(call)
	if !ok {
		return nil, false
	}
	for i := range todos {
		todos[i].Content = secret.Redact(todos[i].Content)
	}
	return todos, true
}
