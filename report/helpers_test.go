package report

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/transcript"
)

// synthetic returns a trajectory of calls model calls, each a tool call
// whose result is a few hundred tokens of varied text: under a small
// budget it compacts again and again.
func synthetic(calls int) *transcript.Trajectory {
	tr := &transcript.Trajectory{File: "synthetic.jsonl", Format: transcript.FormatOpenAI, Model: "gpt-4o"}
	tr.Messages = append(tr.Messages,
		chat.NewText(chat.RoleSystem, "You are a careful coding agent. Fix the failing test in pkg/parse."),
		chat.NewText(chat.RoleUser, "The test TestParseDates fails on leap years; fix pkg/parse/date.go."))
	for i := range calls {
		id := fmt.Sprintf("call_%d", i)
		path := fmt.Sprintf("pkg/parse/file%d.go", i%17)
		tr.Messages = append(tr.Messages, chat.NewAssistant(fmt.Sprintf("Reading %s.", path),
			chat.ToolCall{ID: id, Name: "read_file", Arguments: []byte(fmt.Sprintf(`{"path":%q}`, path))}))
		var b strings.Builder
		for j := range 40 {
			fmt.Fprintf(&b, "%d: func step%d_%d(x int) int { return x*%d + %d } // %s\n", j+1, i, j, i+j, j*i%97, path)
		}
		tr.Messages = append(tr.Messages, chat.NewToolResult(id, "read_file", b.String(), false))
	}
	tr.Messages = append(tr.Messages, chat.NewAssistant("Done: the leap-year check in date.go is fixed."))
	return tr
}

// syntheticReport replays synthetic(calls) under a small budget with the
// summarizing strategy (extractive: no model).
func syntheticReport(t testing.TB, calls int) *Report {
	t.Helper()
	strategy, err := compact.ParseStrategy("summarize", nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := FromTrajectory(context.Background(), synthetic(calls), replay.Options{
		Budget: 6000, Strategy: strategy, LimitToolResults: true, Reminders: true, WorkingMemory: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
