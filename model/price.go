package model

import (
	"regexp"
	"strings"
)

// Price is a model's list price in US dollars per million tokens, by the
// kind of token a provider bills. Zero fields cost nothing.
type Price struct {
	// Input is the price of prompt tokens read neither from nor into the
	// provider's cache.
	Input float64 `json:"input"`
	// CachedInput is the price of prompt tokens read from the cache
	// (OpenAI's cached input, Anthropic's cache read).
	CachedInput float64 `json:"cached_input"`
	// CacheWrite is the price of prompt tokens written to the cache
	// (Anthropic's 5-minute cache write; OpenAI does not bill writes).
	CacheWrite float64 `json:"cache_write"`
	// Output is the price of reply tokens, reasoning included.
	Output float64 `json:"output"`
}

// Cost returns the price in US dollars of a model call that used input
// uncached prompt tokens, cacheRead prompt tokens read from the cache,
// cacheWrite prompt tokens written to it and output reply tokens (the
// fields of chat.Usage: InputTokens, CacheReadTokens, CacheWriteTokens,
// OutputTokens).
func (p Price) Cost(input, cacheRead, cacheWrite, output int) float64 {
	return (float64(input)*p.Input + float64(cacheRead)*p.CachedInput +
		float64(cacheWrite)*p.CacheWrite + float64(output)*p.Output) / 1e6
}

// prices are the list prices known, in match order (the first pattern
// found in the lower-cased name wins, so a model's -mini comes before the
// model). Only models whose price is published and stable are listed; a
// model not here has no price, and no cost is shown for it (a local
// server's models cost nothing to us but what the machine costs).
//
// Sources, standard tier, prompts up to 200K tokens:
//   - OpenAI: platform.openai.com/docs/pricing (input, cached input,
//     output).
//   - Anthropic: docs.anthropic.com/en/docs/about-claude/pricing (base
//     input, 5-minute cache write at 1.25×, cache hit at 0.1×, output).
//   - DeepSeek: api-docs.deepseek.com/quick_start/pricing (V3.2: cache
//     miss, cache hit, output; both deepseek-chat and deepseek-reasoner).
var prices = []struct {
	re    *regexp.Regexp
	price Price
}{
	{priceRe(`gpt-5-nano` + date + end), Price{Input: 0.05, CachedInput: 0.005, Output: 0.40}},
	{priceRe(`gpt-5-mini` + date + end), Price{Input: 0.25, CachedInput: 0.025, Output: 2.00}},
	{priceRe(`gpt-5(?:\.1)?(?:-codex|-chat-latest)?` + date + end), Price{Input: 1.25, CachedInput: 0.125, Output: 10.00}},
	{priceRe(`gpt-4\.1-nano` + date + end), Price{Input: 0.10, CachedInput: 0.025, Output: 0.40}},
	{priceRe(`gpt-4\.1-mini` + date + end), Price{Input: 0.40, CachedInput: 0.10, Output: 1.60}},
	{priceRe(`gpt-4\.1` + date + end), Price{Input: 2.00, CachedInput: 0.50, Output: 8.00}},
	{priceRe(`gpt-4o-mini` + date + end), Price{Input: 0.15, CachedInput: 0.075, Output: 0.60}},
	// gpt-4o-2024-05-13 and chatgpt-4o-latest cost more: not matched.
	{priceRe(bl + `gpt-4o(?:-2024-08-06|-2024-11-20)?` + end), Price{Input: 2.50, CachedInput: 1.25, Output: 10.00}},
	{priceRe(bl + `o4-mini` + date + end), Price{Input: 1.10, CachedInput: 0.275, Output: 4.40}},
	{priceRe(bl + `o3` + date + end), Price{Input: 2.00, CachedInput: 0.50, Output: 8.00}},
	{priceRe(`claude-opus-4-5` + claudeDate + end), Price{Input: 5, CacheWrite: 6.25, CachedInput: 0.50, Output: 25}},
	{priceRe(`claude-opus-4(?:-1)?` + claudeDate + end), Price{Input: 15, CacheWrite: 18.75, CachedInput: 1.50, Output: 75}},
	{priceRe(`claude-(?:sonnet-4(?:-5)?|3-[57]-sonnet)` + claudeDate + end), Price{Input: 3, CacheWrite: 3.75, CachedInput: 0.30, Output: 15}},
	{priceRe(`claude-haiku-4-5` + claudeDate + end), Price{Input: 1, CacheWrite: 1.25, CachedInput: 0.10, Output: 5}},
	{priceRe(`claude-3-5-haiku` + claudeDate + end), Price{Input: 0.80, CacheWrite: 1, CachedInput: 0.08, Output: 4}},
	{priceRe(bl + `deepseek-(?:chat|reasoner)` + end), Price{Input: 0.28, CachedInput: 0.028, Output: 0.42}},
}

// The pieces of the price patterns: an OpenAI snapshot date, an Anthropic
// one (with "-latest"), and the end of the name (not a letter, digit, dot
// or dash, so "gpt-5" does not price "gpt-5.2" or "gpt-5-pro").
const (
	date       = `(?:-\d{4}-\d{2}-\d{2})?`
	claudeDate = `(?:-\d{8}|-latest)?`
	end        = `(?:$|[^a-z0-9.-])`
)

func priceRe(p string) *regexp.Regexp { return regexp.MustCompile(p) }

// PriceOf returns the list price of the model called name (a provider
// prefix such as "openai/" is ignored, case too) and true, or false when
// the price is not known (newer and local models). Prices are those
// published when this table was written (see its sources); a provider
// may change them, batch and priority tiers differ, and prompts over
// 200K tokens cost more on some models: take the result as an estimate.
func PriceOf(name string) (Price, bool) {
	n := strings.ToLower(name)
	for _, p := range prices {
		if p.re.MatchString(n) {
			return p.price, true
		}
	}
	return Price{}, false
}
