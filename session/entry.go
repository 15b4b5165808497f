package session

import (
	"encoding/json"
	"time"

	"github.com/agentctx/agentctx/chat"
)

// Entry types ([Entry.Type]), seed 001's JSONLEntry.type, which are Claude
// Code's line types. Other types (Claude Code's "progress",
// "file-history-snapshot", "summary", …) are kept verbatim: see
// [Entry.Raw].
const (
	// TypeUser is a user message; also the compaction summary
	// ([Entry.IsCompactSummary]). In a Claude Code file a "user" line may
	// instead hold tool_result blocks: tool results.
	TypeUser = "user"
	// TypeAssistant is an assistant message with its tool calls.
	TypeAssistant = "assistant"
	// TypeToolUse is one tool call written on its own line ([Entry.Tool]),
	// as seed 001's saveToolUse does. agentctx writes tool calls inside
	// their assistant message and only reads this type: a tool_use entry
	// joins the assistant message it follows.
	TypeToolUse = "tool_use"
	// TypeToolResult is one tool result ([Entry.ToolResult]).
	TypeToolResult = "tool_result"
	// TypeSystem is a system prompt, or with [SubtypeCompactBoundary] a
	// compact boundary.
	TypeSystem = "system"
	// TypeState is agentctx's working-memory state ([Entry.State]): the
	// runtime state tracker's and the working memory's state, written by
	// [Recorder.SaveState] so that a resumed session renders the same
	// prompt sections. A state entry is part of the chain
	// (it has a parentUuid and is kept by [Resolve]) but records no
	// message: [Entry.Messages] gives nil for it and it does not count
	// in [CompactMetadata.Messages]. [LastState] finds the latest.
	// Extension; Claude Code has no such line.
	TypeState = "agentctx_state"
	// TypeToolOutput is the full output of a tool result that the
	// tool-result limiter cut before it entered the window
	// ([Entry.ToolResult], as on a tool_result entry). The window holds
	// the cut result, on its own tool_result entry; this entry keeps the
	// whole text for retrieval ([ToolOutput]), so that nothing the tool
	// returned is lost. Like a state entry it is part of the
	// chain but records no message. Extension.
	TypeToolOutput = "agentctx_tool_output"
	// TypeReminder records the system reminders sent with one model
	// request ([Entry.Reminders]). Reminders are injected into the
	// outgoing request only, never into the stored history, so the
	// session keeps them on their own entries: what the model was told,
	// and which reminder keys a resumed session must not repeat. Like a
	// state entry it is part of the chain but records no message.
	// Extension; Claude Code stores its reminders as user text.
	TypeReminder = "agentctx_reminder"
)

// SubtypeCompactBoundary marks a system entry as a compact boundary (seed
// 001, Claude Code): the live context starts after it. Its ParentUUID is
// null and its LogicalParentUUID is the entry before it, as Claude Code
// writes it, so a chain walk stops at the boundary.
const SubtypeCompactBoundary = "compact_boundary"

// Triggers of a compact boundary ([CompactMetadata].Trigger) other than
// Claude Code's "auto" and "manual": the boundaries an agentctx fork or
// rewind writes. Such a boundary is followed by the messages kept (its
// Messages of them) like any snapshot, so every store loads the branch
// as it loads a compacted session; [CompactMetadata].Branch says where it
// came from. Extensions.
const (
	// TriggerFork starts a session forked from another one: the
	// messages after the boundary are a copy of the parent's first
	// Branch.At messages.
	TriggerFork = "fork"
	// TriggerRewind returns a session to an earlier message: the
	// entries before the boundary, the abandoned branch included, stay
	// in the session (LoadOptions.All reads them); the live part is the
	// first Branch.At messages of the window the rewind started from.
	TriggerRewind = "rewind"
)

// Session metadata keys ([Session].Metadata) that link a forked session,
// or a sub-agent's, to its parent.
const (
	// MetaParent is the id of the session a session was forked from.
	MetaParent = "parent_session"
	// MetaForkAt is the number of the parent's messages (its window's,
	// in order) the fork kept, in decimal.
	MetaForkAt = "fork_at"
	// MetaTask marks a sub-agent's session: the task it was started for
	// (the task tool's description), its MetaParent the session of the
	// agent that started it. A sub-agent's session has no MetaForkAt: it
	// starts empty, sharing nothing with its parent's history.
	MetaTask = "task"
)

// Entry is one line of a session transcript. The fields and their JSON
// names are seed 001's JSONLEntry, which is Claude Code's line format
// (~/.claude/projects/<escaped cwd>/<sessionId>.jsonl), plus agentctx
// extensions noted on each field. Unknown fields of a line are not kept
// in the struct but survive in Raw.
//
// An Entry is plain data: safe to read from several goroutines, not to
// modify concurrently.
type Entry struct {
	// UUID identifies the entry within its session. [Store.Append] fills
	// it (a version 7 UUID) when empty.
	UUID string `json:"uuid"`
	// ParentUUID is the UUID of the entry before this one in the
	// conversation, or "" (written as null) for the first entry and for a
	// compact boundary. [Store.Append] fills it with the session's last
	// entry when empty, except on a compact boundary.
	ParentUUID string `json:"parentUuid"`
	// LogicalParentUUID is set on a compact boundary: the entry the
	// boundary follows (Claude Code's logicalParentUuid).
	LogicalParentUUID string `json:"logicalParentUuid,omitempty"`
	// SessionID is the id of the session the entry belongs to.
	// [Store.Append] fills it when empty and rejects a different one.
	SessionID string `json:"sessionId"`
	// Timestamp is when the entry was written, UTC, RFC 3339 with
	// milliseconds on the wire. [Store.Append] fills it when zero.
	Timestamp time.Time `json:"timestamp"`
	// Type is one of the Type constants, or a foreign type kept verbatim.
	Type string `json:"type"`
	// Subtype is [SubtypeCompactBoundary] on a compact boundary; other
	// values are kept.
	Subtype string `json:"subtype,omitempty"`
	// CWD is the working directory of the agent, the session's project
	// path unless the agent changed directory. Filled from the session
	// when empty.
	CWD string `json:"cwd,omitempty"`
	// GitBranch is the session's git branch, detected once when the
	// session is created (never per entry, unlike the seed). Filled from
	// the session when empty.
	GitBranch string `json:"gitBranch,omitempty"`
	// Version is the version of the program that wrote the entry.
	Version string `json:"version,omitempty"`
	// IsSidechain marks a Claude Code sub-agent line; side-chain entries
	// are not part of the main conversation and are skipped on load.
	IsSidechain bool `json:"isSidechain,omitempty"`
	// Message is the entry's message as JSON, for user, assistant and
	// system entries and the compaction summary. agentctx writes the chat
	// package's JSON form ({"role", "name", "id", "model", "usage",
	// "parts"}, see chat.Message.MarshalJSON), which keeps every field of
	// a [chat.Message]; Claude Code's form ({"role", "content", "model",
	// "id", "usage"} with Anthropic content blocks) is read too. Use
	// [Entry.Messages] to decode either.
	Message json.RawMessage `json:"message,omitempty"`
	// Tool is a tool call on its own line (seed 001's tool_use entry).
	Tool *ToolUse `json:"tool,omitempty"`
	// ToolResult is a tool result (seed 001's tool_result entry).
	ToolResult *ToolResult `json:"toolResult,omitempty"`
	// IsCompactSummary marks the message that holds the compaction
	// summary (or the compaction note of a truncating strategy). It
	// follows a compact boundary.
	IsCompactSummary bool `json:"isCompactSummary,omitempty"`
	// CompactMetadata describes the compaction, on a compact boundary
	// (and, as Claude Code does, on the summary).
	CompactMetadata *CompactMetadata `json:"compactMetadata,omitempty"`
	// State is the working-memory state on a [TypeState] entry: one JSON
	// value, normally an object whose shape the engine defines (for
	// example {"tracker": …, "workmem": …}); the session package only
	// stores it. Nil on other entries. Extension.
	State json.RawMessage `json:"state,omitempty"`
	// Reminders are the system reminders of a [TypeReminder] entry, in
	// the order they were sent. Extension.
	Reminders []Reminder `json:"reminders,omitempty"`

	// Raw is the line as it was read, without its newline; nil for an
	// entry built in memory. A store writes Raw byte for byte instead of
	// re-encoding when the entry's type is not one of the Type constants,
	// so foreign lines (Claude Code's progress and file-history-snapshot
	// lines) survive a rewrite; [Repair] patches only their parentUuid.
	Raw json.RawMessage `json:"-"`
	// Offset is the byte offset of the entry's line in its file and Line
	// its 1-based line number, when the entry was read from a file (Line
	// is 0 when loading started mid-file, at a boundary's offset).
	Offset int64 `json:"-"`
	Line   int   `json:"-"`
}

// ToolUse is the "tool" object of a tool_use entry: one tool call. Input
// is the call's arguments, normally a JSON object.
type ToolUse struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
}

// ToolResult is the "toolResult" object of a tool_result entry. It follows
// seed 001: Output is what the tool returned (a JSON string as agentctx
// writes it; any JSON value is read, a non-string as its JSON text), and
// Error, when present, marks the result as an error and holds its text.
// agentctx writes a failed result as Error alone and a successful one as
// Output alone, so that [chat.ToolResult] round-trips exactly; when both
// are present they are read as one error result, Output then Error joined
// by a newline. Name is an agentctx extension: the tool's name.
type ToolResult struct {
	ID     string          `json:"id"`
	Name   string          `json:"name,omitempty"`
	Output json.RawMessage `json:"output,omitempty"`
	Error  *string         `json:"error,omitempty"`
}

// CompactMetadata is the "compactMetadata" of a compact boundary, seed
// 001's fields (Claude Code writes trigger and preTokens) plus agentctx
// extensions that let a resumed window equal the live one exactly.
type CompactMetadata struct {
	// Trigger is "auto" or "manual".
	Trigger string `json:"trigger"`
	// PreTokens is the context size in tokens before the compaction.
	PreTokens int `json:"preTokens"`
	// PostTokens is the context size in tokens after it.
	PostTokens int `json:"postTokens,omitempty"`
	// FilesIncluded lists the files whose content the summary includes.
	FilesIncluded []string `json:"filesIncluded,omitempty"`

	// Strategy and Level name the compaction that ran (compact.Strategy
	// name, compact.Level text of the highest level applied). Extension.
	Strategy string `json:"strategy,omitempty"`
	Level    string `json:"level,omitempty"`
	// Messages is the number of message entries written right after the
	// boundary that together are the window as compaction left it (the
	// summary or note among them). Zero means Claude Code's convention:
	// the summary entry alone. A boundary followed by fewer such entries
	// than Messages (a write torn by a crash) is incomplete and is
	// ignored on load. Extension.
	Messages int `json:"messages,omitempty"`
	// Anchor is the window's usage anchor after compaction. Extension.
	Anchor *Anchor `json:"anchor,omitempty"`
	// Dropped is the window's tally of what compaction has removed so
	// far, from which the next compaction note is written. Extension.
	Dropped *Dropped `json:"dropped,omitempty"`
	// Fallback reports that a summarizing compaction fell back to
	// truncation. Extension.
	Fallback bool `json:"fallback,omitempty"`
	// Summarizer names the summarizer of a summarizing compaction
	// ("extractive", "llm:<provider>/<model>"), DurationMS how long it
	// took in milliseconds, and Usage what its model call reported (nil
	// without a model). Extensions.
	Summarizer string `json:"summarizer,omitempty"`
	// Reason says why a summary was not made where one was due: the
	// summarizing strategy's loop guard escalated to the tiered levels
	// (compact.Record.EscalationReason). Extension.
	Reason     string      `json:"reason,omitempty"`
	DurationMS float64     `json:"durationMs,omitempty"`
	Usage      *chat.Usage `json:"usage,omitempty"`
	// Span is the span of history a summarizing compaction replaced, kept
	// whole so that the agent can read it back (recall_output span_id;
	// see [SpanText]); nil for other compactions. Extension.
	Span *Span `json:"span,omitempty"`
	// Branch describes a fork or a rewind, on a boundary whose Trigger is
	// [TriggerFork] or [TriggerRewind]; nil on a compaction. Extension.
	Branch *Branch `json:"branch,omitempty"`
}

// Branch is where a fork or a rewind branched off: Parent is the session
// a fork was made from ("" for a rewind, made in the session itself), At
// the number of messages kept (the window's first At messages) and From
// the number of messages the window held before.
type Branch struct {
	Parent string `json:"parent,omitempty"`
	At     int    `json:"at"`
	From   int    `json:"from"`
}

// Span is a summarized span of history as a compact boundary keeps it:
// its id ("s1", "s2"… per session, compact.NextSpanID) and its messages
// rendered as text (compact.RenderSpan), secrets redacted: the raw
// messages stay in their own entries, and a session holds each secret
// there only.
type Span struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Anchor is the JSON form of a window's usage anchor (token.Anchor):
// Reported is the provider's prompt size in tokens, Counted the local count
// of that prompt.
type Anchor struct {
	Reported int `json:"reported"`
	Counted  int `json:"counted"`
}

// Dropped is the JSON form of window.Dropped: counts of messages, rounds,
// tool calls and tool results removed, the calls per tool name, file paths
// and (cut) user messages removed.
type Dropped struct {
	Messages          int            `json:"messages,omitempty"`
	Rounds            int            `json:"rounds,omitempty"`
	ToolCalls         int            `json:"toolCalls,omitempty"`
	ToolResults       int            `json:"toolResults,omitempty"`
	Tools             map[string]int `json:"tools,omitempty"`
	Files             []string       `json:"files,omitempty"`
	UserMessages      []string       `json:"userMessages,omitempty"`
	UserMessagesTotal int            `json:"userMessagesTotal,omitempty"`
}

// IsBoundary reports whether e is a compact boundary.
func (e *Entry) IsBoundary() bool {
	return e.Type == TypeSystem && e.Subtype == SubtypeCompactBoundary
}

// Known reports whether e's type is one of the Type constants. Entries of
// other types are foreign: kept, written back verbatim, never turned into
// messages.
func (e *Entry) Known() bool {
	switch e.Type {
	case TypeUser, TypeAssistant, TypeToolUse, TypeToolResult, TypeSystem, TypeState, TypeToolOutput, TypeReminder:
		return true
	}
	return false
}
