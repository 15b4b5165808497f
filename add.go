package agentctx

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
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
//   - for a tool result, sized by the tool-result limiter at the window's
//     usage ratio (the full output is kept in the session, or in memory
//     without a store, for [Engine.Recall]);
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
	if turnEnd && e.rec != nil {
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

// countCall counts one model call in a stateful strategy's state (the
// summarizing guard's spacing): one per request committed, or per reply
// to a request this engine did not commit.
func (e *Engine) countCall() {
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
	e.observe(m)
	orig := m
	limited := e.stats.LimitedTokens
	if !e.opts.NoLimit {
		m = e.limit(m)
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

// limit passes a tool message through the tool-result limiter at the
// window's usage ratio.
func (e *Engine) limit(m chat.Message) chat.Message {
	r, ok := m.ToolResult()
	if !ok || m.Role != chat.RoleTool {
		return m
	}
	out, info := compact.LimitToolResultWith(r, r.ToolName, e.w.Ratio(), compact.LimitOptions{RecallTool: e.recallTool})
	if !info.Cut {
		return m
	}
	e.stats.LimitedResults++
	e.stats.LimitedChars += info.Chars - info.KeptChars
	// Counted whole first: the window's count of the cut message then
	// finds most of its lines counted (token.LineMemo).
	e.stats.LimitedTokens += e.w.Count(m)
	m = m.Clone()
	m.Parts = []chat.Part{out}
	return m
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
