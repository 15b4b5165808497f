package model

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// pinnedDir returns where scripts/agents.sh installed the pinned agents:
// $AGENTCTX_AGENTS_DIR, else ~/.cache/agentctx-agents/pinned. It skips the
// test when neither holds node_modules, and fails it when CI=true (as the
// real-agents suite does).
func pinnedDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("AGENTCTX_AGENTS_DIR")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".cache", "agentctx-agents", "pinned")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		why := "the pinned agents are not installed (scripts/agents.sh pinned install, or AGENTCTX_AGENTS_DIR)"
		if os.Getenv("CI") == "true" {
			t.Fatal(why + " (CI=true)")
		}
		t.Skip(why)
	}
	return filepath.Join(dir, "node_modules")
}

// ccModel is a model of Claude Code's bundled catalog, as much as the test
// reads of it.
type ccModel struct {
	ID      string `json:"id"`
	Context *struct {
		Window float64 `json:"window"` // written 1e6

	} `json:"context"`
	MaxOutput struct {
		Upper float64 `json:"upper"`
	} `json:"max_output_tokens"`
	Pricing string `json:"pricing"`
}

// ccPrice is a pricing tier of Claude Code's bundled catalog.
type ccPrice struct {
	Input      float64  `json:"input"`
	Output     float64  `json:"output"`
	Write5m    float64  `json:"cache_write_5m"`
	Write1h    float64  `json:"cache_write_1h"`
	Read       float64  `json:"cache_read"`
	LongPrompt *ccPrice `json:"long_prompt"`
	Above      float64  `json:"above_prompt_tokens"` // written 1e5
}

// TestPinnedClaudeCodeCatalog reads the model catalog Claude Code bundles
// in its binary ("Hand-maintained baked-in model catalog") and checks
// every model it lists against ours: a row, its window and output limit,
// and its price, long-prompt tier included.
func TestPinnedClaudeCodeCatalog(t *testing.T) {
	nm := pinnedDir(t)
	bin, err := os.ReadFile(filepath.Join(nm, "@anthropic-ai", "claude-code-linux-x64", "claude"))
	if err != nil {
		t.Skipf("no Claude Code binary for this platform: %v", err)
	}
	at := bytes.Index(bin, []byte(`"//":"Hand-maintained baked-in model catalog`))
	if at < 0 {
		t.Fatal("Claude Code's binary holds no baked-in model catalog: its layout changed")
	}
	start := bytes.LastIndexByte(bin[:at], '{')
	obj, err := jsObject(bin[start:])
	if err != nil {
		t.Fatalf("reading Claude Code's catalog: %v", err)
	}
	var cat struct {
		Tiers  map[string]ccPrice `json:"pricing_tiers"`
		Models []ccModel          `json:"models"`
	}
	if err := json.Unmarshal(obj, &cat); err != nil {
		t.Fatalf("decoding Claude Code's catalog: %v\n%.300s", err, obj)
	}
	if len(cat.Models) < 10 {
		t.Fatalf("%d models in Claude Code's catalog", len(cat.Models))
	}
	t.Logf("Claude Code's catalog: %d models, %d pricing tiers", len(cat.Models), len(cat.Tiers))
	for _, m := range cat.Models {
		i := Lookup(m.ID)
		if i.Fallback {
			t.Errorf("%s: no catalog row", m.ID)
			continue
		}
		if m.Context != nil && float64(i.ContextWindow) != m.Context.Window {
			t.Errorf("%s (row %s): window %d, Claude Code's %.0f", m.ID, i.Family, i.ContextWindow, m.Context.Window)
		}
		if float64(i.MaxOutput) != m.MaxOutput.Upper {
			t.Errorf("%s (row %s): max output %d, Claude Code's %.0f", m.ID, i.Family, i.MaxOutput, m.MaxOutput.Upper)
		}
		want, ok := cat.Tiers[m.Pricing]
		if !ok {
			t.Errorf("%s: pricing tier %q not in the catalog", m.ID, m.Pricing)
			continue
		}
		if i.Price == nil {
			t.Errorf("%s (row %s): no price; Claude Code's is %+v", m.ID, i.Family, want)
			continue
		}
		p := *i.Price
		got := ccPrice{Input: p.Input, Output: p.Output, Write5m: p.CacheWrite5m, Write1h: p.CacheWrite1h, Read: p.CacheRead}
		wantBase := want
		wantBase.LongPrompt, wantBase.Above = nil, 0
		if got != wantBase {
			t.Errorf("%s (row %s): price %+v, Claude Code's %+v", m.ID, i.Family, got, wantBase)
		}
		// A long-prompt tier Claude Code gives must be ours too (ours
		// may have one it does not model: Sonnet 4/4.5's 1M beta).
		if lp := want.LongPrompt; lp != nil {
			lc := p.LongContext
			if lc == nil || float64(lc.Above) != lp.Above ||
				(ccPrice{Input: lc.Input, Output: lc.Output, Write5m: lc.CacheWrite5m, Write1h: lc.CacheWrite1h, Read: lc.CacheRead}) !=
					(ccPrice{Input: lp.Input, Output: lp.Output, Write5m: lp.Write5m, Write1h: lp.Write1h, Read: lp.Read}) {
				t.Errorf("%s (row %s): long-context tier %+v, Claude Code's %+v", m.ID, i.Family, lc, *lp)
			}
		}
	}
}

// TestPinnedCodexCatalog reads the model catalog Codex bundles in its
// binary: every GPT model it offers has a row, and gpt-5.5's window is the
// catalog's (272,000).
func TestPinnedCodexCatalog(t *testing.T) {
	nm := pinnedDir(t)
	bin, err := os.ReadFile(filepath.Join(nm, "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "bin", "codex"))
	if err != nil {
		t.Skipf("no Codex binary for this platform: %v", err)
	}
	slugs := regexp.MustCompile(`"slug": "([^"]+)"`).FindAllSubmatchIndex(bin, -1)
	if len(slugs) < 3 {
		t.Fatalf("%d model slugs in Codex's binary: its layout changed", len(slugs))
	}
	window := regexp.MustCompile(`"context_window": (\d+)`)
	gpt := regexp.MustCompile(`^gpt-\d`)
	for k, s := range slugs {
		slug := string(bin[s[2]:s[3]])
		if !gpt.MatchString(slug) {
			continue // internal models (codex-auto-review, gpt-daybreak-…)
		}
		i := Lookup(slug)
		if i.Fallback {
			t.Errorf("Codex's %s: no catalog row", slug)
			continue
		}
		end := len(bin)
		if k+1 < len(slugs) {
			end = slugs[k+1][0]
		}
		m := window.FindSubmatch(bin[s[1]:end])
		if m == nil {
			t.Errorf("Codex's %s: no context_window", slug)
			continue
		}
		cw, _ := strconv.Atoi(string(m[1]))
		t.Logf("Codex's %s: context_window %d; row %s: %d (input %d)", slug, cw, i.Family, i.ContextWindow, i.InputLimit())
		if slug == "gpt-5.5" && i.ContextWindow != cw {
			t.Errorf("gpt-5.5: window %d, Codex's catalog %d", i.ContextWindow, cw)
		}
	}
}

// TestPinnedGeminiModels reads Gemini CLI's model constants
// (packages/core/src/config/models.ts in its bundle): the models it uses
// by default have a priced row, the others a row.
func TestPinnedGeminiModels(t *testing.T) {
	nm := pinnedDir(t)
	files, _ := filepath.Glob(filepath.Join(nm, "@google", "gemini-cli", "bundle", "*.js"))
	constRE := regexp.MustCompile(`var ((?:DEFAULT|PREVIEW|BASE|LATEST)_GEMINI_[A-Z0-9_]*MODEL) = "(gemini-[^"]+)"`)
	found := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range constRE.FindAllSubmatch(b, -1) {
			found[string(m[1])] = string(m[2])
		}
	}
	if found["DEFAULT_GEMINI_MODEL"] == "" {
		t.Fatalf("no DEFAULT_GEMINI_MODEL in Gemini CLI's bundle (%d files): its layout changed", len(files))
	}
	// PREVIEW_GEMINI_MODEL (gemini-3-pro-preview) is shut down: a row
	// without a price.
	priced := map[string]bool{"DEFAULT_GEMINI_MODEL": true, "PREVIEW_GEMINI_3_1_MODEL": true,
		"PREVIEW_GEMINI_FLASH_MODEL": true, "BASE_GEMINI_FLASH_MODEL": true, "BASE_GEMINI_FLASH_LITE_MODEL": true}
	for name, id := range found {
		i := Lookup(id)
		switch {
		case i.Fallback:
			t.Errorf("Gemini CLI's %s = %s: no catalog row", name, id)
		case priced[name] && i.Price == nil:
			t.Errorf("Gemini CLI's %s = %s: row %s has no price", name, id, i.Family)
		}
	}
}

// jsObject returns the JavaScript object literal at the start of b as
// JSON: keys quoted, !0 and !1 as true and false. It reads as far as the
// brace that closes the first one, skipping strings.
func jsObject(b []byte) ([]byte, error) {
	depth, end := 0, -1
	for k := 0; k < len(b) && end < 0; k++ {
		switch b[k] {
		case '"':
			for k++; k < len(b) && b[k] != '"'; k++ {
				if b[k] == '\\' {
					k++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				end = k + 1
			}
		}
	}
	if end < 0 {
		return nil, strconv.ErrSyntax
	}
	var out bytes.Buffer
	src := b[:end]
	for k := 0; k < len(src); k++ {
		c := src[k]
		switch {
		case c == '"':
			j := k + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\\' {
					j++
				}
			}
			out.Write(src[k : j+1])
			k = j
		case c == '!' && k+1 < len(src) && (src[k+1] == '0' || src[k+1] == '1'):
			if src[k+1] == '0' {
				out.WriteString("true")
			} else {
				out.WriteString("false")
			}
			k++
		case (c == '{' || c == ',') && k+1 < len(src) && isIdentStart(src[k+1]):
			j := k + 1
			for j < len(src) && isIdent(src[j]) {
				j++
			}
			out.WriteByte(c)
			out.WriteByte('"')
			out.Write(src[k+1 : j])
			out.WriteByte('"')
			k = j - 1
		default:
			out.WriteByte(c)
		}
	}
	return out.Bytes(), nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isIdent(c byte) bool { return isIdentStart(c) || '0' <= c && c <= '9' }

// TestPinnedOpencodeCatalog reads the models.dev catalog opencode bundles
// in its binary and checks every price of ours against it, provider by
// provider (the first-party providers only: a gateway's prices differ): a
// model it prices that our catalog prices must cost the same input,
// output and cache read.
func TestPinnedOpencodeCatalog(t *testing.T) {
	nm := pinnedDir(t)
	bin, err := os.ReadFile(filepath.Join(nm, "opencode-linux-x64-baseline", "bin", "opencode"))
	if err != nil {
		t.Skipf("no opencode binary for this platform: %v", err)
	}
	checked := 0
	for _, prov := range []string{"openai", "anthropic", "google", "mistral", "deepseek"} {
		at := bytes.Index(bin, []byte(prov+`:{id:"`+prov+`"`))
		if at < 0 {
			t.Errorf("no %s provider in opencode's catalog: its layout changed", prov)
			continue
		}
		obj, err := jsObject(bin[bytes.IndexByte(bin[at:], '{')+at:])
		if err != nil {
			t.Fatalf("%s: %v", prov, err)
		}
		var p struct {
			Models map[string]struct {
				Cost *struct {
					Input     float64 `json:"input"`
					Output    float64 `json:"output"`
					CacheRead float64 `json:"cache_read"`
				} `json:"cost"`
			} `json:"models"`
		}
		if err := json.Unmarshal(obj, &p); err != nil {
			t.Fatalf("decoding opencode's %s provider: %v", prov, err)
		}
		for id, m := range p.Models {
			i := Lookup(id)
			if i.Price == nil || m.Cost == nil {
				continue
			}
			checked++
			got, want := *i.Price, *m.Cost
			if got.Input != want.Input || got.Output != want.Output || got.CacheRead != want.CacheRead {
				t.Errorf("%s/%s (row %s): $%g / $%g, read $%g; opencode's catalog: $%g / $%g, read $%g",
					prov, id, i.Family, got.Input, got.Output, got.CacheRead, want.Input, want.Output, want.CacheRead)
			}
		}
	}
	t.Logf("%d priced models checked against opencode's catalog", checked)
	if checked < 20 {
		t.Errorf("only %d models checked: the catalog's layout changed", checked)
	}
}
