package tooluse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTodos holds reminder.TodosFromCall's cases: Todos must keep its
// behaviour so that reminder can call it.
func TestTodos(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tool, args string
		want             []Todo
		ok               bool
	}{
		{
			"claude code TodoWrite", "TodoWrite",
			`{"todos":[{"content":"Run the tests","status":"completed","activeForm":"Running"},{"content":"Fix it","status":"in_progress","activeForm":"Fixing"},{"content":"Docs","status":"pending","activeForm":"Writing"}]}`,
			[]Todo{{Content: "Run the tests", Status: TodoCompleted}, {Content: "Fix it", Status: TodoInProgress}, {Content: "Docs", Status: TodoPending}}, true,
		},
		{
			"ids and priorities", "TodoWrite",
			`{"todos":[{"content":"实现新 tool","status":"in_progress","priority":"High","id":"task-1"},{"content":"b","status":"pending","priority":"low","id":2}]}`,
			[]Todo{{ID: "task-1", Content: "实现新 tool", Status: TodoInProgress, Priority: "high"}, {ID: "2", Content: "b", Status: TodoPending, Priority: "low"}}, true,
		},
		{"todo_write", "todo_write", `{"todos":[{"content":"x","status":"done"}]}`, []Todo{{Content: "x", Status: TodoCompleted}}, true},
		{"gemini write_todos", "write_todos", `{"todos":[{"description":"y","status":"cancelled"}]}`, []Todo{{Content: "y", Status: "cancelled"}}, true},
		{"empty list clears", "TodoWrite", `{"todos":[]}`, []Todo{}, true},
		{
			"codex update_plan", "update_plan",
			`{"explanation":"first","plan":[{"step":"Read","status":"completed"},{"step":"Fuzz","status":"in_progress"},{"step":"Test","status":"pending"}]}`,
			[]Todo{{Content: "Read", Status: TodoCompleted}, {Content: "Fuzz", Status: TodoInProgress}, {Content: "Test", Status: TodoPending}}, true,
		},
		{"double encoded", "update_plan", `"{\"plan\":[{\"step\":\"s\",\"status\":\"in-progress\"}]}"`, []Todo{{Content: "s", Status: TodoInProgress}}, true},
		{
			"task_tracker plan", "task_tracker",
			`{"command":"plan","task_list":[{"id":"1","title":"Explore","notes":"n","status":"done"},{"id":"2","title":"Fix","status":"todo"},{"title":"Verify","status":"in_progress"}]}`,
			[]Todo{{ID: "1", Content: "Explore", Status: TodoCompleted}, {ID: "2", Content: "Fix", Status: TodoPending}, {Content: "Verify", Status: TodoInProgress}}, true,
		},
		{"task_tracker view", "task_tracker", `{"command":"view"}`, nil, false},
		{"missing status", "TodoWrite", `{"todos":[{"content":" spaced "}]}`, []Todo{{Content: "spaced", Status: TodoPending}}, true},
		{"float id", "TodoWrite", `{"todos":[{"content":"a","id":1.5}]}`, []Todo{{ID: "1.5", Content: "a", Status: TodoPending}}, true},
		{"other tool", "Bash", `{"todos":[]}`, nil, false},
		{"no arguments", "TodoWrite", ``, nil, false},
		{"null", "TodoWrite", `null`, nil, false},
		{"array", "TodoWrite", `[]`, nil, false},
		{"not json", "TodoWrite", `{"todos":[`, nil, false},
		{"redacted", "update_plan", `"[REDACTED_ARGUMENTS len=460 sha=f353e6e8]"`, nil, false},
		{"missing list", "TodoWrite", `{"items":[]}`, nil, false},
		{"list is object", "TodoWrite", `{"todos":{"content":"x"}}`, nil, false},
		{"list is null", "update_plan", `{"plan":null}`, nil, false},
		{"item not object", "TodoWrite", `{"todos":["x"]}`, nil, false},
		{"item without text", "TodoWrite", `{"todos":[{"status":"pending"}]}`, nil, false},
		{"blank text", "update_plan", `{"plan":[{"step":"  "}]}`, nil, false},
		{"status wrong type", "TodoWrite", `{"todos":[{"content":"x","status":3}]}`, nil, false},
		{"id wrong type", "TodoWrite", `{"todos":[{"content":"x","id":{}}]}`, nil, false},
		{"command wrong type", "task_tracker", `{"command":1,"task_list":[]}`, nil, false},
		{"wrong shape for tool", "update_plan", `{"todos":[{"content":"x"}]}`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := Todos(call(tt.tool, tt.args))
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v (got %v)", ok, tt.ok, got)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Todos (-want +got):\n%s", diff)
			}
			if ok && Classify(call(tt.tool, tt.args)).Kind != KindTodo {
				t.Errorf("Classify(%s).Kind is not KindTodo", tt.tool)
			}
		})
	}
}

// TestTodoToolIsNeverText checks that a todo tool whose command starts
// with its name stays a todo tool.
func TestTodoToolIsNeverText(t *testing.T) {
	t.Parallel()
	c := call("TodoWrite", `{"command":"TodoWrite now","todos":[{"content":"a"}]}`)
	if _, ok := Todos(c); !ok || Classify(c).Kind != KindTodo {
		t.Errorf("Classify = %v, Todos ok %v", Classify(c).Kind, ok)
	}
}
