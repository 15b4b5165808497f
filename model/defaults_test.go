package model

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// agentDefaults are the models the pinned agents (scripts/agents.sh) use
// by default or offer as their first choices, read from their installed
// packages on 2026-11-27; each must have a row with a window and a price.
var agentDefaults = map[string]string{
	// Claude Code 2.1.328: its default model (../shared/REAL-AGENTS.md),
	// and the Sonnet and Haiku of its bundled catalog's current
	// generation (the "sonnet" and "haiku" aliases, background calls).
	"claude-opus-5-5":   "Claude Code 2.1.328 default",
	"claude-sonnet-5-5": "Claude Code 2.1.328 sonnet alias",
	"claude-haiku-5-5":  "Claude Code 2.1.328 haiku alias",
	// Codex 0.169.0: the default gpt-6.1-sol and gpt-5.5, the model of
	// its other request shape (its bundled catalog, `codex debug models`).
	"gpt-6.1-sol": "Codex 0.169.0 default",
	"gpt-5.5":     "Codex 0.169.0 catalog",
	// Gemini CLI 0.61.0 (packages/core/src/config/models.ts in its
	// bundle): DEFAULT_GEMINI_MODEL, PREVIEW_GEMINI_MODEL and
	// PREVIEW_GEMINI_3_1_MODEL (what "auto" resolves to with and without
	// preview access), PREVIEW_GEMINI_FLASH_MODEL, DEFAULT_GEMINI_FLASH_MODEL
	// and DEFAULT_GEMINI_FLASH_LITE_MODEL.
	"gemini-2.5-pro":         "Gemini CLI 0.61.0 DEFAULT_GEMINI_MODEL",
	"gemini-3.1-pro-preview": "Gemini CLI 0.61.0 PREVIEW_GEMINI_3_1_MODEL",
	"gemini-3-flash-preview": "Gemini CLI 0.61.0 PREVIEW_GEMINI_FLASH_MODEL",
	"gemini-3.5-flash":       "Gemini CLI 0.61.0 DEFAULT_GEMINI_FLASH_MODEL",
	"gemini-3.1-flash-lite":  "Gemini CLI 0.61.0 DEFAULT_GEMINI_FLASH_LITE_MODEL",
	// opencode 1.18.33 picks a provider's default by the priority list
	// ["gpt-5", "claude-sonnet-4", "big-pickle", "gemini-3-pro"] over
	// models.dev, and the small model from ["gpt-5.4-nano", "gpt-4.1", …].
	"gpt-5":             "opencode 1.18.33 priority",
	"claude-sonnet-4-6": "opencode 1.18.33 priority (claude-sonnet-4 prefix)",
	"gpt-5.4-nano":      "opencode 1.18.33 small model",
	// Issue 32: the models people use now.
	"claude-opus-4-6": "issue 32", "claude-opus-4-7": "issue 32", "claude-opus-4-8": "issue 32",
	"claude-sonnet-5": "issue 32", "claude-opus-5": "issue 32",
	"gpt-5.2": "issue 32", "gpt-5.3-codex": "issue 32", "gpt-5.4": "issue 32",
}

// TestAgentDefaultsHaveRows fails when a model a pinned agent uses by
// default has no catalog row, or its row has no price.
func TestAgentDefaultsHaveRows(t *testing.T) {
	t.Parallel()
	for name, why := range agentDefaults {
		i := Lookup(name)
		if i.Fallback {
			t.Errorf("%s (%s): no catalog row", name, why)
			continue
		}
		if i.Price == nil {
			t.Errorf("%s (%s): row %q has no price", name, why, i.Family)
		}
		if i.ContextWindow <= 0 || i.MaxOutput <= 0 || i.Source == "" {
			t.Errorf("%s (%s): row %q: window %d, output %d, source %q", name, why, i.Family, i.ContextWindow, i.MaxOutput, i.Source)
		}
	}
}

// readmeModel finds model names in the README: a family's prefix, then
// name characters, with a digit somewhere (agent names such as
// "claude-code" and "gemini-cli", and "llama.cpp", have none).
var readmeModel = regexp.MustCompile(`\b(?:claude|gpt|gemini|deepseek|qwen|qwq|llama|mistral|devstral|codestral|o[134])[-a-z0-9.:/\[\]]*[a-z0-9\]]`)

// TestReadmeModelsHaveRows fails when a model the README or a page under
// docs/ names has no catalog row.
func TestReadmeModelsHaveRows(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../docs/*.md")
	files = append([]string{"../README.md"}, files...)
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range readmeModel.FindAllString(string(b), -1) {
			if !strings.ContainsAny(name, "0123456789") || strings.HasPrefix(name, "claude-code") ||
				strings.HasPrefix(name, "gemini-cli") || strings.Contains(name, ".json") {
				continue
			}
			seen++
			if i := Lookup(name); i.Fallback {
				t.Errorf("%s names %q, which has no catalog row", filepath.Base(f), name)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no model names found in the README: the pattern is broken")
	}
}
