package compact_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/window"
)

// testWindow returns a window of 20 rounds near its 4,000-token budget.
func modelTestWindow(t *testing.T) *window.Window {
	t.Helper()
	w, err := window.New(window.Options{Budget: 4000, Counter: quarterCounter{}})
	if err != nil {
		t.Fatal(err)
	}
	add := func(m chat.Message) {
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	add(chat.NewText(chat.RoleSystem, "you are a coding agent"))
	add(chat.NewText(chat.RoleUser, "fix the parser"))
	for i := range 20 {
		id := fmt.Sprintf("c%d", i)
		args, _ := json.Marshal(map[string]string{"file_path": fmt.Sprintf("f%d.go", i)})
		add(chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: id, Name: "Read", Arguments: args}}})
		add(chat.NewToolResult(id, "Read", strings.Repeat("x", 600), false))
	}
	return w
}
