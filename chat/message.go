package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Role is the author of a [Message]. The four roles are those of the OpenAI
// chat-completions API; Anthropic's user-side tool_result blocks map to
// [RoleTool].
type Role string

// The roles a [Message] can have.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Valid reports whether r is one of the four known roles.
func (r Role) Valid() bool {
	switch r {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		return true
	}
	return false
}

// Part is one piece of a message's content. The set is sealed: the only
// implementations are [Text], [ToolCall], [ToolResult], [Thinking], [Image]
// and [Opaque]; a type switch over them is exhaustive.
type Part interface {
	isPart()
}

// Text is plain text content.
type Text struct {
	Text string `json:"text"`
}

// ToolCall is a model's request to run a tool. Arguments is the JSON object
// the model produced, kept byte-for-byte; when a source recorded arguments
// that are not valid JSON, they are kept as a JSON string so nothing is lost.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// ToolResult is the output of a tool call, sent back to the model.
// ToolCallID names the call it answers; ToolName repeats the tool's name
// where the source recorded it (empty otherwise). IsError is the tool's
// structured failure flag (Anthropic is_error, a non-zero exit code).
type ToolResult struct {
	ToolCallID string `json:"tool_call_id"`
	ToolName   string `json:"tool_name,omitempty"`
	Content    string `json:"content"`
	IsError    bool   `json:"is_error,omitempty"`
}

// Thinking is the model's reasoning: Anthropic thinking blocks, OpenAI
// reasoning items, DeepSeek reasoning_content. Signature is Anthropic's
// opaque signature; Encrypted holds redacted or encrypted reasoning
// (Anthropic redacted_thinking data, OpenAI encrypted_content) that is sent
// back to the provider but cannot be read.
type Thinking struct {
	Text      string `json:"text,omitempty"`
	Signature string `json:"signature,omitempty"`
	Encrypted string `json:"encrypted,omitempty"`
}

// Image stands in for an image without holding its pixels. Width and Height
// are in pixels (0 when unknown), Bytes is the encoded size in bytes (0 when
// unknown). Source is where it came from (a URL, a file path, or a media
// type such as "image/png" for inline data); it is informational.
type Image struct {
	Source string `json:"source,omitempty"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
	Bytes  int    `json:"bytes,omitempty"`
}

func (Text) isPart()       {}
func (ToolCall) isPart()   {}
func (ToolResult) isPart() {}
func (Thinking) isPart()   {}
func (Image) isPart()      {}

// Usage is what a provider reported for one model call, in tokens.
//
// InputTokens counts only the prompt tokens that were neither read from nor
// written to a cache (Anthropic's input_tokens; OpenAI's prompt_tokens minus
// cached_tokens), so that [Usage.PromptTokens] is the prompt's full size for
// every provider. ReasoningTokens is the part of OutputTokens spent on
// reasoning, where the provider reports it.
type Usage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int `json:"reasoning_tokens,omitempty"`
}

// PromptTokens is the size of the prompt the provider processed, in tokens:
// InputTokens + CacheReadTokens + CacheWriteTokens. This is the number
// usage-anchored counting starts from (FORMATS.md: Claude Code's prompt size
// is input + cache read + cache creation).
func (u Usage) PromptTokens() int {
	return u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
}

// MaxCallTokens is the largest token count one model call can plausibly
// report, in tokens: 100,000,000, far above every context window and
// output limit in the catalog. A count above it, or a negative one, is a
// corrupt record (transcripts have been seen holding 2^40), and readers
// drop the whole usage record rather than store it ([Usage.Validate]).
const MaxCallTokens = 100_000_000

// ErrImplausibleUsage reports a usage record with a count outside
// [0, [MaxCallTokens]]. Readers drop such a record and report it; callers
// that receive it should treat the call's usage as unknown.
var ErrImplausibleUsage = errors.New("chat: implausible usage")

// Validate checks that every count of u lies in [0, [MaxCallTokens]]
// tokens. It returns nil or an error wrapping [ErrImplausibleUsage] that
// names the first field out of range and its value.
func (u Usage) Validate() error {
	for _, f := range []struct {
		name string
		n    int
	}{
		{"input_tokens", u.InputTokens}, {"output_tokens", u.OutputTokens},
		{"cache_read_tokens", u.CacheReadTokens}, {"cache_write_tokens", u.CacheWriteTokens},
		{"reasoning_tokens", u.ReasoningTokens},
	} {
		if f.n < 0 || f.n > MaxCallTokens {
			return fmt.Errorf("%w: %s %d is outside [0, %d] tokens", ErrImplausibleUsage, f.name, f.n, MaxCallTokens)
		}
	}
	return nil
}

// IsZero reports whether no count was reported at all. Some transcripts
// carry all-zero usage records; they mean "unknown", not "empty prompt".
func (u Usage) IsZero() bool {
	return u == Usage{}
}

// Message is one message of a conversation.
//
// ID is an identifier from the source (a transcript uuid, a provider
// response id); it is informational and may be empty or repeated. Model is
// the model that produced an assistant message, where known. Usage is set
// on an assistant message when the provider reported the usage of the call
// that produced it. Name is the optional participant name of the OpenAI
// shape.
type Message struct {
	Role  Role   `json:"role"`
	Parts []Part `json:"-"`
	Name  string `json:"name,omitempty"`
	ID    string `json:"id,omitempty"`
	Model string `json:"model,omitempty"`
	Usage *Usage `json:"usage,omitempty"`
}

// NewText returns a message of role r holding one [Text] part.
func NewText(r Role, text string) Message {
	return Message{Role: r, Parts: []Part{Text{Text: text}}}
}

// NewAssistant returns an assistant message holding text (no [Text] part
// when it is "") followed by one [ToolCall] part per call, in order.
func NewAssistant(text string, calls ...ToolCall) Message {
	parts := make([]Part, 0, len(calls)+1)
	if text != "" {
		parts = append(parts, Text{Text: text})
	}
	for _, c := range calls {
		parts = append(parts, c)
	}
	return Message{Role: RoleAssistant, Parts: parts}
}

// NewToolResult returns a tool message that answers the call id.
func NewToolResult(id, name, content string, isError bool) Message {
	return Message{Role: RoleTool, Parts: []Part{ToolResult{ToolCallID: id, ToolName: name, Content: content, IsError: isError}}}
}

// Text returns the message's [Text] parts joined by "\n". It ignores every
// other kind of part.
func (m Message) Text() string {
	var n, count int
	for _, p := range m.Parts {
		if t, ok := p.(Text); ok {
			n += len(t.Text)
			count++
		}
	}
	if count == 1 {
		for _, p := range m.Parts {
			if t, ok := p.(Text); ok {
				return t.Text
			}
		}
	}
	var b strings.Builder
	b.Grow(n + count)
	first := true
	for _, p := range m.Parts {
		if t, ok := p.(Text); ok {
			if !first {
				b.WriteByte('\n')
			}
			b.WriteString(t.Text)
			first = false
		}
	}
	return b.String()
}

// ToolCalls returns the message's [ToolCall] parts in order. It allocates a
// new slice; use [Message.HasToolCalls] to test cheaply.
func (m Message) ToolCalls() []ToolCall {
	var out []ToolCall
	for _, p := range m.Parts {
		if c, ok := p.(ToolCall); ok {
			out = append(out, c)
		}
	}
	return out
}

// HasToolCalls reports whether the message holds at least one [ToolCall].
func (m Message) HasToolCalls() bool {
	for _, p := range m.Parts {
		if _, ok := p.(ToolCall); ok {
			return true
		}
	}
	return false
}

// ToolResult returns the message's first [ToolResult] part and whether it
// has one. A well-formed tool message has exactly one, first, followed by
// the [Opaque] parts of its content that are not text, if any.
func (m Message) ToolResult() (ToolResult, bool) {
	for _, p := range m.Parts {
		if r, ok := p.(ToolResult); ok {
			return r, true
		}
	}
	return ToolResult{}, false
}

// Clone returns a deep copy of m: its parts slice, usage and tool-call
// argument bytes are not shared with m.
func (m Message) Clone() Message {
	c := m
	if m.Parts != nil {
		c.Parts = make([]Part, len(m.Parts))
		for i, p := range m.Parts {
			switch x := p.(type) {
			case ToolCall:
				if x.Arguments != nil {
					x.Arguments = append(json.RawMessage(nil), x.Arguments...)
					p = x
				}
			case Opaque:
				if x.Raw != nil {
					x.Raw = append(json.RawMessage(nil), x.Raw...)
					p = x
				}
			}
			c.Parts[i] = p
		}
	}
	if m.Usage != nil {
		u := *m.Usage
		c.Usage = &u
	}
	return c
}
