package model_test

import (
	"fmt"

	"github.com/agentctx/agentctx/model"
)

func ExampleLookup() {
	i := model.Lookup("anthropic/claude-haiku-4-5-20251001")
	fmt.Println(i.Family, i.ContextWindow, i.MaxOutput, i.Encoding, i.EncodingEstimated)

	u := model.Lookup("my-local-model")
	fmt.Println(model.Warning(u))
	// Output:
	// claude-haiku-4-5 200000 64000 o200k_base true
	// model "my-local-model" is not in the catalog; assuming a 128000-token context window, 16384 max output tokens and o200k_base token counts (estimated)
}

func ExamplePolicy() {
	i := model.Lookup("claude-haiku-4-5")
	fmt.Println(model.DefaultReserve().Budget(i))
	fmt.Println(model.DefaultTiers().Budget(i))

	// Configured down: a larger buffer, and tiers at half size.
	fmt.Println(model.Reserve{OutputCap: 20_000, Buffer: 80_000, MinShare: 0.5}.Budget(i))
	fmt.Println(model.DefaultTiers().Scaled(0.5).Budget(i))
	// Output:
	// 167000
	// 24000
	// 100000
	// 12000
}
