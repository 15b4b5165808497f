package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/agentctx/agentctx/workmem"
)

type todoWrite struct{}

func (todoWrite) Def() chat.ToolDef {
	item := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"content": prop("string", "What to do, in the imperative."),
			"status":  map[string]any{"type": "string", "enum": []string{tooluse.TodoPending, tooluse.TodoInProgress, tooluse.TodoCompleted}},
		},
		"required": []string{"content", "status"},
	}
	return chat.ToolDef{
		Name:        "todo_write",
		Description: "Set the task's todo list (the whole list each time). Keep one item in_progress; mark items completed as soon as they are done.",
		Parameters: schema(map[string]any{
			"todos": map[string]any{"type": "array", "items": item, "description": "The whole todo list."},
		}, "todos"),
	}
}

func (todoWrite) Access() Access { return AccessRead }

func (todoWrite) Run(ctx context.Context, call chat.ToolCall) chat.ToolResult {
	var a struct {
		Todos *[]struct {
			Content string `json:"content"`
			Status  string `json:"status"`
		} `json:"todos"`
	}
	if err := decode(call, &a); err != nil {
		return fail(call, "%v", err)
	}
	if a.Todos == nil {
		return fail(call, "todos is required (an empty list clears it)")
	}
	var b strings.Builder
	counts := map[string]int{}
	for i, td := range *a.Todos {
		if strings.TrimSpace(td.Content) == "" {
			return fail(call, "todo %d has no content", i+1)
		}
		mark := ""
		switch td.Status {
		case tooluse.TodoPending:
			mark = "[ ]"
		case tooluse.TodoInProgress:
			mark = "[~]"
		case tooluse.TodoCompleted:
			mark = "[x]"
		default:
			return fail(call, "todo %d has status %q; use pending, in_progress or completed", i+1, td.Status)
		}
		counts[td.Status]++
		fmt.Fprintf(&b, "%s %s\n", mark, strings.TrimSpace(td.Content))
	}
	// The Engine reads the list from the call itself; make sure it can.
	if _, okList := tooluse.Todos(call); !okList {
		return fail(call, "todos could not be read as a todo list")
	}
	if len(*a.Todos) == 0 {
		return ok(call, "Todo list cleared.")
	}
	return ok(call, fmt.Sprintf("Todo list updated (%d pending, %d in progress, %d completed):\n%s",
		counts[tooluse.TodoPending], counts[tooluse.TodoInProgress], counts[tooluse.TodoCompleted], b.String()))
}

type noteFinding struct{ env Env }

func (noteFinding) Def() chat.ToolDef {
	return chat.ToolDef{
		Name:        "note_finding",
		Description: "Note a key finding worth remembering for the rest of the task (kept in your working memory, never compacted away).",
		Parameters: schema(map[string]any{
			"finding":    prop("string", "What you found, self-contained."),
			"evidence":   prop("string", "Where, typically path:line. Optional."),
			"importance": map[string]any{"type": "integer", "minimum": 1, "maximum": 5, "description": "1 (trivia) to 5 (critical). Optional. Defaults to 3."},
			"category":   prop("string", "A short label, e.g. bug, api, convention. Optional."),
		}, "finding"),
	}
}

func (noteFinding) Access() Access { return AccessRead }

func (t noteFinding) Run(ctx context.Context, call chat.ToolCall) chat.ToolResult {
	var a struct {
		Finding    string `json:"finding"`
		Evidence   string `json:"evidence"`
		Importance int    `json:"importance"`
		Category   string `json:"category"`
	}
	if err := decode(call, &a); err != nil {
		return fail(call, "%v", err)
	}
	a.Finding = strings.TrimSpace(a.Finding)
	if a.Finding == "" {
		return fail(call, "finding is required")
	}
	if a.Importance == 0 {
		a.Importance = 3
	}
	if a.Importance < 1 || a.Importance > 5 {
		return fail(call, "importance is %d; use 1 (trivia) to 5 (critical)", a.Importance)
	}
	text := a.Finding
	if c := strings.TrimSpace(a.Category); c != "" {
		text = "[" + c + "] " + text
	}
	// workmem's scale is 1-10 (seed 002); ours is 1-5.
	added, err := t.env.Engine.AddFinding(workmem.Finding{Finding: text, Evidence: a.Evidence, Importance: 2 * a.Importance})
	if err != nil {
		return fail(call, "note the finding: %v", err)
	}
	if !added {
		return fail(call, "the finding was not recorded (working memory is off)")
	}
	return ok(call, "Noted: "+text)
}

type recallOutput struct{ env Env }

func (recallOutput) Def() chat.ToolDef { return agentctx.RecallTool() }

func (recallOutput) Access() Access { return AccessRead }

func (t recallOutput) Run(ctx context.Context, call chat.ToolCall) chat.ToolResult {
	r := t.env.Engine.HandleRecall(ctx, call)
	if r.ToolName == "" {
		r.ToolName = call.Name
	}
	return r
}
