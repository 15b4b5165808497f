package model

import (
	"math"
	"regexp"
	"strings"
	"testing"
)

func TestPriceOf(t *testing.T) {
	t.Parallel()
	known := map[string]float64{ // name → input price
		"claude-opus-5-5":                    4,
		"claude-opus-5-5[1m]":                4,
		"us.anthropic.claude-opus-5-5":       4,
		"claude-opus-5":                      5,
		"claude-sonnet-5":                    2,
		"claude-opus-4-8":                    5,
		"claude-opus-4-7":                    5,
		"claude-opus-4-6":                    5,
		"claude-opus-4-6[1m]":                5,
		"claude-sonnet-4-6":                  3,
		"claude-opus-4-5-20251101":           5,
		"claude-opus-4-1-20250805":           15,
		"claude-sonnet-4-20250514":           3,
		"claude-sonnet-4-5":                  3,
		"claude-3-7-sonnet-latest":           3,
		"claude-haiku-4-5-20251001":          1,
		"claude-3-5-haiku-20241022":          0.80,
		"gpt-6.1-sol":                        2,
		"openai/gpt-5.5":                     5,
		"gpt-5.4":                            2.50,
		"gpt-5.3-codex":                      1.75,
		"gpt-5.2":                            1.75,
		"gpt-5":                              1.25,
		"openai/gpt-5-2025-08-07":            1.25,
		"gpt-5-codex":                        1.25,
		"gpt-5.1-codex-max":                  1.25,
		"gpt-5-mini":                         0.25,
		"gpt-5-nano-2025-08-07":              0.05,
		"gpt-4.1-2025-04-14":                 2.00,
		"gpt-4.1-mini":                       0.40,
		"GPT-4o":                             2.50,
		"gpt-4o-2024-08-06":                  2.50,
		"gpt-4o-mini-2024-07-18":             0.15,
		"o3":                                 2.00,
		"gemini-2.5-pro":                     1.25,
		"gemini-4-neon":                      3,
		"models/gemini-3.1-pro-preview":      2,
		"google/gemini-3-flash-preview":      0.50,
		"gemini-3.5-flash":                   1.50,
		"gemini-3.8-flash":                   0.75,
		"gemini-3.1-pro-preview-customtools": 2,
		"vertex_ai/gemini-2.5-flash-lite":    0.10,
	}
	for name, in := range known {
		p, ok := PriceOf(name)
		if !ok || p.Input != in {
			t.Errorf("PriceOf(%q) = %+v, %v; want input %v", name, p, ok, in)
		}
	}
	// Names a shorter pattern would wrongly price: other models, other
	// prices, prices not found, or prices that depend on the hour
	// (DeepSeek's peak and off-peak rates).
	for _, name := range []string{"gpt-5.5-pro", "gpt-5-pro", "gpt-5.4-pro", "gpt-4o-2024-05-13", "chatgpt-4o-latest",
		"o3-pro", "o3-mini", "o4-mini", "claude-opus-5-7", "claude-sonnet-6", "claude-opus-4-9", "claude-3-opus-20240229",
		"gpt-6.1-terra", "gpt-5.6", "deepseek-chat", "deepseek-v4-pro", "qwen2.5-coder:7b", "llama3.1", "",
		"gpt-4.1-mini-pro", "gemini-3-pro-preview", "gemini-4-pro",
		"gemini-2.5-flash-image", "gemini-2.5-flash-preview-tts", "gemini-3.1-flash-image-preview", "gemini-3.8-flash-lite"} {
		if p, ok := PriceOf(name); ok {
			t.Errorf("PriceOf(%q) = %+v, want unknown", name, p)
		}
	}
}

func TestPriceCost(t *testing.T) {
	t.Parallel()
	p, _ := PriceOf("claude-sonnet-4-5")
	// 1,000 uncached, 100,000 cache reads, 2,000 cache writes, 500 out:
	// 0.003 + 0.03 + 0.0075 + 0.0075 dollars.
	if got, want := p.Cost(1000, 100_000, 2000, 500), 0.048; math.Abs(got-want) > 1e-9 {
		t.Errorf("Cost = %v, want %v", got, want)
	}
	// 1-hour writes at 2× input: 2,000 × $6 = $0.012.
	if got, want := p.CostUsage(Usage{CacheWrite1h: 2000}), 0.012; math.Abs(got-want) > 1e-9 {
		t.Errorf("CostUsage(1h writes) = %v, want %v", got, want)
	}
	// Over 200K prompt tokens the whole call bills at the long-context
	// tier: 150,000 × $6 + 100,000 × $0.60 + 1,000 × $22.50.
	if got, want := p.Cost(150_000, 100_000, 0, 1000), (150_000*6+100_000*0.6+1000*22.5)/1e6; math.Abs(got-want) > 1e-9 {
		t.Errorf("long-context Cost = %v, want %v", got, want)
	}
	// A cache rate not given bills at input.
	g := Price{Input: 2, Output: 12}
	if got, want := g.Cost(0, 1000, 0, 0), g.Cost(1000, 0, 0, 0); got != want || got == 0 {
		t.Errorf("cache reads without a rate cost %v, want input's %v", got, want)
	}
	if c := (Price{}).Cost(1e6, 1e6, 1e6, 1e6); c != 0 {
		t.Errorf("zero price costs %v", c)
	}
	if c := p.Cost(-5, -5, -5, -5); c != 0 {
		t.Errorf("negative counts cost %v", c)
	}
}

// TestCatalogRows checks every row: a source and a date, prices that are
// consistent (positive input and output, cache reads cheaper than input,
// a long-context tier above 0 and no cheaper than the base).
func TestCatalogRows(t *testing.T) {
	t.Parallel()
	date := regexp.MustCompile(`^20\d\d-\d\d-\d\d$`)
	for _, r := range Catalog() {
		if r.Source == "" || !date.MatchString(r.AsOf) {
			t.Errorf("row %q: source %q, as of %q: want both", r.Name, r.Source, r.AsOf)
		}
		p := r.Price
		if p == nil {
			continue
		}
		// A priced row is named after a model it prices: its name
		// finds it.
		if got := Lookup(r.Name); got.Family != r.Name {
			t.Errorf("Lookup(%q).Family = %q", r.Name, got.Family)
		}
		if p.Input <= 0 || p.Output <= 0 || p.CacheRead >= p.Input || p.CacheWrite5m < 0 || p.CacheWrite1h < 0 {
			t.Errorf("row %q: price %+v", r.Name, *p)
		}
		if lc := p.LongContext; lc != nil && (lc.Above <= 0 || lc.Input < p.Input || lc.Output < p.Output) {
			t.Errorf("row %q: long-context tier %+v", r.Name, *lc)
		}
		if strings.HasPrefix(r.Name, "claude-") && (p.CacheWrite5m == 0 || p.CacheWrite1h == 0 || p.CacheRead == 0) {
			t.Errorf("row %q: an Anthropic price without its cache rates: %+v", r.Name, *p)
		}
	}
}
