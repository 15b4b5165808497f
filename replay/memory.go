package replay

import (
	"encoding/json"
	"fmt"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/track"
	"github.com/agentctx/agentctx/window"
	"github.com/agentctx/agentctx/workmem"
)

// ContextTokens is the token budget of the ActiveContext rendering a replay
// reports ([Result].Context): what an engine would give working memory in
// a prompt of a few thousand tokens.
const ContextTokens = 2000

// memory is a replay's working memory: the runtime state tracker (seed
// 000) and ActiveContext (seed 002), fed every tool call and result as
// the agent saw them, before the tool-result limiter.
type memory struct {
	tracker *track.Tracker
	active  *workmem.ActiveContext
	// open holds the unanswered tool calls by id, most recent last, to
	// pair results the way chat.Pair does.
	open map[string][]chat.ToolCall
}

func newMemory(task string, counter token.Counter) *memory {
	return &memory{
		tracker: track.New(track.Options{}),
		active:  workmem.New(task, workmem.Options{Counter: counter}),
		open:    map[string][]chat.ToolCall{},
	}
}

// observe feeds one message of the trajectory.
func (m *memory) observe(msg chat.Message) {
	switch msg.Role {
	case chat.RoleAssistant:
		for _, c := range msg.ToolCalls() {
			m.open[c.ID] = append(m.open[c.ID], c)
		}
	case chat.RoleTool:
		r, ok := msg.ToolResult()
		if !ok {
			return
		}
		if stack := m.open[r.ToolCallID]; len(stack) > 0 {
			call := stack[len(stack)-1]
			if len(stack) == 1 {
				delete(m.open, r.ToolCallID)
			} else {
				m.open[r.ToolCallID] = stack[:len(stack)-1]
			}
			m.tracker.Record(call, r)
		}
	default:
		if msg.Role != chat.RoleUser {
			return
		}
	}
	m.active.ObserveMessage(msg)
}

// state is the working memory's persisted form: the tracker's state and
// ActiveContext's JSON, as a session's agentctx_state entry holds it.
func (m *memory) state() (json.RawMessage, error) {
	ac, err := m.active.ToJSON()
	if err != nil {
		return nil, fmt.Errorf("replay: working memory: %w", err)
	}
	return json.Marshal(struct {
		Tracker track.State     `json:"tracker"`
		Workmem json.RawMessage `json:"workmem"`
	}{m.tracker.State(), ac})
}

// limit passes a tool message through the tool-result limiter (seed 003)
// at the window's usage ratio, and reports what was cut.
func limit(w *window.Window, msg chat.Message, res *Result) chat.Message {
	r, ok := msg.ToolResult()
	if !ok || msg.Role != chat.RoleTool {
		return msg
	}
	out, info := compact.LimitToolResult(r, r.ToolName, w.Ratio())
	if !info.Cut {
		return msg
	}
	res.LimitedResults++
	res.LimitedChars += info.Chars - info.KeptChars
	msg = msg.Clone()
	msg.Parts = []chat.Part{out}
	return msg
}

// sameParts reports whether a and b share their parts: the limiter left
// the message as it was.
func sameParts(a, b chat.Message) bool {
	return len(a.Parts) == len(b.Parts) && (len(a.Parts) == 0 || &a.Parts[0] == &b.Parts[0])
}
