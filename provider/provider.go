// Package provider is the small interface agentctx needs from a language
// model: send messages (and optional tool definitions), get a message and
// its usage back. The adapters in provider/openai (any OpenAI-compatible
// endpoint: OpenAI, DeepSeek, Qwen/DashScope, Ollama, vLLM, llama.cpp) and
// provider/anthropic are the only packages that import the official SDKs.
//
// # Configuration
//
// [Config] gathers what an adapter needs from flags and the environment:
// OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
// AGENTCTX_MODEL and AGENTCTX_PROVIDER.
package provider

import (
	"context"
	"errors"
	"time"

	"github.com/agentctx/agentctx/chat"
)

// Request is one model call. Messages are provider-neutral; the adapter
// converts them (chat.ToOpenAI, chat.ToAnthropic). A leading system
// message becomes the provider's system prompt.
type Request struct {
	// Model is the model name as the provider knows it. Optional.
	// Defaults to the adapter's configured model.
	Model string
	// Messages is the conversation, oldest first. Required.
	Messages []chat.Message
	// Tools are the tool definitions the model may call. Optional.
	Tools []chat.ToolDef
	// MaxTokens caps the reply's length in tokens. Optional. Defaults to
	// the adapter's default (4,096).
	MaxTokens int
	// Temperature, when non-nil, sets the sampling temperature.
	Temperature *float64
	// CacheAfter lists prompt cache breakpoints: indexes into Messages,
	// ascending, such that the prompt up to and including that message is
	// a prefix worth caching (the static system prompt; the history
	// before the newest turn). Optional. The Anthropic adapter puts
	// "cache_control": {"type": "ephemeral"} on the last content block of
	// each (at most 4, the API's limit, keeping the last 4; see
	// https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching);
	// OpenAI caches prefixes by itself and ignores it. Indexes out of
	// range are an [ErrBadRequest].
	CacheAfter []int
	// CacheKey groups requests that share a prefix, to raise the prompt
	// cache hit rate: OpenAI's "prompt_cache_key" (the session id is a
	// good key). Optional; the Anthropic adapter ignores it.
	CacheKey string
}

// Response is a model's reply: the assistant message (text, tool calls,
// thinking), its usage as the provider reported it (also set on
// Message.Usage), the provider's stop reason and the model that answered.
type Response struct {
	Message    chat.Message
	Usage      chat.Usage
	StopReason string
	Model      string
}

// Model sends requests to one provider. Implementations are safe for
// concurrent use.
type Model interface {
	// Send makes one call and returns the reply. It retries rate limits
	// (429) and server errors (5xx) with backoff, but never a context
	// overflow ([ErrContextOverflow], even one a server answers with
	// 500), honours ctx cancellation, and returns errors that wrap the
	// sentinels below.
	Send(ctx context.Context, req Request) (*Response, error)
	// Name returns "provider/model", for logs and reports.
	Name() string
}

// Streamer is a Model that can also stream: fn receives each text delta as
// it arrives; the returned Response is the whole reply. Adapters implement
// it where the provider supports streaming.
type Streamer interface {
	Model
	Stream(ctx context.Context, req Request, fn func(delta string) error) (*Response, error)
}

// Sentinel errors. Adapters wrap them with the provider and the HTTP
// status; test with errors.Is.
var (
	// ErrNoAPIKey reports that no API key was configured. Set the
	// provider's key variable (OPENAI_API_KEY, ANTHROPIC_API_KEY) or pass
	// the key in Config; local servers (Ollama, vLLM) accept any
	// non-empty key.
	ErrNoAPIKey = errors.New("no API key configured")
	// ErrUnknownProvider reports a provider name that is neither "openai"
	// nor "anthropic". Nothing was sent.
	ErrUnknownProvider = errors.New("unknown provider (known: openai, anthropic)")
	// ErrAuth reports that the provider rejected the key (401/403). Check
	// the key and the base URL; retrying will not help.
	ErrAuth = errors.New("provider rejected the credentials")
	// ErrUnknownModel reports that the provider does not know the model
	// (404 or a model-not-found error). Check the model name.
	ErrUnknownModel = errors.New("provider does not know the model")
	// ErrRateLimited reports that retries on 429 were exhausted. Wait, or
	// lower the request rate.
	ErrRateLimited = errors.New("rate limited by the provider")
	// ErrUnavailable reports that retries on 5xx or network errors were
	// exhausted. The provider is down or unreachable.
	ErrUnavailable = errors.New("provider unavailable")
	// ErrContextOverflow reports that the prompt exceeded the model's
	// context window (or, for Anthropic's 413 request_too_large, the
	// request's byte limit): the provider answered 400 or 413 and nothing
	// was generated. Retrying the same prompt will fail again; compact the
	// conversation and retry, for example with agentctx's
	// Engine.RecoverOverflow. errors.As with *[APIError] gives the
	// provider's numbers in Limit and PromptTokens when it stated them.
	// The adapters never retry it. See [ParseOverflow] for the bodies
	// recognised.
	ErrContextOverflow = errors.New("prompt exceeds the model's context window")
	// ErrBadRequest reports another 4xx: the request was invalid (a bad
	// parameter, a broken message order; a prompt over the context window
	// is [ErrContextOverflow] instead). The message says what the provider
	// said. Retrying the same request will not help.
	ErrBadRequest = errors.New("provider rejected the request")
)

// Config selects and configures a provider. The zero value plus the
// environment ([FromEnv]) is the usual way to fill it.
type Config struct {
	// Provider is "openai" or "anthropic". Optional. Defaults to
	// $AGENTCTX_PROVIDER, else "anthropic" when only ANTHROPIC_API_KEY is
	// set, else "openai".
	Provider string
	// Model is the model name. Optional. Defaults to $AGENTCTX_MODEL,
	// else the adapter's default.
	Model string
	// APIKey is the key. Optional. Defaults to the provider's variable.
	APIKey string
	// BaseURL points at an OpenAI-compatible or Anthropic-compatible
	// endpoint. Optional. Defaults to $OPENAI_BASE_URL or
	// $ANTHROPIC_BASE_URL, else the provider's public API.
	BaseURL string
	// Timeout bounds one request, retries included. Optional. Defaults to
	// 10 minutes.
	Timeout time.Duration
	// MaxRetries is how many times a 429, 5xx or network error is
	// retried with exponential backoff. Optional. Defaults to 2; negative
	// means no retries.
	MaxRetries int
}
