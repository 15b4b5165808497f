// Package token counts tokens: exactly for OpenAI's tiktoken encodings, by a
// fast estimate where no exact tokenizer is public, and anchored to what a
// provider reported where it did.
//
// # Counters
//
// [Counter] is the one interface the engine counts through. [ForEncoding]
// returns the exact [BPE] counter for o200k_base or cl100k_base: the
// vocabulary pkoukk/tiktoken-go-loader ships, converted by go generate
// into a binary table embedded in the program and read in place (no
// network and no parsing at run time: opening one takes about a
// millisecond), a hand-written pre-tokenizer equivalent to tiktoken's regular
// expressions and tiktoken's merge rule. Its counts equal tiktoken's — the
// tests compare them with counts made by tiktoken itself on test vectors
// and on every trajectory in ../shared/data, and fuzz them against
// pkoukk/tiktoken-go — at about 25 MB/s on one core with no allocation,
// ten to twenty times pkoukk/tiktoken-go's speed. [Estimator] is seed 001's
// CJK-aware character estimate, for when speed matters more than
// exactness.
//
// [AppendCount] counts a text grown at its end from the count of what it
// was, recounting only from its last line; [Cache] remembers the counts
// of texts that come back.
//
// # Messages
//
// [Message] and [Messages] add the chat format's overhead ([Overhead]:
// per message, per name, reply priming, per tool call) to the content's
// count. [OpenAIOverhead] follows the OpenAI Cookbook; [SeedOverhead] is
// seed 001's.
//
// # Usage-anchored counting
//
// When a provider has reported the prompt size of the last call, the best
// count of the next prompt is that number plus the exact count of what was
// added since ([Anchor]); this is how Claude Code, Codex, crush and Gemini
// CLI account. It absorbs what no client can count: the provider's own
// tokenizer, hidden system prompts and tool schemas.
package token
