package agent

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/agentctx/agentctx/agent/tools"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/tooluse"
)

// Decision is a permission guard's answer to one tool call.
type Decision int

// The decisions.
const (
	// DecisionDeny refuses the call: the model gets a result with IsError
	// set saying the user denied it.
	DecisionDeny Decision = iota
	// DecisionAllow runs the call.
	DecisionAllow
	// DecisionAlways runs the call, and tells a guard that remembers
	// ([Guard]) to allow the tool's later calls without asking.
	DecisionAlways
)

// Permission decides whether a tool call may run (seed 000's
// permissionGuard). Allow is called from the goroutine running
// [Agent.Run], before each call; an error stops the Run.
type Permission interface {
	// Allow decides call, whose tool has access. An error ends the Run.
	Allow(ctx context.Context, call chat.ToolCall, access tools.Access) (Decision, error)
}

// Guard is the usual [Permission] (seed 000's permissionGuard): reads are
// free; writes and commands are allowed when Yes is set or the tool was
// answered [DecisionAlways] before, else asked. Two kinds of call are
// asked every time, even with Yes or after [DecisionAlways]:
//
//   - a command with a hazard (tooluse.Hazards: rm -r outside the
//     project, find -delete, curl … | sh, chmod -R of /, writes to
//     devices, mkfs, fork bombs …), whatever the tool's access;
//   - any command when Unconfined is set: no sandbox confines it.
//
// Without Ask, what would be asked is denied. Safe for concurrent use;
// set the fields before the first Allow.
type Guard struct {
	// Yes allows every write and command (the CLI's --yes), except
	// those above. Optional.
	Yes bool
	// Root is the project directory, absolute, and Home the user's home
	// directory: what hazards are judged against (an rm -r inside Root is
	// no hazard). Optional: without Root every rm -r is outside.
	Root, Home string
	// Unconfined reports that commands run without a sandbox
	// (tools.Env.Sandbox is nil), so that each is asked. Optional.
	Unconfined bool
	// Ask asks the user about call; reason says why it is asked even
	// under Yes ("" when it is not). Optional: nil denies.
	Ask func(ctx context.Context, call chat.ToolCall, access tools.Access, reason string) (Decision, error)

	mu     sync.Mutex
	always map[string]bool
}

// Allow implements [Permission].
func (g *Guard) Allow(ctx context.Context, call chat.ToolCall, access tools.Access) (Decision, error) {
	reason := g.Reason(call, access)
	if reason == "" {
		if access == tools.AccessRead || g.Yes {
			return DecisionAllow, nil
		}
		g.mu.Lock()
		ok := g.always[call.Name]
		g.mu.Unlock()
		if ok {
			return DecisionAllow, nil
		}
	}
	if g.Ask == nil {
		return DecisionDeny, nil
	}
	d, err := g.Ask(ctx, call, access, reason)
	if err != nil {
		return DecisionDeny, err
	}
	if d == DecisionAlways && reason == "" {
		g.mu.Lock()
		if g.always == nil {
			g.always = map[string]bool{}
		}
		g.always[call.Name] = true
		g.mu.Unlock()
	}
	return d, nil
}

// Reason returns why call must be asked about even under Yes, or "":
// its command's hazards (tooluse.Hazards), joined by "; ", or that it
// runs a command without a sandbox.
func (g *Guard) Reason(call chat.ToolCall, access tools.Access) string {
	cmd := tooluse.Classify(call).Command
	if hz := tooluse.Hazards(cmd, tooluse.HazardOptions{Root: g.Root, Home: g.Home}); len(hz) > 0 {
		rs := make([]string, 0, len(hz))
		for _, h := range hz {
			if !slices.Contains(rs, h.Reason) {
				rs = append(rs, h.Reason)
			}
		}
		return strings.Join(rs, "; ")
	}
	if g.Unconfined && (access == tools.AccessExec || cmd != "") {
		return "no sandbox: the command would run unconfined"
	}
	return ""
}
