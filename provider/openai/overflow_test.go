package openai_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/openai"
)

// Overflow bodies as the servers send them (provider/overflow.go names
// the public issue each was copied from).
func TestContextOverflow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		rep           reply
		stream        bool
		limit, tokens int
	}{
		{
			name:  "openai resulted in",
			rep:   reply{status: 400, body: `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130563 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`},
			limit: 128000, tokens: 130563,
		},
		{
			name:   "openai requested, streaming",
			rep:    reply{status: 400, body: `{"error":{"message":"This model's maximum context length is 128000 tokens. However, you requested 131000 tokens (127000 in the messages, 4000 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`},
			stream: true, limit: 128000, tokens: 127000,
		},
		{
			name: "responses style",
			rep:  reply{status: 400, body: `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`},
		},
		{
			name:  "deepseek",
			rep:   reply{status: 400, body: `{"error":{"message":"This model's maximum context length is 65536 tokens. However, you requested 66343 tokens (62247 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`},
			limit: 65536, tokens: 62247,
		},
		{
			name:  "vllm top-level error object",
			rep:   reply{status: 400, body: `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`},
			limit: 4096, tokens: 4000,
		},
		{
			name:   "llama.cpp",
			rep:    reply{status: 400, body: `{"error":{"code":400,"message":"request (8708 tokens) exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":8708,"n_ctx":8192}}`},
			stream: true, limit: 8192, tokens: 8708,
		},
		{
			name:  "old llama.cpp answers 500 and is not retried",
			rep:   reply{status: 500, body: `{"error":{"code":500,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":1407,"n_ctx":256}}`},
			limit: 256, tokens: 1407,
		},
		{
			name:  "dashscope",
			rep:   reply{status: 400, body: `{"error":{"code":"invalid_parameter_error","param":null,"message":"<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 30720]","type":"invalid_request_error"},"id":"chatcmpl-1","request_id":"1"}`},
			limit: 30720,
		},
		{
			name:  "server asks for a retry of an overflow",
			rep:   reply{status: 400, header: map[string]string{"x-should-retry": "true"}, body: `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 8202 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`},
			limit: 8192, tokens: 8202,
		},
		{
			name:   "mid-stream error event",
			rep:    reply{body: "data: {\"error\":{\"code\":400,\"message\":\"request (8708 tokens) exceeds the available context size (8192 tokens), try increasing it\",\"type\":\"exceed_context_size_error\",\"n_prompt_tokens\":8708,\"n_ctx\":8192}}\n\n"},
			stream: true, limit: 8192, tokens: 8708,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, tt.rep)
			m := newModel(t, s.URL, openai.Options{})
			req := provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "Summarize the repository.")}}
			var err error
			if tt.stream {
				_, err = m.Stream(t.Context(), req, nil)
			} else {
				_, err = m.Send(t.Context(), req)
			}
			if !errors.Is(err, provider.ErrContextOverflow) {
				t.Fatalf("err = %v, want ErrContextOverflow", err)
			}
			if errors.Is(err, provider.ErrBadRequest) || errors.Is(err, provider.ErrUnknownModel) {
				t.Errorf("err = %v, also another sentinel", err)
			}
			var apiErr *provider.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, not an *APIError", err)
			}
			if apiErr.Limit != tt.limit || apiErr.PromptTokens != tt.tokens {
				t.Errorf("Limit, PromptTokens = %d, %d, want %d, %d", apiErr.Limit, apiErr.PromptTokens, tt.limit, tt.tokens)
			}
			if n := len(s.requests()); n != 1 {
				t.Errorf("%d requests, want 1: an overflow is not retried", n)
			}
		})
	}
}

func TestStringAboveMaxLengthIsBadRequest(t *testing.T) {
	t.Parallel()
	s := newServer(t, reply{status: http.StatusBadRequest, body: `{"error":{"message":"Invalid 'messages[0].content': string too long. Expected a string with maximum length 10485760, but got a string with length 62114761 instead.","type":"invalid_request_error","param":"messages[0].content","code":"string_above_max_length"}}`})
	m := newModel(t, s.URL, openai.Options{})
	_, err := m.Send(t.Context(), provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "x")}})
	if !errors.Is(err, provider.ErrBadRequest) || errors.Is(err, provider.ErrContextOverflow) {
		t.Errorf("err = %v, want ErrBadRequest only", err)
	}
}
