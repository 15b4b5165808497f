package model

// Price is a model's list price in US dollars per million tokens, by the
// kind of token a provider bills (standard tier, no batch, no priority or
// fast mode). A cache field of 0 means the provider publishes no separate
// rate for it, or none was found (the catalog row's Source says which):
// those tokens are billed at Input, the undiscounted rate, so a cost
// computed from such a Price is an upper bound.
type Price struct {
	// Input is the price of prompt tokens neither read from nor written
	// to the provider's cache.
	Input float64 `json:"input"`
	// Output is the price of reply tokens, reasoning included.
	Output float64 `json:"output"`
	// CacheRead is the price of prompt tokens read from the cache
	// (Anthropic's cache hits, OpenAI's and Google's cached input,
	// DeepSeek's cache hits).
	CacheRead float64 `json:"cache_read,omitempty"`
	// CacheWrite5m is the price of prompt tokens written to the cache with
	// the provider's default retention: Anthropic's 5-minute cache write
	// (1.25 × Input), OpenAI's cache write (30-minute retention, GPT-6
	// models on).
	CacheWrite5m float64 `json:"cache_write_5m,omitempty"`
	// CacheWrite1h is the price of prompt tokens written to Anthropic's
	// 1-hour cache (2 × Input).
	CacheWrite1h float64 `json:"cache_write_1h,omitempty"`
	// LongContext is the tier a call is billed at, all of its tokens,
	// when its prompt holds more than LongContext.Above tokens; nil when
	// the model has none.
	LongContext *PriceTier `json:"long_context,omitempty"`
}

// PriceTier is a long-context price tier: a call whose prompt (uncached input,
// cache reads and cache writes together) holds more than Above tokens is
// billed at these rates for all of its tokens, output included (Anthropic,
// OpenAI and Google all bill the whole request at the tier's rates). Rates
// are US dollars per million tokens, 0 cache rates meaning Input as in
// [Price].
type PriceTier struct {
	Above        int     `json:"above"`
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheRead    float64 `json:"cache_read,omitempty"`
	CacheWrite5m float64 `json:"cache_write_5m,omitempty"`
	CacheWrite1h float64 `json:"cache_write_1h,omitempty"`
}

// Cost returns the price in US dollars of a model call that used input
// uncached prompt tokens, cacheRead prompt tokens read from the cache,
// cacheWrite prompt tokens written to it (with the default retention, see
// [Price].CacheWrite5m) and output reply tokens: the fields of chat.Usage
// InputTokens, CacheReadTokens, CacheWriteTokens and OutputTokens. A call
// whose prompt is above the long-context threshold is billed at that tier.
// Negative counts count as 0.
func (p Price) Cost(input, cacheRead, cacheWrite, output int) float64 {
	return p.CostUsage(Usage{Input: input, CacheRead: cacheRead, CacheWrite5m: cacheWrite, Output: output})
}

// Usage is one model call's tokens by how they are billed: uncached input,
// cache reads, cache writes with each retention, and output.
type Usage struct {
	Input        int `json:"input"`
	CacheRead    int `json:"cache_read"`
	CacheWrite5m int `json:"cache_write_5m"`
	CacheWrite1h int `json:"cache_write_1h"`
	Output       int `json:"output"`
}

// Prompt returns the prompt's size in tokens: uncached input, cache reads
// and cache writes together.
func (u Usage) Prompt() int {
	return max(u.Input, 0) + max(u.CacheRead, 0) + max(u.CacheWrite5m, 0) + max(u.CacheWrite1h, 0)
}

// CostUsage returns the price in US dollars of a model call that used u,
// at the long-context tier when u's prompt is above its threshold.
func (p Price) CostUsage(u Usage) float64 {
	r := PriceTier{Input: p.Input, Output: p.Output, CacheRead: p.CacheRead, CacheWrite5m: p.CacheWrite5m, CacheWrite1h: p.CacheWrite1h}
	if lc := p.LongContext; lc != nil && u.Prompt() > lc.Above {
		r = *lc
	}
	or := func(rate float64) float64 {
		if rate == 0 {
			return r.Input
		}
		return rate
	}
	return (float64(max(u.Input, 0))*r.Input + float64(max(u.CacheRead, 0))*or(r.CacheRead) +
		float64(max(u.CacheWrite5m, 0))*or(r.CacheWrite5m) + float64(max(u.CacheWrite1h, 0))*or(r.CacheWrite1h) +
		float64(max(u.Output, 0))*r.Output) / 1e6
}

// PriceOf returns the list price of the model called name and true, or
// false when the catalog has no price for it (a model not in the catalog,
// a family whose members cost different amounts, a local model, or a
// price the catalog's sources do not give). Matching is [Lookup]'s. The
// price is the one published on the date in the row's AsOf (see
// [Catalog]); providers change them, and batch, priority and regional
// tiers differ: take a cost from it as an estimate.
func PriceOf(name string) (Price, bool) {
	i := Lookup(name)
	if i.Price == nil {
		return Price{}, false
	}
	return *i.Price, true
}

// CallCost is what sending a prompt of Tokens tokens to a model would
// cost, in US dollars at its list price (the catalog row's, as of
// PriceAsOf): UncachedUSD with every token billed as uncached input,
// CachedUSD with every token read from a warm cache (the least the call
// can cost); the reply is not counted. What `agentctx inspect` and the
// service's inspect route report.
type CallCost struct {
	Tokens      int     `json:"tokens"`
	UncachedUSD float64 `json:"uncached_usd"`
	CachedUSD   float64 `json:"cached_usd"`
	PriceAsOf   string  `json:"price_as_of"`
}

// NextCallCost returns the cost of sending tokens as a prompt to the
// model of info, nil when its price is not known.
func NextCallCost(info Info, tokens int) *CallCost {
	p := info.Price
	if p == nil {
		return nil
	}
	return &CallCost{
		Tokens:      tokens,
		UncachedUSD: p.CostUsage(Usage{Input: tokens}),
		CachedUSD:   p.CostUsage(Usage{CacheRead: tokens}),
		PriceAsOf:   info.AsOf,
	}
}

// CostOf returns the cost in US dollars of one call of the model called
// name that used the given tokens (see [Price.Cost]), and false when the
// catalog has no price for it ([PriceOf]).
func CostOf(name string, input, cacheRead, cacheWrite, output int) (float64, bool) {
	p, ok := PriceOf(name)
	if !ok {
		return 0, false
	}
	return p.Cost(input, cacheRead, cacheWrite, output), true
}
