package reminder

import (
	"encoding/json"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/google/go-cmp/cmp"
)

func TestTodosFromCall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		tool   string
		args   string
		want   []Todo
		wantOK bool
	}{
		{
			"claude code TodoWrite", "TodoWrite",
			`{"todos":[{"content":"Run the tests","status":"completed","activeForm":"Running the tests"},` +
				`{"content":"Fix the failing parser test","status":"in_progress","activeForm":"Fixing the failing parser test"},` +
				`{"content":"Update docs","status":"pending","activeForm":"Updating docs"}]}`,
			[]Todo{
				{Content: "Run the tests", Status: TodoCompleted},
				{Content: "Fix the failing parser test", Status: TodoInProgress},
				{Content: "Update docs", Status: TodoPending},
			}, true,
		},
		{
			"kode TodoWrite with ids and priorities", "TodoWrite",
			`{"todos":[{"content":"实现新 tool","status":"in_progress","priority":"High","id":"task-1"},{"content":"b","status":"pending","priority":"low","id":2}]}`,
			[]Todo{{ID: "task-1", Content: "实现新 tool", Status: TodoInProgress, Priority: "high"}, {ID: "2", Content: "b", Status: TodoPending, Priority: "low"}}, true,
		},
		{"todo_write snake case", "todo_write", `{"todos":[{"content":"x","status":"done"}]}`, []Todo{{Content: "x", Status: TodoCompleted}}, true},
		{"gemini write_todos", "write_todos", `{"todos":[{"description":"y","status":"cancelled"}]}`, []Todo{{Content: "y", Status: "cancelled"}}, true},
		{"empty list clears", "TodoWrite", `{"todos":[]}`, []Todo{}, true},
		{
			"codex update_plan", "update_plan",
			`{"explanation":"Parser first","plan":[{"step":"Read the reader code","status":"completed"},{"step":"Add the fuzz target","status":"in_progress"},{"step":"Run go test","status":"pending"}]}`,
			[]Todo{{Content: "Read the reader code", Status: TodoCompleted}, {Content: "Add the fuzz target", Status: TodoInProgress}, {Content: "Run go test", Status: TodoPending}}, true,
		},
		{"codex double encoded", "update_plan", `"{\"plan\":[{\"step\":\"s\",\"status\":\"in-progress\"}]}"`, []Todo{{Content: "s", Status: TodoInProgress}}, true},
		{
			"openhands task_tracker plan", "task_tracker",
			`{"command":"plan","task_list":[{"id":"1","title":"Explore","notes":"look around","status":"done"},{"id":"2","title":"Fix","status":"todo"},{"title":"Verify","status":"in_progress"}]}`,
			[]Todo{{ID: "1", Content: "Explore", Status: TodoCompleted}, {ID: "2", Content: "Fix", Status: TodoPending}, {Content: "Verify", Status: TodoInProgress}}, true,
		},
		{"task_tracker view", "task_tracker", `{"command":"view"}`, nil, false},
		{"missing status is pending", "TodoWrite", `{"todos":[{"content":" spaced "}]}`, []Todo{{Content: "spaced", Status: TodoPending}}, true},

		{"other tool", "Bash", `{"todos":[]}`, nil, false},
		{"no arguments", "TodoWrite", ``, nil, false},
		{"null", "TodoWrite", `null`, nil, false},
		{"array", "TodoWrite", `[]`, nil, false},
		{"not json", "TodoWrite", `{"todos":[`, nil, false},
		{"redacted string", "update_plan", `"[REDACTED_ARGUMENTS len=460 sha=f353e6e8]"`, nil, false},
		{"missing list", "TodoWrite", `{"items":[]}`, nil, false},
		{"list is object", "TodoWrite", `{"todos":{"content":"x"}}`, nil, false},
		{"list is null", "update_plan", `{"plan":null}`, nil, false},
		{"item not object", "TodoWrite", `{"todos":["x"]}`, nil, false},
		{"item without text", "TodoWrite", `{"todos":[{"status":"pending"}]}`, nil, false},
		{"blank text", "update_plan", `{"plan":[{"step":"  ","status":"pending"}]}`, nil, false},
		{"status wrong type", "TodoWrite", `{"todos":[{"content":"x","status":3}]}`, nil, false},
		{"content wrong type", "TodoWrite", `{"todos":[{"content":["x"]}]}`, nil, false},
		{"id wrong type", "TodoWrite", `{"todos":[{"content":"x","id":{}}]}`, nil, false},
		{"command wrong type", "task_tracker", `{"command":1,"task_list":[]}`, nil, false},
		{"wrong shape for tool", "update_plan", `{"todos":[{"content":"x"}]}`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := TodosFromCall(chat.ToolCall{ID: "c", Name: tt.tool, Arguments: json.RawMessage(tt.args)})
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v (got %v)", ok, tt.wantOK, got)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
