package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/google/go-cmp/cmp"
)

func engineEnv(t *testing.T) Env {
	t.Helper()
	env := project(t, nil)
	e, err := agentctx.Open(t.Context(), agentctx.Options{Dir: env.Root, NoWorkspace: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	env.Engine = e
	return env
}

func TestTodoWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    any
		wantErr bool
		want    []string
	}{
		{"list", args{"todos": []args{
			{"content": "read the code", "status": "completed"},
			{"content": "fix the bug", "status": "in_progress"},
			{"content": "run the tests", "status": "pending"},
		}}, false, []string{"1 pending, 1 in progress, 1 completed", "[x] read the code\n[~] fix the bug\n[ ] run the tests\n"}},
		{"empty clears", args{"todos": []args{}}, false, []string{"cleared"}},
		{"bad status", args{"todos": []args{{"content": "x", "status": "done-ish"}}}, true, []string{`status "done-ish"`}},
		{"no content", args{"todos": []args{{"content": " ", "status": "pending"}}}, true, []string{"todo 1 has no content"}},
		{"missing todos", args{}, true, []string{"todos is required"}},
		{"not a list", args{"todos": "x"}, true, []string{"invalid arguments"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			check(t, call(t, todoWrite{}, tt.args), tt.wantErr, tt.want...)
		})
	}
	t.Run("the engine reads the same list", func(t *testing.T) {
		t.Parallel()
		raw, _ := json.Marshal(args{"todos": []args{{"content": "a", "status": "in_progress"}, {"content": "b", "status": "pending"}}})
		got, ok := tooluse.Todos(chat.ToolCall{Name: todoWrite{}.Def().Name, Arguments: raw})
		want := []tooluse.Todo{{Content: "a", Status: tooluse.TodoInProgress}, {Content: "b", Status: tooluse.TodoPending}}
		if !ok {
			t.Fatal("tooluse.Todos does not read todo_write")
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("tooluse.Todos (-want +got):\n%s", d)
		}
	})
}

func TestNoteFinding(t *testing.T) {
	t.Parallel()
	env := engineEnv(t)
	tests := []struct {
		name    string
		args    args
		wantErr bool
		want    string
	}{
		{"noted", args{"finding": "the parser drops CRLF", "evidence": "parse.go:42", "importance": 5, "category": "bug"}, false, "Noted: [bug] the parser drops CRLF"},
		{"default importance", args{"finding": "tests use testify"}, false, "Noted: tests use testify"},
		{"empty", args{"finding": "  "}, true, "finding is required"},
		{"importance too high", args{"finding": "x", "importance": 9}, true, "1 (trivia) to 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, call(t, noteFinding{env}, tt.args), tt.wantErr, tt.want)
		})
	}
	wm, _ := env.Engine.WorkingMemory(10000)
	for _, w := range []string{"[bug] the parser drops CRLF", "parse.go:42", "tests use testify"} {
		if !strings.Contains(wm, w) {
			t.Errorf("working memory lacks %q:\n%s", w, wm)
		}
	}
}

func TestRecallOutput(t *testing.T) {
	t.Parallel()
	env := engineEnv(t)
	tool := recallOutput{env}
	if d := cmp.Diff(agentctx.RecallTool(), tool.Def()); d != "" {
		t.Errorf("Def (-want +got):\n%s", d)
	}
	check(t, call(t, tool, args{"call_id": "nope", "start_line": 1, "end_line": 2}), true, "nope")
}

func TestDefault(t *testing.T) {
	t.Parallel()
	names := func(ts []Tool) []string {
		var n []string
		for _, tl := range ts {
			n = append(n, tl.Def().Name)
			var s map[string]any
			if err := json.Unmarshal(tl.Def().Parameters, &s); err != nil || s["type"] != "object" {
				t.Errorf("%s: schema %s: %v", tl.Def().Name, tl.Def().Parameters, err)
			}
			if tl.Def().Description == "" {
				t.Errorf("%s has no description", tl.Def().Name)
			}
		}
		return n
	}
	base := []string{"read_file", "write_file", "edit_file", "search", "list_files", "run_command", "todo_write"}
	if d := cmp.Diff(base, names(Default(Env{Root: t.TempDir()}))); d != "" {
		t.Errorf("Default without an Engine (-want +got):\n%s", d)
	}
	all := Default(engineEnv(t))
	if d := cmp.Diff(append(base, "note_finding", "recall_output"), names(all)); d != "" {
		t.Errorf("Default with an Engine (-want +got):\n%s", d)
	}
	access := map[string]Access{"write_file": AccessWrite, "edit_file": AccessWrite, "run_command": AccessExec}
	for _, tl := range all {
		if got := tl.Access(); got != access[tl.Def().Name] {
			t.Errorf("%s: Access() = %v, want %v", tl.Def().Name, got, access[tl.Def().Name])
		}
	}
	// Our names are the ones tooluse classifies as the seeds' and the
	// reference agent's tools.
	tables := map[string]bool{}
	for _, a := range tooluse.Agents() {
		if a.Agent == "seed" || a.Agent == "reference" {
			for n := range a.Tools {
				tables[n] = true
			}
		}
	}
	for _, tl := range all {
		if !tables[tl.Def().Name] {
			t.Errorf("%s is in neither tooluse table", tl.Def().Name)
		}
	}
}

func TestBadArguments(t *testing.T) {
	t.Parallel()
	for _, tl := range Default(engineEnv(t)) {
		t.Run(tl.Def().Name, func(t *testing.T) {
			t.Parallel()
			r := tl.Run(t.Context(), chat.ToolCall{ID: "x", Name: tl.Def().Name, Arguments: json.RawMessage(`[1,2`)})
			if !r.IsError || r.Content == "" {
				t.Errorf("malformed arguments: %+v", r)
			}
		})
	}
}

func TestCancelled(t *testing.T) {
	t.Parallel()
	env := searchProject(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	calls := map[string]string{
		"read_file":   `{"path":"main.go"}`,
		"write_file":  `{"path":"new.txt","content":"x"}`,
		"edit_file":   `{"path":"main.go","old_string":"main","new_string":"x"}`,
		"search":      `{"query":"todo"}`,
		"list_files":  `{}`,
		"run_command": `{"command":"touch ran"}`,
	}
	tools := append(Default(env), search{env: env, noRg: true})
	for _, tl := range tools {
		args, ok := calls[tl.Def().Name]
		if !ok {
			continue
		}
		r := tl.Run(ctx, chat.ToolCall{ID: "c", Name: tl.Def().Name, Arguments: json.RawMessage(args)})
		if !r.IsError || !strings.Contains(r.Content, "cancel") {
			t.Errorf("%s on a cancelled context: %+v", tl.Def().Name, r)
		}
	}
	for _, p := range []string{"new.txt", "ran"} {
		if _, err := os.Stat(filepath.Join(env.Root, p)); err == nil {
			t.Errorf("%s was created on a cancelled context", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(env.Root, "main.go")); !strings.Contains(string(b), "main") {
		t.Error("main.go was edited on a cancelled context")
	}
}

func TestRecallOutputCutResult(t *testing.T) {
	t.Parallel()
	env := project(t, nil)
	e, err := agentctx.Open(t.Context(), agentctx.Options{Dir: env.Root, NoWorkspace: true, Tools: []chat.ToolDef{agentctx.RecallTool()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	env.Engine = e
	var out strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&out, "output line %d\n", i)
	}
	c := chat.ToolCall{ID: "call_big", Name: "run_command", Arguments: json.RawMessage(`{"command":"seq"}`)}
	if err := e.Add(t.Context(), chat.NewText(chat.RoleUser, "go"), chat.NewAssistant("", c), chat.NewToolResult(c.ID, c.Name, out.String(), false)); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.Limited(); n == 0 {
		t.Fatal("the limiter kept the whole 300 KB result; nothing to recall")
	}
	r := call(t, recallOutput{env}, args{"call_id": "call_big", "start_line": 15000, "end_line": 15001})
	check(t, r, false, "output line 15000", "output line 15001")
}
