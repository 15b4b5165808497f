package window

import (
	"fmt"
	"slices"

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
// window is sound. It also re-pairs tool results by id, as [chat.Pair]
// does, independently of the window's own bookkeeping.
//
// Check is incremental: it remembers the prefix of the window it verified
// last and walks only the messages added since, so calling it after
// every model call costs O(messages added) however large the window is,
// and allocates nothing while the window is sound. A mutation inside the
// verified prefix ([Window.Replace], [Window.Remove], [Window.SetNote]:
// compaction) makes the next Check walk the whole window again, O(n).
// [Window.CheckFull] always walks the whole window with fresh state; the
// tests use it as the oracle Check is compared with.
func (w *Window) Check() []Violation {
	c := &w.chk
	if c.stale || c.pos == nil {
		c.reset(len(w.entries))
	}
	vs := c.extend(w)
	if len(vs) > 0 {
		// Report from scratch next time: a violation in the prefix is
		// found again only by a full walk.
		c.stale = true
	}
	return vs
}

// CheckFull is [Window.Check] without its memory: it walks every message
// with fresh state, O(n) time and allocations. It is the oracle the
// incremental Check is tested against, and what `agentctx replay
// --check-every` runs.
func (w *Window) CheckFull() []Violation {
	var c checker
	c.reset(len(w.entries))
	return c.extend(w)
}

// checker is what [Window.Check] knows of the prefix entries[:n] it
// verified last: enough to verify the entries after it without walking the
// prefix again.
type checker struct {
	// n is the length of the verified prefix; stale is set by a mutation
	// inside it (touch) or by a violation, and makes the next Check start
	// over.
	n     int
	stale bool
	sum   int    // tokens of the prefix
	last  uint64 // seq of the prefix's last message that is not the note
	user  bool   // the prefix holds the first user message
	// pos maps the seq of each message of the prefix to its index.
	pos map[uint64]int
	// results counts the results of each call-holding message (by seq).
	results map[uint64]int
	// open counts the calls of each id not yet answered, for the
	// re-pairing by id (chat.Pair's per-id stacks, as counts); orphans
	// counts the results that found no open call of their id, first the
	// index of the first one.
	open    map[string]int
	orphans int
	first   int
	// partial holds the assistant messages (by seq) with fewer results
	// than calls: a call without a result is allowed only in the last
	// round.
	partial map[uint64]struct{}
	// touched lists the assistant messages (by seq) a walk saw a result
	// of, or saw added; scratch space kept between walks.
	touched []uint64
}

// touch records that entry i changed other than by an append: when it is
// inside the verified prefix, the next Check starts over; [Window.Edits]
// counts it.
func (w *Window) touch(i int) {
	w.edits++
	if i < w.chk.n {
		w.chk.stale = true
	}
}

func (c *checker) reset(capacity int) {
	*c = checker{
		pos:     make(map[uint64]int, capacity),
		results: map[uint64]int{},
		open:    map[string]int{},
		partial: map[uint64]struct{}{},
		first:   -1,
		touched: c.touched[:0],
	}
}

// extend verifies entries[c.n:] given the state of the prefix, moves the
// prefix to the whole window and returns every violation.
func (c *checker) extend(w *Window) []Violation {
	var vs []Violation
	add := func(inv string, i int, f string, a ...any) {
		vs = append(vs, Violation{Invariant: inv, Index: i, Detail: fmt.Sprintf(f, a...)})
	}
	if w.systemSeq != 0 && (len(w.entries) == 0 || w.entries[0].seq != w.systemSeq) {
		add(InvariantSystemFirst, 0, "system prompt is not the first message")
	}
	c.touched = c.touched[:0]
	for i := c.n; i < len(w.entries); i++ {
		e := &w.entries[i]
		c.sum += e.tokens
		c.pos[e.seq] = i
		if e.seq == w.firstUser {
			c.user = true
		}
		if !e.note {
			if e.seq <= c.last {
				add(InvariantOrder, i, "message out of order")
			}
			c.last = e.seq
		}
		switch e.msg.Role {
		case chat.RoleAssistant:
			calls := 0
			for _, p := range e.msg.Parts {
				if tc, ok := p.(chat.ToolCall); ok {
					c.open[tc.ID]++
					calls++
				}
			}
			if calls > 0 || e.answered > 0 {
				c.touched = append(c.touched, e.seq)
			}
		case chat.RoleTool:
			if r, ok := e.msg.ToolResult(); !ok || c.open[r.ToolCallID] == 0 {
				if c.orphans == 0 {
					c.first = i
				}
				c.orphans++
			} else if c.open[r.ToolCallID]--; c.open[r.ToolCallID] == 0 {
				delete(c.open, r.ToolCallID)
			}
		}
		if e.call == 0 {
			continue
		}
		if at, ok := c.pos[e.call]; !ok || at >= i {
			add(InvariantOrphan, i, "tool result without its call")
			continue
		}
		c.results[e.call]++
		c.touched = append(c.touched, e.call)
	}
	if w.firstUser != 0 && !c.user {
		add(InvariantFirstUser, -1, "first user message was removed")
	}
	if c.sum != w.total {
		add(InvariantAccounting, -1, "running total %d, sum of counts %d", w.total, c.sum)
	}
	// A message whose results arrived since the last walk, or that is
	// new, is checked again; the others were sound and nothing but an
	// append (a result: touched) or a mutation (stale) changes them.
	for _, seq := range c.touched {
		i := c.pos[seq]
		e := &w.entries[i]
		if e.answered != c.results[seq] {
			add(InvariantRound, i, "round has %d of its %d results", c.results[seq], e.answered)
		}
		if callCount(e.msg) > e.answered {
			c.partial[seq] = struct{}{}
		} else {
			delete(c.partial, seq)
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
	if len(c.partial) > 0 {
		lastNonTool := -1
		for i := len(w.entries) - 1; i >= 0; i-- {
			if r := w.entries[i].msg.Role; r != chat.RoleTool && r != chat.RoleSystem {
				lastNonTool = i
				break
			}
		}
		var late []int
		for seq := range c.partial {
			if i := c.pos[seq]; i < lastNonTool {
				late = append(late, i)
			}
		}
		slices.Sort(late)
		for _, i := range late {
			e := &w.entries[i]
			n := callCount(e.msg)
			add(InvariantUnanswered, i, "%d of %d tool calls have no result and a later message follows", n-e.answered, n)
		}
	}
	if c.orphans > 0 {
		add(InvariantOrphan, c.first, "%d tool results answer no earlier call by id", c.orphans)
	}
	c.n = len(w.entries)
	return vs
}

// callCount returns the number of tool calls m holds, without the slice
// [chat.Message.ToolCalls] allocates.
func callCount(m chat.Message) int {
	n := 0
	for _, p := range m.Parts {
		if _, ok := p.(chat.ToolCall); ok {
			n++
		}
	}
	return n
}
