package reminder

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/transcript"
)

// TestTodosFromCallReal parses todo tool calls and todo lists from the
// real trajectories: Claude Code records the session's todo list on each
// user line ("todos": [...], the TodoWrite items' shape), and Codex
// rollouts call update_plan (with arguments redacted by the fixtures'
// author, so they must be refused, not misread).
func TestTodosFromCallReal(t *testing.T) {
	t.Parallel()
	root := sharedtest.Dir(t)

	// Claude Code: build a TodoWrite call from each recorded list.
	ccFiles, err := filepath.Glob(filepath.Join(root, "claude-code", "*.jsonl"))
	if err != nil || len(ccFiles) == 0 {
		t.Fatalf("no Claude Code files under %s: %v", root, err)
	}
	lists := 0
	for _, path := range ccFiles {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for line := 1; sc.Scan(); line++ {
			var rec struct {
				Todos json.RawMessage `json:"todos"`
			}
			if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Todos == nil {
				continue
			}
			var raw []json.RawMessage
			if err := json.Unmarshal(rec.Todos, &raw); err != nil {
				t.Fatalf("%s:%d: todos is not an array: %v", path, line, err)
			}
			args := append(append([]byte(`{"todos":`), rec.Todos...), '}')
			got, ok := TodosFromCall(chat.ToolCall{ID: "toolu_real", Name: "TodoWrite", Arguments: args})
			if !ok || len(got) != len(raw) {
				t.Errorf("%s:%d: TodosFromCall(%s) = %v, %v; want %d items", path, line, args, got, ok, len(raw))
			}
			lists++
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if lists == 0 {
		t.Error("no Claude Code todo lists found")
	}

	// Codex: every update_plan call is recognized by name; the redacted
	// arguments are not a plan.
	codex, err := filepath.Glob(filepath.Join(root, "codex", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, path := range codex {
		trajs, err := transcript.ReadFile(path, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range trajs {
			for _, m := range tr.Messages {
				for _, c := range m.ToolCalls() {
					if c.Name != "update_plan" {
						if _, ok := TodosFromCall(c); ok {
							t.Errorf("%s: TodosFromCall(%s) = true for a non-todo tool", path, c.Name)
						}
						continue
					}
					calls++
					redacted := bytes.Contains(c.Arguments, []byte("REDACTED_ARGUMENTS"))
					got, ok := TodosFromCall(c)
					if redacted && ok {
						t.Errorf("%s: redacted update_plan %s parsed as %v", path, c.Arguments, got)
					}
					if !redacted && !ok {
						t.Errorf("%s: update_plan %s not parsed", path, c.Arguments)
					}
				}
			}
		}
	}
	if calls == 0 {
		t.Error("no update_plan calls found in the Codex rollouts")
	}
}
