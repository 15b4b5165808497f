package session

import (
	"fmt"

	"github.com/agentctx/agentctx/chat"
)

// Messages returns the conversation entries record, in order: the
// messages of each entry ([Entry.Messages]) put together the way the
// model saw them. entries should be resolved ([Resolve]); compact
// boundaries among them are kept as the point where merging restarts.
//
//   - Claude Code assistant lines that share a message.id are one model
//     response written one content block per line: they merge into one
//     assistant message at the first line's position, its usage the last
//     line's that has one (FORMATS.md §4). A tool call whose id the
//     message already holds is not added twice.
//   - A tool_use entry (seed 001) joins the assistant message it follows,
//     unless a user or system message came in between.
//   - A tool result from a Claude Code line, which does not name its tool,
//     takes the name of its call: the most recent unanswered call with
//     its id ([chat.Pair]). agentctx's own entries keep the name as it was
//     written.
//   - Claude Code's synthetic assistant lines (model "<synthetic>") are
//     skipped, as package transcript does.
//
// An entry whose message cannot be decoded is left out and reported as a
// [ProblemUnreadable] naming its line, byte offset and uuid; it never stops
// the rest. The messages share no memory with entries.
func Messages(entries []Entry) ([]chat.Message, []Problem) {
	c := newConverter()
	for i := range entries {
		c.add(i, &entries[i])
	}
	c.finish()
	out := make([]chat.Message, len(c.out))
	for i := range c.out {
		out[i] = c.out[i].msg
	}
	return out, c.probs
}

// convMsg is one message of a conversation and where it came from.
type convMsg struct {
	msg chat.Message
	// entry is the index of the entry that started the message.
	entry int
	// summary is true for a message of an isCompactSummary entry.
	summary bool
	// claude is true for a message read from Claude Code's form.
	claude bool
}

// converter turns entries into a conversation, one entry at a time.
type converter struct {
	out      []convMsg
	byID     map[string]int // Claude Code message.id -> index in out
	lastAsst int            // index in out of the assistant message a tool_use entry joins, or -1
	probs    []Problem
}

func newConverter() *converter {
	return &converter{byID: map[string]int{}, lastAsst: -1}
}

// add converts entries[i], e.
func (c *converter) add(i int, e *Entry) {
	if e.IsBoundary() {
		clear(c.byID)
		c.lastAsst = -1
		return
	}
	msgs, f, err := e.decode()
	if err != nil {
		c.probs = append(c.probs, entryProblem(e, ProblemUnreadable, false, "message cannot be decoded, entry skipped: %v", err))
		return
	}
	for _, m := range msgs {
		switch {
		case f == formSeed && e.Type == TypeToolUse:
			if c.lastAsst >= 0 {
				a := &c.out[c.lastAsst].msg
				a.Parts = append(a.Parts, m.Parts...)
				continue
			}
		case f == formClaude && m.Role == chat.RoleAssistant:
			if m.Model == syntheticModel {
				continue
			}
			if m.ID != "" {
				if k, ok := c.byID[m.ID]; ok {
					merge(&c.out[k].msg, m)
					c.lastAsst = k
					continue
				}
				c.byID[m.ID] = len(c.out)
			}
		}
		c.push(convMsg{msg: m, entry: i, summary: e.IsCompactSummary, claude: f == formClaude})
	}
}

// merge adds the parts of m, a later line of the same Claude Code
// response, to a.
func merge(a *chat.Message, m chat.Message) {
	have := map[string]bool{}
	for _, p := range a.Parts {
		if tc, ok := p.(chat.ToolCall); ok {
			have[tc.ID] = true
		}
	}
	for _, p := range m.Parts {
		if tc, ok := p.(chat.ToolCall); ok && have[tc.ID] {
			continue
		}
		a.Parts = append(a.Parts, p)
	}
	if m.Usage != nil {
		a.Usage = m.Usage
	}
	if a.Model == "" {
		a.Model = m.Model
	}
}

func (c *converter) push(cm convMsg) {
	switch cm.msg.Role {
	case chat.RoleAssistant:
		c.lastAsst = len(c.out)
	case chat.RoleUser, chat.RoleSystem:
		c.lastAsst = -1
	}
	c.out = append(c.out, cm)
}

// finish names the Claude Code tool results after their calls.
func (c *converter) finish() {
	need := false
	for i := range c.out {
		if c.out[i].claude && c.out[i].msg.Role == chat.RoleTool {
			need = true
			break
		}
	}
	if !need {
		return
	}
	msgs := make([]chat.Message, len(c.out))
	for i := range c.out {
		msgs[i] = c.out[i].msg
	}
	p := chat.Pair(msgs)
	for i, call := range p.CallOf {
		if call < 0 || !c.out[i].claude {
			continue
		}
		m := &c.out[i].msg
		if len(m.Parts) != 1 {
			continue
		}
		r, ok := m.Parts[0].(chat.ToolResult)
		if !ok || r.ToolName != "" {
			continue
		}
		for _, part := range msgs[call].Parts {
			if tc, ok := part.(chat.ToolCall); ok && tc.ID == r.ToolCallID {
				r.ToolName = tc.Name
			}
		}
		m.Parts = []chat.Part{r}
	}
}

// entryProblem returns a problem of kind about e, located at e's line.
func entryProblem(e *Entry, kind ProblemKind, repaired bool, format string, args ...any) Problem {
	return Problem{Kind: kind, Line: e.Line, Offset: e.Offset, UUID: e.UUID, Detail: fmt.Sprintf(format, args...), Repaired: repaired}
}
