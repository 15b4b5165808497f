package agent

import (
	"context"
	"regexp"
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
// answered [DecisionAlways] before, else asked; a dangerous command
// ([Dangerous]) is always asked, even with Yes. Without Ask, what would
// be asked is denied. Safe for concurrent use.
type Guard struct {
	// Yes allows every write and command (the CLI's --yes), except
	// dangerous commands. Optional.
	Yes bool
	// Ask asks the user about call; reason says why it is asked ("" or
	// the dangerous pattern matched). Optional: nil denies.
	Ask func(ctx context.Context, call chat.ToolCall, access tools.Access, reason string) (Decision, error)

	mu     sync.Mutex
	always map[string]bool
}

// Allow implements [Permission].
func (g *Guard) Allow(ctx context.Context, call chat.ToolCall, access tools.Access) (Decision, error) {
	reason, dangerous := Dangerous(tooluse.Classify(call).Command)
	if !dangerous {
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
	if d == DecisionAlways && !dangerous {
		g.mu.Lock()
		if g.always == nil {
			g.always = map[string]bool{}
		}
		g.always[call.Name] = true
		g.mu.Unlock()
	}
	return d, nil
}

// dangerous are the commands a [Guard] always asks about, with what they
// do: whole-disk deletion, history rewriting on a remote, formatting and
// raw writes to devices.
var dangerous = []struct {
	re     *regexp.Regexp
	reason string
}{
	{regexp.MustCompile(`\brm\s+(-\S+\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(-\S+\s+)*(/|/\*|~|~/|\$HOME)(\s|;|&|\||$)`), "rm -rf of the root or home directory"},
	{regexp.MustCompile(`\bgit\s+push\b[^;&|]*\s(--force\b|--force-with-lease\b|-f\b|\+\S)`), "git push --force"},
	{regexp.MustCompile(`\bmkfs(\.\w+)?\b`), "mkfs"},
	{regexp.MustCompile(`\bdd\b[^;&|]*\bof=/dev/`), "dd of=/dev/"},
	{regexp.MustCompile(`>\s*/dev/(sd|nvme|hd|disk)`), "a write to a disk device"},
	{regexp.MustCompile(`:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}`), "a fork bomb"},
}

// Dangerous reports whether command (a shell command, as
// tooluse.Classify's Use.Command) matches the deny list a [Guard] always
// asks about, and which entry: rm -rf of / or ~, git push --force (or -f,
// --force-with-lease, a +refspec), mkfs, dd of=/dev/, a redirection to a
// disk device, a fork bomb. Whitespace runs are collapsed first.
func Dangerous(command string) (reason string, ok bool) {
	if command == "" {
		return "", false
	}
	c := strings.Join(strings.Fields(command), " ")
	for _, d := range dangerous {
		if d.re.MatchString(c) {
			return d.reason, true
		}
	}
	return "", false
}
