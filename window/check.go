package window

import (
	"fmt"

	"github.com/agentctx/agentctx/chat"
)

// The invariants [Window.Check] verifies, as named in a [Violation].
const (
	InvariantSystemFirst = "system-first"    // the system prompt stays first
	InvariantFirstUser   = "first-user"      // the first user message is never removed
	InvariantOrder       = "order"           // order is preserved
	InvariantOrphan      = "orphan-result"   // no tool result without its call
	InvariantRound       = "split-round"     // a round is never split
	InvariantUnanswered  = "unanswered-call" // a call without a result only in the last round
	InvariantAccounting  = "accounting"      // the running total equals the sum of counts
)

// Violation is one broken invariant found by [Window.Check]. Index is the
// message it concerns, or -1.
type Violation struct {
	Invariant string
	Index     int
	Detail    string
}

// String formats the violation as "invariant at index: detail".
func (v Violation) String() string {
	return fmt.Sprintf("%s at %d: %s", v.Invariant, v.Index, v.Detail)
}

// Check verifies the window's invariants (see the package documentation)
// and its accounting, and returns every violation found; none means the
// window is sound. It also re-pairs tool results by id with [chat.Pair],
// independently of the window's own bookkeeping. Tests run it after every
// operation. O(n).
func (w *Window) Check() []Violation {
	var vs []Violation
	add := func(inv string, i int, f string, a ...any) {
		vs = append(vs, Violation{Invariant: inv, Index: i, Detail: fmt.Sprintf(f, a...)})
	}
	if w.systemSeq != 0 && (len(w.entries) == 0 || w.entries[0].seq != w.systemSeq) {
		add(InvariantSystemFirst, 0, "system prompt is not the first message")
	}
	pos := make(map[uint64]int, len(w.entries))
	var last uint64
	sum := 0
	foundUser := w.firstUser == 0
	for i := range w.entries {
		e := &w.entries[i]
		sum += e.tokens
		pos[e.seq] = i
		if e.seq == w.firstUser {
			foundUser = true
		}
		if e.note {
			continue
		}
		if e.seq <= last {
			add(InvariantOrder, i, "message out of order")
		}
		last = e.seq
	}
	if !foundUser {
		add(InvariantFirstUser, -1, "first user message was removed")
	}
	if sum != w.total {
		add(InvariantAccounting, -1, "running total %d, sum of counts %d", w.total, sum)
	}
	results := map[uint64]int{}
	for i := range w.entries {
		e := &w.entries[i]
		if e.call == 0 {
			continue
		}
		c, ok := pos[e.call]
		if !ok || c >= i {
			add(InvariantOrphan, i, "tool result without its call")
			continue
		}
		results[e.call]++
	}
	for i := range w.entries {
		e := &w.entries[i]
		if e.msg.Role == chat.RoleAssistant && e.answered != results[e.seq] {
			add(InvariantRound, i, "round has %d of its %d results", results[e.seq], e.answered)
		}
	}
	// A call without a result is allowed only in the last round: once a
	// user or assistant message follows, no provider accepts it (the
	// Anthropic Messages API wants every tool_use answered in the next
	// message; OpenAI chat completions every tool_call_id answered before
	// the next non-tool message).
	// A system message in mid-conversation (Codex's developer messages)
	// does not end a round: the results that follow it still answer the
	// call, and the Engine does not answer it as interrupted.
	lastNonTool := -1
	for i := len(w.entries) - 1; i >= 0; i-- {
		if r := w.entries[i].msg.Role; r != chat.RoleTool && r != chat.RoleSystem {
			lastNonTool = i
			break
		}
	}
	for i := range w.entries {
		e := &w.entries[i]
		if e.msg.Role != chat.RoleAssistant || i >= lastNonTool {
			continue
		}
		if n := len(e.msg.ToolCalls()); n > e.answered {
			add(InvariantUnanswered, i, "%d of %d tool calls have no result and a later message follows", n-e.answered, n)
		}
	}
	if p := chat.Pair(w.Messages()); len(p.Orphans) > 0 {
		add(InvariantOrphan, p.Orphans[0], "%d tool results answer no earlier call by id", len(p.Orphans))
	}
	return vs
}
