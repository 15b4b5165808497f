package openai

import (
	"sort"
	"strings"

	"github.com/agentctx/agentctx/chat"
)

// wireChunk is one "chat.completion.chunk" event of a streamed reply
// (https://platform.openai.com/docs/api-reference/chat-streaming), with
// the "reasoning_content" delta of DeepSeek and Qwen.
type wireChunk struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          *string `json:"content"`
			ReasoningContent string  `json:"reasoning_content"`
			Refusal          string  `json:"refusal"`
			ToolCalls        []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *chat.OpenAIUsage `json:"usage"`
}

// accumulator reassembles the first choice of a streamed reply: content
// and reasoning deltas are concatenated, tool-call deltas are merged by
// index (the first delta of a call has its id and name, later ones append
// to its arguments), and the usage comes from the last chunk, which has
// no choices.
type accumulator struct {
	seen      bool
	id, model string
	finish    string
	content   strings.Builder
	hasText   bool
	reasoning strings.Builder
	refusal   strings.Builder
	calls     map[int]*chat.OpenAIToolCall
	usage     *chat.OpenAIUsage
}

// add folds c in and returns its content delta.
func (a *accumulator) add(c wireChunk) string {
	if c.ID != "" {
		a.id = c.ID
	}
	if c.Model != "" {
		a.model = c.Model
	}
	if c.Usage != nil {
		a.usage = c.Usage
	}
	var delta string
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		a.seen = true
		d := ch.Delta
		if d.Content != nil {
			a.hasText = true
			a.content.WriteString(*d.Content)
			delta += *d.Content
		}
		a.reasoning.WriteString(d.ReasoningContent)
		a.refusal.WriteString(d.Refusal)
		for _, tc := range d.ToolCalls {
			if a.calls == nil {
				a.calls = map[int]*chat.OpenAIToolCall{}
			}
			call := a.calls[tc.Index]
			if call == nil {
				call = &chat.OpenAIToolCall{Type: "function"}
				a.calls[tc.Index] = call
			}
			if tc.ID != "" {
				call.ID = tc.ID
			}
			if tc.Type != "" {
				call.Type = tc.Type
			}
			call.Function.Name += tc.Function.Name
			call.Function.Arguments += tc.Function.Arguments
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			a.finish = *ch.FinishReason
		}
	}
	return delta
}

// message returns the reassembled message.
func (a *accumulator) message() wireMessage {
	var w wireMessage
	w.Role = "assistant"
	if a.hasText && (a.content.Len() > 0 || len(a.calls) == 0) {
		w.Content = chat.OpenAIText(a.content.String())
	}
	w.ReasoningContent = a.reasoning.String()
	w.Refusal = a.refusal.String()
	idx := make([]int, 0, len(a.calls))
	for i := range a.calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		w.ToolCalls = append(w.ToolCalls, *a.calls[i])
	}
	return w
}
