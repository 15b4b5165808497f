package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/agentctx/agentctx/chat"
)

// decode fills req's decoded fields from its body, for either wire. The
// error says what did not decode; validation reports bodies the API would
// refuse first.
func (s *Server) decode(req *Request) error {
	var err error
	if req.Wire == WireAnthropic {
		err = decodeAnthropic(req)
	} else {
		err = decodeOpenAI(req)
	}
	if err == nil {
		req.PromptTokens = s.countPrompt(*req)
	}
	return err
}

// openAIRequest is the part of a chat-completions request the server reads.
type openAIRequest struct {
	Model               string               `json:"model"`
	Messages            []chat.OpenAIMessage `json:"messages"`
	MaxTokens           int                  `json:"max_tokens"`
	MaxCompletionTokens int                  `json:"max_completion_tokens"`
	Stream              bool                 `json:"stream"`
	StreamOptions       struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

func decodeOpenAI(req *Request) error {
	var v openAIRequest
	if err := json.Unmarshal(req.Body, &v); err != nil {
		return fmt.Errorf("decode request: %w", err)
	}
	req.Model, req.Stream = v.Model, v.Stream
	req.MaxTokens = max(v.MaxTokens, v.MaxCompletionTokens)
	for _, t := range v.Tools {
		req.Tools = append(req.Tools, chat.ToolDef{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	msgs, err := chat.FromOpenAI(v.Messages)
	if err != nil {
		return err
	}
	req.Messages = msgs
	return nil
}

// includeUsage reports whether a streamed request asked for the final
// usage chunk.
func includeUsage(body []byte) bool {
	var v openAIRequest
	_ = json.Unmarshal(body, &v)
	return v.StreamOptions.IncludeUsage
}

// openAIReply answers with a chat completion
// (https://platform.openai.com/docs/api-reference/chat/object) or, for
// "stream": true, with chat.completion.chunk events
// (https://platform.openai.com/docs/api-reference/chat-streaming): a
// first chunk with the role, content deltas, per tool call a chunk with
// its index, id, type and name followed by argument deltas, a chunk with
// the finish_reason, the usage chunk (empty choices) when
// stream_options.include_usage, then "data: [DONE]".
func (s *Server) openAIReply(w http.ResponseWriter, r *http.Request, req Request, rep Reply, model string) {
	id := fmt.Sprintf("chatcmpl-providertest-%d", req.N)
	created := time.Now().Unix()
	usage := chat.UsageToOpenAI(*rep.Usage)
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
		if rep.Text != "" || len(rep.ToolCalls) == 0 {
			msg["content"] = rep.Text
		}
		if len(rep.ToolCalls) > 0 {
			var calls []chat.OpenAIToolCall
			for _, c := range rep.ToolCalls {
				calls = append(calls, chat.OpenAIToolCall{ID: c.ID, Type: "function", Function: chat.OpenAIFunctionCall{Name: c.Name, Arguments: string(c.Arguments)}})
			}
			msg["tool_calls"] = calls
		}
		writeJSON(w, map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": rep.StopReason}},
			"usage":   usage,
		})
		return
	}
	withUsage := includeUsage(req.Body)
	sse := s.startSSE(w, r)
	chunk := func(delta map[string]any, finish any) bool {
		c := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		}
		if withUsage {
			c["usage"] = nil
		}
		b, _ := json.Marshal(c)
		return sse.event("", b)
	}
	if !chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil) {
		return
	}
	for _, part := range chunks(rep.Text, 8) {
		if !chunk(map[string]any{"content": part}, nil) {
			return
		}
	}
	for i, c := range rep.ToolCalls {
		first := map[string]any{"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}
		if !chunk(map[string]any{"tool_calls": []any{first}}, nil) {
			return
		}
		for _, part := range chunks(string(c.Arguments), 8) {
			if !chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": part}}}}, nil) {
				return
			}
		}
	}
	if !chunk(map[string]any{}, rep.StopReason) {
		return
	}
	if withUsage {
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model, "choices": []any{}, "usage": usage})
		if !sse.event("", b) {
			return
		}
	}
	sse.event("", []byte("[DONE]"))
}

// writeJSON writes a 200 JSON response.
func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
