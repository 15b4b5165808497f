package model

import (
	"math"
	"testing"
)

func TestPriceOf(t *testing.T) {
	known := map[string]float64{ // name → input price
		"gpt-5":                      1.25,
		"openai/gpt-5-2025-08-07":    1.25,
		"gpt-5-codex":                1.25,
		"gpt-5.1":                    1.25,
		"gpt-5-mini":                 0.25,
		"gpt-5-nano-2025-08-07":      0.05,
		"gpt-4.1-2025-04-14":         2.00,
		"gpt-4.1-mini":               0.40,
		"GPT-4o":                     2.50,
		"gpt-4o-2024-08-06":          2.50,
		"gpt-4o-mini-2024-07-18":     0.15,
		"o3":                         2.00,
		"o4-mini-2025-04-16":         1.10,
		"claude-opus-4-5-20251101":   5,
		"claude-opus-4-1-20250805":   15,
		"claude-sonnet-4-20250514":   3,
		"claude-sonnet-4-5":          3,
		"claude-3-7-sonnet-latest":   3,
		"claude-haiku-4-5-20251001":  1,
		"claude-3-5-haiku-20241022":  0.80,
		"deepseek-chat":              0.28,
		"deepseek/deepseek-reasoner": 0.28,
	}
	for name, in := range known {
		p, ok := PriceOf(name)
		if !ok || p.Input != in {
			t.Errorf("PriceOf(%q) = %+v, %v; want input %v", name, p, ok, in)
		}
	}
	// Names a shorter pattern would wrongly price: other models, other
	// prices, or prices not published when the table was written.
	for _, name := range []string{"gpt-5.2", "gpt-5-pro", "gpt-4o-2024-05-13", "chatgpt-4o-latest", "o3-pro", "o3-mini",
		"claude-opus-4-6", "claude-sonnet-4-6", "qwen2.5-coder:7b", "llama3.1", "", "gpt-4.1-mini-pro"} {
		if p, ok := PriceOf(name); ok {
			t.Errorf("PriceOf(%q) = %+v, want unknown", name, p)
		}
	}
}

func TestPriceCost(t *testing.T) {
	p, _ := PriceOf("claude-sonnet-4-5")
	// 1,000 uncached, 100,000 cache reads, 2,000 cache writes, 500 out:
	// 0.003 + 0.03 + 0.0075 + 0.0075 dollars.
	got := p.Cost(1000, 100_000, 2000, 500)
	if want := 0.048; math.Abs(got-want) > 1e-9 {
		t.Fatalf("Cost = %v, want %v", got, want)
	}
	if c := (Price{}).Cost(1e6, 1e6, 1e6, 1e6); c != 0 {
		t.Fatalf("zero price costs %v", c)
	}
}
