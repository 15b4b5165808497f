package tooluse

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentctx/agentctx/chat"
)

// Todo is one item of an agent's todo list or plan. Its fields and JSON
// names are reminder.Todo's, so that reminder can alias it. Status is
// one of [TodoPending], [TodoInProgress], [TodoCompleted], or another
// tool's own word lower-cased ("cancelled"); ID and Priority may be "".
type Todo struct {
	ID       string `json:"id,omitempty"`
	Content  string `json:"content"`
	Status   string `json:"status"`
	Priority string `json:"priority,omitempty"`
}

// Todo statuses after [Todos] normalized them.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// todoShape is the shape of a todo tool's arguments.
type todoShape int

const (
	shapeNone  todoShape = iota
	shapeTodos           // {"todos":[{content|description|title, status, activeForm, priority, id}]}
	shapePlan            // {"plan":[{step|content, status}], "explanation"}
	shapeTasks           // {"command":"plan", "task_list":[{id, title|content, notes, status}]}
)

// todoShapeOf maps a tool name, folded like [Classify]'s second lookup,
// to its argument shape.
func todoShapeOf(name string) todoShape {
	switch fold(name) {
	case "todowrite", "writetodos", "todoupdate", "updatetodos":
		return shapeTodos
	case "updateplan":
		return shapePlan
	case "tasktracker":
		return shapeTasks
	}
	return shapeNone
}

// Todos returns the todo list a call sets, and whether the call is a
// todo tool call with well-formed arguments that sets one. It reads:
//
//   - Claude Code TodoWrite, the reference agent's todo_write and Gemini
//     CLI's write_todos: {"todos":[{"content" (or "description", "title"),
//     "status", "activeForm", "priority", "id"}]}; activeForm is ignored;
//   - Codex update_plan: {"plan":[{"step","status"}],"explanation"}; the
//     explanation is not part of the list;
//   - OpenHands task_tracker with "command":"plan" (or none):
//     {"task_list":[{"id","title","notes","status"}]}; "view" sets
//     nothing (false).
//
// Names are matched lower-cased without '_' and '-'. Statuses are
// normalized to [TodoPending] ("todo", "not_started", "open", or
// missing), [TodoInProgress] ("in-progress", "active", "doing",
// "started") and [TodoCompleted] ("done", "complete", "finished"); other
// words are kept lower-cased. Priorities are lower-cased, content
// trimmed; ids may be strings or numbers. Arguments that are a JSON
// string holding the object are decoded once more.
//
// It returns (nil, false) for other tools and for malformed arguments:
// not a JSON object, the list missing or not an array, an item that is
// not an object, a field of the wrong type, or an item without text. An
// empty list is well-formed: (empty non-nil slice, true). This is
// reminder.TodosFromCall's contract. Safe for concurrent use.
func Todos(call chat.ToolCall) ([]Todo, bool) {
	shape := todoShapeOf(call.Name)
	if shape == shapeNone {
		return nil, false
	}
	raw := bytes.TrimSpace(call.Arguments)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		raw = bytes.TrimSpace([]byte(s))
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil, false
	}
	key := "todos"
	switch shape {
	case shapePlan:
		key = "plan"
	case shapeTasks:
		key = "task_list"
		if c, ok := obj["command"]; ok {
			var cmd string
			if json.Unmarshal(c, &cmd) != nil || cmd != "" && cmd != "plan" {
				return nil, false
			}
		}
	}
	list := bytes.TrimSpace(obj[key])
	var items []json.RawMessage
	if len(list) == 0 || list[0] != '[' || json.Unmarshal(list, &items) != nil {
		return nil, false
	}
	out := make([]Todo, 0, len(items))
	for _, it := range items {
		t, ok := todoOf(shape, bytes.TrimSpace(it))
		if !ok {
			return nil, false
		}
		out = append(out, t)
	}
	return out, true
}

// todoFields are the fields any shape's item may have; pointers tell a
// missing field from an empty one.
type todoFields struct {
	ID          json.RawMessage `json:"id"`
	Content     *string         `json:"content"`
	Description *string         `json:"description"`
	Title       *string         `json:"title"`
	Step        *string         `json:"step"`
	Status      *string         `json:"status"`
	Priority    *string         `json:"priority"`
}

func todoOf(shape todoShape, raw []byte) (Todo, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return Todo{}, false
	}
	var f todoFields
	if json.Unmarshal(raw, &f) != nil {
		return Todo{}, false
	}
	var text *string
	switch shape {
	case shapeTodos:
		text = firstSet(f.Content, f.Description, f.Title)
	case shapePlan:
		text = firstSet(f.Step, f.Content)
	case shapeTasks:
		text = firstSet(f.Title, f.Content)
	}
	if text == nil || strings.TrimSpace(*text) == "" {
		return Todo{}, false
	}
	id, ok := todoID(f.ID)
	if !ok {
		return Todo{}, false
	}
	return Todo{
		ID:       id,
		Content:  strings.TrimSpace(*text),
		Status:   todoStatus(deref(f.Status)),
		Priority: strings.ToLower(strings.TrimSpace(deref(f.Priority))),
	}, true
}

// todoID decodes an id given as a string or a number; absent or null is
// "".
func todoID(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err == nil
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

var statusSep = strings.NewReplacer("-", "_", " ", "_")

// todoStatus normalizes a tool's status word.
func todoStatus(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch statusSep.Replace(s) {
	case "", "pending", "todo", "to_do", "not_started", "open":
		return TodoPending
	case "in_progress", "inprogress", "active", "doing", "started":
		return TodoInProgress
	case "completed", "complete", "done", "finished":
		return TodoCompleted
	}
	return s
}

func firstSet(ss ...*string) *string {
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
