package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentctx/agentctx/agent"
	"github.com/agentctx/agentctx/agent/tools"
	"github.com/agentctx/agentctx/chat"
)

func TestDangerous(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		command string
		want    bool
	}{
		{"rm -rf /", true},
		{"rm  -fr   / ", true},
		{"sudo rm -rf ~", true},
		{"rm -r -f /*", true},
		{"cd src && rm -rf $HOME", true},
		{"git push --force origin main", true},
		{"git push -f", true},
		{"git push origin +main", true},
		{"mkfs.ext4 /dev/sdb1", true},
		{"dd if=image.iso of=/dev/sda bs=4M", true},
		{"echo x > /dev/sda", true},
		{":(){ :|:& };:", true},
		{"rm -rf build/", false},
		{"rm -rf ./tmp", false},
		{"git push origin main", false},
		{"dd if=/dev/zero of=file.img", false},
		{"go test ./...", false},
		{"", false},
	} {
		t.Run(tc.command, func(t *testing.T) {
			t.Parallel()
			if reason, got := agent.Dangerous(tc.command); got != tc.want {
				t.Errorf("Dangerous(%q) = %q, %v; want %v", tc.command, reason, got, tc.want)
			}
		})
	}
}

func command(cmd string) chat.ToolCall {
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return chat.ToolCall{ID: "c", Name: "run_command", Arguments: args}
}

func TestGuard(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	read := chat.ToolCall{ID: "r", Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)}
	write := chat.ToolCall{ID: "w", Name: "write_file", Arguments: json.RawMessage(`{"path":"a.go","content":"x"}`)}
	for _, tc := range []struct {
		name   string
		yes    bool
		answer agent.Decision // what Ask answers; -1: no Ask
		calls  []chat.ToolCall
		access []tools.Access
		want   []agent.Decision
		asked  int
	}{
		{"reads are free", false, -1, []chat.ToolCall{read}, []tools.Access{tools.AccessRead}, []agent.Decision{agent.DecisionAllow}, 0},
		{"writes denied without ask", false, -1, []chat.ToolCall{write, command("go test")}, []tools.Access{tools.AccessWrite, tools.AccessExec},
			[]agent.Decision{agent.DecisionDeny, agent.DecisionDeny}, 0},
		{"yes allows", true, -1, []chat.ToolCall{write, command("go test")}, []tools.Access{tools.AccessWrite, tools.AccessExec},
			[]agent.Decision{agent.DecisionAllow, agent.DecisionAllow}, 0},
		{"yes still asks the dangerous", true, agent.DecisionDeny, []chat.ToolCall{command("rm -rf /")}, []tools.Access{tools.AccessExec},
			[]agent.Decision{agent.DecisionDeny}, 1},
		{"a read-only tool running a dangerous command is asked", false, -1, []chat.ToolCall{command("git push --force")}, []tools.Access{tools.AccessRead},
			[]agent.Decision{agent.DecisionDeny}, 0},
		{"asked each time", false, agent.DecisionAllow, []chat.ToolCall{write, write}, []tools.Access{tools.AccessWrite, tools.AccessWrite},
			[]agent.Decision{agent.DecisionAllow, agent.DecisionAllow}, 2},
		{"always remembered per tool", false, agent.DecisionAlways, []chat.ToolCall{write, write, command("ls")}, []tools.Access{tools.AccessWrite, tools.AccessWrite, tools.AccessExec},
			[]agent.Decision{agent.DecisionAlways, agent.DecisionAllow, agent.DecisionAlways}, 2},
		{"always never covers the dangerous", false, agent.DecisionAlways, []chat.ToolCall{command("mkfs /dev/sdb"), command("mkfs /dev/sdb")}, []tools.Access{tools.AccessExec, tools.AccessExec},
			[]agent.Decision{agent.DecisionAlways, agent.DecisionAlways}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			asked := 0
			g := &agent.Guard{Yes: tc.yes}
			if tc.answer >= 0 {
				g.Ask = func(context.Context, chat.ToolCall, tools.Access, string) (agent.Decision, error) {
					asked++
					return tc.answer, nil
				}
			}
			for i, c := range tc.calls {
				got, err := g.Allow(ctx, c, tc.access[i])
				if err != nil {
					t.Fatal(err)
				}
				if got != tc.want[i] {
					t.Errorf("call %d (%s): %v, want %v", i, c.Arguments, got, tc.want[i])
				}
			}
			if asked != tc.asked {
				t.Errorf("asked %d times, want %d", asked, tc.asked)
			}
		})
	}
}
