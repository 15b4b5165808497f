package cli

import (
	"fmt"
	"testing"

	"github.com/agentctx/agentctx/agent"
	"github.com/agentctx/agentctx/chat"
)

// TestRewindChoices: /rewind offers the user's messages, not the
// compaction note, an interruption note or a tool result; the turns the
// checkpoints recorded match the messages from the newest back, so a
// message asked twice gets the right turn and one from before the
// checkpoints none.
func TestRewindChoices(t *testing.T) {
	user := func(s string) chat.Message { return chat.NewText(chat.RoleUser, s) }
	msgs := []chat.Message{
		user("summary of what came before"), // the note
		user("run the tests"),
		chat.NewText(chat.RoleAssistant, "ok"),
		user(agent.InterruptedNote),
		user("run the tests"),
		{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{ToolCallID: "c", Content: "x"}}},
		user("fix it"),
	}
	turns := []agent.CheckpointTurn{{N: 3, Text: "run the tests"}, {N: 4, Text: "fix it"}}
	got := fmt.Sprint(rewindChoices(msgs, 0, turns))
	want := fmt.Sprint([]rewindChoice{{index: 1, text: "run the tests"}, {index: 4, text: "run the tests", turn: 3}, {index: 6, text: "fix it", turn: 4}})
	if got != want {
		t.Errorf("rewindChoices = %s\nwant %s", got, want)
	}
}
