package agentctx

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/runes"
	"github.com/agentctx/agentctx/reminder"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/agentctx/agentctx/window"
	"github.com/agentctx/agentctx/workmem"
)

// isTodoTool reports whether a tool sets or shows the agent's todo list
// or plan ([tooluse.KindTodo]: Claude Code's TodoWrite, Codex's
// update_plan, OpenHands' task_tracker, todo_write, …). It takes a name,
// not a call, so that tool definitions are judged the same way.
func isTodoTool(name string) bool { return tooluse.KindOfName(name) == tooluse.KindTodo }

// InterruptedResult is the text of the synthetic tool result that answers
// a tool call left without a result: the run was interrupted (the user
// typed, the process stopped) between the call and its result. The
// result has IsError set. Both the OpenAI and the Anthropic APIs reject a
// request in which a tool call is not followed by its result, so the
// Engine never sends one (the most reported resume failure of coding
// agents); Claude Code writes "[Request interrupted by user for tool use]"
// in the same place.
const InterruptedResult = "[interrupted] This tool call was interrupted and did not complete: no result was returned. Run it again if it is still needed."

// Add appends messages to the session as the agent produces them: user
// messages, assistant replies (with the provider's usage, which anchors
// the window's count), and tool results. Each message is, in order:
//
//   - for a user or assistant message, when tool calls in the window have
//     no result yet: a synthetic result for each ([InterruptedResult]),
//     added and recorded like any tool result, so that the window never
//     holds a call without its result before a later message;
//   - for an assistant message, the reply to the last [Engine.Request]:
//     that request is committed ([Request.Sent]);
//   - fed to the runtime state tracker and the working memory (tool
//     results with the call they answer, before any cut), and its todo
//     calls to the todo list the reminders follow;
//   - for a tool result, sized by the tool-result limiter: added whole
//     when it fits in the room the window has left under the strategy's
//     compaction ratio (up to [Options].MaxResultTokens), else cut to
//     that room or to the seed's quota for the window's usage ratio,
//     whichever is larger (the full output is kept in the session, or in
//     memory without a store, for [Engine.Recall]);
//   - added to the window (a tool result whose call is not in the window
//     goes in as user text saying so);
//   - appended to the session, before Add returns.
//
// At the end of a turn (an assistant message without tool calls) the
// working-memory state is saved too. Add does not compact: [Engine.Request]
// does, before each model call. Errors: [ErrClosed], a message the window
// rejects (window.ErrInvalidMessage, naming its index; the messages
// before it are kept), and the store's.
func (e *Engine) Add(ctx context.Context, msgs ...chat.Message) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return ErrClosed
	}
	b := &batch{e: e}
	turnEnd := false
	for i, m := range msgs {
		if m.Role == chat.RoleUser || m.Role == chat.RoleAssistant {
			if open := e.w.Unanswered(); len(open) > 0 {
				for _, c := range open {
					if err := b.add(ctx, interrupted(c)); err != nil {
						return errors.Join(err, b.flush(ctx))
					}
				}
				e.stats.Interrupted += len(open)
			}
		}
		if m.Role == chat.RoleAssistant {
			e.overflows = 0 // a reply: the request fitted
			if e.pending == nil && !e.callCounted {
				// The reply to a request built elsewhere (another
				// server): count its call and end its round, as a commit
				// does.
				e.countCall()
				e.results = nil
			}
			if en, ok := e.commitEntry(); ok && e.rec != nil {
				b.pending = append(b.pending, en)
			}
			e.callCounted = false
		}
		if err := b.add(ctx, m); err != nil {
			return errors.Join(fmt.Errorf("agentctx: add message %d: %w", i, err), b.flush(ctx))
		}
		turnEnd = m.Role == chat.RoleAssistant && !m.HasToolCalls()
	}
	if turnEnd && e.rec != nil && e.stateDue(b.pending) {
		// The state goes in the same append as the turn's messages: a
		// crash leaves all of them or none (the fleet test's retries
		// rely on it: internal/loadgen).
		st, err := e.state(false)
		if err != nil {
			return errors.Join(err, b.flush(ctx))
		}
		en, err := session.NewStateEntry(st)
		if err != nil {
			return errors.Join(fmt.Errorf("agentctx: save state of %s: %w", e.id, err), b.flush(ctx))
		}
		b.pending = append(b.pending, en)
	}
	return b.flush(ctx)
}

// stateDue reports whether a turn's end, whose entries are pending, saves
// the engine's state: when none was saved yet, or when the content
// written since the last one (the Recorder's lag, pending included) is
// at least the last state's size. A resume reads the last state and
// observes what was written after it again (restore), so the state saved
// at every turn's end only bounds that work, and it grows with the
// session (the working memory keeps every round: 130-220 KB on a real
// 1,100-call Claude Code session, where its messages were 1-4 KB each).
// Saved this way, the states written cost at most as many bytes as the
// messages, and a resume reads again at most a state's worth. The rule
// depends only on what the session holds, so a resumed Engine saves at
// the same turns as one that never stopped (restore sets the lag:
// session.StateLag).
func (e *Engine) stateDue(pending []session.Entry) bool {
	last := e.rec.State()
	if last == nil {
		return true
	}
	lag := e.rec.Lag()
	for i := range pending {
		lag += session.ContentBytes(&pending[i])
	}
	return lag >= len(last)
}

// countCall counts one model call in a stateful strategy's state (the
// summarizing guard's spacing): one per request committed, or per reply
// to a request this engine did not commit.
func (e *Engine) countCall() {
	e.modelCalls++
	if st, ok := e.strategy.(compact.Stateful); ok {
		st.SetCalls(st.Calls() + 1)
	}
}

// answerInterrupted adds a synthetic result for each call in open (see
// [InterruptedResult]) and records them.
func (e *Engine) answerInterrupted(ctx context.Context, open []chat.ToolCall) error {
	b := &batch{e: e}
	for _, c := range open {
		if err := b.add(ctx, interrupted(c)); err != nil {
			return errors.Join(fmt.Errorf("agentctx: answer interrupted call %s: %w", c.ID, err), b.flush(ctx))
		}
	}
	e.stats.Interrupted += len(open)
	return b.flush(ctx)
}

// interrupted returns the synthetic result of call c.
func interrupted(c chat.ToolCall) chat.Message {
	return chat.NewToolResult(c.ID, c.Name, InterruptedResult, true)
}

// batch adds messages to the window and collects their entries (with
// the full outputs of cut tool results, the reminders of the request a
// reply answers, the state at a turn's end) for one append to the
// session: a crash leaves all of them or none.
type batch struct {
	e       *Engine
	pending []session.Entry
}

// flush appends the collected entries to the session.
func (b *batch) flush(ctx context.Context) error {
	e := b.e
	if e.rec == nil || len(b.pending) == 0 {
		return nil
	}
	err := e.rec.AddEntries(ctx, b.pending...)
	b.pending = b.pending[:0]
	if err != nil {
		return fmt.Errorf("agentctx: add to %s: %w", e.id, err)
	}
	return nil
}

// add observes m, passes a tool result through the limiter, adds it to
// the window (an orphan result as user text) and collects it for the
// session. A window error is returned unwrapped; nothing was added then.
func (b *batch) add(ctx context.Context, m chat.Message) error {
	e := b.e
	var call chat.ToolCall // the call m answers, for the limiter's note
	if r, ok := m.ToolResult(); ok && m.Role == chat.RoleTool && !e.opts.NoLimit {
		call, _ = e.open.Peek(r.ToolCallID)
	}
	e.observe(m)
	orig := m
	limited := e.stats.LimitedTokens
	if !e.opts.NoLimit {
		m = e.limit(m, call)
	}
	err := e.w.Add(m)
	if errors.Is(err, window.ErrOrphanToolResult) {
		e.stats.OrphanResults++
		m = orphanAsUser(m)
		err = e.w.Add(m)
	}
	if err != nil {
		e.stats.LimitedTokens = limited
		return err
	}
	if e.stats.LimitedTokens != limited {
		// limit added the whole message's size: take the cut one's off.
		e.stats.LimitedTokens -= e.w.TokensAt(e.w.Len() - 1)
	}
	e.noteShown(m)
	if m.Role == chat.RoleTool && e.outputs != nil {
		if r, ok := orig.ToolResult(); ok {
			e.outputs.put(r.ToolCallID, r.Content)
		}
	}
	if e.rec != nil {
		if m.Role == chat.RoleTool && !sameParts(m, orig) {
			r, _ := orig.ToolResult()
			en, err := session.NewToolOutputEntry(r)
			if err != nil {
				return fmt.Errorf("agentctx: add to %s: %w", e.id, err)
			}
			b.pending = append(b.pending, en)
		}
		en, err := session.NewMessageEntry(m)
		if err != nil {
			return fmt.Errorf("agentctx: add to %s: %w", e.id, err)
		}
		b.pending = append(b.pending, en)
	}
	return nil
}

// observe feeds m to the tracker, the working memory and the todo list.
func (e *Engine) observe(m chat.Message) {
	switch m.Role {
	case chat.RoleUser:
		if e.active == nil && !e.opts.NoWorkingMemory {
			e.active = workmem.New(m.Text(), e.memOptions())
		}
	case chat.RoleAssistant:
		for _, c := range m.ToolCalls() {
			e.open.Call(c.ID, c)
			if isTodoTool(c.Name) {
				e.todoTool = true
				if todos, ok := reminder.TodosFromCall(c); ok {
					e.todos = todos
				}
			}
		}
	case chat.RoleTool:
		r, ok := m.ToolResult()
		if !ok {
			return
		}
		e.results = append(e.results, r)
		if call, ok := e.open.Result(r.ToolCallID); ok && e.tracker != nil {
			e.tracker.Record(call, r)
		}
	default:
		return
	}
	if e.opts.NoWorkingMemory {
		return
	}
	if e.active == nil {
		e.active = workmem.New("", e.memOptions())
	}
	e.active.ObserveMessage(m)
}

// limit passes a tool message, the result of call (the zero call when
// unknown), through the tool-result limiter. Its quota is the seed's for
// the window's usage ratio (compact.QuotaFor, seed 003) or, when the
// window has more room for it ([Engine.resultRoom]), what that room
// holds (compact.RoomQuota): a result that fits in the room is added
// whole, a larger one is cut to the room. The cut is counted, and cut
// again with less room when the result's runes per token made it larger
// than the room (at most three tries; then the seed's quota).
func (e *Engine) limit(m chat.Message, call chat.ToolCall) chat.Message {
	r, ok := m.ToolResult()
	if !ok || m.Role != chat.RoleTool {
		return m
	}
	opts := compact.LimitOptions{RecallTool: e.recallTool, Call: call, Classify: e.uses.Classify}
	ratio := e.w.Ratio()
	q := compact.QuotaFor(ratio)
	full := 0 // m's size in tokens, once counted
	if runeCount := runes.Count(r.Content); runeCount > q.Chars {
		if room := e.resultRoom(); room > 0 {
			full = e.w.Count(m)
			if full <= room {
				return m
			}
			for range 3 {
				rq := compact.RoomQuota(ratio, room, full, runeCount)
				if rq.Chars <= q.Chars {
					break
				}
				out, info := rq.LimitWith(r, r.ToolName, opts)
				cut := withResult(m, out)
				n := e.w.Count(cut)
				if n <= room {
					return e.limited(m, cut, info, full)
				}
				room = int(float64(room) * float64(room) / float64(n))
			}
		}
	}
	out, info := q.LimitWith(r, r.ToolName, opts)
	if !info.Cut {
		return m
	}
	return e.limited(m, withResult(m, out), info, full)
}

// limited counts a result the limiter cut: m is the message as it came
// (full its size in tokens, 0 when not counted yet), cut the message
// the window gets.
func (e *Engine) limited(m, cut chat.Message, info compact.LimitInfo, full int) chat.Message {
	e.stats.LimitedResults++
	e.stats.LimitedChars += info.Chars - info.KeptChars
	// Counted whole first: the window's count of the cut message then
	// finds most of its lines counted (token.LineMemo).
	if full == 0 {
		full = e.w.Count(m)
	}
	e.stats.LimitedTokens += full
	return cut
}

// withResult returns a copy of m whose parts are r alone.
func withResult(m chat.Message, r chat.ToolResult) chat.Message {
	m = m.Clone()
	m.Parts = []chat.Part{r}
	return m
}

// resultRoom returns the tokens the tool result being added may take in
// the window, or 0 when it gets the seed's quota only (no budget, or
// Options.MaxResultTokens negative). It is the room left under the usage
// ratio at which the strategy compacts (compact.Thresholder; 0.80, seed
// 001's trigger, for a strategy without one, and never over the budget)
// after everything else the next request holds: the window as it is
// (messages, tool schemas, static prompt, rehydration) and an estimate
// of the request's tail ([Engine.tailEstimate]). The room is shared with
// the results still to come in the same round (the calls left
// unanswered), and capped at Options.MaxResultTokens (Claude Code's
// 25,000-token cap on a Read by default). With a strategy that says what
// its next compaction can remove ([compact.Reclaimer], the default
// Tiered), that older history counts as room: the newest result is kept
// whole and the history before it compacted at the next request, rather
// than the result cut on arrival while older results stay.
//
// So the newest result uses the room the window has, and the request
// that carries it still compacts nothing: when a later result needs the
// room, the request-time compaction makes it from the older history
// first (Tiered's L1 cuts old results, Mask masks old rounds, Summarize
// summarizes), the newest round last.
func (e *Engine) resultRoom() int {
	ceiling := e.opts.MaxResultTokens
	if ceiling < 0 {
		return 0
	}
	if ceiling == 0 {
		ceiling = compact.DefaultMaxResultTokens
	}
	budget := e.w.Budget()
	if budget <= 0 {
		return 0
	}
	ratio := threshold(e.strategy)
	if ratio <= 0 || ratio > 1 {
		ratio = compact.DefaultSummaryThreshold
	}
	size := e.w.Size()
	if r, ok := e.strategy.(compact.Reclaimer); ok {
		size -= r.Reclaimable(e.w)
	}
	room := int(ratio*float64(budget)) - 1 - size - e.tailEstimate()
	room /= max(len(e.w.Unanswered()), 1)
	return max(min(room, ceiling), 0)
}

// tailEstimate returns the tokens the next request's tail may add to
// the window's size, at most: the tracker's section (its size for the
// tracker's state now, and a quarter more: the state, not the last
// request, decides, so that a resumed session sizes results as the
// uninterrupted one does), the working memory's share (contextTokens, whether its
// context is built yet or not) and the reminders (2 % of the budget, at
// least 128 tokens), with the framing of the message that carries them.
func (e *Engine) tailEstimate() int {
	n := 0
	if e.tracker != nil && !e.opts.NoTrackerSection {
		e.syncShown()
		_, t := e.tracker.SectionTokens() // cached while the state is unchanged
		n += t + t/4 + 64
	}
	if e.memRenders() {
		n += max(e.contextTokens(), 0)
	}
	if e.reminders != nil {
		n += max(e.w.Budget()/50, 128)
	}
	if n > 0 {
		n += e.w.Overhead().PerMessage + tailSlack
	}
	return n
}

// orphanAsUser turns a tool result that answers no call into user text,
// as OpenHands does with observations that answer no tool call.
func orphanAsUser(m chat.Message) chat.Message {
	r, _ := m.ToolResult()
	return chat.NewText(chat.RoleUser, fmt.Sprintf("[tool result for call %s (%s), whose call is not in the context]\n%s", r.ToolCallID, r.ToolName, r.Content))
}

// sameParts reports whether a and b share their parts: the limiter left
// the message as it was.
func sameParts(a, b chat.Message) bool {
	return len(a.Parts) == len(b.Parts) && (len(a.Parts) == 0 || &a.Parts[0] == &b.Parts[0])
}
