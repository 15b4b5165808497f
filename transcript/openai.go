package transcript

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/jsonx"
)

// Plain OpenAI chat message arrays, tau-bench trajectories (FORMATS.md §5).

type oaConversation struct {
	Messages   json.RawMessage `json:"messages"`
	Traj       json.RawMessage `json:"traj"`
	Tools      json.RawMessage `json:"tools"`
	Functions  json.RawMessage `json:"functions"`
	ID         json.RawMessage `json:"id"`
	InstanceID json.RawMessage `json:"instance_id"`
	TaskID     json.RawMessage `json:"task_id"`
	Model      json.RawMessage `json:"model"`
	Role       string          `json:"role"`
}

type oaMsg struct {
	Role         string          `json:"role"`
	Content      json.RawMessage `json:"content"`
	Name         string          `json:"name"`
	ToolCalls    json.RawMessage `json:"tool_calls"`
	ToolCallID   string          `json:"tool_call_id"`
	FunctionCall *struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function_call"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	Reasoning        json.RawMessage `json:"reasoning"`
	// Message is not OpenAI's: a record that wraps its message (Cursor
	// agent transcripts, pi sessions) has it; seen only to say so.
	Message json.RawMessage `json:"message"`
}

// readOpenAI reads OpenAI chat messages in any of the container shapes
// [FormatOpenAI] lists. Each conversation is a [Trajectory] whose Index is
// its position in the file (array element or non-blank line). Messages
// follow the chat-completions shape: content is a string, null or an array
// of parts; tool_calls arguments are JSON strings (parsed); role tool
// answers tool_call_id (when missing, the first unanswered call of the
// last assistant message); legacy role function answers the last
// unanswered function_call of that name (given a synthesized id "fn-<i>").
// Problems (bad lines) are reported on the first trajectory.
func readOpenAI(data []byte, name string) ([]*Trajectory, error) {
	trimmed := bytes.TrimSpace(data)
	if !looksJSONL(trimmed) {
		return readOpenAIDoc(data, trimmed, name)
	}
	recs, probs := splitLines(data, name)
	if len(recs) == 0 {
		return nil, noRecords(name, probs, "OpenAI")
	}
	var out []*Trajectory
	var lone *Trajectory // conversation built from one-message lines
	var loneMsgs []json.RawMessage
	for i, rec := range recs {
		idx := i
		if !jsonx.Valid(rec.raw) {
			probs = append(probs, jsonProblem(name, rec))
			continue
		}
		switch {
		case rawArray(rec.raw):
			out = append(out, oaTrajectory(idx, oaConversation{Messages: rec.raw}))
		case rawObject(rec.raw):
			var c oaConversation
			_ = decodeLoose(rec.raw, &c)
			switch {
			case rawArray(c.Messages) || rawArray(c.Traj):
				out = append(out, oaTrajectory(idx, c))
			case c.Role != "":
				if lone == nil {
					lone = &Trajectory{Index: idx}
					out = append(out, lone)
				}
				loneMsgs = append(loneMsgs, rec.raw)
			default:
				probs = append(probs, recProblem(name, rec, "not an OpenAI conversation or message"))
			}
		default:
			probs = append(probs, recProblem(name, rec, "not an OpenAI conversation or message"))
		}
	}
	if lone != nil {
		oaMessages(lone, loneMsgs)
	}
	if len(out) == 0 {
		return nil, noRecords(name, probs, "OpenAI")
	}
	sortProblems(probs)
	out[0].Problems = probs
	return out, nil
}

func readOpenAIDoc(data, trimmed []byte, name string) ([]*Trajectory, error) {
	if rawObject(trimmed) {
		var c oaConversation
		if err := decodeDoc(data, name, &c); err != nil {
			return nil, err
		}
		if c.Role != "" {
			t := &Trajectory{}
			oaMessages(t, []json.RawMessage{trimmed})
			return []*Trajectory{t}, nil
		}
		if !rawArray(c.Messages) && !rawArray(c.Traj) {
			return nil, &ParseError{File: name, Line: 1, Reason: "no OpenAI messages (an object needs \"messages\" or \"traj\")"}
		}
		return []*Trajectory{oaTrajectory(0, c)}, nil
	}
	var items []json.RawMessage
	if err := decodeDoc(data, name, &items); err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, &ParseError{File: name, Line: 1, Reason: "no OpenAI messages (empty array)"}
	}
	if oaIsMessage(items[0]) {
		t := &Trajectory{}
		oaMessages(t, items)
		return []*Trajectory{t}, nil
	}
	var out []*Trajectory
	for i, it := range items {
		switch {
		case rawArray(it):
			out = append(out, oaTrajectory(i, oaConversation{Messages: it}))
		case rawObject(it):
			var c oaConversation
			_ = decodeLoose(it, &c)
			out = append(out, oaTrajectory(i, c))
		}
	}
	return out, nil
}

func oaIsMessage(raw json.RawMessage) bool {
	if !rawObject(raw) {
		return false
	}
	var c oaConversation
	_ = decodeLoose(raw, &c)
	return c.Role != "" && c.Messages == nil && c.Traj == nil
}

func oaTrajectory(index int, c oaConversation) *Trajectory {
	t := &Trajectory{Index: index}
	list := c.Messages
	if !rawArray(list) {
		list = c.Traj
	}
	var items []json.RawMessage
	if rawArray(list) {
		_ = decodeLoose(list, &items)
	}
	oaMessages(t, items)
	t.Tools = toolDefs(c.Tools)
	if t.Tools == nil {
		t.Tools = toolDefs(c.Functions)
	}
	t.ID = firstNonEmpty(str(c.ID), str(c.InstanceID), str(c.TaskID))
	t.Model = str(c.Model)
	return t
}

// oaMessages converts chat-completions messages into t.Messages. What it
// leaves out is counted in t.Dropped: an item that is not an object or
// has no role, a content part of an unknown type. Anthropic content
// blocks (tool_use, tool_result: a Cline/Roo api_conversation_history
// .json, an Anthropic messages array) make t refused: read as OpenAI,
// every tool call and result would be lost.
func oaMessages(t *Trajectory, items []json.RawMessage) {
	d := drops{}
	defer func() {
		if len(d) > 0 {
			t.Dropped = d
		}
	}()
	var out []chat.Message
	defer func() { t.Messages = out }()
	var open []string               // unanswered call ids of the last assistant message
	fnOpen := map[string][]string{} // legacy function_call name -> synthesized ids
	for i, raw := range items {
		if !rawObject(raw) {
			d.add(dropNoRole)
			continue
		}
		var m oaMsg
		_ = decodeLoose(raw, &m)
		if m.Role == "" {
			d.add(dropNoRole)
			continue
		}
		if m.Content == nil && m.ToolCalls == nil && m.FunctionCall == nil && rawObject(m.Message) {
			d.add(dropWrapped)
			continue
		}
		text, imgs := oaContentD(m.Content, d)
		switch m.Role {
		case "system", "developer":
			out = append(out, chat.Message{Role: chat.RoleSystem, Parts: textParts(text, imgs), Name: m.Name})
		case "assistant":
			msg := chat.Message{Role: chat.RoleAssistant, Name: m.Name}
			if s := firstNonEmpty(str(m.ReasoningContent), str(m.Reasoning)); s != "" {
				msg.Parts = append(msg.Parts, chat.Thinking{Text: s})
			}
			msg.Parts = append(msg.Parts, textParts(text, imgs)...)
			open = open[:0]
			for _, tc := range oaToolCalls(m.ToolCalls) {
				msg.Parts = append(msg.Parts, tc)
				open = append(open, tc.ID)
			}
			if fc := m.FunctionCall; fc != nil && fc.Name != "" {
				id := "fn-" + strconv.Itoa(i)
				msg.Parts = append(msg.Parts, chat.ToolCall{ID: id, Name: fc.Name, Arguments: parseArgs(fc.Arguments)})
				fnOpen[fc.Name] = append(fnOpen[fc.Name], id)
			}
			out = append(out, msg)
		case "tool":
			id := m.ToolCallID
			if id == "" && len(open) > 0 {
				id = open[0]
			}
			if k := slices.Index(open, id); k >= 0 {
				open = slices.Delete(open, k, k+1)
			}
			out = append(out, chat.NewToolResult(id, m.Name, oaResultText(text, imgs), false))
		case "function":
			ids := fnOpen[m.Name]
			id := ""
			if n := len(ids); n > 0 {
				id, fnOpen[m.Name] = ids[n-1], ids[:n-1]
			}
			out = append(out, chat.NewToolResult(id, m.Name, oaResultText(text, imgs), false))
		default:
			out = append(out, chat.Message{Role: chat.RoleUser, Parts: textParts(text, imgs), Name: m.Name})
		}
	}
}

func oaResultText(text string, imgs []chat.Image) string {
	for range imgs {
		if text != "" {
			text += "\n"
		}
		text += "[image]"
	}
	return text
}
