package transcript

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

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
	Role             roleName        `json:"role"`
	Content          json.RawMessage `json:"content"`
	ToolCalls        json.RawMessage `json:"tool_calls"`
	ToolCallID       string          `json:"tool_call_id"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	ThinkingBlocks   json.RawMessage `json:"thinking_blocks"`
	Extra            *struct {
		Response json.RawMessage `json:"response"`
		// Returncode is the command's exit code on tool messages (0
		// where it is missing or null).
		Returncode count `json:"returncode"`
		// Actions are the commands of a text-style response, a list of
		// {"command": …}: read only in text style (see miniCommands).
		Actions       rawValues `json:"actions"`
		InterruptType string    `json:"interrupt_type"`
		// Timestamp is when the message was made, in Unix seconds
		// (mini-swe-agent 2.x): its [Trajectory].Times.
		Timestamp float64 `json:"timestamp"`
	} `json:"extra"`
}

// miniResponse is what an assistant message keeps of its
// extra.response, the model's response as LiteLLM returned it.
type miniResponse struct {
	ID    string               `json:"id"`
	Model string               `json:"model"`
	Usage looseObject[oaUsage] `json:"usage"`
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
	switch {
	case err == nil && !fast.Messages.typeErr:
		return miniDoc{Info: fast.Info, InstanceID: fast.InstanceID}, fast.Messages.items, nil
	case err != nil && !isTypeError(err):
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
// and stays text. A user message with interrupt_type "FormatError" and
// the discarded response in extra.response (mini-swe-agent ≥ 2.0) follows
// a model call that left no assistant message: that call is an assistant
// message without parts, with the response's usage, before it (so that
// the model calls match info.model_stats.api_calls).
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
	// Text style: no tool result and no tool call in the whole run; the
	// first one found tells. Tool calls are decoded in the loop below,
	// once (but for those of that first message, also decoded here).
	var cd callDecoder
	text := true
	for _, m := range msgs {
		if m.Role == "tool" || cd.decode(m.ToolCalls) > 0 {
			text = false
			break
		}
	}
	// At most one message per item (the exit record and items without a
	// role make none).
	out := make([]chat.Message, 0, len(msgs))
	var pending []string  // text style: synthesized calls awaiting results
	var resp miniResponse // each assistant message's, decoded into one value
	d := drops{}
	retries := 0
	md := meta{t: t}
	var ts time.Time
	for i, m := range msgs {
		md.stamp(len(out), ts)
		ts = time.Time{}
		if m.Extra != nil && m.Extra.Timestamp > 0 && m.Extra.Timestamp < 1e11 {
			ts = time.UnixMilli(int64(m.Extra.Timestamp * 1000)).UTC()
		}
		md.line("", "", ts)
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
			thinking := miniThinking(m)
			var cmds []string
			if text {
				cmds = miniCommands(m, content)
				if len(cmds) > 0 && bashBlock.MatchString(content) {
					content = withoutLastFence(content)
				}
			}
			ncalls := 0
			if !text {
				ncalls = cd.decode(m.ToolCalls)
			}
			// The parts, in a slice made to their number (none: nil).
			n := len(thinking) + len(imgs) + len(cmds) + ncalls
			if content != "" {
				n++
			}
			if n > 0 {
				msg.Parts = make([]chat.Part, 0, n)
			}
			msg.Parts = append(msg.Parts, thinking...)
			msg.Parts = appendTextParts(msg.Parts, content, imgs)
			if text {
				for k, cmd := range cmds {
					id := "swe-" + strconv.Itoa(i)
					if len(cmds) > 1 {
						id += "-" + strconv.Itoa(k)
					}
					msg.Parts = append(msg.Parts, chat.ToolCall{ID: id, Name: "bash", Arguments: commandArgs(cmd)})
					pending = append(pending, id)
				}
			} else {
				for tc := range cd.calls() {
					msg.Parts = append(msg.Parts, tc)
				}
			}
			if m.Extra != nil && rawObject(m.Extra.Response) {
				resp = miniResponse{}
				_ = decodeLoose(m.Extra.Response, &resp)
				msg.ID, msg.Model = resp.ID, resp.Model
				if resp.Usage.ok {
					msg.Usage = resp.Usage.v.toChat()
				}
			}
			out = append(out, msg)
		case "tool":
			out = append(out, chat.NewToolResult(m.ToolCallID, "", content, miniFailed(m)))
		default:
			if m.Extra != nil && m.Extra.InterruptType == miniFormatError && rawObject(m.Extra.Response) {
				// A format-error retry: the model was called, its
				// response discarded (not sent again) and this
				// feedback sent instead. The call is an assistant
				// message without parts, with the response's usage.
				resp = miniResponse{}
				_ = decodeLoose(m.Extra.Response, &resp)
				call := chat.Message{Role: chat.RoleAssistant, ID: resp.ID, Model: resp.Model}
				if resp.Usage.ok {
					call.Usage = resp.Usage.v.toChat()
				}
				out = append(out, call)
				retries++
			}
			interrupt := m.Extra != nil && m.Extra.InterruptType != ""
			if len(pending) > 0 && !interrupt {
				out = append(out, chat.NewToolResult(pending[0], "", content, miniFailed(m)))
				pending = pending[1:]
				continue
			}
			out = append(out, chat.Message{Role: chat.RoleUser, Parts: textParts(content, imgs)})
		}
	}
	md.stamp(len(out), ts)
	if len(out) > 0 {
		t.Messages = out
	}
	md.finish(len(t.Messages))
	if len(d) > 0 {
		t.Dropped = d
	}
	if retries > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d format-error retries: model calls whose response mini-swe-agent discarded, each an assistant message without content before its feedback", retries))
	}
	return []*Trajectory{t}, nil
}

// miniFormatError is the interrupt_type of the user message
// mini-swe-agent sends back when a response is not in the expected format;
// its extra holds the discarded response and its cost
// (github.com/SWE-agent/mini-swe-agent, src/minisweagent/models/
// litellm_model.py query: "all model.query() implementations must persist
// the response and cost on FormatError"; models/utils/actions_toolcall.py).
const miniFormatError = "FormatError"

func miniFailed(m miniMsg) bool {
	return m.Extra != nil && m.Extra.Returncode != 0
}

// miniCommands returns the commands of a text-style response: extra.actions
// where recorded, else the single fenced bash block (none when there are
// zero or several: mini-swe-agent rejects those as format errors).
func miniCommands(m miniMsg, content string) []string {
	if m.Extra != nil && len(m.Extra.Actions) > 0 {
		var actions []struct {
			Command string `json:"command"`
		}
		m.Extra.Actions.decode(&actions)
		if len(actions) > 0 {
			out := make([]string, 0, len(actions))
			for _, a := range actions {
				out = append(out, a.Command)
			}
			return out
		}
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
