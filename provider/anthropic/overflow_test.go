package anthropic_test

import (
	"errors"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/anthropic"
)

// Overflow bodies as the Messages API sends them (provider/overflow.go
// names the public issue each was copied from).
func TestContextOverflow(t *testing.T) {
	t.Parallel()
	const tooLong = `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"},"request_id":"req_011CVjxiYzEFcAQC4Fk87zw2"}`
	const withMaxTokens = `{"type":"error","error":{"type":"invalid_request_error","message":"input length and ` + "`max_tokens`" + ` exceed context limit: 188240 + 21333 > 200000, decrease input length or ` + "`max_tokens`" + ` and try again"},"request_id":"req_011CUB2XUHWkFnQzxcKBbjpF"}`
	const tooLarge = `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}`
	tests := []struct {
		name          string
		rep           reply
		stream        bool
		limit, tokens int
	}{
		{name: "prompt too long", rep: reply{status: 400, body: tooLong}, limit: 200000, tokens: 208310},
		{name: "prompt too long, streaming", rep: reply{status: 400, body: tooLong}, stream: true, limit: 200000, tokens: 208310},
		{name: "input and max_tokens", rep: reply{status: 400, body: withMaxTokens}, limit: 200000, tokens: 188240},
		{name: "input and max_tokens, streaming", rep: reply{status: 400, body: withMaxTokens}, stream: true, limit: 200000, tokens: 188240},
		{name: "413 request too large", rep: reply{status: 413, body: tooLarge}},
		{name: "413 request too large, streaming", rep: reply{status: 413, body: tooLarge}, stream: true},
		{
			name: "error event inside the stream",
			rep: reply{body: `event: message_start
data: {"type":"message_start","message":{"id":"msg_05","type":"message","role":"assistant","content":[],"model":"claude-test","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}

event: error
data: {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}

`},
			stream: true, limit: 200000, tokens: 208310,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, tt.rep)
			m := newModel(t, s.URL, anthropic.Options{})
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
			if errors.Is(err, provider.ErrBadRequest) || errors.Is(err, provider.ErrUnavailable) {
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
