package provider

import (
	"os"
	"strings"
	"time"
)

// Provider names accepted in [Config.Provider] and $AGENTCTX_PROVIDER.
const (
	// ProviderOpenAI is the OpenAI chat-completions API and every server
	// that speaks it (DeepSeek, Qwen/DashScope, Ollama, vLLM, llama.cpp).
	ProviderOpenAI = "openai"
	// ProviderAnthropic is the Anthropic Messages API.
	ProviderAnthropic = "anthropic"
)

// Environment variables read by [FromEnv].
const (
	EnvOpenAIKey        = "OPENAI_API_KEY"
	EnvOpenAIBaseURL    = "OPENAI_BASE_URL"
	EnvAnthropicKey     = "ANTHROPIC_API_KEY"
	EnvAnthropicBaseURL = "ANTHROPIC_BASE_URL"
	EnvModel            = "AGENTCTX_MODEL"
	EnvProvider         = "AGENTCTX_PROVIDER"
)

// Defaults applied by [FromEnv] to the fields of [Config].
const (
	// DefaultTimeout bounds one request, retries included.
	DefaultTimeout = 10 * time.Minute
	// DefaultMaxRetries is how many times a 429, 5xx or network error is
	// retried (the official SDKs' default).
	DefaultMaxRetries = 2
	// DefaultMaxTokens is the reply cap in tokens when [Request.MaxTokens]
	// is 0. Anthropic's Messages API requires max_tokens; 4,096 is enough
	// for a six-section summary and allowed by every current model.
	DefaultMaxTokens = 4096
)

// FromEnv returns c with its empty fields filled from the environment and
// the documented defaults; fields already set are kept. The order:
//
//   - Provider: $AGENTCTX_PROVIDER, else "anthropic" when ANTHROPIC_API_KEY
//     is set and OPENAI_API_KEY is not, else "openai". It is lower-cased
//     and trimmed; an unknown name is kept for [providers.New] to reject.
//   - Model: $AGENTCTX_MODEL; left empty otherwise (the adapter's default).
//   - APIKey: OPENAI_API_KEY or ANTHROPIC_API_KEY, by provider.
//   - BaseURL: OPENAI_BASE_URL or ANTHROPIC_BASE_URL, by provider; left
//     empty otherwise (the provider's public API).
//   - Timeout: 10 minutes ([DefaultTimeout]).
//   - MaxRetries: 0 means [DefaultMaxRetries] (2); a negative value is kept
//     and means no retries.
//
// FromEnv only reads the environment; it never fails. Safe for concurrent
// use.
func FromEnv(c Config) Config {
	if c.Provider == "" {
		c.Provider = os.Getenv(EnvProvider)
	}
	c.Provider = strings.ToLower(strings.TrimSpace(c.Provider))
	if c.Provider == "" {
		c.Provider = ProviderOpenAI
		if os.Getenv(EnvAnthropicKey) != "" && os.Getenv(EnvOpenAIKey) == "" {
			c.Provider = ProviderAnthropic
		}
	}
	if c.Model == "" {
		c.Model = strings.TrimSpace(os.Getenv(EnvModel))
	}
	keyVar, urlVar := KeyVar(c.Provider), ""
	switch c.Provider {
	case ProviderOpenAI:
		urlVar = EnvOpenAIBaseURL
	case ProviderAnthropic:
		urlVar = EnvAnthropicBaseURL
	}
	if c.APIKey == "" && keyVar != "" {
		c.APIKey = strings.TrimSpace(os.Getenv(keyVar))
	}
	if c.BaseURL == "" && urlVar != "" {
		c.BaseURL = strings.TrimSpace(os.Getenv(urlVar))
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = DefaultMaxRetries
	}
	return c
}

// KeyVar returns the environment variable that holds the API key of the
// named provider ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"), or "" for an
// unknown provider. Error messages use it to say what to set.
func KeyVar(provider string) string {
	switch provider {
	case ProviderOpenAI:
		return EnvOpenAIKey
	case ProviderAnthropic:
		return EnvAnthropicKey
	}
	return ""
}
