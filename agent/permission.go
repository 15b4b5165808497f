package agent

import (
	"context"
	"fmt"
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
	// ([Guard]) to allow its like ([AlwaysRule]) without asking.
	DecisionAlways
)

// Permission decides whether a tool call may run (seed 000's
// permissionGuard). Allow is called from the goroutine running
// [Agent.Run], before each call; an error stops the Run.
type Permission interface {
	// Allow decides call, whose tool has access. An error ends the Run.
	Allow(ctx context.Context, call chat.ToolCall, access tools.Access) (Decision, error)
}

// Refusal is a refused tool call with who refused it and why. A
// [Permission]'s Allow returns it as its error (not wrapped) to refuse a
// call with its reason: [Agent.Run] does not run the call, gives the model
// [Refusal.Content] as its result and goes on, unless Stop is set: then
// Run ends with [StopDenied] and [Result.Refusal] set, the session valid.
type Refusal struct {
	// Call is the refused call; Run sets it.
	Call chat.ToolCall
	// By says who refused: "the user", "the project's deny rule
	// Bash(rm:*) (.agentctx/settings.json)", "print mode".
	By string
	// Reason says why; "" when By says it all.
	Reason string
	// Stop ends the Run after this call.
	Stop bool
}

// Error implements error: "write_file refused by the user: reason".
func (r *Refusal) Error() string {
	s := r.Call.Name + " refused by " + r.By
	if r.Reason != "" {
		s += ": " + r.Reason
	}
	return s
}

// Content is the tool result the model gets for the refused call.
func (r *Refusal) Content() string {
	s := "denied by " + r.By
	if r.Reason != "" {
		s += ": " + r.Reason
	}
	if r.Stop {
		s += " (the turn was stopped here)"
	}
	return s
}

// Guard is the usual [Permission] (seed 000's permissionGuard): reads are
// free; writes and commands are allowed when Yes is set or an allow rule
// matches (Rules, or an "always" answered before), else asked. A deny
// rule refuses the call with a [Refusal] naming the rule. Some calls are
// asked every time, even with Yes or an allow rule:
//
//   - a command with a hazard (tooluse.Hazards: rm -r outside the
//     project, find -delete, curl … | sh, chmod -R of /, writes to
//     devices, mkfs, fork bombs …), whatever the tool's access;
//   - any command when Unconfined is set: no sandbox confines it;
//   - a call an ask rule matches.
//
// Without Ask, what would be asked is refused ([Refusal], By "the
// permission guard": no one was asked). Safe for concurrent use; set the
// fields before the first Allow.
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
	// Rules are the project's permission rules ([LoadRules]). Optional.
	Rules Rules
	// Ask asks the user about call; reason says why it is asked even
	// under Yes ("" when it is not). It may return a [Refusal] as its
	// error to refuse with a reason or stop the Run. Optional: nil
	// refuses.
	Ask func(ctx context.Context, call chat.ToolCall, access tools.Access, reason string) (Decision, error)
	// Remember is told the allow rule ([AlwaysRule]) an "always" answer
	// added, to keep it (the CLI writes it to [SettingsFile]). Optional.
	Remember func(Rule)

	mu sync.Mutex
}

// Allow implements [Permission].
func (g *Guard) Allow(ctx context.Context, call chat.ToolCall, access tools.Access) (Decision, error) {
	g.mu.Lock()
	verdict, rule := g.Rules.Decide(call, g.Root)
	g.mu.Unlock()
	if verdict == RuleDeny {
		return DecisionDeny, &Refusal{By: fmt.Sprintf("the project's deny rule %s (%s)", rule, SettingsFile)}
	}
	reason := g.Reason(call, access)
	if reason == "" && verdict == RuleAsk {
		reason = fmt.Sprintf("the project's ask rule %s (%s)", rule, SettingsFile)
	}
	if reason == "" && (access == tools.AccessRead || g.Yes || verdict == RuleAllow) {
		return DecisionAllow, nil
	}
	if g.Ask == nil {
		why := "writes and commands need permission and no one was asked (allow them with Yes or an allow rule)"
		if reason != "" {
			why = reason + "; no one was asked"
		}
		return DecisionDeny, &Refusal{By: "the permission guard", Reason: why}
	}
	d, err := g.Ask(ctx, call, access, reason)
	if err != nil {
		return DecisionDeny, err
	}
	if d == DecisionAlways && reason == "" {
		r := AlwaysRule(call)
		g.mu.Lock()
		g.Rules.Allow = append(g.Rules.Allow, r)
		g.mu.Unlock()
		if g.Remember != nil {
			g.Remember(r)
		}
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

// RulesSnapshot returns a copy of the guard's rules, the ones "always"
// added included.
func (g *Guard) RulesSnapshot() Rules {
	g.mu.Lock()
	defer g.mu.Unlock()
	return Rules{Allow: slices.Clone(g.Rules.Allow), Ask: slices.Clone(g.Rules.Ask), Deny: slices.Clone(g.Rules.Deny)}
}
