package anthropic

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentctx/agentctx/chat"
)

// wireEvent is one server-sent event of a streamed reply
// (https://docs.anthropic.com/en/docs/build-with-claude/streaming):
// message_start, content_block_start, content_block_delta,
// content_block_stop, message_delta, message_stop. ping and error events
// are handled by the SDK.
type wireEvent struct {
	Type         string                 `json:"type"`
	Message      *chat.AnthropicMessage `json:"message"`
	Index        int                    `json:"index"`
	ContentBlock *chat.AnthropicBlock   `json:"content_block"`
	Delta        struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *struct {
		InputTokens              *int `json:"input_tokens"`
		OutputTokens             *int `json:"output_tokens"`
		CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// accumulator reassembles a streamed message: message_start gives the id,
// model and input usage; each content block starts with its type (and a
// tool_use's id and name) and grows by deltas (text, thinking, signature,
// and partial_json for a tool_use's input, which is complete JSON only at
// the end); message_delta gives the stop reason and the cumulative usage.
type accumulator struct {
	started bool
	msg     chat.AnthropicMessage
	usage   chat.AnthropicUsage
	stop    string
	blocks  map[int]*chat.AnthropicBlock
	inputs  map[int]*strings.Builder
}

// add folds ev in and returns its text delta.
func (a *accumulator) add(ev wireEvent) (string, error) {
	switch ev.Type {
	case "message_start":
		if ev.Message == nil {
			return "", fmt.Errorf("message_start without a message")
		}
		a.started = true
		a.msg = *ev.Message
		if ev.Message.Usage != nil {
			a.usage = *ev.Message.Usage
		}
	case "content_block_start":
		if ev.ContentBlock == nil {
			return "", fmt.Errorf("content_block_start %d without a block", ev.Index)
		}
		if a.blocks == nil {
			a.blocks, a.inputs = map[int]*chat.AnthropicBlock{}, map[int]*strings.Builder{}
		}
		b := *ev.ContentBlock
		a.blocks[ev.Index] = &b
	case "content_block_delta":
		b := a.blocks[ev.Index]
		if b == nil {
			return "", fmt.Errorf("content_block_delta for block %d, which did not start", ev.Index)
		}
		switch ev.Delta.Type {
		case "text_delta":
			b.Text += ev.Delta.Text
			return ev.Delta.Text, nil
		case "thinking_delta":
			b.Thinking += ev.Delta.Thinking
		case "signature_delta":
			b.Signature += ev.Delta.Signature
		case "input_json_delta":
			sb := a.inputs[ev.Index]
			if sb == nil {
				sb = &strings.Builder{}
				a.inputs[ev.Index] = sb
			}
			sb.WriteString(ev.Delta.PartialJSON)
		}
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.stop = ev.Delta.StopReason
		}
		if u := ev.Usage; u != nil {
			set := func(dst *int, v *int) {
				if v != nil {
					*dst = *v
				}
			}
			set(&a.usage.InputTokens, u.InputTokens)
			set(&a.usage.OutputTokens, u.OutputTokens)
			set(&a.usage.CacheCreationInputTokens, u.CacheCreationInputTokens)
			set(&a.usage.CacheReadInputTokens, u.CacheReadInputTokens)
		}
	}
	return "", nil
}

// message returns the reassembled message.
func (a *accumulator) message() chat.AnthropicMessage {
	m := a.msg
	m.Content = nil
	idx := make([]int, 0, len(a.blocks))
	for i := range a.blocks {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		b := *a.blocks[i]
		if sb := a.inputs[i]; sb != nil && b.Type == "tool_use" {
			if s := strings.TrimSpace(sb.String()); s != "" {
				b.Input = json.RawMessage(s)
			}
		}
		m.Content = append(m.Content, b)
	}
	u := a.usage
	m.Usage = &u
	return m
}
