// Package model is agentctx's model catalog and its token budget policies.
//
// # Catalog
//
// [Lookup] maps a model name to an [Info]: context window, max output
// tokens, an input cap where the provider sets one, and the tiktoken
// encoding its prompts are counted with. Names are matched by pattern over
// an ordered table (seed 003's MODEL_CONTEXT_WINDOWS brought up to late
// 2026: GPT-5.x and its Codex variants, GPT-4.1, GPT-4o, the o-series,
// Claude 3 to 5 including 1M-context variants, Gemini 1.5 to 3, DeepSeek V3,
// R1 and V4, Qwen 2.5 and 3, Llama 3 and 4, Mistral, Codestral and
// Devstral), so provider prefixes and date suffixes do not matter. A name
// the table does not know gets a documented fallback and a [Warning],
// never an error.
//
// # Prices
//
// A row also carries the model's list [Price] in US dollars per million
// tokens where its sources give one (input, output, cache read, 5-minute
// and 1-hour cache writes, a long-context [PriceTier]), its sources and the
// date they were read ([Info].Source, [Info].AsOf). [PriceOf] returns it,
// [Price.Cost] and [Price.CostUsage] price a call, and [Catalog] lists
// every row (`agentctx models`). A row without a price has none rather
// than a guessed one, and costs are then left out.
//
// # Encodings
//
// OpenAI's families are counted exactly with their own encoding
// (o200k_base or cl100k_base). The other families have no public local
// tokenizer; their Info names a stand-in encoding and sets
// [Info.EncodingEstimated]. [Counter] returns the counter for an Info.
//
// # Budgets
//
// A [Policy] turns an Info into a prompt budget in tokens. [Tiers] is seed
// 003's resolveTokenBudget (a fixed budget per window size); [Reserve] is
// Claude Code's threshold (the window less the reply reserve and a
// buffer). Both can be configured up and down; [ParsePolicy] reads a policy
// name, and [DefaultPolicy] is [DefaultReserve].
package model
