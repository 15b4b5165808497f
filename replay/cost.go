package replay

import (
	"github.com/agentctx/agentctx/model"
)

// Cost is what the replayed session's model calls would cost at the
// model's list price ([model.PriceOf], the catalog row's price as of
// PriceAsOf), in US dollars, with the strategy's compaction and without
// any. Both count every call's output at the size of the reply the
// transcript records, and bill each call at the long-context tier when its
// prompt is above the tier's threshold.
//
// With compaction (USD) the prompts are the ones agentctx assembled and the
// cache is [Result]'s simulation: a call reads the previous call's cached
// prefix when its prompt starts with it, writes the rest of its prefix up
// to its last cache breakpoint (a 5-minute write), and pays input for what
// follows the breakpoint. A compaction that rewrites the history breaks the
// prefix: the next call writes its whole prefix again, and those writes
// are counted (CompactionCacheWriteTokens is their part of
// CacheWriteTokens).
//
// Without compaction (UncompactedUSD) each call's prompt is the whole
// history never compacted ([Step].UncompactedTokens), cached to its end as
// Claude Code and Codex cache it: each call reads the previous call's
// prompt and writes what was added since. Such prompts can exceed the
// model's context window; the cost is what they would have cost had the
// provider taken them.
//
// The summaries a model summarizer would ask for are not counted (the
// records do not say what they cost); the extractive summarizer costs
// nothing.
type Cost struct {
	USD            float64 `json:"usd"`
	UncompactedUSD float64 `json:"uncompacted_usd"`
	// SavedUSD is UncompactedUSD − USD: what compaction saved, negative
	// when the cache writes it caused cost more than the tokens it
	// removed.
	SavedUSD float64 `json:"saved_usd"`
	// Tokens by how they are billed, with compaction and without.
	CacheReadTokens             int `json:"cache_read_tokens"`
	CacheWriteTokens            int `json:"cache_write_tokens"`
	CompactionCacheWriteTokens  int `json:"compaction_cache_write_tokens"`
	UncompactedCacheReadTokens  int `json:"uncompacted_cache_read_tokens"`
	UncompactedCacheWriteTokens int `json:"uncompacted_cache_write_tokens"`
	OutputTokens                int `json:"output_tokens"`
	// PriceAsOf is the date of the price used (the catalog row's AsOf).
	PriceAsOf string `json:"price_as_of"`
}

// costSim prices the replay's calls as they come: call notes a call's
// prompt, reply prices it once its reply's size is known.
type costSim struct {
	price model.Price
	cost  Cost
	// with and without are the pending call's prompts.
	with, without model.Usage
	pending       bool
	// prevFull is the previous call's uncompacted prompt, in tokens.
	prevFull int
}

// newCostSim returns the simulation for modelName's price, or nil when the
// price is not known.
func newCostSim(modelName string) *costSim {
	i := model.Lookup(modelName)
	if i.Price == nil {
		return nil
	}
	return &costSim{price: *i.Price, cost: Cost{PriceAsOf: i.AsOf}}
}

// call notes a call: size tokens of prompt, cached of them up to its last
// cache breakpoint, read of them served from the cache, compacted whether
// compaction ran before it; full is the uncompacted history's size.
func (c *costSim) call(size, cached, read int, compacted bool, full int) {
	if c == nil {
		return
	}
	write := max(cached-read, 0)
	c.with = model.Usage{Input: max(size-read-write, 0), CacheRead: read, CacheWrite5m: write}
	c.cost.CacheReadTokens += read
	c.cost.CacheWriteTokens += write
	if compacted {
		c.cost.CompactionCacheWriteTokens += write
	}
	fullRead := min(c.prevFull, full)
	c.without = model.Usage{CacheRead: fullRead, CacheWrite5m: full - fullRead}
	c.cost.UncompactedCacheReadTokens += fullRead
	c.cost.UncompactedCacheWriteTokens += full - fullRead
	c.prevFull = full
	c.pending = true
}

// reply prices the pending call, whose reply is output tokens.
func (c *costSim) reply(output int) {
	if c == nil || !c.pending {
		return
	}
	c.with.Output, c.without.Output = output, output
	c.cost.OutputTokens += output
	c.cost.USD += c.price.CostUsage(c.with)
	c.cost.UncompactedUSD += c.price.CostUsage(c.without)
	c.pending = false
}

// result returns the cost, nil for a nil simulation.
func (c *costSim) result() *Cost {
	if c == nil {
		return nil
	}
	c.reply(0) // a last call whose reply was not replayed
	r := c.cost
	r.SavedUSD = r.UncompactedUSD - r.USD
	return &r
}
