package providers

import (
	"fmt"

	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/anthropic"
	"github.com/agentctx/agentctx/provider/openai"
)

// New fills c from the environment ([provider.FromEnv]) and returns the
// adapter it names. An empty model becomes the adapter's default
// (openai.DefaultModel, "gpt-4.1-mini"; anthropic.DefaultModel,
// "claude-haiku-4-5").
//
// Errors: [provider.ErrUnknownProvider] for a provider other than "openai"
// or "anthropic"; [provider.ErrNoAPIKey] when no key was found, with a
// message naming the variable to set (OPENAI_API_KEY or
// ANTHROPIC_API_KEY); [provider.ErrBadRequest] for a base URL that is not
// an absolute http(s) URL. Nothing is sent. Safe for concurrent use.
func New(c provider.Config) (provider.Model, error) {
	c = provider.FromEnv(c)
	switch c.Provider {
	case provider.ProviderOpenAI:
		m, err := openai.New(openai.Options{
			APIKey:     c.APIKey,
			BaseURL:    c.BaseURL,
			Model:      c.Model,
			Timeout:    c.Timeout,
			MaxRetries: c.MaxRetries,
		})
		if err != nil {
			return nil, fmt.Errorf("providers: %w", err)
		}
		return m, nil
	case provider.ProviderAnthropic:
		m, err := anthropic.New(anthropic.Options{
			APIKey:     c.APIKey,
			BaseURL:    c.BaseURL,
			Model:      c.Model,
			Timeout:    c.Timeout,
			MaxRetries: c.MaxRetries,
		})
		if err != nil {
			return nil, fmt.Errorf("providers: %w", err)
		}
		return m, nil
	}
	return nil, fmt.Errorf("providers: new %q: %w", c.Provider, provider.ErrUnknownProvider)
}
