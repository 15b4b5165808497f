package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/agent"
	"github.com/agentctx/agentctx/agent/tools"
	"github.com/agentctx/agentctx/chat"
)

func call(name, args string) chat.ToolCall {
	return chat.ToolCall{ID: "c", Name: name, Arguments: json.RawMessage(args)}
}

// TestRuleMatch checks the rule syntax of Claude Code's permissions page
// on the reference agent's tools.
func TestRuleMatch(t *testing.T) {
	root := "/work/proj"
	for _, tc := range []struct {
		rule string
		call chat.ToolCall
		want bool
	}{
		{"run_command", call("run_command", `{"command":"rm -rf x"}`), true},
		{"Bash(go test:*)", call("run_command", `{"command":"go test ./..."}`), true},
		{"Bash(go test:*)", call("run_command", `{"command":"go test"}`), true},
		{"Bash(go test:*)", call("run_command", `{"command":"go testx"}`), false},
		{"Bash(go test:*)", call("run_command", `{"command":"go test && rm -rf ~"}`), false},
		{"Bash(go test:*)", call("run_command", `{"command":"go test | sh"}`), false},
		{"Bash(git status)", call("run_command", `{"command":"git status"}`), true},
		{"Bash(git status)", call("run_command", `{"command":"git status -s"}`), false},
		{"Bash(npm * --save)", call("run_command", `{"command":"npm install left-pad --save"}`), true},
		{"Edit(src/**)", call("edit_file", `{"path":"src/a/b.go","old_string":"a","new_string":"b"}`), true},
		{"Edit(src/**)", call("write_file", `{"path":"/work/proj/src/b.go","content":"x"}`), true},
		{"Edit(src/**)", call("write_file", `{"path":"docs/b.go","content":"x"}`), false},
		{"Write(*.md)", call("write_file", `{"path":"README.md","content":"x"}`), true},
		{"Write(*.md)", call("write_file", `{"path":"docs/README.md","content":"x"}`), false},
		{"Write(**/*.md)", call("write_file", `{"path":"docs/README.md","content":"x"}`), true},
		{"Read", call("write_file", `{"path":"a","content":"x"}`), false},
	} {
		r, err := agent.ParseRule(tc.rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Match(tc.call, root); got != tc.want {
			t.Errorf("%s on %s %s: %v, want %v", tc.rule, tc.call.Name, tc.call.Arguments, got, tc.want)
		}
	}
	for _, tc := range []struct{ cmd, want string }{
		{"go test ./...", "run_command(go test:*)"},
		{"ls -la", "run_command(ls:*)"},
		{"seq 1 20; echo done", "run_command(seq 1 20; echo done)"},
	} {
		c := call("run_command", `{"command":"`+tc.cmd+`"}`)
		r := agent.AlwaysRule(c)
		if r.String() != tc.want || !r.Match(c, root) {
			t.Errorf("AlwaysRule(%s) = %s (matches itself: %v), want %s", tc.cmd, r, r.Match(c, root), tc.want)
		}
	}
	for _, bad := range []string{"", "Bash(go test", "Ba sh", "(x)"} {
		if _, err := agent.ParseRule(bad); !errors.Is(err, agent.ErrBadRule) {
			t.Errorf("ParseRule(%q): %v, want ErrBadRule", bad, err)
		}
	}
}

// TestGuardRules checks the order deny, ask, allow and that "always"
// writes its rule to the settings file, which LoadRules reads back.
func TestGuardRules(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, agent.SettingsFile)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"model":"x","permissions":{"allow":["Bash(go:*)"],"ask":["Bash(go generate:*)"],"deny":["Bash(go clean:*)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rules, err := agent.LoadRules(file)
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	answer := agent.DecisionAlways
	g := &agent.Guard{Root: dir, Rules: rules, Remember: func(r agent.Rule) {
		if err := agent.AddAllowRule(file, r); err != nil {
			t.Error(err)
		}
	}, Ask: func(_ context.Context, c chat.ToolCall, _ tools.Access, reason string) (agent.Decision, error) {
		asked = append(asked, string(c.Arguments)+"|"+reason)
		return answer, nil
	}}
	ctx := t.Context()
	run := func(cmd string) (agent.Decision, error) {
		return g.Allow(ctx, call("run_command", `{"command":"`+cmd+`"}`), tools.AccessExec)
	}
	if d, err := run("go vet ./..."); d != agent.DecisionAllow || err != nil {
		t.Errorf("allow rule: %v %v", d, err)
	}
	d, err := run("go clean -cache")
	var ref *agent.Refusal
	if d != agent.DecisionDeny || !errors.As(err, &ref) || !strings.Contains(ref.Content(), "deny rule Bash(go clean:*)") {
		t.Errorf("deny rule: %v %v", d, err)
	}
	if _, err := run("go generate ./..."); err != nil || len(asked) != 1 || !strings.Contains(asked[0], "ask rule Bash(go generate:*)") {
		t.Errorf("ask rule: %v %q", err, asked)
	}
	// Always for make test: remembered in the file, not asked again.
	if d, _ := run("make test"); d != agent.DecisionAlways || len(asked) != 2 {
		t.Errorf("make test: %v, asked %q", d, asked)
	}
	if d, _ := run("make test -j4"); d != agent.DecisionAllow || len(asked) != 2 {
		t.Errorf("make test again: %v, asked %q", d, asked)
	}
	back, err := agent.LoadRules(file)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(back.Allow); n != 2 || back.Allow[1].String() != "run_command(make test:*)" {
		t.Errorf("the file's allow list: %v", back.Allow)
	}
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), `"model": "x"`) {
		t.Errorf("the file lost its other keys:\n%s", b)
	}
}

// FuzzParseSettings: any settings file content parses or fails with an
// error naming the file, never panics.
func FuzzParseSettings(f *testing.F) {
	f.Add([]byte(`{"permissions":{"allow":["Bash(go test:*)","Edit(src/**)"],"deny":["Read(.env)"]}}`))
	f.Add([]byte(`{"permissions":{"allow":["Bash(go test"]}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := agent.ParseSettings("settings.json", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "settings.json:") {
				t.Fatalf("error without the file's name: %v", err)
			}
			return
		}
		c := call("run_command", `{"command":"go test ./..."}`)
		_, _ = rs.Decide(c, "/p")
		for _, r := range rs.Allow {
			if back, err := agent.ParseRule(r.String()); err != nil || back != r {
				t.Fatalf("%q does not round-trip: %v %v", r.String(), back, err)
			}
		}
	})
}
