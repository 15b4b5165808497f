package replay_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/reminder"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/transcript"
)

// ohToolEvent returns an OpenHands V0 history event: an action whose
// model response holds one function call, or the observation answering
// it.
func ohToolEvent(t *testing.T, id, fn string, args map[string]any, observation string) map[string]any {
	t.Helper()
	a, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	if observation != "" {
		return map[string]any{"source": "environment", "observation": "run", "content": observation,
			"tool_call_metadata": map[string]any{"function_name": fn, "tool_call_id": id}}
	}
	return map[string]any{"source": "agent", "action": "run", "args": args,
		"tool_call_metadata": map[string]any{"function_name": fn, "tool_call_id": id, "model_response": map[string]any{
			"id": "resp-" + id, "model": "gpt-4o",
			"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": "",
				"tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": fn, "arguments": string(a)}}}}}},
		}}}
}

// An OpenHands agent that plans with task_tracker ("command": "plan")
// gets todo reminders: the replay, read through the OpenHands transcript
// reader, sends the list to the model with the calls after the plan.
func TestOpenHandsTaskTrackerReminders(t *testing.T) {
	t.Parallel()
	plan := map[string]any{"command": "plan", "task_list": []any{
		map[string]any{"id": "1", "title": "Reproduce the parser crash", "status": "in_progress", "notes": ""},
		map[string]any{"id": "2", "title": "Fix the empty-input case", "status": "todo", "notes": ""},
	}}
	history := []any{
		map[string]any{"source": "user", "action": "message", "args": map[string]any{"content": "Fix the parser crash on empty input."}},
		ohToolEvent(t, "call_1", "task_tracker", plan, ""),
		ohToolEvent(t, "call_1", "task_tracker", nil, "Task list has been updated with 2 items."),
		ohToolEvent(t, "call_2", "execute_bash", map[string]any{"command": "python -m pytest tests/test_parse.py"}, ""),
		ohToolEvent(t, "call_2", "execute_bash", nil, "1 failed\n[Command finished with exit code 1]"),
		ohToolEvent(t, "call_3", "str_replace_editor", map[string]any{"command": "view", "path": "/repo/parse.py"}, ""),
		ohToolEvent(t, "call_3", "str_replace_editor", nil, "     1\tdef parse(s):"),
	}
	line, err := json.Marshal(map[string]any{"instance_id": "parser-1", "history": history})
	if err != nil {
		t.Fatal(err)
	}
	trs, err := transcript.Read(strings.NewReader(string(line)+"\n"), "output.jsonl", transcript.Options{Format: transcript.FormatOpenHands})
	if err != nil || len(trs) != 1 {
		t.Fatalf("read: %d trajectories, %v", len(trs), err)
	}
	var calls []string
	for _, m := range trs[0].Messages {
		for _, c := range m.ToolCalls() {
			calls = append(calls, c.Name)
		}
	}
	if strings.Join(calls, ",") != "task_tracker,execute_bash,str_replace_editor" {
		t.Fatalf("the reader gave calls %v", calls)
	}
	res, err := replay.Run(t.Context(), trs[0], replay.Options{Budget: 50000, Reminders: true})
	if err != nil {
		t.Fatal(err)
	}
	var todo []replay.Reminder
	for _, r := range res.Reminders {
		if r.Kind == reminder.KindTodo {
			todo = append(todo, r)
		}
	}
	if len(todo) == 0 {
		t.Fatalf("no todo reminder; reminders sent: %+v", res.Reminders)
	}
	if text := todo[0].Text; !strings.Contains(text, "Reproduce the parser crash") || !strings.Contains(text, "Fix the empty-input case") {
		t.Errorf("the todo reminder does not list the plan:\n%s", text)
	}
}
