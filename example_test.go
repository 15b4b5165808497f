package agentctx_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/window"
)

// Example_window shows the window on its own: a window for a model,
// messages added as the agent produces them, and compaction before each
// model call keeping the prompt within the budget.
func Example_window() {
	ctx := context.Background()
	info := model.Lookup("claude-sonnet-4-5")
	counter, err := model.Counter(info)
	if err != nil {
		panic(err)
	}
	w, err := window.New(window.Options{Budget: 2000, Counter: counter})
	if err != nil {
		panic(err)
	}
	strategy := &compact.Tiered{}

	_ = w.Add(chat.NewText(chat.RoleSystem, "You are a coding agent."))
	_ = w.Add(chat.NewText(chat.RoleUser, "Fix the failing test in parser_test.go."))
	for i := range 20 {
		id := fmt.Sprintf("call_%d", i)
		if _, err := strategy.Compact(ctx, w); err != nil { // before the model call
			panic(err)
		}
		_ = w.Add(chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.ToolCall{ID: id, Name: "Read", Arguments: []byte(`{"file_path":"parser.go"}`)},
		}})
		_ = w.Add(chat.NewToolResult(id, "Read", strings.Repeat("func parse() {}\n", 60), false))
	}
	records, _ := strategy.Compact(ctx, w)
	prompt, err := chat.ToOpenAI(w.Messages())
	if err != nil {
		panic(err)
	}
	fmt.Println("fits:", w.Fits(), "violations:", len(w.Check()))
	fmt.Println("first message kept:", w.At(1).Text())
	fmt.Println("compacted:", len(records) > 0 || w.Note() >= 0, "messages sent:", len(prompt) < 42)
	// Output:
	// fits: true violations: 0
	// first message kept: Fix the failing test in parser_test.go.
	// compacted: true messages sent: true
}
