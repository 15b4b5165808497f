package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/agentctx/agentctx/chat"
)

// anthropicRequest is the part of a Messages request the server reads.
type anthropicRequest struct {
	Model     string                  `json:"model"`
	MaxTokens int                     `json:"max_tokens"`
	System    chat.AnthropicContent   `json:"system"`
	Messages  []chat.AnthropicMessage `json:"messages"`
	Stream    bool                    `json:"stream"`
	Tools     []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
}

func decodeAnthropic(req *Request) error {
	var v anthropicRequest
	if err := json.Unmarshal(req.Body, &v); err != nil {
		return fmt.Errorf("decode request: %w", err)
	}
	req.Model, req.MaxTokens, req.Stream = v.Model, v.MaxTokens, v.Stream
	for _, t := range v.Tools {
		req.Tools = append(req.Tools, chat.ToolDef{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	msgs, err := chat.FromAnthropic(v.System, v.Messages)
	if err != nil {
		return err
	}
	req.Messages = msgs
	return nil
}

// anthropicUsage is the response's "usage" object.
func anthropicUsage(u chat.Usage) map[string]any {
	a := chat.UsageToAnthropic(u)
	return map[string]any{
		"input_tokens": a.InputTokens, "output_tokens": a.OutputTokens,
		"cache_creation_input_tokens": a.CacheCreationInputTokens, "cache_read_input_tokens": a.CacheReadInputTokens,
	}
}

// anthropicContent is the reply's content blocks.
func anthropicContent(rep Reply) []any {
	var out []any
	if rep.Text != "" || len(rep.ToolCalls) == 0 {
		out = append(out, map[string]any{"type": "text", "text": rep.Text})
	}
	for _, c := range rep.ToolCalls {
		out = append(out, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(c.Arguments)})
	}
	return out
}

// anthropicStart is the data of a message_start event: the message with
// empty content, the input usage and output_tokens 1, as the API sends it.
func (s *Server) anthropicStart(req Request, rep Reply, model string) []byte {
	u := chat.Usage{InputTokens: req.PromptTokens}
	if rep.Usage != nil {
		u = *rep.Usage
	}
	u.OutputTokens = 1
	b, _ := json.Marshal(map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_providertest_%d", req.N), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": anthropicUsage(u),
	}})
	return b
}

// anthropicReply answers with a message
// (https://docs.anthropic.com/en/api/messages) or, for "stream": true,
// with the documented event sequence
// (https://docs.anthropic.com/en/docs/build-with-claude/streaming):
// message_start, then per content block content_block_start,
// content_block_delta (text_delta, or input_json_delta for a tool_use),
// content_block_stop, then message_delta with the stop reason and usage,
// and message_stop; a ping follows the first block's start.
func (s *Server) anthropicReply(w http.ResponseWriter, r *http.Request, req Request, rep Reply, model string) {
	if !req.Stream {
		writeJSON(w, map[string]any{
			"id": fmt.Sprintf("msg_providertest_%d", req.N), "type": "message", "role": "assistant", "model": model,
			"content": anthropicContent(rep), "stop_reason": rep.StopReason, "stop_sequence": nil,
			"usage": anthropicUsage(*rep.Usage),
		})
		return
	}
	sse := s.startSSE(w, r)
	send := func(name string, v any) bool {
		b, _ := json.Marshal(v)
		return sse.event(name, b)
	}
	if !sse.event("message_start", s.anthropicStart(req, rep, model)) {
		return
	}
	index := 0
	if rep.Text != "" || len(rep.ToolCalls) == 0 {
		if !send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}}) ||
			!send("ping", map[string]any{"type": "ping"}) {
			return
		}
		for _, part := range chunks(rep.Text, 8) {
			if !send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": part}}) {
				return
			}
		}
		if !send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}) {
			return
		}
		index++
	}
	for _, c := range rep.ToolCalls {
		if !send("content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}}) {
			return
		}
		for _, part := range chunks(string(c.Arguments), 8) {
			if !send("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}}) {
				return
			}
		}
		if !send("content_block_stop", map[string]any{"type": "content_block_stop", "index": index}) {
			return
		}
		index++
	}
	if !send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": rep.StopReason, "stop_sequence": nil},
		"usage": anthropicUsage(*rep.Usage)}) {
		return
	}
	send("message_stop", map[string]any{"type": "message_stop"})
}
