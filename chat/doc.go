// Package chat is agentctx's one message model: the provider-neutral shape
// every other package reads and writes.
//
// # Messages and parts
//
// A [Message] has a [Role] (system, user, assistant, tool) and an ordered list
// of content parts. [Part] is a sealed interface: only this package's types
// implement it — [Text], [ToolCall], [ToolResult], [Thinking] and [Image].
// A tool message carries exactly one [ToolResult], as in the OpenAI
// chat-completions shape; an assistant message may carry several
// [ToolCall]s. Provider-reported token counts travel on the assistant message
// that the call produced, as [Usage].
//
// # Rounds
//
// A [Round] is an assistant message with tool calls plus the tool results that
// answer them: the atomic unit of compaction (seed 003, invariant 2). Tool-call
// ids are not unique in real transcripts, so [Pair] matches each result with
// the most recent unanswered call of the same id.
//
// # Wire shapes
//
// [ToOpenAI]/[FromOpenAI] and [ToAnthropic]/[FromAnthropic] convert to and
// from the OpenAI chat-completions message shape and the Anthropic Messages
// content-block shape without loss. [ToGemini]/[WireReader.FromGemini]
// convert to and from the Gemini API's contents; a function call without
// an id gets a [GeminiCallID] and a thought signature goes back on the part
// that carried it.
package chat
