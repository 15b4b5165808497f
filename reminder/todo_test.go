package reminder

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/secret/secrettest"
	"github.com/google/go-cmp/cmp"
)

// TestTodosFromCall checks what TodosFromCall adds to tooluse.Todos, whose
// tests hold the parsing rules (shapes, statuses, malformed arguments):
// one call of each shape passes through, other tools and malformed
// arguments give false, and every item's text is redacted.
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
			`{"todos":[{"content":"Run the tests","status":"completed","activeForm":"Running the tests"},{"content":"Update docs","status":"pending"}]}`,
			[]Todo{{Content: "Run the tests", Status: TodoCompleted}, {Content: "Update docs", Status: TodoPending}}, true,
		},
		{"codex update_plan", "update_plan", `{"plan":[{"step":"Add the fuzz target","status":"in_progress"}]}`, []Todo{{Content: "Add the fuzz target", Status: TodoInProgress}}, true},
		{
			"openhands task_tracker plan", "task_tracker",
			`{"command":"plan","task_list":[{"id":"1","title":"Explore","status":"done"},{"id":"2","title":"Fix","status":"todo"}]}`,
			[]Todo{{ID: "1", Content: "Explore", Status: TodoCompleted}, {ID: "2", Content: "Fix", Status: TodoPending}}, true,
		},
		{"empty list clears", "TodoWrite", `{"todos":[]}`, []Todo{}, true},
		{"task_tracker view", "task_tracker", `{"command":"view"}`, nil, false},
		{"other tool", "Bash", `{"todos":[]}`, nil, false},
		{"not json", "TodoWrite", `{"todos":[`, nil, false},
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

func TestTodosFromCallRedacts(t *testing.T) {
	t.Parallel()
	args, err := json.Marshal(map[string]any{"todos": []any{map[string]any{"content": "rotate " + secrettest.OpenAI, "status": "pending"}}})
	if err != nil {
		t.Fatal(err)
	}
	got, ok := TodosFromCall(chat.ToolCall{ID: "c", Name: "TodoWrite", Arguments: args})
	if !ok || len(got) != 1 {
		t.Fatalf("TodosFromCall = %v, %v", got, ok)
	}
	if strings.Contains(got[0].Content, secrettest.OpenAI) || !strings.HasPrefix(got[0].Content, "rotate ") {
		t.Errorf("content %q: want the key redacted and the rest kept", got[0].Content)
	}
}
