package provider_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/provider"
)

// clearProviderEnv unsets every variable FromEnv reads.
func clearProviderEnv(t *testing.T) {
	t.Helper()
	for _, k := range []string{provider.EnvOpenAIKey, provider.EnvOpenAIBaseURL, provider.EnvAnthropicKey,
		provider.EnvAnthropicBaseURL, provider.EnvModel, provider.EnvProvider} {
		t.Setenv(k, "")
	}
}

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		in   provider.Config
		want provider.Config
	}{
		{
			name: "nothing set: openai with defaults",
			want: provider.Config{Provider: "openai", Timeout: 10 * time.Minute, MaxRetries: 2},
		},
		{
			name: "openai key and base URL",
			env:  map[string]string{"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "http://localhost:11434/v1", "AGENTCTX_MODEL": "qwen3:8b", "ANTHROPIC_API_KEY": "ant"},
			want: provider.Config{Provider: "openai", Model: "qwen3:8b", APIKey: "sk-1", BaseURL: "http://localhost:11434/v1", Timeout: 10 * time.Minute, MaxRetries: 2},
		},
		{
			name: "only an anthropic key picks anthropic",
			env:  map[string]string{"ANTHROPIC_API_KEY": "ant", "ANTHROPIC_BASE_URL": "https://proxy.example", "OPENAI_BASE_URL": "http://ignored"},
			want: provider.Config{Provider: "anthropic", APIKey: "ant", BaseURL: "https://proxy.example", Timeout: 10 * time.Minute, MaxRetries: 2},
		},
		{
			name: "AGENTCTX_PROVIDER wins over the keys",
			env:  map[string]string{"AGENTCTX_PROVIDER": " Anthropic ", "OPENAI_API_KEY": "sk-1", "ANTHROPIC_API_KEY": "ant"},
			want: provider.Config{Provider: "anthropic", APIKey: "ant", Timeout: 10 * time.Minute, MaxRetries: 2},
		},
		{
			name: "explicit fields are kept",
			env:  map[string]string{"AGENTCTX_PROVIDER": "anthropic", "OPENAI_API_KEY": "env-key", "AGENTCTX_MODEL": "env-model"},
			in:   provider.Config{Provider: "openai", Model: "m", APIKey: "k", BaseURL: "http://x", Timeout: time.Second, MaxRetries: -1},
			want: provider.Config{Provider: "openai", Model: "m", APIKey: "k", BaseURL: "http://x", Timeout: time.Second, MaxRetries: -1},
		},
		{
			name: "unknown provider is kept for New to reject",
			env:  map[string]string{"AGENTCTX_PROVIDER": "gemini", "OPENAI_API_KEY": "sk"},
			want: provider.Config{Provider: "gemini", Timeout: 10 * time.Minute, MaxRetries: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearProviderEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			if diff := cmp.Diff(tt.want, provider.FromEnv(tt.in)); diff != "" {
				t.Errorf("FromEnv (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status  int
		code    string
		message string
		want    error
	}{
		{401, "invalid_api_key", "", provider.ErrAuth},
		{403, "permission_error", "", provider.ErrAuth},
		{404, "not_found_error", "model: x", provider.ErrUnknownModel},
		{400, "model_not_found", "", provider.ErrUnknownModel},
		{400, "", `model "llama9" not found, try pulling it first`, provider.ErrUnknownModel},
		{400, "", "The model `x` does not exist", provider.ErrUnknownModel},
		{429, "rate_limit_error", "", provider.ErrRateLimited},
		{500, "", "", provider.ErrUnavailable},
		{529, "overloaded_error", "", provider.ErrUnavailable},
		{0, "", "connection refused", provider.ErrUnavailable},
		{408, "", "", provider.ErrUnavailable},
		{400, "context_length_exceeded", "maximum context length", provider.ErrContextOverflow},
		{422, "", "", provider.ErrBadRequest},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d %s", tt.status, tt.code), func(t *testing.T) {
			t.Parallel()
			if got := provider.Classify(tt.status, tt.code, tt.message); !errors.Is(got, tt.want) || !errors.Is(tt.want, got) {
				t.Errorf("Classify(%d, %q, %q) = %v, want %v", tt.status, tt.code, tt.message, got, tt.want)
			}
		})
	}
}

func TestAPIError(t *testing.T) {
	t.Parallel()
	cause := errors.New("sdk error")
	e := &provider.APIError{Provider: "openai", Status: 401, Code: "invalid_api_key", Message: "Incorrect API key provided", Kind: provider.ErrAuth, Cause: cause}
	wrapped := fmt.Errorf("openai: send m: %w", e)
	if !errors.Is(wrapped, provider.ErrAuth) || !errors.Is(wrapped, cause) {
		t.Errorf("%v does not unwrap to ErrAuth and its cause", wrapped)
	}
	if provider.IsRetryable(wrapped) {
		t.Errorf("IsRetryable(%v) = true", wrapped)
	}
	want := "401 Unauthorized (invalid_api_key): Incorrect API key provided: provider rejected the credentials"
	if got := e.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	net := &provider.APIError{Provider: "anthropic", Message: "dial tcp: connection refused", Kind: provider.ErrUnavailable}
	if got := net.Error(); !strings.HasPrefix(got, "network error: dial tcp") || !provider.IsRetryable(net) {
		t.Errorf("network error = %q, retryable %v", got, provider.IsRetryable(net))
	}
}

func TestKeyVar(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]string{"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "gemini": ""} {
		if got := provider.KeyVar(p); got != want {
			t.Errorf("KeyVar(%q) = %q, want %q", p, got, want)
		}
	}
}
