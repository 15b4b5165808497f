package transcript

import (
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/jsonx"
)

// mini-swe-agent .traj.json (FORMATS.md §2).

type miniDoc struct {
	Info       json.RawMessage   `json:"info"`
	Messages   []json.RawMessage `json:"messages"`
	InstanceID string            `json:"instance_id"`
}

type miniMsg struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ToolCalls        json.RawMessage `json:"tool_calls"`
	ToolCallID       string          `json:"tool_call_id"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	ThinkingBlocks   json.RawMessage `json:"thinking_blocks"`
	Extra            *struct {
		Response json.RawMessage `json:"response"`
		// Returncode is the command's exit code on tool messages.
		Returncode *count `json:"returncode"`
		Actions    []struct {
			Command string `json:"command"`
		} `json:"actions"`
		InterruptType string `json:"interrupt_type"`
	} `json:"extra"`
}

// decodeMini decodes a mini-swe-agent document (an object, or a bare
// array of messages) and its messages, one per item of messages[] (the
// zero miniMsg for an item that is not an object). It decodes the whole
// document in one pass when no value has an unexpected type, as in
// real files; else the messages one by one, as far as each goes. Errors:
// a [*ParseError] for broken JSON.
func decodeMini(data []byte, name string) (miniDoc, []miniMsg, error) {
	var fast struct {
		Info       json.RawMessage    `json:"info"`
		Messages   freshList[miniMsg] `json:"messages"`
		InstanceID string             `json:"instance_id"`
	}
	var err error
	if rawArray(data) {
		err = jsonx.Unmarshal(data, &fast.Messages)
	} else {
		err = jsonx.Unmarshal(data, &fast)
	}
	var te *json.UnmarshalTypeError
	switch {
	case err == nil && !fast.Messages.typeErr:
		return miniDoc{Info: fast.Info, InstanceID: fast.InstanceID}, fast.Messages.items, nil
	case err != nil && !errors.As(err, &te):
		return miniDoc{}, nil, docError(data, name, err)
	}
	var doc miniDoc
	if rawArray(data) {
		err = decodeDoc(data, name, &doc.Messages)
	} else {
		err = decodeDoc(data, name, &doc)
	}
	if err != nil {
		return miniDoc{}, nil, err
	}
	msgs := make([]miniMsg, len(doc.Messages))
	for i, raw := range doc.Messages {
		if rawObject(raw) {
			_ = decodeLoose(raw, &msgs[i])
		}
	}
	return doc, msgs, nil
}

// bashBlock matches the fenced command of a text-style response, the way
// mini-swe-agent finds it: ```bash (1.x) or ```mswea_bash_command (2.x).
var bashBlock = regexp.MustCompile("(?s)```(?:bash|mswea_bash_command)[ \t]*\r?\n(.*?)\r?\n```")

// readMiniSWEAgent reads a mini-swe-agent trajectory: the v2 object
// ({info, messages, trajectory_format, instance_id}) or the 1.x bare array
// of messages.
//
// Rules (FORMATS.md §2): system/user/assistant/tool keep their role, extra
// and provider fields are dropped, role "exit" is the end record and not a
// message. Usage per assistant message from extra.response.usage (OpenAI
// semantics: prompt_tokens includes cached_tokens). reasoning_content (or
// LiteLLM thinking_blocks) becomes a [chat.Thinking] part. A tool message's
// IsError is extra.returncode != 0. Text-style runs (no tool_calls at all:
// the 1.x array, v2 text mode) map like SWE-agent text actions: an
// assistant message with exactly one fenced bash block (or extra.actions)
// gets a call "swe-<index>" named "bash" with {"command": …} and keeps
// its text without that block, and the next
// user message that is not an injected interrupt (extra.interrupt_type)
// is its result; a response with no or several blocks was a format error
// and stays text.
func readMiniSWEAgent(data []byte, name string) ([]*Trajectory, error) {
	doc, msgs, err := decodeMini(data, name)
	if err != nil {
		return nil, err
	}
	t := &Trajectory{}
	if !rawArray(data) {
		t.ID = doc.InstanceID
		var info struct {
			InstanceID string `json:"instance_id"`
			Config     struct {
				Model struct {
					ModelName string `json:"model_name"`
				} `json:"model"`
			} `json:"config"`
		}
		if rawObject(doc.Info) {
			_ = decodeLoose(doc.Info, &info)
		}
		t.Model = info.Config.Model.ModelName
		if t.ID == "" {
			t.ID = info.InstanceID
		}
	}
	if len(msgs) == 0 {
		return nil, &ParseError{File: name, Line: 1, Reason: "no mini-swe-agent messages"}
	}
	// Each message's tool calls, decoded once (their arguments too).
	calls := make([][]chat.ToolCall, len(msgs))
	text := true
	for i, m := range msgs {
		calls[i] = oaToolCalls(m.ToolCalls)
		if m.Role == "tool" || len(calls[i]) > 0 {
			text = false
		}
	}
	var out []chat.Message
	var pending []string // text style: synthesized calls awaiting results
	d := drops{}
	for i, m := range msgs {
		content, imgs := oaContentD(m.Content, d)
		switch m.Role {
		case "exit":
			continue
		case "":
			d.add(dropNoRole)
			continue
		case "system", "developer":
			out = append(out, chat.Message{Role: chat.RoleSystem, Parts: textParts(content, imgs)})
		case "assistant":
			pending = pending[:0]
			msg := chat.Message{Role: chat.RoleAssistant}
			msg.Parts = append(msg.Parts, miniThinking(m)...)
			if text {
				cmds := miniCommands(m, content)
				if len(cmds) > 0 && bashBlock.MatchString(content) {
					content = withoutLastFence(content)
				}
				msg.Parts = append(msg.Parts, textParts(content, imgs)...)
				for k, cmd := range cmds {
					id := "swe-" + strconv.Itoa(i)
					if len(cmds) > 1 {
						id += "-" + strconv.Itoa(k)
					}
					msg.Parts = append(msg.Parts, chat.ToolCall{ID: id, Name: "bash", Arguments: commandArgs(cmd)})
					pending = append(pending, id)
				}
			} else {
				msg.Parts = append(msg.Parts, textParts(content, imgs)...)
				for _, tc := range calls[i] {
					msg.Parts = append(msg.Parts, tc)
				}
			}
			if m.Extra != nil && rawObject(m.Extra.Response) {
				var r struct {
					ID    string          `json:"id"`
					Model string          `json:"model"`
					Usage json.RawMessage `json:"usage"`
				}
				_ = decodeLoose(m.Extra.Response, &r)
				msg.ID, msg.Model, msg.Usage = r.ID, r.Model, usageFromOpenAI(r.Usage)
			}
			out = append(out, msg)
		case "tool":
			out = append(out, chat.NewToolResult(m.ToolCallID, "", content, miniFailed(m)))
		default:
			interrupt := m.Extra != nil && m.Extra.InterruptType != ""
			if len(pending) > 0 && !interrupt {
				out = append(out, chat.NewToolResult(pending[0], "", content, miniFailed(m)))
				pending = pending[1:]
				continue
			}
			out = append(out, chat.Message{Role: chat.RoleUser, Parts: textParts(content, imgs)})
		}
	}
	t.Messages = out
	if len(d) > 0 {
		t.Dropped = d
	}
	return []*Trajectory{t}, nil
}

func miniFailed(m miniMsg) bool {
	return m.Extra != nil && m.Extra.Returncode != nil && *m.Extra.Returncode != 0
}

// miniCommands returns the commands of a text-style response: extra.actions
// where recorded, else the single fenced bash block (none when there are
// zero or several: mini-swe-agent rejects those as format errors).
func miniCommands(m miniMsg, content string) []string {
	if m.Extra != nil && len(m.Extra.Actions) > 0 {
		var out []string
		for _, a := range m.Extra.Actions {
			out = append(out, a.Command)
		}
		return out
	}
	found := bashBlock.FindAllStringSubmatch(content, 2)
	if len(found) != 1 {
		return nil
	}
	return []string{strings.TrimSpace(found[0][1])}
}

func miniThinking(m miniMsg) []chat.Part {
	if parts := thinkingBlocks(m.ThinkingBlocks); len(parts) > 0 {
		return parts
	}
	if s := str(m.ReasoningContent); s != "" {
		return []chat.Part{chat.Thinking{Text: s}}
	}
	return nil
}

// thinkingBlocks reads LiteLLM's thinking_blocks (Anthropic thinking and
// redacted_thinking blocks passed through) as Thinking parts.
func thinkingBlocks(raw json.RawMessage) []chat.Part {
	if !rawArray(raw) {
		return nil
	}
	var blocks []struct {
		Type      string `json:"type"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
		Data      string `json:"data"`
	}
	_ = decodeLoose(raw, &blocks)
	var parts []chat.Part
	for _, b := range blocks {
		if b.Type == "redacted_thinking" {
			parts = append(parts, chat.Thinking{Encrypted: b.Data})
		} else if b.Thinking != "" || b.Signature != "" {
			parts = append(parts, chat.Thinking{Text: b.Thinking, Signature: b.Signature})
		}
	}
	return parts
}
