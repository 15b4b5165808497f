package token

import (
	"github.com/agentctx/agentctx/chat"
)

// Overhead holds the tokens a chat format adds around message content.
type Overhead struct {
	// PerMessage is added once per message (the role/turn delimiters).
	PerMessage int
	// PerName is added when a message carries a participant name.
	PerName int
	// ReplyPriming is added once per prompt: the assistant turn header that
	// primes the reply.
	ReplyPriming int
	// PerToolCall is added per tool call on top of its name and arguments.
	PerToolCall int
}

// OpenAIOverhead is the chat format's overhead for the current OpenAI
// models (gpt-3.5-turbo-0613 onwards, GPT-4, GPT-4o): 3 tokens per message,
// 1 per name, 3 for reply priming ("<|start|>assistant<|message|>"), as the
// OpenAI Cookbook's "How to count tokens with tiktoken" computes them
// (num_tokens_from_messages). The cookbook gives no number for tool calls in
// messages; PerToolCall is seed 001's 10 tokens.
var OpenAIOverhead = Overhead{PerMessage: 3, PerName: 1, ReplyPriming: 3, PerToolCall: 10}

// SeedOverhead is seed 001's TokenCounter: 4 tokens per message, 2 for
// reply priming, 10 per tool call (the gpt-3.5-turbo-0301 numbers).
var SeedOverhead = Overhead{PerMessage: 4, PerName: 1, ReplyPriming: 2, PerToolCall: 10}

// RoleTokens is the size of each role name ("system", "user", "assistant",
// "tool") in tokens: one in both cl100k_base and o200k_base.
const RoleTokens = 1

// MaxImageTokens is the cost in tokens of an image whose size is unknown, and
// the most an image can cost: [chat.MaxImageTokens].
const MaxImageTokens = chat.MaxImageTokens

// ImageTokens estimates an image's cost in tokens with Anthropic's formula,
// width×height/750, capped at [MaxImageTokens]: [chat.ImageTokens].
func ImageTokens(width, height int) int { return chat.ImageTokens(width, height) }

// EncryptedTokens estimates the reasoning tokens held in an encrypted or
// redacted reasoning blob of n bytes of base64: decoded it is 3n/4 bytes,
// and text runs about 4 bytes per token, so about 3n/16 tokens. It is an
// estimate; providers do not document the size of what they decrypt.
func EncryptedTokens(n int) int {
	return (3*n + 15) / 16
}

// Message returns the size of m in tokens under c and o: o.PerMessage, the
// role, a name if any, every part's content, and for each tool call its
// name, its arguments and o.PerToolCall. Tool-call ids are not counted: no
// provider renders them as model-visible text. Thinking text is counted in
// full; encrypted reasoning by [EncryptedTokens]; images by [ImageTokens];
// an opaque part by its text and [chat.Opaque.Estimate].
// It does not include o.ReplyPriming, which belongs to the prompt; see
// [Messages].
func Message(c Counter, o Overhead, m chat.Message) int {
	n := o.PerMessage + RoleTokens
	if m.Name != "" {
		n += c.Count(m.Name) + o.PerName
	}
	texts := 0
	for _, p := range m.Parts {
		switch p := p.(type) {
		case chat.Text:
			texts++
		case chat.ToolCall:
			n += c.Count(p.Name) + c.Count(string(p.Arguments)) + o.PerToolCall
		case chat.ToolResult:
			n += c.Count(p.Content)
		case chat.Thinking:
			n += c.Count(p.Text) + EncryptedTokens(len(p.Encrypted))
		case chat.Image:
			n += ImageTokens(p.Width, p.Height)
		case chat.Opaque:
			n += c.Count(p.Text) + p.Estimate()
		}
	}
	if texts > 0 {
		n += c.Count(m.Text())
	}
	return n
}

// Messages returns the size in tokens of a prompt made of msgs: the sum of
// [Message] over msgs plus o.ReplyPriming once.
func Messages(c Counter, o Overhead, msgs []chat.Message) int {
	n := o.ReplyPriming
	for _, m := range msgs {
		n += Message(c, o, m)
	}
	return n
}
