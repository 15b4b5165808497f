package agentctx

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/reminder"
	"github.com/agentctx/agentctx/secret"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/track"
	"github.com/agentctx/agentctx/window"
	"github.com/agentctx/agentctx/workmem"
)

// savedState is the engine's persisted state, one session.TypeState entry:
// the tracker's state and the working memory's JSON under the keys
// `agentctx replay --save` writes, plus the engine's own.
type savedState struct {
	Tracker *track.State    `json:"tracker,omitempty"`
	Workmem json.RawMessage `json:"workmem,omitempty"`
	Engine  *engineState    `json:"engine,omitempty"`
	// Config is the engine's configuration: written when the session is
	// opened, when a Resume overrides it, when the budget changes, and
	// with every compaction (a load starts at the last compact boundary,
	// so the live part of a session always holds one).
	Config *engineConfig `json:"config,omitempty"`
	// Replay is set on the state a fork or a rewind writes right after
	// its boundary ([Engine.Fork], [Engine.Rewind]): it holds no
	// tracker or working memory, and a resume feeds every message of
	// the live part to them again instead of the messages after it.
	Replay bool `json:"replay,omitempty"`
}

// engineState is what the engine itself must carry across a resume.
type engineState struct {
	Reminders   *reminder.ManagerState `json:"reminders,omitempty"`
	Todos       []reminder.Todo        `json:"todos,omitempty"`
	TodoTool    bool                   `json:"todo_tool,omitempty"`
	Rehydration string                 `json:"rehydration,omitempty"`
	Compactions int                    `json:"compactions,omitempty"`
	// Pins are the pinned instructions ([Engine.Pin]) and NextPin the
	// number of the last pin made (ids are never reused).
	Pins    []Pin `json:"pins,omitempty"`
	NextPin int   `json:"next_pin,omitempty"`
	// Strategy is the state of a [compact.Stateful] strategy (its
	// MarshalState). The key is "summarize", the first such strategy's,
	// so that sessions written before stay readable.
	Strategy json.RawMessage `json:"summarize,omitempty"`
}

// state encodes the engine's state, with its configuration when
// withConfig.
func (e *Engine) state(withConfig bool) (json.RawMessage, error) {
	var s savedState
	if withConfig {
		s.Config = e.config()
	}
	if e.tracker != nil {
		st := e.tracker.State()
		s.Tracker = &st
	}
	if e.active != nil {
		raw, err := e.active.ToJSON()
		if err != nil {
			return nil, fmt.Errorf("agentctx: working memory: %w", err)
		}
		s.Workmem = raw
	}
	es := &engineState{Todos: e.todos, TodoTool: e.todoTool, Rehydration: e.rehydration, Compactions: e.compactions,
		Pins: e.pins, NextPin: e.nextPin}
	if st, ok := e.strategy.(compact.Stateful); ok {
		raw, err := st.MarshalState()
		if err != nil {
			return nil, fmt.Errorf("agentctx: strategy state: %w", err)
		}
		es.Strategy = raw
	}
	if e.reminders != nil {
		ms := e.reminders.State()
		es.Reminders = &ms
	}
	s.Engine = es
	return s.marshal()
}

// marshal returns json.Marshal(s), byte for byte, without passing the
// working memory's JSON through encoding/json again: json.Marshal checks
// and compacts a json.RawMessage member whole, and that was half of the
// state's cost at each turn end and compaction under the service's load
// (issue 29). s.Workmem is [workmem.ActiveContext.ToJSON]'s output,
// json.Marshal's own, so already compact with HTML escaped: what
// compacting it again would give. The members keep savedState's order.
func (s savedState) marshal() (json.RawMessage, error) {
	if s.Workmem == nil {
		return json.Marshal(s)
	}
	raw := s.Workmem
	s.Workmem = nil
	var head []byte
	if s.Tracker != nil {
		t, err := json.Marshal(s.Tracker)
		if err != nil {
			return nil, err
		}
		head = append(append([]byte(`{"tracker":`), t...), ',')
		s.Tracker = nil
	} else {
		head = []byte{'{'}
	}
	rest, err := json.Marshal(s) // {"engine":…,"config":…} or {}
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(head)+len(`"workmem":`)+len(raw)+len(rest))
	out = append(append(append(out, head...), `"workmem":`...), raw...)
	if len(rest) > 2 {
		out = append(append(out, ','), rest[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
}

// saveConfig appends the engine's state with its configuration.
func (e *Engine) saveConfig(ctx context.Context) error {
	return e.save(ctx, true)
}

// saveState appends the engine's state to the session.
func (e *Engine) saveState(ctx context.Context) error {
	return e.save(ctx, false)
}

func (e *Engine) save(ctx context.Context, withConfig bool) error {
	if e.rec == nil {
		return nil
	}
	st, err := e.state(withConfig)
	if err != nil {
		return err
	}
	if err := e.rec.SaveState(ctx, st); err != nil {
		return fmt.Errorf("agentctx: save state of %s: %w", e.id, err)
	}
	return nil
}

// restore rebuilds the engine from a loaded session: the window, then the
// last saved state, then what was written after that state.
func (e *Engine) restore(tr *session.Transcript) error {
	last := -1
	for i, en := range tr.Entries {
		if en.Type == session.TypeState && !en.IsSidechain {
			last = i
		}
	}
	after := tr.Entries[last+1:]
	replay := false
	if last >= 0 {
		var s savedState
		if err := json.Unmarshal(tr.Entries[last].State, &s); err != nil {
			e.warnings = append(e.warnings, fmt.Sprintf("resume: state at line %d unreadable, working memory starts empty: %v", tr.Entries[last].Line, err))
			after = tr.Entries
		} else {
			e.applyState(s)
			if s.Replay {
				// Written by a fork or a rewind: nothing of the live
				// part was observed yet.
				after, replay = tr.Entries, true
			}
		}
		e.rec.KeepState(tr.Entries[last].State)
	}
	e.rec.SetLag(session.StateLag(tr.Entries))
	// The window, with the reserve the live engine had between requests
	// (which depends on the rehydration block the state holds).
	w, problems, err := session.Restore(tr.Entries, window.Options{
		Budget: e.w.Budget(), Counter: e.windowCounter(), Reserved: e.baseReserve(), Classify: e.uses.Take, Peek: e.uses.Classify,
	})
	if err != nil {
		return err
	}
	e.w = w
	for _, p := range problems {
		e.warnings = append(e.warnings, fmt.Sprintf("resume: line %d (byte %d): %s: %s", p.Line, p.Offset, p.Kind, p.Detail))
	}
	// Reminders sent after the state was saved are not sent again.
	if e.reminders != nil {
		if rs := session.Reminders(after); len(rs) > 0 {
			sent := make([]reminder.Reminder, len(rs))
			for i, r := range rs {
				sent[i] = reminder.Reminder{Kind: r.Kind, Key: r.Key, Text: r.Text}
			}
			e.reminders.MarkSent(sent...)
		}
	}
	// Messages written after the state: feed them to the tracker and the
	// working memory again. Calls answered in them may have been made
	// before; pair against the window's earlier messages first.
	var tail []chat.Message
	for i := range after {
		en := &after[i]
		if en.IsSidechain {
			continue
		}
		ms, err := en.Messages()
		if err != nil {
			continue
		}
		tail = append(tail, ms...)
	}
	msgs := w.Messages()
	k := min(len(tail), len(msgs))
	for _, m := range msgs[:len(msgs)-k] {
		e.pair(m)
	}
	for _, m := range tail {
		e.observe(fullResult(after, m))
		if m.Role == chat.RoleAssistant && !replay {
			// The replies added since the state was saved: their model
			// calls, as the live engine counted them.
			e.countCall()
		}
	}
	return nil
}

// fullResult returns tool message m with the full output the session
// kept for it (a [session.TypeToolOutput] entry among entries) when the
// limiter cut it, else m: the live engine observed the result before
// cutting it, and a resumed one must observe the same (the fleet test,
// internal/loadgen, compares them).
func fullResult(entries []session.Entry, m chat.Message) chat.Message {
	r, ok := m.ToolResult()
	if !ok || m.Role != chat.RoleTool {
		return m
	}
	full, ok := session.ToolOutput(entries, r.ToolCallID)
	if !ok {
		return m
	}
	m.Parts = []chat.Part{full}
	return m
}

// applyState loads a saved state.
func (e *Engine) applyState(s savedState) {
	if e.tracker != nil && s.Tracker != nil {
		e.tracker.SetState(*s.Tracker)
	}
	if !e.opts.NoWorkingMemory && len(s.Workmem) > 0 && string(s.Workmem) != "null" {
		if a, err := workmem.FromJSON(s.Workmem, e.memOptions()); err == nil {
			e.active = a
		} else {
			e.warnings = append(e.warnings, "resume: working memory unreadable, starting empty: "+err.Error())
		}
	}
	if s.Engine != nil {
		if e.reminders != nil && s.Engine.Reminders != nil {
			e.reminders.SetState(*s.Engine.Reminders)
		}
		e.todos, e.todoTool = s.Engine.Todos, e.todoTool || s.Engine.TodoTool
		e.rehydration, e.compactions = secret.Redact(s.Engine.Rehydration), s.Engine.Compactions
		e.pins, e.nextPin = nil, s.Engine.NextPin
		for _, p := range s.Engine.Pins {
			if p.ID != "" && p.Text != "" {
				e.pins = append(e.pins, Pin{ID: p.ID, Text: secret.Redact(p.Text)})
			}
		}
		if st, ok := e.strategy.(compact.Stateful); ok && len(s.Engine.Strategy) > 0 && string(s.Engine.Strategy) != "null" {
			if err := st.UnmarshalState(s.Engine.Strategy); err != nil {
				e.warnings = append(e.warnings, "resume: compaction strategy state unreadable, starting fresh: "+err.Error())
			}
		}
	}
}

// pair tracks the tool calls of a message already accounted for in the
// saved state, so that later results find their call.
func (e *Engine) pair(m chat.Message) {
	switch m.Role {
	case chat.RoleAssistant:
		for _, c := range m.ToolCalls() {
			e.open.Call(c.ID, c)
		}
	case chat.RoleTool:
		if r, ok := m.ToolResult(); ok {
			e.open.Result(r.ToolCallID)
		}
	}
}
