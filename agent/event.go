package agent

import "encoding/json"

// EventKind names what an [Event] reports.
type EventKind string

// The kinds of events, in the order a model call produces them.
const (
	// EventCompaction reports the compaction levels applied before a
	// request: Compaction is set.
	EventCompaction EventKind = "compaction"
	// EventReminder reports the system reminders (by kind, not the
	// tracker's and working memory's sections) a request carries, before
	// each send (again before a retry, which carries them again) to
	// the model: Reminders is set.
	EventReminder EventKind = "reminder"
	// EventTextDelta is a piece of the model's text as it streams: Text
	// is set. A model that does not stream sends its whole text as one
	// delta.
	EventTextDelta EventKind = "text_delta"
	// EventUsage reports a model call's usage and the request's size:
	// Usage is set.
	EventUsage EventKind = "usage"
	// EventError reports a provider failure the loop handled or gave up
	// on: Error is set.
	EventError EventKind = "error"
	// EventToolCall reports a tool call about to run (or be denied): Call
	// is set.
	EventToolCall EventKind = "tool_call"
	// EventToolResult reports a tool call's result: Result is set.
	EventToolResult EventKind = "tool_result"
	// EventTurnEnd ends a Run: Text holds the final text and StopReason
	// why the loop stopped.
	EventTurnEnd EventKind = "turn_end"
)

// Event is one thing that happened during [Agent.Run]. Kind says which
// of the other fields are set. Plain data, JSON-encodable (snake_case
// keys, empty fields left out).
type Event struct {
	// Kind is what happened.
	Kind EventKind `json:"kind"`
	// Turn is the model call the event belongs to, from 1 within a Run.
	Turn int `json:"turn"`
	// Text is the text delta (EventTextDelta) or the final text
	// (EventTurnEnd).
	Text string `json:"text,omitempty"`
	// Call is the tool call (EventToolCall).
	Call *ToolCallEvent `json:"call,omitempty"`
	// Result is the tool result (EventToolResult).
	Result *ToolResultEvent `json:"result,omitempty"`
	// Compaction is the compaction (EventCompaction).
	Compaction *CompactionEvent `json:"compaction,omitempty"`
	// Reminders are the kinds of the reminders sent (EventReminder).
	Reminders []string `json:"reminders,omitempty"`
	// Usage is the model call's usage (EventUsage).
	Usage *UsageEvent `json:"usage,omitempty"`
	// Error is the failure (EventError).
	Error *ErrorEvent `json:"error,omitempty"`
	// StopReason is why the loop stopped (EventTurnEnd).
	StopReason StopReason `json:"stop_reason,omitempty"`
	// Agent is set on the events of a sub-agent (the task tool's,
	// [NewTask]), forwarded to its parent's Events: which sub-agent.
	// Its Turn counts the sub-agent's model calls.
	Agent *SubAgent `json:"agent,omitempty"`
}

// ToolCallEvent describes a tool call.
type ToolCallEvent struct {
	// ID is the call's id, Name the tool's name, Arguments its JSON
	// arguments.
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// ToolResultEvent describes a tool result; the content goes to the
// Engine, and to the event's Content for display only.
type ToolResultEvent struct {
	// ID is the call answered and Name the tool's name.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Bytes is the result's size in bytes, before the Engine's limiter.
	Bytes int `json:"bytes"`
	// IsError is the result's error flag; Denied is set when the
	// permission guard refused the call.
	IsError bool `json:"is_error,omitempty"`
	Denied  bool `json:"denied,omitempty"`
	// Content is the result's text as the tool returned it, for a user
	// interface to show (the chat's head and tail lines). Not in the
	// event's JSON, which keeps Bytes.
	Content string `json:"-"`
}

// CompactionEvent describes the compaction levels applied before one
// request. Sizes are in tokens: the window before the first level and
// after the last.
type CompactionEvent struct {
	Levels       []string `json:"levels"`
	TokensBefore int      `json:"tokens_before"`
	TokensAfter  int      `json:"tokens_after"`
}

// UsageEvent is one model call's usage as the provider reported it, and
// the request's size as the Engine counted it, in tokens.
type UsageEvent struct {
	// PromptTokens is the prompt's full size, CachedTokens the part read
	// from the provider's cache, CacheWriteTokens the part written to it
	// (Anthropic), OutputTokens the reply's size.
	PromptTokens     int `json:"prompt_tokens"`
	CachedTokens     int `json:"cached_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	OutputTokens     int `json:"output_tokens"`
	// RequestTokens is the Engine's count of the request and Budget the
	// window's token budget (0: none).
	RequestTokens int `json:"request_tokens"`
	Budget        int `json:"budget"`
	// Model is the model that answered, as the provider named it.
	Model string `json:"model,omitempty"`
	// CostUSD is the call's cost in US dollars at the model's list price
	// (model.PriceOf); 0 when the price is not known.
	CostUSD float64 `json:"cost_usd,omitempty"`
}

// ErrorEvent describes a provider failure.
type ErrorEvent struct {
	// Message is the error's text.
	Message string `json:"message"`
	// Retry is the retry about to be made, from 1; 0 when none is.
	Retry int `json:"retry,omitempty"`
	// Overflow is set for a context overflow, and Recovered when the
	// Engine recovered from it and the loop goes on.
	Overflow  bool `json:"overflow,omitempty"`
	Recovered bool `json:"recovered,omitempty"`
}
