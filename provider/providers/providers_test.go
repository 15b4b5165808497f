package providers_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/providers"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		cfg      provider.Config
		wantName string
		wantErr  error
		wantText string
	}{
		{name: "openai from env", env: map[string]string{"OPENAI_API_KEY": "sk"}, wantName: "openai/gpt-4.1-mini"},
		{name: "anthropic from env", env: map[string]string{"ANTHROPIC_API_KEY": "ant", "AGENTCTX_MODEL": "claude-sonnet-4-5"}, wantName: "anthropic/claude-sonnet-4-5"},
		{name: "ollama through the base URL", cfg: provider.Config{APIKey: "ollama", BaseURL: "http://localhost:11434/v1", Model: "qwen3:8b"}, wantName: "openai/qwen3:8b"},
		{name: "no openai key", wantErr: provider.ErrNoAPIKey, wantText: "OPENAI_API_KEY"},
		{name: "no anthropic key", env: map[string]string{"AGENTCTX_PROVIDER": "anthropic", "OPENAI_API_KEY": "sk"}, wantErr: provider.ErrNoAPIKey, wantText: "ANTHROPIC_API_KEY"},
		{name: "unknown provider", cfg: provider.Config{Provider: "gemini", APIKey: "k"}, wantErr: provider.ErrUnknownProvider, wantText: "gemini"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "AGENTCTX_MODEL", "AGENTCTX_PROVIDER"} {
				t.Setenv(k, "")
			}
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			m, err := providers.New(tt.cfg)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantText) {
					t.Fatalf("New = %v, want %v naming %q", err, tt.wantErr, tt.wantText)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if m.Name() != tt.wantName {
				t.Errorf("Name = %q, want %q", m.Name(), tt.wantName)
			}
		})
	}
}
