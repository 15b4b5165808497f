package providertest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/agentctx/agentctx/chat"
)

// Wire is a provider's wire format.
type Wire string

// The wire formats a [Server] speaks.
const (
	// WireOpenAI is the OpenAI chat-completions API
	// (https://platform.openai.com/docs/api-reference/chat/create).
	WireOpenAI Wire = "openai"
	// WireAnthropic is the Anthropic Messages API
	// (https://docs.anthropic.com/en/api/messages).
	WireAnthropic Wire = "anthropic"
)

// Request is one request a [Server] received, decoded. Plain data; the
// server hands each script call its own copy.
type Request struct {
	// N is the request's number, from 1, in the order the server received
	// them (a retry by the client is a new request).
	N int
	// Wire is the format it came in.
	Wire Wire
	// Model is the request's "model".
	Model string
	// Messages is the conversation in provider-neutral form, decoded with
	// chat.FromOpenAI or chat.FromAnthropic (Anthropic's "system" becomes
	// a leading system message). Nil when the body did not decode.
	Messages []chat.Message
	// Tools are the tool definitions sent.
	Tools []chat.ToolDef
	// MaxTokens is "max_tokens" (or OpenAI's "max_completion_tokens"); 0
	// when absent.
	MaxTokens int
	// Stream is "stream".
	Stream bool
	// PromptTokens is the server's count of the prompt in tokens (see
	// [Options.Counter]).
	PromptTokens int
	// Body is the raw request body.
	Body []byte
	// Header is the request's HTTP header.
	Header http.Header
}

// Reply is a script's answer: an assistant message (Text and ToolCalls,
// either may be empty) or, when Failure is non-nil, that failure.
type Reply struct {
	// Text is the assistant's text. Streamed in chunks of about 8 bytes.
	Text string
	// ToolCalls are the tool calls the assistant makes, in order. An empty
	// ID gets one in the provider's style ("call_…", "toolu_…"); nil
	// Arguments are sent as {}.
	ToolCalls []chat.ToolCall
	// Usage is the usage reported. Optional. Defaults to the server's
	// count: InputTokens = [Request.PromptTokens], OutputTokens = the
	// count of Text and the tool calls' names and arguments.
	Usage *chat.Usage
	// StopReason is the finish reason. Optional. Defaults to "tool_calls"
	// (OpenAI) or "tool_use" (Anthropic) when there are tool calls, else
	// "stop" or "end_turn".
	StopReason string
	// Failure, when non-nil, is sent instead of a message.
	Failure *Failure
}

// Failure is an injected error response: HTTP status, headers and the
// provider's error body. With MidStream set, a streaming request gets a
// 200 and the start of a stream (Anthropic: message_start) followed by
// the body as an error event (Anthropic: "event: error"; OpenAI: a
// "data:" line holding the error object, as vLLM and llama.cpp send);
// non-streaming requests get Status as usual.
type Failure struct {
	Status    int
	Header    http.Header
	Body      []byte
	MidStream bool
}

// Script decides the reply to each request that passed validation. It is
// called from the server's handler goroutines, one call per request, and
// may be called concurrently when the client sends concurrently.
type Script func(Request) Reply

// Fault fails one request without consulting the script: request number
// Request (from 1, retries included) gets Failure.
type Fault struct {
	Request int
	Failure Failure
}

// errorBody returns the provider's error body for an error type and
// message: OpenAI's {"error": {"message", "type", "param", "code"}}
// (https://platform.openai.com/docs/guides/error-codes) or Anthropic's
// {"type": "error", "error": {"type", "message"}}
// (https://docs.anthropic.com/en/api/errors).
func (w Wire) errorBody(typ, code, param, message string) []byte {
	var v any
	if w == WireAnthropic {
		v = map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": message}, "request_id": "req_providertest"}
	} else {
		nullable := func(s string) any {
			if s == "" {
				return nil
			}
			return s
		}
		v = map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nullable(param), "code": nullable(code)}}
	}
	b, _ := json.Marshal(v)
	return b
}

func jsonHeader() http.Header {
	return http.Header{"Content-Type": {"application/json"}}
}

// Overflow is the provider's answer to a prompt over the context window,
// limit and tokens in tokens: for OpenAI 400 context_length_exceeded
// "This model's maximum context length is {limit} tokens. However, your
// messages resulted in {tokens} tokens. Please reduce the length of the
// messages."; for Anthropic 400 invalid_request_error "prompt is too
// long: {tokens} tokens > {limit} maximum". Both are real bodies; see
// provider/overflow.go for where they were confirmed.
func (w Wire) Overflow(limit, tokens int) Failure {
	if w == WireAnthropic {
		return Failure{Status: http.StatusBadRequest, Header: jsonHeader(),
			Body: w.errorBody("invalid_request_error", "", "", fmt.Sprintf("prompt is too long: %d tokens > %d maximum", tokens, limit))}
	}
	return Failure{Status: http.StatusBadRequest, Header: jsonHeader(),
		Body: w.errorBody("invalid_request_error", "context_length_exceeded", "messages",
			fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", limit, tokens))}
}

// TooLarge is the provider's answer to a body over its size limit: 413
// with Anthropic's request_too_large "Request exceeds the maximum size"
// (https://docs.anthropic.com/en/api/errors) or, for OpenAI, the same
// status with an invalid_request_error.
func (w Wire) TooLarge() Failure {
	if w == WireAnthropic {
		return Failure{Status: http.StatusRequestEntityTooLarge, Header: jsonHeader(), Body: w.errorBody("request_too_large", "", "", "Request exceeds the maximum size")}
	}
	return Failure{Status: http.StatusRequestEntityTooLarge, Header: jsonHeader(), Body: w.errorBody("invalid_request_error", "request_too_large", "", "Request exceeds the maximum size")}
}

// RateLimited is a 429 with a "retry-after" header (whole seconds,
// rounded up) and "retry-after-ms": OpenAI's rate_limit_exceeded body or
// Anthropic's rate_limit_error body.
func (w Wire) RateLimited(retryAfter time.Duration) Failure {
	h := jsonHeader()
	h.Set("retry-after", strconv.Itoa(int(math.Ceil(retryAfter.Seconds()))))
	h.Set("retry-after-ms", strconv.FormatInt(retryAfter.Milliseconds(), 10))
	if w == WireAnthropic {
		return Failure{Status: http.StatusTooManyRequests, Header: h,
			Body: w.errorBody("rate_limit_error", "", "", "This request would exceed the rate limit for your organization of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.")}
	}
	return Failure{Status: http.StatusTooManyRequests, Header: h,
		Body: w.errorBody("tokens", "rate_limit_exceeded", "", "Rate limit reached for requests. Please try again in "+retryAfter.String()+".")}
}

// Overloaded is the provider's "try later": Anthropic's 529
// overloaded_error "Overloaded"; OpenAI's 503 "The engine is currently
// overloaded, please try again later.".
func (w Wire) Overloaded() Failure {
	if w == WireAnthropic {
		return Failure{Status: 529, Header: jsonHeader(), Body: w.errorBody("overloaded_error", "", "", "Overloaded")}
	}
	return Failure{Status: http.StatusServiceUnavailable, Header: jsonHeader(),
		Body: w.errorBody("server_error", "", "", "The engine is currently overloaded, please try again later.")}
}

// ServerError is a 500: Anthropic's api_error "Internal server error";
// OpenAI's server_error "The server had an error while processing your
// request. Sorry about that!".
func (w Wire) ServerError() Failure {
	if w == WireAnthropic {
		return Failure{Status: http.StatusInternalServerError, Header: jsonHeader(), Body: w.errorBody("api_error", "", "", "Internal server error")}
	}
	return Failure{Status: http.StatusInternalServerError, Header: jsonHeader(),
		Body: w.errorBody("server_error", "", "", "The server had an error while processing your request. Sorry about that!")}
}

// Unauthorized is a 401: Anthropic's authentication_error "invalid
// x-api-key"; OpenAI's invalid_api_key "Incorrect API key provided".
func (w Wire) Unauthorized() Failure {
	if w == WireAnthropic {
		return Failure{Status: http.StatusUnauthorized, Header: jsonHeader(), Body: w.errorBody("authentication_error", "", "", "invalid x-api-key")}
	}
	return Failure{Status: http.StatusUnauthorized, Header: jsonHeader(),
		Body: w.errorBody("invalid_request_error", "invalid_api_key", "", "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.")}
}

// BadRequest is a 400 invalid_request_error with message (and, for
// OpenAI, the "param" it names; may be empty).
func (w Wire) BadRequest(param, message string) Failure {
	return Failure{Status: http.StatusBadRequest, Header: jsonHeader(), Body: w.errorBody("invalid_request_error", "", param, message)}
}
