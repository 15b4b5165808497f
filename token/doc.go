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
// pkoukk/tiktoken-go (pieces over [LongPiece] bytes excepted: see Bounded
// time) — at about 25 MB/s on one core with no allocation,
// ten to twenty times pkoukk/tiktoken-go's speed. [Estimator] is seed 001's
// CJK-aware character estimate, for when speed matters more than
// exactness.
//
// The pre-tokenizer's character classes (letters and their case, marks,
// numbers, white space) are Unicode 16.0's, the version tiktoken's
// regular-expression engine uses, from a table generated from the Unicode
// Character Database rather than Go's older unicode package (15.0 in Go
// 1.26); the tests compare the counts with tiktoken's on every code point,
// alone and in probes around it.
//
// # Bounded time
//
// A request body may hold 32 MiB of text. Ordinary text counts in time
// linear in its size; a piece the pre-tokenizer cannot cut (a run of one
// letter, a blob of letters without a space) is the slow case of byte-pair
// merging, so a piece over [LongPiece] bytes is counted in chunks, with a
// small documented error on such pieces only: 32 MiB of one letter counts
// in about 0.15 s (BenchmarkPathological). [CountContext] and
// [BPE.CountContext] stop counting when a context is done, checked every
// 64 KiB, for a text whose client may leave before it is counted.
//
// # Text that is not UTF-8
//
// tiktoken takes only valid text. The exact counters take any string and
// count each byte that does not start a valid UTF-8 encoding as one U+FFFD
// (the replacement character), as Go's range loop and []rune conversion
// decode it: "\xe2\x82" (a cut three-byte sequence) is two U+FFFD, where
// Rust's String::from_utf8_lossy and the WHATWG decoder make one. The
// count is then tiktoken's count of that replaced text, and Encode's ids
// decode to it.
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
