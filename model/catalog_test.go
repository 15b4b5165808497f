package model

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/agentctx/agentctx/token"
	"github.com/google/go-cmp/cmp"
)

// TestEveryEntryReachable looks up each entry's example name: the entry
// itself must match it, which proves no earlier entry shadows it.
func TestEveryEntryReachable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for k, e := range entries {
		if seen[e.family] {
			t.Errorf("entry %d: family %q appears twice", k, e.family)
		}
		seen[e.family] = true
		got := Lookup(e.example)
		if got.Family != e.family {
			t.Errorf("Lookup(%q).Family = %q, want %q: an earlier entry shadows entry %d", e.example, got.Family, e.family, k)
		}
		if e.window <= 0 || e.output <= 0 || e.output > e.window {
			t.Errorf("entry %q: window %d, output %d: want 0 < output ≤ window", e.family, e.window, e.output)
		}
		if e.input != 0 && (e.input >= e.window || e.input+e.output > e.window) {
			t.Errorf("entry %q: input cap %d does not fit window %d with output %d", e.family, e.input, e.window, e.output)
		}
		if e.encoding != token.O200kBase && e.encoding != token.Cl100kBase {
			t.Errorf("entry %q: encoding %q", e.family, e.encoding)
		}
	}
}

// TestLookupSharedData covers the model names recorded in the trajectories
// of ../shared/data.
func TestLookupSharedData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		family string
		window int
		output int
	}{
		{"claude-opus-4-6", "claude-opus-4-6", 200_000, 128_000}, // 200K: the session compacted at 167,731
		{"claude-haiku-4-5-20251001", "claude-haiku-4-5", 200_000, 64_000},
		{"gpt-5.3-codex", "gpt-5.3-codex", 400_000, 128_000},
		{"deepseek-chat", "deepseek-chat", 128_000, 8_000},
		{"deepseek/deepseek-chat", "deepseek-chat", 128_000, 8_000},
		{"openai/openrouter-llama-4-maverick", "llama-4-maverick", 1_048_576, 16_384},
		{"meta-llama/llama-4-maverick", "llama-4-maverick", 1_048_576, 16_384},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Lookup(tt.name)
			want := Info{Name: tt.name, Family: tt.family, ContextWindow: tt.window, MaxOutput: tt.output}
			got.MaxInput, got.Encoding, got.EncodingEstimated = 0, "", false
			got.Price, got.Source, got.AsOf = nil, "", ""
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Lookup(%q) (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		family    string
		window    int
		encoding  string
		estimated bool
	}{
		// OpenAI, with provider prefixes and date suffixes.
		{"gpt-5", "gpt-5.1", 400_000, token.O200kBase, false},
		{"GPT-5-Codex", "gpt-5.1", 400_000, token.O200kBase, false},
		{"gpt-5.1-codex-max", "gpt-5.1", 400_000, token.O200kBase, false},
		{"gpt-5.1-codex-mini", "gpt-5-mini", 400_000, token.O200kBase, false},
		{"gpt-5.2-codex", "gpt-5.2", 400_000, token.O200kBase, false},
		{"openai/gpt-5-mini-2025-08-07", "gpt-5-mini", 400_000, token.O200kBase, false},
		{"azure/gpt-5-nano", "gpt-5-nano", 400_000, token.O200kBase, false},
		{"gpt-5.1-chat-latest", "gpt-5-chat", 128_000, token.O200kBase, false},
		{"gpt-5.4", "gpt-5.4", 1_050_000, token.O200kBase, false},
		{"gpt-5.4-nano", "gpt-5.4-nano", 400_000, token.O200kBase, false},
		{"gpt-5.5", "gpt-5.5", 272_000, token.O200kBase, false},
		{"gpt-4.1", "gpt-4.1", 1_047_576, token.O200kBase, false},
		{"openai/gpt-4.1-nano", "gpt-4.1-nano", 1_047_576, token.O200kBase, false},
		{"gpt-4o", "gpt-4o", 128_000, token.O200kBase, false},
		{"gpt-4o-2024-08-06", "gpt-4o", 128_000, token.O200kBase, false},
		{"openai/gpt-4o-mini", "gpt-4o-mini", 128_000, token.O200kBase, false},
		{"gpt-4-turbo", "gpt-4-turbo", 128_000, token.Cl100kBase, false},
		{"gpt-4-turbo-2024-04-09", "gpt-4-turbo", 128_000, token.Cl100kBase, false},
		{"gpt-4-1106-preview", "gpt-4-turbo", 128_000, token.Cl100kBase, false},
		{"gpt-4", "gpt-4", 8_192, token.Cl100kBase, false},
		{"gpt-3.5-turbo", "gpt-3.5-turbo", 16_385, token.Cl100kBase, false},
		{"gpt-35-turbo", "gpt-3.5-turbo", 16_385, token.Cl100kBase, false},
		{"o1", "o1", 200_000, token.O200kBase, false},
		{"o1-preview", "o1-mini", 128_000, token.O200kBase, false},
		{"o3", "o3", 200_000, token.O200kBase, false},
		{"o3-mini-2025-01-31", "o3-mini", 200_000, token.O200kBase, false},
		{"openai/o3", "o3", 200_000, token.O200kBase, false},
		{"o4-mini", "o4-mini", 200_000, token.O200kBase, false},
		{"codex-mini-latest", "o4-mini", 200_000, token.O200kBase, false},
		{"gpt-oss-20b", "gpt-oss", 131_072, token.O200kBase, false},
		// Anthropic: API ids, aliases, Bedrock and Vertex ids, OpenRouter
		// dotted versions, Claude Code's [1m] suffix.
		{"claude-sonnet-4-6", "claude-sonnet-4-6", 200_000, token.O200kBase, true},
		{"claude-opus-4-6[1m]", "claude-opus-4-6[1m]", 1_000_000, token.O200kBase, true},
		{"anthropic/claude-opus-4.6", "claude-opus-4-6", 200_000, token.O200kBase, true},
		{"claude-opus-4-7", "claude-opus-4-7", 1_000_000, token.O200kBase, true},
		{"claude-opus-4-7-1m", "claude-opus-4-7", 1_000_000, token.O200kBase, true},
		{"claude-opus-4-5", "claude-opus-4-5", 200_000, token.O200kBase, true},
		{"claude-opus-4-1", "claude-opus-4-1", 200_000, token.O200kBase, true},
		{"claude-opus-4-20250514", "claude-opus-4-1", 200_000, token.O200kBase, true},
		{"claude-sonnet-4-20250514", "claude-sonnet-4-5", 200_000, token.O200kBase, true},
		{"claude-sonnet-4-5", "claude-sonnet-4-5", 200_000, token.O200kBase, true},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5", 200_000, token.O200kBase, true},
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5", 200_000, token.O200kBase, true},
		{"claude-sonnet-4-5[1m]", "claude-sonnet-4-1m", 1_000_000, token.O200kBase, true},
		{"claude-sonnet-4-1m", "claude-sonnet-4-1m", 1_000_000, token.O200kBase, true},
		{"claude-haiku-4-5", "claude-haiku-4-5", 200_000, token.O200kBase, true},
		{"claude-haiku-4-5@20251001", "claude-haiku-4-5", 200_000, token.O200kBase, true},
		{"claude-opus-5", "claude-opus-5", 1_000_000, token.O200kBase, true},
		{"claude-sonnet-5-5", "claude-sonnet-5-5", 1_000_000, token.O200kBase, true},
		{"claude-fable-5-1", "claude-fable-5-1", 1_000_000, token.O200kBase, true},
		{"claude-3-7-sonnet-20250219", "claude-3-7-sonnet", 200_000, token.O200kBase, true},
		{"claude-3-5-haiku-20241022", "claude-3-5-haiku", 200_000, token.O200kBase, true},
		{"anthropic/claude-3.5-sonnet", "claude-3-5-sonnet", 200_000, token.O200kBase, true},
		{"claude-3-haiku-20240307", "claude-3", 200_000, token.O200kBase, true},
		// Google.
		{"gemini-2.5-pro", "gemini-2.5-pro", 1_048_576, token.O200kBase, true},
		{"vertex_ai/gemini-2.5-flash-lite", "gemini-2.5-flash-lite", 1_048_576, token.O200kBase, true},
		{"gemini-3-flash-preview", "gemini-3-flash", 1_048_576, token.O200kBase, true},
		{"google/gemini-3.1-pro-preview", "gemini-3.1-pro", 1_048_576, token.O200kBase, true},
		{"gemini-2.0-flash", "gemini-2.0", 1_048_576, token.O200kBase, true},
		{"gemini-1.5-pro-latest", "gemini-1.5-pro", 2_097_152, token.O200kBase, true},
		// DeepSeek.
		{"deepseek-reasoner", "deepseek-reasoner", 128_000, token.O200kBase, true},
		{"deepseek-ai/DeepSeek-R1", "deepseek-reasoner", 128_000, token.O200kBase, true},
		{"deepseek-ai/DeepSeek-V3", "deepseek-chat", 128_000, token.O200kBase, true},
		{"deepseek/deepseek-v3.2", "deepseek-chat", 128_000, token.O200kBase, true},
		{"deepseek-v4-flash", "deepseek-v4", 1_000_000, token.O200kBase, true},
		// Qwen.
		{"qwen3-coder-plus", "qwen3-coder-plus", 1_000_000, token.Cl100kBase, true},
		{"Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3-coder", 262_144, token.Cl100kBase, true},
		{"qwen3:32b", "qwen3", 131_072, token.Cl100kBase, true},
		{"qwen/qwq-32b", "qwen3", 131_072, token.Cl100kBase, true},
		{"qwen2.5-72b-instruct", "qwen2.5", 131_072, token.Cl100kBase, true},
		// Llama.
		{"llama-4-scout", "llama-4-scout", 10_000_000, token.O200kBase, true},
		{"meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "llama-4-maverick", 1_048_576, token.O200kBase, true},
		{"llama3.1:8b", "llama-3.1", 131_072, token.Cl100kBase, true},
		{"meta-llama/Meta-Llama-3.1-405B-Instruct", "llama-3.1", 131_072, token.Cl100kBase, true},
		{"llama-3.2-3b-preview", "llama-3.1", 131_072, token.Cl100kBase, true},
		{"accounts/fireworks/models/llama-v3p1-70b-instruct", "llama-3.1", 131_072, token.Cl100kBase, true},
		{"meta-llama/Meta-Llama-3-8B-Instruct", "llama-3", 8_192, token.Cl100kBase, true},
		// Mistral.
		{"codestral-latest", "codestral", 256_000, token.O200kBase, true},
		{"devstral-medium-2507", "devstral-medium", 128_000, token.O200kBase, true},
		{"devstral-2512", "devstral-2", 262_144, token.O200kBase, true},
		{"mistral/devstral-medium-latest", "devstral-2", 262_144, token.O200kBase, true},
		{"mistral-small-2503", "mistral", 128_000, token.O200kBase, true},
		{"magistral-medium-latest", "mistral", 128_000, token.O200kBase, true},
		{"open-mistral-7b", "mixtral", 32_768, token.O200kBase, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Lookup(tt.name)
			if got.Fallback {
				t.Fatalf("Lookup(%q) fell back; want family %q", tt.name, tt.family)
			}
			type key struct {
				Family    string
				Window    int
				Encoding  string
				Estimated bool
			}
			want := key{tt.family, tt.window, tt.encoding, tt.estimated}
			if diff := cmp.Diff(want, key{got.Family, got.ContextWindow, got.Encoding, got.EncodingEstimated}); diff != "" {
				t.Errorf("Lookup(%q) (-want +got):\n%s", tt.name, diff)
			}
			if got.Name != tt.name {
				t.Errorf("Lookup(%q).Name = %q", tt.name, got.Name)
			}
			if w := Warning(got); w != "" {
				t.Errorf("Warning(%q) = %q, want none", tt.name, w)
			}
		})
	}
}

func TestLookupFallback(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "   ", "default", "my-local-model", "grok-4", "o5-preview-x", "gpt5", "yolo3", "phi-4"} {
		got := Lookup(name)
		want := Info{
			Name:              name,
			ContextWindow:     FallbackContextWindow,
			MaxOutput:         FallbackMaxOutput,
			Encoding:          FallbackEncoding,
			EncodingEstimated: true,
			Fallback:          true,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Lookup(%q) (-want +got):\n%s", name, diff)
		}
		w := Warning(got)
		if !strings.Contains(w, `"`+name+`"`) || !strings.Contains(w, "128000") || strings.Contains(w, "\n") {
			t.Errorf("Warning(%q) = %q: want one line naming the model and the fallback window", name, w)
		}
	}
}

func TestInputLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		i    Info
		want int
	}{
		{Lookup("gpt-5"), 272_000},
		{Lookup("gpt-5.4"), 922_000},
		{Lookup("gpt-4.1"), 1_047_576},
		{Lookup("claude-haiku-4-5"), 200_000},
		{Info{ContextWindow: 1000, MaxInput: 5000}, 1000},
	}
	for _, tt := range tests {
		if got := tt.i.InputLimit(); got != tt.want {
			t.Errorf("%+v.InputLimit() = %d, want %d", tt.i, got, tt.want)
		}
	}
}

func TestCounter(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"gpt-4o", "gpt-4", "claude-opus-4-6"} {
		i := Lookup(name)
		c, err := Counter(i)
		if err != nil {
			t.Fatalf("Counter(%q): %v", name, err)
		}
		if c.Name() != i.Encoding {
			t.Errorf("Counter(%q).Name() = %q, want %q", name, c.Name(), i.Encoding)
		}
	}
	_, err := Counter(Info{Name: "x", Encoding: "p50k_base"})
	if !errors.Is(err, token.ErrUnknownEncoding) {
		t.Errorf("Counter(p50k_base) error = %v, want ErrUnknownEncoding", err)
	}
}

// TestLookupRemembers: a remembered name gives the row a fresh lookup
// gives, for the catalog's names and past the most it remembers, from
// goroutines at once; and what it remembers stays bounded.
func TestLookupRemembers(t *testing.T) {
	names := []string{"claude-sonnet-4-5", "gpt-4o-2024-08-06", "gemini-2.5-pro", "not-a-model", "", strings.Repeat("gpt-4o", 100)}
	for i := range lookupsKept + 50 {
		names = append(names, fmt.Sprintf("custom-model-%d", i))
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 2 {
				for _, n := range names {
					if got, want := Lookup(n), lookup(n); !reflect.DeepEqual(got, want) {
						t.Errorf("Lookup(%q) = %+v, want %+v", n, got, want)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	kept := 0
	looked.Range(func(any, any) bool { kept++; return true })
	if kept > lookupsKept {
		t.Fatalf("%d names remembered, want at most %d", kept, lookupsKept)
	}
	if _, ok := looked.Load(strings.Repeat("gpt-4o", 100)); ok {
		t.Fatalf("a name of %d bytes remembered, want at most %d", 600, lookupNameMax)
	}
}
