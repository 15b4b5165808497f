package transcript

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/jsonx"
)

// SWE-agent .traj (FORMATS.md §1).

type sweTraj struct {
	History      []json.RawMessage `json:"history"`
	ReplayConfig json.RawMessage   `json:"replay_config"`
}

type sweMsg struct {
	Role        roleName        `json:"role"`
	Content     json.RawMessage `json:"content"`
	Thought     *string         `json:"thought"`
	Action      *string         `json:"action"`
	ToolCalls   json.RawMessage `json:"tool_calls"`
	ToolCallIDs []string        `json:"tool_call_ids"`
	ToolCallID  string          `json:"tool_call_id"`
	// ThinkingBlocks are Anthropic thinking blocks (SWE-agent ≥ 1.0 with
	// extended thinking).
	ThinkingBlocks json.RawMessage `json:"thinking_blocks"`
}

// decodeSWE decodes a .traj and its history, one sweMsg per item (the
// zero sweMsg for an item that is not an object): in one pass when no
// value has an unexpected type, as in real files, else item by item, as
// far as each goes. Errors: a [*ParseError] for broken JSON.
func decodeSWE(data []byte, name string) (sweTraj, []sweMsg, error) {
	var fast struct {
		History      freshList[sweMsg] `json:"history"`
		ReplayConfig json.RawMessage   `json:"replay_config"`
	}
	err := jsonx.Unmarshal(data, &fast)
	switch {
	case err == nil && !fast.History.typeErr:
		return sweTraj{ReplayConfig: fast.ReplayConfig}, fast.History.items, nil
	case err != nil && !isTypeError(err):
		return sweTraj{}, nil, docError(data, name, err)
	}
	var doc sweTraj
	if err := decodeDoc(data, name, &doc); err != nil {
		return sweTraj{}, nil, err
	}
	msgs := make([]sweMsg, len(doc.History))
	for i, raw := range doc.History {
		if rawObject(raw) {
			_ = decodeLoose(raw, &msgs[i])
		}
	}
	return doc, msgs, nil
}

// readSWEAgent reads a SWE-agent trajectory from its history (what the
// model saw); trajectory[] and its per-step message copies are ignored.
//
// Function-calling style (any message has tool_calls or role tool): the
// history is OpenAI-shaped; a tool message answers each id of its
// tool_call_ids with the same content. Text-action style: an assistant
// message with a non-empty action gets content = thought (or the content
// without its last fenced block) and one synthesized call, id
// "swe-<index in history>", name the first word of the action, arguments
// {"command": action}; the user message right after it is that call's
// result. The is_demo user message is kept: it is part of the prompt.
func readSWEAgent(data []byte, name string) ([]*Trajectory, error) {
	doc, msgs, err := decodeSWE(data, name)
	if err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		return nil, &ParseError{File: name, Line: 1, Reason: "no SWE-agent history"}
	}
	// Function-calling style: a tool result or a tool call anywhere; the
	// first one found tells. Tool calls are decoded in the loop below,
	// once (but for those of that first message, also decoded here).
	var cd callDecoder
	fc := false
	for _, m := range msgs {
		if m.Role == "tool" || cd.decode(m.ToolCalls) > 0 {
			fc = true
			break
		}
	}
	t := &Trajectory{}
	t.ID, t.Model = sweReplayConfig(doc.ReplayConfig)
	var out []chat.Message
	pendingCall := "" // synthesized call awaiting its observation (text style)
	d := drops{}
	for i, m := range msgs {
		text, imgs := oaContentD(m.Content, d)
		switch m.Role {
		case "system":
			out = append(out, chat.Message{Role: chat.RoleSystem, Parts: textParts(text, imgs)})
			pendingCall = ""
		case "assistant":
			pendingCall = ""
			msg := chat.Message{Role: chat.RoleAssistant, Parts: thinkingBlocks(m.ThinkingBlocks)}
			if fc {
				msg.Parts = appendTextParts(msg.Parts, text, imgs)
				cd.decode(m.ToolCalls)
				for tc := range cd.calls() {
					msg.Parts = append(msg.Parts, tc)
				}
			} else if m.Action != nil && strings.TrimSpace(*m.Action) != "" {
				thought := ""
				if m.Thought != nil {
					thought = *m.Thought
				}
				if strings.TrimSpace(thought) == "" {
					thought = withoutLastFence(text)
				}
				id := "swe-" + strconv.Itoa(i)
				msg.Parts = append(msg.Parts, textParts(thought, imgs)...)
				msg.Parts = append(msg.Parts, chat.ToolCall{
					ID: id, Name: actionName(*m.Action, "bash"), Arguments: commandArgs(*m.Action),
				})
				pendingCall = id
			} else {
				msg.Parts = append(msg.Parts, textParts(text, imgs)...)
			}
			out = append(out, msg)
		case "tool":
			ids := m.ToolCallIDs
			if len(ids) == 0 && m.ToolCallID != "" {
				ids = []string{m.ToolCallID}
			}
			if len(ids) == 0 {
				out = append(out, chat.Message{Role: chat.RoleUser, Parts: textParts(text, imgs)})
			}
			for _, id := range ids {
				out = append(out, chat.NewToolResult(id, "", text, false))
			}
			pendingCall = ""
		default: // user, and anything unknown
			if pendingCall != "" {
				out = append(out, chat.NewToolResult(pendingCall, "", text, false))
				pendingCall = ""
				continue
			}
			out = append(out, chat.Message{Role: chat.RoleUser, Parts: textParts(text, imgs)})
		}
	}
	t.Messages = out
	if len(d) > 0 {
		t.Dropped = d
	}
	return []*Trajectory{t}, nil
}

// sweReplayConfig returns the problem id and the model name recorded in a
// replay_config, which is an object or a JSON string holding one.
func sweReplayConfig(raw json.RawMessage) (id, model string) {
	if !rawObject(raw) {
		s := str(raw)
		if !strings.HasPrefix(strings.TrimSpace(s), "{") {
			return "", ""
		}
		raw = json.RawMessage(s)
	}
	var rc struct {
		Agent struct {
			Model struct {
				Name      string `json:"name"`
				ModelName string `json:"model_name"`
			} `json:"model"`
		} `json:"agent"`
		ProblemStatement struct {
			ID string `json:"id"`
		} `json:"problem_statement"`
	}
	if decodeLoose(raw, &rc) != nil {
		return "", ""
	}
	model = rc.Agent.Model.Name
	if model == "" {
		model = rc.Agent.Model.ModelName
	}
	return rc.ProblemStatement.ID, model
}

// actionName is the first word of a text action, or def when it has none.
func actionName(action, def string) string {
	f := strings.Fields(action)
	if len(f) == 0 {
		return def
	}
	return f[0]
}

// commandArgs is {"command": action}.
func commandArgs(action string) json.RawMessage {
	b, _ := json.Marshal(struct {
		Command string `json:"command"`
	}{action}) // a struct of one string always marshals
	return b
}

// withoutLastFence returns text without its last fenced (```) block, the
// form SWE-agent text actions take, trimmed.
func withoutLastFence(text string) string {
	end := strings.LastIndex(text, "```")
	if end < 0 {
		return text
	}
	start := strings.LastIndex(text[:end], "```")
	if start < 0 {
		return text
	}
	return strings.TrimSpace(text[:start] + text[end+3:])
}
