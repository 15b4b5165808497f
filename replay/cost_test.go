package replay

import (
	"math"
	"testing"
)

// TestCostSim prices two calls of Claude Sonnet 4.5 ($3 input, $3.75
// 5-minute write, $0.30 read, $15 output) by hand.
func TestCostSim(t *testing.T) {
	t.Parallel()
	c := newCostSim("claude-sonnet-4-5")
	if c == nil {
		t.Fatal("no price for claude-sonnet-4-5")
	}
	// Call 1: 1,000 tokens, 800 up to the breakpoint, nothing cached yet;
	// the uncompacted history is the same 1,000.
	c.call(1000, 800, 0, false, 1000)
	c.reply(100)
	// Call 2, after a compaction: 1,500 tokens, 1,400 up to the
	// breakpoint, 800 read; the uncompacted history is 1,600.
	c.call(1500, 1400, 800, true, 1600)
	c.reply(50)
	got := c.result()
	with := (200*3 + 800*3.75 + 100*15 + // call 1: input, write, output
		100*3 + 800*0.30 + 600*3.75 + 50*15) / 1e6 // call 2: input, read, write, output
	without := (1000*3.75 + 100*15 + // call 1 writes it all
		1000*0.30 + 600*3.75 + 50*15) / 1e6 // call 2 reads call 1's prompt, writes the rest
	if math.Abs(got.USD-with) > 1e-12 || math.Abs(got.UncompactedUSD-without) > 1e-12 || math.Abs(got.SavedUSD-(without-with)) > 1e-12 {
		t.Errorf("cost %+v, want usd %v uncompacted %v", *got, with, without)
	}
	if got.CacheWriteTokens != 1400 || got.CompactionCacheWriteTokens != 600 || got.CacheReadTokens != 800 ||
		got.UncompactedCacheReadTokens != 1000 || got.UncompactedCacheWriteTokens != 1600 || got.OutputTokens != 150 {
		t.Errorf("tokens %+v", *got)
	}
	if got.PriceAsOf == "" {
		t.Error("no price date")
	}
	if c := newCostSim("my-local-model"); c != nil || c.result() != nil {
		t.Errorf("an unknown model's cost: %+v, want none", c)
	}
}
