package reminder

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/secret"
)

// Todo statuses after [TodosFromCall] normalized them. Other values
// ("cancelled", a tool's own) are kept lower-cased as given.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// todoTool is the shape of a todo tool's arguments.
type todoTool int

const (
	todoNone        todoTool = iota
	todoWrite                // {"todos":[{content|description, status, activeForm, priority, id}]}
	todoUpdatePlan           // {"plan":[{step, status}], "explanation"}
	todoTaskTracker          // {"command":"plan", "task_list":[{title, notes, status, id}]}
)

// todoToolOf maps a tool name to its argument shape. Names are compared
// lower-cased without '_' and '-', so TodoWrite, todo_write and todowrite
// are one tool.
func todoToolOf(name string) todoTool {
	n := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(strings.TrimSpace(name)))
	switch n {
	case "todowrite", "writetodos", "todoupdate", "updatetodos":
		return todoWrite
	case "updateplan":
		return todoUpdatePlan
	case "tasktracker":
		return todoTaskTracker
	}
	return todoNone
}

// todoItem is one element of any of the shapes; fields a shape does not
// use stay empty.
type todoItem struct {
	ID          json.RawMessage `json:"id"`
	Content     *string         `json:"content"`
	Description *string         `json:"description"`
	Title       *string         `json:"title"`
	Step        *string         `json:"step"`
	Status      *string         `json:"status"`
	Priority    *string         `json:"priority"`
}

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
// It returns false for other tools and for malformed arguments: not a JSON
// object, the list missing or not an array, an item that is not an object,
// a field of the wrong type, or an item without text. An empty list is
// well-formed: (empty non-nil slice, true). It never panics and is safe
// for concurrent use.
func TodosFromCall(call chat.ToolCall) ([]Todo, bool) {
	kind := todoToolOf(call.Name)
	if kind == todoNone {
		return nil, false
	}
	args := bytes.TrimSpace(call.Arguments)
	if len(args) > 0 && args[0] == '"' {
		var inner string
		if json.Unmarshal(args, &inner) != nil {
			return nil, false
		}
		args = bytes.TrimSpace([]byte(inner))
	}
	if len(args) == 0 || args[0] != '{' {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil {
		return nil, false
	}
	var list json.RawMessage
	switch kind {
	case todoWrite:
		list = obj["todos"]
	case todoUpdatePlan:
		list = obj["plan"]
	case todoTaskTracker:
		var cmd string
		if c, ok := obj["command"]; ok && json.Unmarshal(c, &cmd) != nil {
			return nil, false
		}
		if cmd != "" && cmd != "plan" {
			return nil, false
		}
		list = obj["task_list"]
	}
	var items []json.RawMessage
	list = bytes.TrimSpace(list)
	if len(list) == 0 || list[0] != '[' || json.Unmarshal(list, &items) != nil {
		return nil, false
	}
	out := make([]Todo, 0, len(items))
	for _, raw := range items {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || raw[0] != '{' {
			return nil, false
		}
		var it todoItem
		if json.Unmarshal(raw, &it) != nil {
			return nil, false
		}
		t, ok := it.todo(kind)
		if !ok {
			return nil, false
		}
		t.Content = secret.Redact(t.Content)
		out = append(out, t)
	}
	return out, true
}

// todo converts an item of a shape to a Todo.
func (it todoItem) todo(kind todoTool) (Todo, bool) {
	var text *string
	switch kind {
	case todoWrite:
		text = first(it.Content, it.Description, it.Title)
	case todoUpdatePlan:
		text = first(it.Step, it.Content)
	case todoTaskTracker:
		text = first(it.Title, it.Content)
	}
	if text == nil || strings.TrimSpace(*text) == "" {
		return Todo{}, false
	}
	id, ok := todoID(it.ID)
	if !ok {
		return Todo{}, false
	}
	t := Todo{ID: id, Content: strings.TrimSpace(*text), Status: normalizeStatus(deref(it.Status))}
	t.Priority = strings.ToLower(strings.TrimSpace(deref(it.Priority)))
	return t, true
}

// todoID decodes an id given as a string or a number; absent or null is "".
func todoID(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return "", false
	}
	if i, err := n.Int64(); err == nil {
		return strconv.FormatInt(i, 10), true
	}
	return n.String(), true
}

// normalizeStatus maps the tools' status words to the three statuses.
func normalizeStatus(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch strings.NewReplacer("-", "_", " ", "_").Replace(s) {
	case "", "pending", "todo", "to_do", "not_started", "open":
		return TodoPending
	case "in_progress", "inprogress", "active", "doing", "started":
		return TodoInProgress
	case "completed", "complete", "done", "finished":
		return TodoCompleted
	}
	return s
}

func first(ss ...*string) *string {
	for _, s := range ss {
		if s != nil {
			return s
		}
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
