package provider_test

import (
	"errors"
	"testing"

	"github.com/agentctx/agentctx/provider"
)

// Messages and bodies quoted from real responses; overflow.go names the
// issue each comes from.
func TestParseOverflow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		status        int
		code, message string
		limit, tokens int
		ok            bool
	}{
		{"anthropic prompt too long", 400, "invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum", 200000, 208310, true},
		{"anthropic input and max_tokens", 400, "invalid_request_error", "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again", 200000, 188240, true},
		{"anthropic 413", 413, "request_too_large", "Request exceeds the maximum size", 0, 0, true},
		{"anthropic 413 code mid-stream", 0, "request_too_large", "Request exceeds the maximum size", 0, 0, true},
		{"openai resulted in", 400, "context_length_exceeded", "This model's maximum context length is 128000 tokens. However, your messages resulted in 130563 tokens. Please reduce the length of the messages.", 128000, 130563, true},
		{"openai requested with completion", 400, "context_length_exceeded", "This model's maximum context length is 128000 tokens. However, you requested 131000 tokens (127000 in the messages, 4000 in the completion). Please reduce the length of the messages or completion.", 128000, 127000, true},
		{"openai functions", 400, "context_length_exceeded", "This model's maximum context length is 8192 tokens. However, you requested 8213 tokens (6683 in the messages, 730 in the functions, and 800 in the completion). Please reduce the length of the messages, functions, or completion.", 8192, 7413, true},
		{"openai messages and functions", 400, "context_length_exceeded", "This model's maximum context length is 128000 tokens. However, your messages resulted in 202868 tokens (202767 in the messages, 101 in the functions). Please reduce the length of the messages or functions.", 128000, 202868, true},
		{"openai responses style", 400, "context_length_exceeded", "Your input exceeds the context window of this model. Please adjust your input and try again.", 0, 0, true},
		{"deepseek", 400, "invalid_request_error", "This model's maximum context length is 65536 tokens. However, you requested 66343 tokens (62247 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.", 65536, 62247, true},
		{"vllm requested", 400, "BadRequestError", "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.", 4096, 4000, true},
		{"vllm decoder prompt", 500, "", "The decoder prompt (length 17772) is longer than the maximum model length of 16384. Make sure that `max_model_len` is no smaller than the number of text tokens.", 16384, 17772, true},
		{"vllm model context length", 400, "BadRequestError", "The prompt is longer than the model's context length", 0, 0, true},
		{"llama.cpp new", 400, "exceed_context_size_error", "request (8708 tokens) exceeds the available context size (8192 tokens), try increasing it", 8192, 8708, true},
		{"llama.cpp old 500", 500, "exceed_context_size_error", "the request exceeds the available context size. try increasing the context size or enable context shift", 0, 0, true},
		{"dashscope", 400, "invalid_parameter_error", "<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 30720]", 30720, 0, true},
		{"gemini", 400, "", "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).", 1048576, 1200293, true},
		{"string above max length", 400, "string_above_max_length", "Invalid 'messages[0].content': string too long. Expected a string with maximum length 10485760, but got a string with length 62114761 instead.", 0, 0, false},
		{"tpm rate limit", 429, "rate_limit_exceeded", "Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 36000.", 0, 0, false},
		{"auth", 401, "invalid_api_key", "Incorrect API key provided", 0, 0, false},
		{"other bad request", 400, "invalid_request_error", "max_tokens: Field required", 0, 0, false},
		{"model not found", 404, "model_not_found", "The model `gpt-9` does not exist", 0, 0, false},
		{"absurd number", 400, "", "prompt is too long: 99999999999999999999999 tokens > 200000 maximum", 200000, 0, true},
		{"empty", 400, "", "", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			limit, tokens, ok := provider.ParseOverflow(tt.status, tt.code, tt.message)
			if limit != tt.limit || tokens != tt.tokens || ok != tt.ok {
				t.Errorf("ParseOverflow = (%d, %d, %v), want (%d, %d, %v)", limit, tokens, ok, tt.limit, tt.tokens, tt.ok)
			}
			want := tt.ok
			if got := errors.Is(provider.Classify(tt.status, tt.code, tt.message), provider.ErrContextOverflow); got != want {
				t.Errorf("Classify is overflow = %v, want %v", got, want)
			}
		})
	}
}

func TestParseOverflowBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		status        int
		body          string
		limit, tokens int
		ok            bool
	}{
		{"anthropic", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 219898 tokens > 200000 maximum"},"request_id":"req_011CVjxiYzEFcAQC4Fk87zw2"}`, 200000, 219898, true},
		{"llama.cpp old with fields", 500, `{"error":{"code":500,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":1407,"n_ctx":256}}`, 256, 1407, true},
		{"vllm top level", 400, `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`, 4096, 4000, true},
		{"ollama native string", 400, `{"error":"request (351 tokens) exceeds the available context size (256 tokens), try increasing it"}`, 256, 351, true},
		{"plain text 413", 413, `<html>413 Request Entity Too Large</html>`, 0, 0, true},
		{"not json", 400, `{`, 0, 0, false},
		{"other", 400, `{"error":{"message":"Unrecognized request argument supplied: foo","type":"invalid_request_error","param":null,"code":null}}`, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			limit, tokens, ok := provider.ParseOverflowBody(tt.status, []byte(tt.body))
			if limit != tt.limit || tokens != tt.tokens || ok != tt.ok {
				t.Errorf("ParseOverflowBody = (%d, %d, %v), want (%d, %d, %v)", limit, tokens, ok, tt.limit, tt.tokens, tt.ok)
			}
		})
	}
}

func FuzzParseOverflowBody(f *testing.F) {
	f.Add(400, []byte(`{"error":{"code":400,"message":"request (8708 tokens) exceeds the available context size (8192 tokens)","n_ctx":8192}}`))
	f.Add(400, []byte(`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 1 tokens > 0 maximum"}}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		limit, tokens, _ := provider.ParseOverflowBody(status, body)
		if limit < 0 || tokens < 0 {
			t.Fatalf("negative numbers: %d, %d", limit, tokens)
		}
	})
}
