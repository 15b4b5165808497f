package report

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/transcript"
)

func call(id, name string, args map[string]string) chat.Message {
	raw, _ := json.Marshal(args)
	return chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: id, Name: name, Arguments: raw}}}
}

// TestStory: the task is the first request (the harness's wrapper left
// out), the outcome the last reply, each call lists its tool calls with
// their files, the files are counted by first use, and the transcript's
// own compaction is placed before the call after it.
func TestStory(t *testing.T) {
	tr := &transcript.Trajectory{File: "story", Model: "gpt-4o", Messages: []chat.Message{
		chat.NewText(chat.RoleSystem, "You are a coding agent."),
		chat.NewText(chat.RoleUser, "<environment_context>cwd /src</environment_context>\nFix the failing test in calc.go"),
		call("c1", "Read", map[string]string{"file_path": "calc.go"}),
		chat.NewToolResult("c1", "Read", "func Sum(xs []int) int { return 0 }", false),
		call("c2", "Bash", map[string]string{"command": "go test ./..."}),
		chat.NewToolResult("c2", "Bash", "--- FAIL: TestSum", true),
		chat.NewText(chat.RoleUser, "[summary of the earlier conversation]"),
		call("c3", "Edit", map[string]string{"file_path": "calc.go", "old_string": "return 0", "new_string": "return s"}),
		chat.NewToolResult("c3", "Edit", "ok", false),
		chat.NewText(chat.RoleAssistant, "Fixed: Sum returned 0."),
	}, Compactions: []transcript.Compaction{{At: 6, Trigger: "auto"}}}
	rep, err := FromTrajectory(t.Context(), tr, replay.Options{Budget: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Task != "Fix the failing test in calc.go" {
		t.Errorf("task %q", rep.Task)
	}
	if rep.Outcome != "Fixed: Sum returned 0." {
		t.Errorf("outcome %q", rep.Outcome)
	}
	if len(rep.Calls) != 4 {
		t.Fatalf("%d calls, want 4", len(rep.Calls))
	}
	got := [][]string{}
	for _, c := range rep.Calls {
		var row []string
		for _, a := range c.Actions {
			row = append(row, a.Tool+":"+a.Kind+":"+a.Detail+":"+fmtList(a.Read)+":"+fmtList(a.Wrote))
		}
		got = append(got, row)
	}
	want := [][]string{{"Read:read::calc.go:"}, {"Bash:shell:go test ./...::"}, {"Edit:edit:::calc.go"}, nil}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("call %d actions %q, want %q", i+1, got[i], want[i])
		}
	}
	if len(rep.Files) != 1 || *rep.Files[0] != (File{Path: "calc.go", Reads: 1, Writes: 1, First: 1, Last: 3}) {
		t.Errorf("files %+v", rep.Files)
	}
	// The compaction the transcript recorded at message 6 comes before
	// call 3 (its reply is message 7).
	if !slices.Equal(rep.Recorded, []int{3}) {
		t.Errorf("recorded compactions before calls %v, want [3]", rep.Recorded)
	}
}

func fmtList(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}
