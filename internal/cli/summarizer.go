package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/provider"
)

// summarizerFlags select the summarizer of a summarizing compaction.
type summarizerFlags struct {
	// kind is "auto", "extractive" or "llm".
	kind     string
	provider string
	model    string
}

const summarizerHelp = "summarizer: extractive (no model), llm (a provider: --provider, $AGENTCTX_PROVIDER, or an API key in the environment) or auto (llm when a provider is configured, else extractive)"

// providerConfigured reports whether the flags or the environment name a
// provider: --provider, $AGENTCTX_PROVIDER, $OPENAI_API_KEY or
// $ANTHROPIC_API_KEY.
func (f summarizerFlags) providerConfigured() bool {
	if f.provider != "" {
		return true
	}
	for _, v := range []string{provider.EnvProvider, provider.EnvOpenAIKey, provider.EnvAnthropicKey} {
		if strings.TrimSpace(os.Getenv(v)) != "" {
			return true
		}
	}
	return false
}

// summarizer returns the summarizer the flags select: nil for the
// extractive default, or the LLM summarizer over the configured provider.
// A bad --summarizer is a usage error; a provider that cannot be set up
// (no key, unknown provider) is an error saying what to set.
func (f summarizerFlags) summarizer() (compact.Summarizer, error) {
	switch strings.ToLower(f.kind) {
	case "extractive":
		return nil, nil
	case "", "auto":
		if !f.providerConfigured() {
			return nil, nil
		}
	case "llm":
	default:
		return nil, usageError{fmt.Errorf("--summarizer must be extractive, llm or auto, got %q", f.kind)}
	}
	cfg := provider.FromEnv(provider.Config{Provider: f.provider, Model: f.model})
	m, err := newModel(cfg)
	if err != nil {
		return nil, fmt.Errorf("summarizer: %w", err)
	}
	return &compact.ModelSummarizer{Model: m}, nil
}

// summarizerName names s for reports.
func summarizerName(s compact.Summarizer) string {
	if s == nil {
		return (compact.Extractive{}).Name()
	}
	return s.Name()
}

// printRetention writes one line of retention per category, indented.
func printRetention(w io.Writer, indent string, r *compact.Retention) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "%soverall %s (%d of %d facts)", indent, pct(r.Overall), r.Kept, r.Total)
	for _, c := range []struct {
		name string
		v    float64
		key  string
	}{
		{"user messages", r.UserMessages, compact.CategoryUserMessages},
		{"files modified", r.FilesModified, compact.CategoryFilesModified},
		{"files read", r.FilesRead, compact.CategoryFilesRead},
		{"errors", r.Errors, compact.CategoryErrors},
		{"failing tests", r.FailingTests, compact.CategoryFailingTests},
		{"failed commands", r.FailedCommands, compact.CategoryFailedCommands},
	} {
		n := r.Counts[c.key]
		fmt.Fprintf(w, "; %s %s (%d/%d)", c.name, pct(c.v), n[0], n[1])
	}
	fmt.Fprintln(w)
}
