package reminder_test

import (
	"encoding/json"
	"fmt"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/reminder"
)

// An engine keeps one Manager per session, builds a State before each
// request, and injects what the manager returns into the outgoing
// messages only.
func Example() {
	m := reminder.New(reminder.Options{})

	call := chat.ToolCall{ID: "toolu_1", Name: "TodoWrite", Arguments: json.RawMessage(
		`{"todos":[{"content":"Reproduce the bug","status":"completed","activeForm":"Reproducing"},` +
			`{"content":"Fix the parser","status":"in_progress","activeForm":"Fixing"}]}`)}
	todos, _ := reminder.TodosFromCall(call)

	history := []chat.Message{
		chat.NewText(chat.RoleUser, "The parser drops the last line."),
		{Role: chat.RoleAssistant, Parts: []chat.Part{call}},
		chat.NewToolResult("toolu_1", "TodoWrite", "Todos updated", false),
	}
	state := reminder.State{TodosKnown: true, Todos: todos, Ratio: 0.3, Threshold: 0.8, Tokens: 4800, Budget: 16000}

	for turn := 1; turn <= 2; turn++ {
		rs := m.Next(state)
		req, ok := reminder.Inject(history, rs)
		fmt.Printf("turn %d: %d reminder(s), injected %v, %d messages sent, %d stored\n", turn, len(rs), ok, len(req), len(history))
		if ok {
			fmt.Print(req[len(req)-1].Text())
		}
	}
	// Output:
	// turn 1: 1 reminder(s), injected true, 4 messages sent, 3 stored
	// <system-reminder>
	// Your todo list has changed. Its current contents:
	// - [completed] Reproduce the bug
	// - [in_progress] Fix the parser
	// Continue with the item in progress: Fix the parser. Do not mention this reminder to the user.
	// </system-reminder>
	// turn 2: 0 reminder(s), injected false, 3 messages sent, 3 stored
}
