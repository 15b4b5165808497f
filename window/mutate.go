package window

import (
	"fmt"
	"slices"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/token"
)

// Unit is a span of messages that compaction keeps or removes whole: a
// round (an assistant message with tool calls, its results and anything
// between them), or a single message. Start and End are indexes into the
// window, End exclusive.
type Unit struct {
	Start, End int
	// Round is true for an assistant message with tool calls and the
	// results answering it.
	Round bool
	// Pinned is true when the unit holds a pinned message ([Window.Pinned]).
	Pinned bool
}

// Units returns the window's units in order. They are disjoint and cover
// every message. O(n).
func (w *Window) Units() []Unit {
	n := len(w.entries)
	end := make([]int, n) // for an assistant message with calls: one past its last result
	idx := make(map[uint64]int, 16)
	for i := range w.entries {
		e := &w.entries[i]
		if e.msg.Role == chat.RoleAssistant && e.msg.HasToolCalls() {
			idx[e.seq] = i
			end[i] = i + 1
		}
		if e.call != 0 {
			if c, ok := idx[e.call]; ok && i+1 > end[c] {
				end[c] = i + 1
			}
		}
	}
	units := make([]Unit, 0, n)
	for i := 0; i < n; {
		u := Unit{Start: i, End: i + 1}
		if end[i] > 0 {
			u.Round = true
			u.End = end[i]
			for j := i + 1; j < u.End; j++ {
				if end[j] > u.End {
					u.End = end[j]
				}
			}
		}
		for j := u.Start; j < u.End; j++ {
			if w.Pinned(j) {
				u.Pinned = true
				break
			}
		}
		units = append(units, u)
		i = u.End
	}
	return units
}

// Replace puts m in place of the i-th message and recounts it. m must keep
// the message's identity: the same role, the same tool calls (ids and
// names, in order) for an assistant message, the same tool-call id for a
// tool result. Compaction uses it to cut content. It returns an error
// wrapping [ErrRange], [ErrInvalidMessage] or [ErrSplitRound] and changes
// nothing otherwise.
func (w *Window) Replace(i int, m chat.Message) error {
	if i < 0 || i >= len(w.entries) {
		return fmt.Errorf("%w: replace %d of %d", ErrRange, i, len(w.entries))
	}
	old := w.entries[i].msg
	if m.Role != old.Role {
		return fmt.Errorf("%w: replace message %d: role %q becomes %q", ErrInvalidMessage, i, old.Role, m.Role)
	}
	switch m.Role {
	case chat.RoleAssistant:
		a, b := old.ToolCalls(), m.ToolCalls()
		if len(a) != len(b) {
			return fmt.Errorf("%w: replace message %d: %d tool calls become %d", ErrSplitRound, i, len(a), len(b))
		}
		for k := range a {
			if a[k].ID != b[k].ID || a[k].Name != b[k].Name {
				return fmt.Errorf("%w: replace message %d: tool call %d changes identity", ErrSplitRound, i, k)
			}
		}
	case chat.RoleTool:
		r, err := onlyResult(m)
		if err != nil {
			return err
		}
		o, _ := old.ToolResult()
		if r.ToolCallID != o.ToolCallID {
			return fmt.Errorf("%w: replace message %d: tool call id %q becomes %q", ErrSplitRound, i, o.ToolCallID, r.ToolCallID)
		}
	}
	n := token.Message(w.counter, w.overhead, m)
	w.total += n - w.entries[i].tokens
	w.entries[i].msg = m
	w.entries[i].tokens = n
	w.touch(i)
	return nil
}

// Remove deletes the messages in [start, end). The span may not hold a
// pinned message and must not split a round: every tool result inside has
// its call inside, and every call inside has all its results inside. What
// is removed is tallied in [Window.Dropped]. It returns an error wrapping
// [ErrRange], [ErrPinned] or [ErrSplitRound] and changes nothing
// otherwise. O(n).
func (w *Window) Remove(start, end int) error {
	if start < 0 || end > len(w.entries) || start > end {
		return fmt.Errorf("%w: remove [%d,%d) of %d", ErrRange, start, end, len(w.entries))
	}
	if start == end {
		return nil
	}
	inside := make(map[uint64]bool, end-start)
	for i := start; i < end; i++ {
		if w.Pinned(i) {
			return fmt.Errorf("%w: remove [%d,%d) holds pinned message %d", ErrPinned, start, end, i)
		}
		inside[w.entries[i].seq] = true
	}
	for i := range w.entries {
		e := &w.entries[i]
		if e.call == 0 {
			continue
		}
		in := i >= start && i < end
		if in != inside[e.call] {
			return fmt.Errorf("%w: remove [%d,%d): tool result %d and its call are on different sides", ErrSplitRound, start, end, i)
		}
	}
	removed := w.entries[start:end]
	w.dropped.tally(removed, w.classify)
	for i := range removed {
		e := &removed[i]
		w.total -= e.tokens
		if e.msg.Role == chat.RoleAssistant {
			for _, p := range e.msg.Parts {
				if c, ok := p.(chat.ToolCall); ok {
					w.forgetOpen(c.ID, e.seq)
				}
			}
		}
	}
	w.entries = slices.Delete(w.entries, start, end)
	w.touch(start)
	return nil
}

// forgetOpen drops an unanswered call of id held by the message seq.
func (w *Window) forgetOpen(id string, seq uint64) {
	w.open.Forget(id, func(c openCall) bool { return c.seq == seq })
}

// SetNote sets the compaction note: a user message that says what
// compaction removed. The first call inserts it right after the first user
// message (or after the system prompt when there is no user message yet);
// later calls replace its text in place. The note is pinned. It returns the
// note's index.
func (w *Window) SetNote(text string) int {
	m := chat.NewText(chat.RoleUser, text)
	n := token.Message(w.counter, w.overhead, m)
	if i := w.Note(); i >= 0 {
		w.total += n - w.entries[i].tokens
		w.entries[i].msg = m
		w.entries[i].tokens = n
		w.touch(i)
		return i
	}
	pos := 0
	for i := range w.entries {
		s := w.entries[i].seq
		if (s == w.firstUser && w.firstUser != 0) || (s == w.systemSeq && w.systemSeq != 0) {
			pos = i + 1
		}
		if s == w.firstUser && w.firstUser != 0 {
			break
		}
	}
	e := entry{msg: m, tokens: n, seq: w.nextSeq, note: true}
	w.nextSeq++
	w.noted = true
	w.entries = slices.Insert(w.entries, pos, e)
	w.total += n
	w.touch(pos)
	return pos
}

// Note returns the index of the compaction note, or -1 when there is none.
// O(1) without a note; else O(index of the note), which follows the first
// user message.
func (w *Window) Note() int {
	if !w.noted {
		return -1
	}
	for i := range w.entries {
		if w.entries[i].note {
			return i
		}
	}
	return -1
}
