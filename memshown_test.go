package agentctx_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/workmem"
)

// TestMemoryRepeatsNothing: the working memory a request carries does not
// repeat what the request's window shows: not the task while the first
// user message is in the window, not the rounds while rounds are; it
// still carries the finding, and every request's token table stays exact.
func TestMemoryRepeatsNothing(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	const task = "Find why the parser drops fields."
	e := openEngine(t, agentctx.Options{Dir: t.TempDir(), Model: "gpt-4o", Budget: 6000, NoWorkspace: true})
	if err := e.Add(ctx, chat.NewText(chat.RoleUser, task)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.AddFinding(workmem.Finding{Finding: "parse.go drops the last field", Importance: 8}); err != nil {
		t.Fatal(err)
	}
	carried := 0
	for i := range 40 {
		id := fmt.Sprintf("c%d", i)
		out := strings.Repeat(fmt.Sprintf("line %d of output\n", i), 30)
		if err := e.Add(ctx, call(id, "bash", fmt.Sprintf(`{"command":"cat f%d.txt"}`, i)),
			chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{ToolCallID: id, Content: out}}}); err != nil {
			t.Fatal(err)
		}
		req, err := e.Request(ctx)
		if err != nil {
			t.Fatal(err)
		}
		checkRequest(t, fmt.Sprintf("round %d", i), e, req, 0)
		mem, history, taskShown := "", false, false
		for _, m := range req.Messages {
			text := m.Text()
			if k := strings.Index(text, "# Working memory"); k >= 0 {
				mem = text[k:]
				continue
			}
			history = history || m.Role == chat.RoleAssistant
			taskShown = taskShown || m.Role == chat.RoleUser && text == task
		}
		if mem == "" {
			continue
		}
		carried++
		if !strings.Contains(mem, "drops the last field") {
			t.Errorf("round %d: the working memory lacks the finding:\n%s", i, mem)
		}
		if history && strings.Contains(mem, "Round ") {
			t.Errorf("round %d: the working memory repeats rounds the window holds:\n%s", i, mem)
		}
		if taskShown && strings.Contains(mem, task) {
			t.Errorf("round %d: the working memory repeats the task the window holds:\n%s", i, mem)
		}
	}
	if carried == 0 {
		t.Error("no request carried the working memory")
	}
}
