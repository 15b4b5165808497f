package model

// entries is the catalog, in match order: the first entry whose pattern
// occurs in the lower-cased name wins, so specific entries come before the
// families that contain them ("gpt-4o-mini" before "gpt-4o" before "gpt-4").
// Every entry has an example name that the tests look up, which proves that
// no earlier entry shadows it.
//
// Each row cites its sources (Source) and the date they were read (AsOf).
// The rows of the models the pinned agents use (Claude Code 2.1.328, Codex
// 0.169.0, Gemini CLI 0.61.0, opencode 1.18.33) were read on 2026-11-27
// from the agents' own bundled catalogs and the providers' pages as the
// search index holds them; where a provider's page was not there, the
// source says whose quotation of it the figure comes from, and a figure
// found nowhere is left out (no price, or a cache rate billed at input)
// rather than guessed. Where a provider publishes no separate output
// limit (Llama, Mistral), the entry uses a common provider cap and says
// so. Rows that stand for a family whose members cost different amounts
// have no price.
//
// Encodings: OpenAI's families use their real encoding (tiktoken's model
// map). The others have no public local tokenizer and use a stand-in,
// marked estimated: o200k_base by default (the largest modern public BPE,
// multilingual and code-aware; Gemini's ~256K, Llama 4's 202K, Mistral
// Tekken's 131K and DeepSeek's 128K vocabularies are closer in size to its
// 200K than to cl100k_base's 100K; Anthropic publishes nothing about
// Claude's), and cl100k_base for Llama 3 (Meta: its 128K vocabulary is 100K
// tokens from tiktoken plus 28K more) and Qwen (Qwen technical report:
// cl100k_base augmented with Chinese characters and words).
var entries = []entry{
	// ── OpenAI ──
	// GPT-6: 1,050,000-token window, 922,000 input, 128,000 output.
	// Requests over 272K input tokens bill input and cache at 2× and
	// output at 1.5× (the gpt-6.2-sol page); the 12-hour cache write
	// ($5 for Sol) is not modelled.
	{family: "gpt-6.2-sol", pattern: `gpt-6[.-]2-sol` + oaEnd, example: "gpt-6.2-sol",
		window: 1_050_000, output: 128_000, input: 922_000, encoding: o200k,
		price: &Price{Input: 2, Output: 10, CacheRead: 0.10, CacheWrite5m: 2.50,
			LongContext: &PriceTier{Above: 272_000, Input: 4, Output: 15, CacheRead: 0.20, CacheWrite5m: 5}},
		source: srcOpenAIModels + "gpt-6.2-sol", asOf: today},
	{family: "gpt-6.2-astra", pattern: `gpt-6[.-]2-astra` + oaEnd, example: "gpt-6.2-astra",
		window: 1_050_000, output: 128_000, input: 922_000, encoding: o200k,
		price: &Price{Input: 8, Output: 40, CacheRead: 0.40, CacheWrite5m: 10,
			LongContext: &PriceTier{Above: 272_000, Input: 16, Output: 60, CacheRead: 0.80, CacheWrite5m: 20}},
		source: srcOpenAIModels + " (the models overview: $8 / $40, 1.05M, 128K); cache and long-context rates from " + srcOpenAIPricing + " as quoted by TokenMeter's v0.17.0 notes", asOf: today},
	{family: "gpt-6.1-sol", pattern: `gpt-6[.-]1-sol` + oaEnd, example: "openai/gpt-6.1-sol",
		window: 1_050_000, output: 128_000, input: 922_000, encoding: o200k,
		price: &Price{Input: 2, Output: 10, CacheRead: 0.10, CacheWrite5m: 2.50,
			LongContext: &PriceTier{Above: 272_000, Input: 4, Output: 15, CacheRead: 0.20, CacheWrite5m: 5}},
		source: srcOpenAIModels + "gpt-6.1-sol (not in the search index: limits from Google Cloud's partner-model page for gpt-6.1-sol, prices from LiteLLM's and APIYI's launch notes quoting it; long-context rates by the GPT-6 rule of the gpt-6.2-sol page); Codex 0.169.0's default model, whose bundled catalog runs it at 272,000 (max_context_window 872,000)", asOf: today},
	{family: "gpt-6-sol", pattern: `gpt-6-sol` + oaEnd, example: "gpt-6-sol",
		window: 1_050_000, output: 128_000, input: 922_000, encoding: o200k,
		price: &Price{Input: 2, Output: 10, CacheRead: 0.20, CacheWrite5m: 2.50,
			LongContext: &PriceTier{Above: 272_000, Input: 4, Output: 15, CacheRead: 0.40, CacheWrite5m: 5}},
		source: srcOpenAIPricing + " (as quoted by LiteLLM's and codexometer's GPT-6 Sol notes, 2026-09-22; page not in the search index)", asOf: today},
	{family: "gpt-6-luna", pattern: `gpt-6-luna` + oaEnd, example: "gpt-6-luna",
		window: 1_050_000, output: 128_000, input: 922_000, encoding: o200k,
		price: &Price{Input: 0.10, Output: 0.50, CacheRead: 0.01, CacheWrite5m: 0.125,
			LongContext: &PriceTier{Above: 272_000, Input: 0.20, Output: 0.75, CacheRead: 0.02, CacheWrite5m: 0.25}},
		source: srcOpenAIPricing + " (as quoted by LiteLLM's and codexometer's GPT-6 Luna notes, 2026-09-22; page not in the search index)", asOf: today},
	{family: "gpt-6-astra", pattern: `gpt-6-astra` + oaEnd, example: "gpt-6-astra",
		window: 1_050_000, output: 128_000, input: 922_000, encoding: o200k,
		price:  &Price{Input: 10, Output: 50, CacheRead: 1, CacheWrite5m: 12.50},
		source: srcOpenAIModels + "gpt-6-astra (as quoted by AI Token Meter's and PromptFuel's notes; page not in the search index; long-context rates not found: calls over 272K at the short-context rates)", asOf: today},
	// Other GPT-6 models (gpt-6.1-terra …): limits of the family, no price.
	{family: "gpt-6", pattern: `gpt-6`, example: "gpt-6.1-terra",
		window: 1_050_000, output: 128_000, input: 922_000, encoding: o200k,
		source: srcOpenAIModels + " (the family's 1.05M window; per-model prices not found)", asOf: today},
	// GPT-5.6 Sol, Terra, Luna (in Codex 0.169.0's catalog, which runs
	// them at 272,000): the API's 1.05M window; rates above 272K input
	// tokens not found (calls there are priced at the short-context rates).
	{family: "gpt-5.6-sol", pattern: `gpt-5[.-]6-sol` + oaEnd, example: "gpt-5.6-sol",
		window: 1_050_000, output: 128_000, input: 922_000, encoding: o200k,
		price:  &Price{Input: 4, Output: 20, CacheRead: 0.40, CacheWrite5m: 5},
		source: srcOpencode + " (1.05M, 128K, $4 / $20, read $0.40, write $5; PromptFuel's notes give the same promotional price from 2026-08-21); input cap from LiteLLM's GPT-6 note", asOf: today},
	{family: "gpt-5.6-terra", pattern: `gpt-5[.-]6-terra` + oaEnd, example: "gpt-5.6-terra",
		window: 1_050_000, output: 128_000, input: 922_000, encoding: o200k,
		price:  &Price{Input: 2, Output: 12, CacheRead: 0.20, CacheWrite5m: 2.50},
		source: srcOpencode + " ($2 / $12, read $0.20, write $2.50; the same in PromptFuel's notes from 2026-07-30)", asOf: today},
	{family: "gpt-5.6-luna", pattern: `gpt-5[.-]6-luna` + oaEnd, example: "gpt-5.6-luna",
		window: 1_050_000, output: 128_000, input: 922_000, encoding: o200k,
		price:  &Price{Input: 0.20, Output: 1.20, CacheRead: 0.02, CacheWrite5m: 0.25},
		source: srcOpencode + " ($0.20 / $1.20, read $0.02, write $0.25; the same in PromptFuel's notes from 2026-07-30)", asOf: today},
	{family: "gpt-5.6", pattern: `gpt-5[.-]6`, example: "gpt-5.6",
		window: 1_050_000, output: 128_000, input: 922_000, encoding: o200k,
		source: srcOpencode + " (1.05M window); other GPT-5.6 names not priced", asOf: today},
	{family: "gpt-5.5", pattern: `gpt-5[.-]5` + oaEnd, example: "gpt-5.5",
		window: 272_000, output: 128_000, encoding: o200k,
		price: &Price{Input: 5, Output: 30, CacheRead: 0.50,
			LongContext: &PriceTier{Above: 272_000, Input: 10, Output: 45, CacheRead: 1}},
		source: "window: Codex 0.169.0's bundled model catalog (context_window = max_context_window = 272,000, the edge of the long-context price; the API takes 1,050,000 per " + srcOpencode + ", OpenAI's gpt-5.5 page is not in the search index); prices: " + srcOpencode + "; " + srcOpenAIPricing + " as quoted by api-evangelist (read 2026-11-05), morphllm and Vercel", asOf: today},
	{family: "gpt-5.5-other", pattern: `gpt-5[.-]5`, example: "gpt-5.5-pro",
		window: 272_000, output: 128_000, encoding: o200k,
		source: "the gpt-5.5 row's window; prices of the variants not checked", asOf: today},
	{family: "gpt-5.4-mini", pattern: `gpt-5[.-]4-mini` + oaEnd, example: "gpt-5.4-mini",
		window: 400_000, output: 128_000, input: 272_000, encoding: o200k,
		price:  &Price{Input: 0.75, Output: 4.50, CacheRead: 0.075},
		source: srcOpenAIPricing + " as quoted by morphllm and APIYI (June 2026)", asOf: today},
	{family: "gpt-5.4-nano", pattern: `gpt-5[.-]4-nano` + oaEnd, example: "gpt-5.4-nano",
		window: 400_000, output: 128_000, input: 272_000, encoding: o200k,
		price:  &Price{Input: 0.20, Output: 1.25, CacheRead: 0.02},
		source: srcOpenAIPricing + " as quoted by morphllm (June 2026)", asOf: today},
	{family: "gpt-5.4", pattern: `gpt-5[.-]4` + oaEnd, example: "gpt-5.4-2026-03-05",
		window: 1_050_000, output: 128_000, input: 922_000, encoding: o200k,
		price: &Price{Input: 2.50, Output: 15, CacheRead: 0.25,
			LongContext: &PriceTier{Above: 272_000, Input: 5, Output: 22.50, CacheRead: 0.50}},
		source: srcOpenAIModels + "gpt-5.4 (922K input, 128K output); prices and the over-272K tier as quoted by GitHub's Copilot price table and WaveSpeed", asOf: today},
	{family: "gpt-5.4-other", pattern: `gpt-5[.-]4`, example: "gpt-5.4-pro",
		window: 1_050_000, output: 128_000, input: 922_000, encoding: o200k,
		source: "the gpt-5.4 row's limits; prices of the variants not checked", asOf: today},
	{family: "gpt-5-chat", pattern: `gpt-5(?:[.-]\d)?-chat`, example: "gpt-5-chat-latest",
		window: 128_000, output: 16_384, encoding: o200k, source: srcOpenAIModels + "gpt-5-chat-latest", asOf: "2026-11-21"},
	{family: "gpt-5.3-codex", pattern: `gpt-5[.-]3-codex` + oaEnd, example: "gpt-5.3-codex",
		window: 400_000, output: 128_000, input: 272_000, encoding: o200k,
		price:  &Price{Input: 1.75, Output: 14, CacheRead: 0.175},
		source: "limits: " + srcOpenAIModels + "gpt-5.3-codex (400K, 128K); prices: GitHub's Copilot models-and-pricing table (github/docs), which lists OpenAI's list prices", asOf: today},
	{family: "gpt-5.2", pattern: `gpt-5[.-]2(?:-codex)?` + oaEnd, example: "gpt-5.2-codex",
		window: 400_000, output: 128_000, input: 272_000, encoding: o200k,
		price:  &Price{Input: 1.75, Output: 14, CacheRead: 0.175},
		source: "GitHub's Copilot models-and-pricing table (GPT-5.2, GPT-5.2-Codex)", asOf: today},
	{family: "gpt-5-mini", pattern: `gpt-5(?:[.-]1)?(?:-codex)?-mini` + oaEnd, example: "openai/gpt-5-mini-2025-08-07",
		window: 400_000, output: 128_000, input: 272_000, encoding: o200k,
		price:  &Price{Input: 0.25, Output: 2, CacheRead: 0.025},
		source: "platform.openai.com/docs/pricing (gpt-5-mini; gpt-5.1-codex-mini at the same $0.25 / $2.00 per benbencodes/llm-prices)", asOf: "2026-11-24"},
	{family: "gpt-5-nano", pattern: `gpt-5-nano` + oaEnd, example: "azure/gpt-5-nano",
		window: 400_000, output: 128_000, input: 272_000, encoding: o200k,
		price: &Price{Input: 0.05, Output: 0.40, CacheRead: 0.005}, source: "platform.openai.com/docs/pricing", asOf: "2026-11-24"},
	// gpt-5, gpt-5-codex, gpt-5.1, gpt-5.1-codex, gpt-5.1-codex-max.
	{family: "gpt-5.1", pattern: `gpt-5(?:[.-]1)?(?:-codex(?:-max)?)?` + oaEnd, example: "GPT-5-Codex",
		window: 400_000, output: 128_000, input: 272_000, encoding: o200k,
		price:  &Price{Input: 1.25, Output: 10, CacheRead: 0.125},
		source: srcOpenAIModels + "gpt-5-codex (400K, 128K, $1.25 / $0.125 / $10) and platform.openai.com/docs/pricing", asOf: today},
	// Other GPT-5 models (-pro, future 5.x): the family's limits, no price.
	{family: "gpt-5", pattern: `gpt-5`, example: "gpt-5-pro",
		window: 400_000, output: 128_000, input: 272_000, encoding: o200k,
		source: srcOpenAIModels + " (GPT-5 family: 400K window, 272K input)", asOf: "2026-11-21"},
	// gpt-oss uses o200k_harmony: o200k_base plus chat special tokens, so
	// ordinary text counts exactly.
	{family: "gpt-oss", pattern: `gpt-oss`, example: "openai/gpt-oss-120b",
		window: 131_072, output: 131_072, encoding: o200k, source: "the gpt-oss model card (open weights; price depends on the host)", asOf: "2026-11-21"},
	// "gpt-4-1106-preview" is GPT-4 Turbo, not GPT-4.1.
	{family: "gpt-4.1-nano", pattern: `gpt-4\.1-nano` + oaEnd, example: "openai/gpt-4.1-nano",
		window: 1_047_576, output: 32_768, encoding: o200k,
		price: &Price{Input: 0.10, Output: 0.40, CacheRead: 0.025}, source: "platform.openai.com/docs/pricing", asOf: "2026-11-24"},
	{family: "gpt-4.1-mini", pattern: `gpt-4\.1-mini` + oaEnd, example: "gpt-4.1-mini-2025-04-14",
		window: 1_047_576, output: 32_768, encoding: o200k,
		price: &Price{Input: 0.40, Output: 1.60, CacheRead: 0.10}, source: "platform.openai.com/docs/pricing", asOf: "2026-11-24"},
	{family: "gpt-4.1", pattern: `gpt-4\.1` + oaEnd, example: "gpt-4.1-2025-04-14",
		window: 1_047_576, output: 32_768, encoding: o200k,
		price: &Price{Input: 2, Output: 8, CacheRead: 0.50}, source: "platform.openai.com/docs/pricing", asOf: "2026-11-24"},
	{family: "gpt-4.1-other", pattern: `gpt-4(?:\.1|-1` + br + `)`, example: "gpt-4.1-mini-pro",
		window: 1_047_576, output: 32_768, encoding: o200k, source: "platform.openai.com/docs/models (GPT-4.1 family limits)", asOf: "2026-11-21"},
	{family: "gpt-4o-mini", pattern: `gpt-4o-mini`, example: "gpt-4o-mini-2024-07-18",
		window: 128_000, output: 16_384, encoding: o200k,
		price: &Price{Input: 0.15, Output: 0.60, CacheRead: 0.075}, source: "platform.openai.com/docs/pricing", asOf: "2026-11-24"},
	// gpt-4o-2024-05-13 and chatgpt-4o-latest cost more than gpt-4o.
	{family: "gpt-4o", pattern: bl + `gpt-4o(?:-2024-08-06|-2024-11-20)?` + nEnd, example: "gpt-4o-2024-08-06",
		window: 128_000, output: 16_384, encoding: o200k,
		price: &Price{Input: 2.50, Output: 10, CacheRead: 1.25}, source: "platform.openai.com/docs/pricing", asOf: "2026-11-24"},
	{family: "gpt-4o-other", pattern: `gpt-4o`, example: "chatgpt-4o-latest",
		window: 128_000, output: 16_384, encoding: o200k, source: "platform.openai.com/docs/models (prices of these snapshots not listed)", asOf: "2026-11-21"},
	{family: "gpt-4-turbo", pattern: `gpt-4-(?:turbo|vision|\d{4}-preview)`, example: "gpt-4-0125-preview",
		window: 128_000, output: 4_096, encoding: cl100k, source: "platform.openai.com/docs/models", asOf: "2026-11-21"},
	{family: "gpt-4", pattern: `gpt-4`, example: "gpt-4-0613",
		window: 8_192, output: 8_192, encoding: cl100k, source: "platform.openai.com/docs/models", asOf: "2026-11-21"},
	{family: "gpt-3.5-turbo", pattern: `gpt-3[.-]?5`, example: "gpt-3.5-turbo-0125",
		window: 16_385, output: 4_096, encoding: cl100k, source: "platform.openai.com/docs/models", asOf: "2026-11-21"},
	{family: "o4-mini", pattern: bl + `(?:o4-mini|codex-mini)`, example: "openai/o4-mini-2025-04-16",
		window: 200_000, output: 100_000, encoding: o200k, source: "platform.openai.com/docs/models (o4-mini $1.10 / $4.40, codex-mini-latest $1.50: members differ)", asOf: "2026-11-24"},
	{family: "o3-mini", pattern: bl + `o3-(?:mini|pro)`, example: "o3-pro",
		window: 200_000, output: 100_000, encoding: o200k, source: "platform.openai.com/docs/models (o3-mini and o3-pro cost differently: no price)", asOf: "2026-11-21"},
	{family: "o3", pattern: bl + `o3` + oaEnd, example: "openai/o3",
		window: 200_000, output: 100_000, encoding: o200k,
		price: &Price{Input: 2, Output: 8, CacheRead: 0.50}, source: "platform.openai.com/docs/pricing", asOf: "2026-11-24"},
	{family: "o1-mini", pattern: bl + `o1-(?:mini|preview)`, example: "o1-mini-2024-09-12",
		window: 128_000, output: 65_536, encoding: o200k, source: "platform.openai.com/docs/models", asOf: "2026-11-21"},
	{family: "o1", pattern: bl + `o1` + br, example: "o1-2024-12-17",
		window: 200_000, output: 100_000, encoding: o200k, source: "platform.openai.com/docs/models", asOf: "2026-11-21"},

	// ── Anthropic ── (o200k_base stand-in: Anthropic publishes no tokenizer
	// since Claude 3; its token counting endpoint is the exact source.)
	// Windows, output limits and prices of Claude 4 on are those of Claude
	// Code 2.1.328's bundled model catalog (context.window,
	// max_output_tokens.upper, its pricing tier), checked against
	// platform.claude.com's pricing page and model overviews where the
	// search index holds them.
	{family: "claude-fable-5-2", pattern: `claude-(?:fable|mythos)-5[.-]2` + cEnd, example: "claude-mythos-5-2",
		window: 1_000_000, output: 128_000, encoding: o200k, estimated: true,
		price: anthropic(8, 40, 10, 16, 0.20), source: srcClaudeCode + " (no Anthropic page for 5.2 in the search index)", asOf: today},
	{family: "claude-fable-5-1", pattern: `claude-(?:fable|mythos)-5[.-]1` + cEnd, example: "claude-fable-5-1",
		window: 1_000_000, output: 128_000, encoding: o200k, estimated: true,
		price: anthropic(10, 50, 12.50, 20, 0.25), source: srcClaudeCode + "; " + srcAnthropicPricing, asOf: today},
	{family: "claude-fable-5", pattern: `claude-(?:fable|mythos)-5` + cEnd, example: "claude-fable-5",
		window: 1_000_000, output: 128_000, encoding: o200k, estimated: true,
		price: anthropic(10, 50, 12.50, 20, 1), source: srcClaudeCode + "; " + srcAnthropicPricing, asOf: today},
	{family: "claude-opus-5-5", pattern: `claude-opus-5[.-]5` + cEnd, example: "claude-opus-5-5",
		window: 1_000_000, output: 128_000, encoding: o200k, estimated: true,
		price: anthropic(4, 20, 5, 8, 0.20), source: srcClaudeCode + " (Claude Code 2.1.328's default model); " + srcAnthropicModels + "opus-5-5/overview", asOf: today},
	{family: "claude-sonnet-5-5", pattern: `claude-sonnet-5[.-]5` + cEnd, example: "claude-sonnet-5-5",
		window: 1_000_000, output: 128_000, encoding: o200k, estimated: true,
		price: anthropic(2, 10, 2.50, 4, 0.10), source: srcClaudeCode + " (cache read $0.10; a third-party note says $0.20, Anthropic's page for 5.5 is not in the search index)", asOf: today},
	{family: "claude-haiku-5-5", pattern: `claude-haiku-5[.-]5` + cEnd, example: "claude-haiku-5-5",
		window: 1_000_000, output: 128_000, encoding: o200k, estimated: true,
		price: &Price{Input: 0.10, Output: 0.50, CacheRead: 0.01, CacheWrite5m: 0.125, CacheWrite1h: 0.20,
			LongContext: &PriceTier{Above: 100_000, Input: 0.50, Output: 2.50, CacheRead: 0.05, CacheWrite5m: 0.625, CacheWrite1h: 1}},
		source: srcClaudeCode + " (long prompt above 100,000 tokens); " + srcAnthropicModels + "opus-5 comparison table (\"from $0.10 / $0.50\")", asOf: today},
	{family: "claude-opus-5", pattern: `claude-opus-5` + cEnd, example: "claude-opus-5-20260724",
		window: 1_000_000, output: 128_000, encoding: o200k, estimated: true,
		price: anthropic(5, 25, 6.25, 10, 0.50), source: srcClaudeCode + "; " + srcAnthropicModels + "opus-5/overview", asOf: today},
	{family: "claude-sonnet-5", pattern: `claude-sonnet-5` + cEnd, example: "claude-sonnet-5",
		window: 1_000_000, output: 128_000, encoding: o200k, estimated: true,
		price: anthropic(2, 10, 2.50, 4, 0.20), source: srcClaudeCode + "; " + srcAnthropicModels + "sonnet-5/overview ($2 / $10, 1M, 128K)", asOf: today},
	// Other Claude 5 models: the family's limits, no price.
	{family: "claude-5", pattern: `claude-(?:opus|sonnet|haiku|fable|mythos)-[5-9]`, example: "claude-sonnet-6",
		window: 1_000_000, output: 128_000, encoding: o200k, estimated: true,
		source: "the Claude 5 family's limits in " + srcClaudeCode + "; no price for models it does not list", asOf: today},
	{family: "claude-mythos", pattern: `claude-mythos`, example: "claude-mythos-preview",
		window: 1_000_000, output: 128_000, encoding: o200k, estimated: true,
		source: "the Claude 5 family's limits; no price for the preview", asOf: today},
	// Opus 4.7 and 4.8: a native 1M window (Claude Code's catalog:
	// native_1m; its changelog for Opus 4.7).
	{family: "claude-opus-4-8", pattern: `claude-opus-4[.-]8`, example: "claude-opus-4-8",
		window: 1_000_000, output: 128_000, encoding: o200k, estimated: true,
		price: anthropic(5, 25, 6.25, 10, 0.50), source: srcClaudeCode + "; " + srcAnthropicPricing, asOf: today},
	{family: "claude-opus-4-7", pattern: `claude-opus-4[.-]7`, example: "claude-opus-4-7[1m]",
		window: 1_000_000, output: 128_000, encoding: o200k, estimated: true,
		price: anthropic(5, 25, 6.25, 10, 0.50), source: srcClaudeCode + "; " + srcAnthropicPricing, asOf: today},
	// Opus 4.6 and Sonnet 4.6: Anthropic lists a 1M window, but Claude
	// Code's catalog gives them a 200,000 window and 1M only through the
	// context-1m beta ("[1m]" names), and the Claude Code 2.1.39 session
	// in ../shared/data ran claude-opus-4-6 and auto-compacted at 167,731
	// tokens, exactly the reserve-based threshold of a 200K window. So the
	// bare name means 200K, and a "[1m]" or "-1m" name 1M. No long-context
	// surcharge is listed for them.
	{family: "claude-opus-4-6[1m]", pattern: `claude-opus-4[.-]6.*(?:\[1m\]|-1m` + br + `)`, example: "claude-opus-4-6[1m]",
		window: 1_000_000, output: 128_000, encoding: o200k, estimated: true,
		price: anthropic(5, 25, 6.25, 10, 0.50), source: srcClaudeCode + " (maximum_window 1M with the beta); " + srcAnthropicPricing, asOf: today},
	{family: "claude-opus-4-6", pattern: `claude-opus-4[.-]6`, example: "anthropic/claude-opus-4.6",
		window: 200_000, output: 128_000, encoding: o200k, estimated: true,
		price: anthropic(5, 25, 6.25, 10, 0.50), source: srcClaudeCode + "; " + srcAnthropicPricing, asOf: today},
	{family: "claude-sonnet-4-6[1m]", pattern: `claude-sonnet-4[.-]6.*(?:\[1m\]|-1m` + br + `)`, example: "claude-sonnet-4-6[1m]",
		window: 1_000_000, output: 128_000, encoding: o200k, estimated: true,
		price: anthropic(3, 15, 3.75, 6, 0.30), source: srcClaudeCode + " (maximum_window 1M with the beta); " + srcAnthropicModels + "sonnet-4-6/overview", asOf: today},
	{family: "claude-sonnet-4-6", pattern: `claude-sonnet-4[.-]6`, example: "claude-sonnet-4-6",
		window: 200_000, output: 128_000, encoding: o200k, estimated: true,
		price: anthropic(3, 15, 3.75, 6, 0.30), source: srcClaudeCode + "; " + srcAnthropicModels + "sonnet-4-6/overview", asOf: today},
	// Sonnet 4 and 4.5 with the context-1m beta ("sonnet[1m]" in Claude
	// Code): prompts over 200K tokens bill at $6 / $22.50, the cache
	// multipliers applying on top.
	{family: "claude-sonnet-4-1m", pattern: `claude-sonnet-4.*(?:\[1m\]|-1m` + br + `)`, example: "claude-sonnet-4-5-20250929[1m]",
		window: 1_000_000, output: 64_000, encoding: o200k, estimated: true,
		price: sonnet4, source: srcAnthropicPricing + " (long context pricing)", asOf: today},
	{family: "claude-opus-4-5", pattern: `claude-opus-4[.-]5`, example: "claude-opus-4-5-20251101",
		window: 200_000, output: 64_000, encoding: o200k, estimated: true,
		price: anthropic(5, 25, 6.25, 10, 0.50), source: srcClaudeCode + "; " + srcAnthropicPricing, asOf: today},
	{family: "claude-opus-4-1", pattern: `claude-opus-4(?:[.-][01])?` + cEnd, example: "claude-opus-4-1-20250805",
		window: 200_000, output: 32_000, encoding: o200k, estimated: true,
		price: anthropic(15, 75, 18.75, 30, 1.50), source: srcClaudeCode + "; " + srcAnthropicPricing, asOf: today},
	{family: "claude-opus-4", pattern: `claude-opus-4`, example: "claude-opus-4-9",
		window: 200_000, output: 32_000, encoding: o200k, estimated: true,
		source: "Claude Opus 4 family limits; no price for versions the catalog does not list", asOf: today},
	{family: "claude-sonnet-4-5", pattern: `claude-sonnet-4(?:[.-][05])?` + cEnd, example: "anthropic/claude-sonnet-4.5",
		window: 200_000, output: 64_000, encoding: o200k, estimated: true,
		price: sonnet4, source: srcClaudeCode + "; " + srcAnthropicModels + "sonnet-4-5/overview; " + srcAnthropicPricing, asOf: today},
	{family: "claude-sonnet-4", pattern: `claude-sonnet-4`, example: "claude-sonnet-4-9",
		window: 200_000, output: 64_000, encoding: o200k, estimated: true,
		source: "Claude Sonnet 4 family limits; no price for versions the catalog does not list", asOf: today},
	{family: "claude-haiku-4-5", pattern: `claude-haiku-4(?:[.-]5)?` + cEnd, example: "claude-haiku-4-5@20251001",
		window: 200_000, output: 64_000, encoding: o200k, estimated: true,
		price: anthropic(1, 5, 1.25, 2, 0.10), source: srcClaudeCode + "; " + srcAnthropicPricing, asOf: today},
	{family: "claude-haiku-4", pattern: `claude-haiku-4`, example: "claude-haiku-4-7",
		window: 200_000, output: 64_000, encoding: o200k, estimated: true,
		source: "Claude Haiku 4 family limits; no price for versions the catalog does not list", asOf: today},
	{family: "claude-3-7-sonnet", pattern: `claude-3[.-]7`, example: "claude-3-7-sonnet-latest",
		window: 200_000, output: 64_000, encoding: o200k, estimated: true,
		price: anthropic(3, 15, 3.75, 6, 0.30), source: srcAnthropicPricing, asOf: today},
	{family: "claude-3-5-haiku", pattern: `claude-3[.-]5-haiku`, example: "claude-3-5-haiku-20241022",
		window: 200_000, output: 8_192, encoding: o200k, estimated: true,
		price: anthropic(0.80, 4, 1, 1.60, 0.08), source: srcAnthropicPricing, asOf: today},
	{family: "claude-3-5-sonnet", pattern: `claude-3[.-]5`, example: "anthropic.claude-3-5-sonnet-20241022-v2:0",
		window: 200_000, output: 8_192, encoding: o200k, estimated: true,
		price: anthropic(3, 15, 3.75, 6, 0.30), source: srcAnthropicPricing, asOf: today},
	{family: "claude-3", pattern: `claude-3`, example: "claude-3-opus-20240229",
		window: 200_000, output: 4_096, encoding: o200k, estimated: true,
		source: srcAnthropicPricing + " (Claude 3 Opus, Sonnet and Haiku cost differently: no price)", asOf: today},
	{family: "claude", pattern: `claude`, example: "claude-2.1",
		window: 200_000, output: 32_000, encoding: o200k, estimated: true,
		source: "the common Claude window; no price", asOf: "2026-11-21"},

	// ── Google ── (o200k_base stand-in for Gemini's SentencePiece vocabulary.)
	// Gemini CLI 0.61.0's models: gemini-2.5-pro (its default without
	// preview access), gemini-3-pro-preview and gemini-3.1-pro-preview
	// ("auto" with preview access), gemini-3-flash-preview,
	// gemini-3.5-flash, gemini-3.8-flash, gemini-3.1-flash-lite,
	// gemini-3.5-flash-lite. Cache reads: Google's rates were not in the
	// sources read, so they are billed at input (an upper bound).
	// Gemini 4 (not yet in Gemini CLI 0.61.0): prices of the vendor's
	// page as quoted by TokenMeter's release notes (implicit caching only,
	// no storage rate). Argon's rises to $4 / $20 / $0.20 on 2026-12-01.
	{family: "gemini-4-neon", pattern: `gemini-4-neon`, example: "gemini-4-neon",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true,
		price:  &Price{Input: 3, Output: 15, CacheRead: 0.15},
		source: srcGooglePricing + " as quoted by TokenMeter v0.17.0 (1M context, 65K output, $3 / $15, cached $0.15)", asOf: today},
	{family: "gemini-4-argon", pattern: `gemini-4-argon`, example: "gemini-4-argon",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true,
		price:  &Price{Input: 2, Output: 10, CacheRead: 0.10},
		source: srcGooglePricing + " as quoted by TokenMeter v0.13.1 (1M context, 64K output; $2 / $10, cached $0.10 through 2026-11-30, then $4 / $20 / $0.20)", asOf: today},
	{family: "gemini-4-hydrogen", pattern: `gemini-4-hydrogen`, example: "gemini-4-hydrogen",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true,
		price:  &Price{Input: 1.50, Output: 7.50, CacheRead: 0.075},
		source: srcGooglePricing + " as quoted by TokenMeter v0.17.0 (1M context; the output limit not given, the family's 65,536 assumed)", asOf: today},
	{family: "gemini-4", pattern: `gemini-4`, example: "gemini-4-pro",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true,
		source: "the Gemini 4 models' 1M context (TokenMeter's notes); no price for the others", asOf: today},
	{family: "gemini-3.1-pro", pattern: `gemini-3[.-]1-pro` + gEnd, example: "google/gemini-3.1-pro-preview",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true,
		price:  &Price{Input: 2, Output: 12, CacheRead: 0.20, LongContext: &PriceTier{Above: 200_000, Input: 4, Output: 18}},
		source: "Gemini CLI 0.61.0's PREVIEW_GEMINI_3_1_MODEL; " + srcOpencode + " ($2 / $12, cache read $0.20); " + srcGooglePricing + " as quoted by morphllm ($4 input above 200K) and OpenRouter via inference.sh ($18 output above 200K); limits: " + srcGoogleModels, asOf: today},
	// gemini-3-pro-preview was shut down on 2026-03-09 (Google's
	// deprecation page, as quoted by GlobalGPT), gemini-3.1-pro-preview
	// its replacement: no price for a model that no longer runs.
	{family: "gemini-3-pro", pattern: `gemini-3-pro`, example: "gemini-3-pro-preview",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true,
		source: srcGoogleModels + "; shut down on 2026-03-09 per ai.google.dev/gemini-api/docs/deprecations as quoted by GlobalGPT (replacement: gemini-3.1-pro-preview); no price", asOf: today},
	{family: "gemini-3.5-flash-lite", pattern: `gemini-3[.-]5-flash-lite` + gEnd, example: "gemini-3.5-flash-lite",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true,
		price: &Price{Input: 0.30, Output: 2.50, CacheRead: 0.03}, source: "Gemini CLI 0.61.0's LATEST_GEMINI_FLASH_LITE_MODEL; " + srcOpencode, asOf: today},
	{family: "gemini-3.5-flash", pattern: `gemini-3[.-]5-flash` + gEnd, example: "gemini-3.5-flash",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true,
		price: &Price{Input: 1.50, Output: 9, CacheRead: 0.15}, source: "Gemini CLI 0.61.0's DEFAULT_GEMINI_FLASH_MODEL; " + srcOpencode + "; " + srcGooglePricing + " as quoted by morphllm (flat $1.50 / $9)", asOf: today},
	// Gemini 3.6, 3.7 and 3.8 Flash (Gemini CLI's LATEST_GEMINI_FLASH_MODEL
	// is 3.8): one price.
	{family: "gemini-3.8-flash", pattern: `gemini-3[.-][678]-flash` + gEnd, example: "gemini-3.8-flash",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true,
		price: &Price{Input: 0.75, Output: 3.75, CacheRead: 0.075}, source: "Gemini CLI 0.61.0's LATEST_GEMINI_FLASH_MODEL; " + srcOpencode + " (3.6, 3.7 and 3.8 Flash); $0.75 input through 2026-12-31 per api-evangelist's transcript of " + srcGooglePricing, asOf: today},
	{family: "gemini-3.1-flash-lite", pattern: `gemini-3[.-]1-flash-lite` + gEnd, example: "gemini-3.1-flash-lite",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true,
		price: &Price{Input: 0.25, Output: 1.50, CacheRead: 0.025}, source: "Gemini CLI 0.61.0's DEFAULT_GEMINI_FLASH_LITE_MODEL; " + srcOpencode + "; " + srcGooglePricing + " as quoted by morphllm (flat $0.25 / $1.50)", asOf: today},
	{family: "gemini-3-flash", pattern: `gemini-3-flash` + gEnd, example: "gemini-3-flash-preview",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true,
		price: &Price{Input: 0.50, Output: 3, CacheRead: 0.05}, source: "Gemini CLI 0.61.0's PREVIEW_GEMINI_FLASH_MODEL; " + srcGooglePricing + " as quoted verbatim by factquire (read there 2026-07-04: $0.50 / $3.00, context caching $0.05) and morphllm", asOf: today},
	// Other Gemini 3 models (image, live, TTS variants …): limits of the
	// family, no price.
	{family: "gemini-3", pattern: `gemini-3`, example: "gemini-3.1-flash-image-preview",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true,
		source: srcGoogleModels + " (Gemini 3 limits); variants' prices differ", asOf: today},
	{family: "gemini-2.5-pro", pattern: `gemini-2[.-]5-pro` + gEnd, example: "gemini-2.5-pro",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true,
		price:  &Price{Input: 1.25, Output: 10, CacheRead: 0.125, LongContext: &PriceTier{Above: 200_000, Input: 2.50, Output: 15}},
		source: "Gemini CLI 0.61.0's DEFAULT_GEMINI_MODEL; " + srcOpencode + " (cache read $0.125); " + srcGooglePricing + " as quoted by deploybase and morphllm ($1.25 / $10 up to 200K, $2.50 / $15 above)", asOf: today},
	{family: "gemini-2.5-flash-lite", pattern: `gemini-2[.-]5-flash-lite` + gEnd, example: "vertex_ai/gemini-2.5-flash-lite",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true,
		price: &Price{Input: 0.10, Output: 0.40, CacheRead: 0.01}, source: srcOpencode + "; " + srcGooglePricing + " as quoted by morphllm", asOf: today},
	{family: "gemini-2.5-flash", pattern: `gemini-2[.-]5-flash` + gEnd, example: "models/gemini-2.5-flash",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true,
		price: &Price{Input: 0.30, Output: 2.50, CacheRead: 0.03}, source: srcOpencode + "; " + srcGooglePricing + " as quoted by deploybase and morphllm", asOf: today},
	{family: "gemini-2.5", pattern: `gemini-2[.-]5`, example: "gemini-2.5-computer-use-preview-10-2025",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true, source: srcGoogleModels, asOf: "2026-11-21"},
	{family: "gemini-2.0", pattern: `gemini-2`, example: "gemini-2.0-flash-001",
		window: 1_048_576, output: 8_192, encoding: o200k, estimated: true, source: srcGoogleModels, asOf: "2026-11-21"},
	{family: "gemini-1.5-pro", pattern: `gemini-1[.-]5-pro`, example: "gemini-1.5-pro-002",
		window: 2_097_152, output: 8_192, encoding: o200k, estimated: true, source: srcGoogleModels, asOf: "2026-11-21"},
	{family: "gemini-1.5", pattern: `gemini-1[.-]5`, example: "gemini-1.5-flash-8b",
		window: 1_048_576, output: 8_192, encoding: o200k, estimated: true, source: srcGoogleModels, asOf: "2026-11-21"},
	{family: "gemini-1.0", pattern: `gemini-1[.-]0`, example: "gemini-1.0-pro-002",
		window: 32_760, output: 8_192, encoding: o200k, estimated: true, source: srcGoogleModels, asOf: "2026-11-21"},
	{family: "gemini", pattern: `gemini`, example: "gemini-flash-latest",
		window: 1_048_576, output: 65_536, encoding: o200k, estimated: true, source: srcGoogleModels, asOf: "2026-11-21"},

	// ── DeepSeek ── (o200k_base stand-in for DeepSeek's 128K-token BPE.)
	// Since 2026-08-16 DeepSeek bills peak and off-peak hours at different
	// rates (off-peak half of peak): a call's price depends on the hour it
	// ran, which a transcript does not always give, so no row has a price.
	{family: "deepseek-v4", pattern: `deepseek-v4`, example: "deepseek-v4-pro",
		window: 1_000_000, output: 384_000, encoding: o200k, estimated: true,
		source: srcDeepSeek + " (1M context, 384K max output; peak/off-peak prices: none recorded)", asOf: today},
	// deepseek-reasoner and deepseek-chat: the V3 names, retired on
	// 2026-07-24 as aliases of deepseek-v4-flash; their 128K window is
	// what the transcripts that name them ran at.
	{family: "deepseek-reasoner", pattern: `deepseek-(?:reasoner|r1)`, example: "deepseek/deepseek-r1-0528",
		window: 128_000, output: 64_000, encoding: o200k, estimated: true,
		source: srcDeepSeek + " (the V3.2 figures; the name is retired, prices of the time not kept)", asOf: "2026-11-21"},
	// deepseek-chat (V3, V3.1, V3.2 non-thinking), deepseek-coder.
	{family: "deepseek-chat", pattern: `deepseek`, example: "deepseek/deepseek-chat",
		window: 128_000, output: 8_000, encoding: o200k, estimated: true,
		source: srcDeepSeek + " (the V3.2 figures; the name is retired, prices of the time not kept)", asOf: "2026-11-21"},

	// ── Qwen ── (cl100k_base stand-in: Qwen's vocabulary extends it.)
	// No prices: open weights served by many hosts, and DashScope's price
	// list was not read.
	// The hosted qwen3-coder-plus (Alibaba Cloud Model Studio): 1M. Its
	// price is tiered by prompt size (0–32K, 32–128K, 128–256K, 256K–1M),
	// which one long-context tier cannot hold: no price.
	{family: "qwen3-coder-plus", pattern: `qwen-?3-coder-plus`, example: "alibaba/qwen3-coder-plus",
		window: 1_000_000, output: 65_536, encoding: cl100k, estimated: true,
		source: "Vercel AI Gateway's qwen3-coder-plus page (1M context); the output limit of Qwen3-Coder; Alibaba's tiered price not modelled", asOf: today},
	{family: "qwen3-coder", pattern: `qwen-?3-coder`, example: "qwen/qwen3-coder-480b-a35b-instruct",
		window: 262_144, output: 65_536, encoding: cl100k, estimated: true, source: srcQwen, asOf: "2026-11-21"},
	{family: "qwen3", pattern: `qwen-?3` + br + `|qwq`, example: "qwen3-235b-a22b",
		window: 131_072, output: 32_768, encoding: cl100k, estimated: true, source: srcQwen, asOf: "2026-11-21"},
	{family: "qwen2.5", pattern: `qwen-?2[.-]5`, example: "Qwen/Qwen2.5-Coder-32B-Instruct",
		window: 131_072, output: 8_192, encoding: cl100k, estimated: true, source: srcQwen, asOf: "2026-11-21"},
	{family: "qwen", pattern: `qwen`, example: "qwen-max",
		window: 131_072, output: 8_192, encoding: cl100k, estimated: true, source: srcQwen, asOf: "2026-11-21"},

	// ── Meta Llama ── (no published output limit: 16,384 is a common
	// provider cap.) Llama 4: o200k_base stand-in for its 202K vocabulary.
	{family: "llama-4-scout", pattern: `llama-?4-scout`, example: "meta-llama/llama-4-scout-17b-16e-instruct",
		window: 10_000_000, output: 16_384, encoding: o200k, estimated: true, source: srcLlama, asOf: "2026-11-21"},
	{family: "llama-4-maverick", pattern: `llama-?4` + br, example: "openai/openrouter-llama-4-maverick",
		window: 1_048_576, output: 16_384, encoding: o200k, estimated: true, source: srcLlama + "; OpenRouter lists 1,048,576", asOf: "2026-11-21"},
	// Llama 3.1–3.3 ("llama3.1:8b", "llama-3.3-70b", Fireworks "llama-v3p1").
	{family: "llama-3.1", pattern: `llama-?v?3(?:[.-]|p)[123]` + br, example: "meta-llama/Llama-3.3-70B-Instruct",
		window: 131_072, output: 16_384, encoding: cl100k, estimated: true, source: srcLlama, asOf: "2026-11-21"},
	{family: "llama-3", pattern: `llama-?3`, example: "llama3-70b-8192",
		window: 8_192, output: 8_192, encoding: cl100k, estimated: true, source: srcLlama, asOf: "2026-11-21"},
	{family: "llama", pattern: `llama`, example: "llama-2-70b-chat",
		window: 4_096, output: 4_096, encoding: cl100k, estimated: true, source: srcLlama, asOf: "2026-11-21"},

	// ── Mistral ── (o200k_base stand-in for Tekken, 131K tokens. Mistral
	// publishes no output limit: 32,768 is a common provider cap.)
	// Mistral's own price page was not read: the coding models' prices
	// are those Mastra lists from models.dev; the others have none.
	{family: "codestral", pattern: `codestral`, example: "codestral-2501",
		window: 256_000, output: 32_768, encoding: o200k, estimated: true,
		price: &Price{Input: 0.30, Output: 0.90}, source: srcMistral + "; price of codestral-latest as listed by Mastra's Mistral provider page (models.dev data; Mistral's own price page not read)", asOf: today},
	// Devstral 2 (devstral-2512, the -latest aliases): 256K.
	{family: "devstral-2", pattern: `devstral-(?:medium-)?(?:2512|latest)|devstral-2(?:$|[^0-9])`, example: "mistral/devstral-2512",
		window: 262_144, output: 32_768, encoding: o200k, estimated: true,
		price: &Price{Input: 0.40, Output: 2}, source: "Mastra's Mistral provider page (models.dev data: devstral-2512 and devstral-medium-latest, 262K, $0.40 / $2); Mistral's own pages not read", asOf: today},
	{family: "devstral-small-2", pattern: `devstral-small-2(?:512|$|[^0-9])`, example: "labs-devstral-small-2512",
		window: 262_144, output: 32_768, encoding: o200k, estimated: true,
		source: "Mastra's Mistral provider page (256K; no price listed)", asOf: today},
	{family: "devstral-medium", pattern: `devstral-medium`, example: "devstral-medium-2507",
		window: 128_000, output: 32_768, encoding: o200k, estimated: true,
		price: &Price{Input: 0.40, Output: 2}, source: srcMistral + "; price as listed by Mastra's Mistral provider page (models.dev data)", asOf: today},
	{family: "devstral-small", pattern: `devstral-small`, example: "mistralai/devstral-small-2507",
		window: 128_000, output: 32_768, encoding: o200k, estimated: true,
		price: &Price{Input: 0.10, Output: 0.30}, source: srcMistral + "; price as listed by Mastra's Mistral provider page (models.dev data)", asOf: today},
	{family: "devstral", pattern: `devstral`, example: "devstral",
		window: 128_000, output: 32_768, encoding: o200k, estimated: true, source: srcMistral, asOf: "2026-11-21"},
	{family: "mixtral", pattern: `mixtral|mistral-7b|mistral:7b|open-mistral-7b`, example: "mistralai/Mixtral-8x7B-Instruct-v0.1",
		window: 32_768, output: 32_768, encoding: o200k, estimated: true, source: srcMistral, asOf: "2026-11-21"},
	// Mistral Large, Medium, Small, Nemo, Magistral, Ministral.
	{family: "mistral", pattern: `mistral|magistral|ministral`, example: "mistral-large-latest",
		window: 128_000, output: 32_768, encoding: o200k, estimated: true, source: srcMistral, asOf: "2026-11-21"},
}

// today is the date the rows updated for the pinned agents were read.
const today = "2026-11-27"

// The sources the rows cite.
const (
	srcOpenAIModels     = "developers.openai.com/api/docs/models/"
	srcOpenAIPricing    = "developers.openai.com/api/docs/pricing"
	srcClaudeCode       = "Claude Code 2.1.328's bundled model catalog (npm @anthropic-ai/claude-code-linux-x64)"
	srcAnthropicPricing = "platform.claude.com/docs/en/about-claude/pricing"
	srcAnthropicModels  = "platform.claude.com/docs/en/models/"
	srcGooglePricing    = "ai.google.dev/gemini-api/docs/pricing"
	srcOpencode         = "opencode 1.18.33's bundled models.dev catalog (npm opencode-linux-x64-baseline)"
	srcGoogleModels     = "ai.google.dev/gemini-api/docs/models (1,048,576 input, 65,536 output for Gemini 2.5 and 3)"
	srcDeepSeek         = "api-docs.deepseek.com/quick_start/pricing"
	srcQwen             = "the Qwen Hugging Face model cards (Qwen2.5 and Qwen3: 131,072 with YaRN; Qwen3-Coder: 262,144 native)"
	srcLlama            = "the Llama 3.1 and Llama 4 model cards"
	srcMistral          = "docs.mistral.ai/getting-started/models"
)

// The ends of the priced rows' patterns, so that a price does not carry
// over to a later version ("gpt-5" does not price "gpt-5.2" or
// "gpt-5-pro"): an OpenAI snapshot date, an Anthropic one (with
// "-latest", "-fast", "-1m", a Bedrock "-v1"), then no letter, digit, dot
// or dash.
const (
	oaEnd = `(?:-\d{4}-\d{2}-\d{2})?(?:$|[^a-z0-9.-])`
	nEnd  = `(?:$|[^a-z0-9.-])`
	gEnd  = `(?:-preview(?:-\d\d-\d{4})?|-latest|-\d{3}|-customtools)*(?:$|[^a-z0-9.-])`
	cEnd  = `(?:[-@]\d{8}|-latest|-fast|-1m)*(?:-v\d+)?(?:$|[^a-z0-9.-])`
)

// anthropic returns a Claude price: input, output, 5-minute and 1-hour
// cache writes, cache read, in US dollars per million tokens.
func anthropic(in, out, w5m, w1h, read float64) *Price {
	return &Price{Input: in, Output: out, CacheWrite5m: w5m, CacheWrite1h: w1h, CacheRead: read}
}

// sonnet4 is the price of Claude Sonnet 4 and 4.5, with the long-context
// tier of their 1M beta: above 200K prompt tokens, $6 input and $22.50
// output, the cache multipliers (1.25×, 2×, 0.1×) applying on top.
var sonnet4 = &Price{Input: 3, Output: 15, CacheWrite5m: 3.75, CacheWrite1h: 6, CacheRead: 0.30,
	LongContext: &PriceTier{Above: 200_000, Input: 6, Output: 22.50, CacheWrite5m: 7.50, CacheWrite1h: 12, CacheRead: 0.60}}
