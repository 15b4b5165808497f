package agentctx

import (
	"log/slog"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/reminder"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/track"
	"github.com/agentctx/agentctx/workspace"
)

// DefaultModel is the model assumed when [Options].Model is empty.
const DefaultModel = "gpt-4o"

// Options configures an [Engine]. The zero value works: an in-memory
// session for [DefaultModel] in the current directory, with summarizing
// compaction by the extractive summarizer, workspace context, system
// reminders, the tool-result limiter and working memory all on.
type Options struct {
	// Store persists the session. Optional. Defaults to nil: nothing is
	// written, and [Resume] is impossible. Every message added is
	// appended before Add returns; compactions, working-memory state and
	// reminders are recorded as the session package describes.
	Store session.Store
	// SessionID is the id of the session [Open] creates, or opens when it
	// exists in Store. Optional. Defaults to a fresh id (session.NewID).
	SessionID string
	// Dir is the working directory: where the workspace context is
	// gathered, and the session's project. Optional. Defaults to the
	// current directory.
	Dir string
	// ReadOnly makes [Resume] write nothing to the session: no
	// configuration entry (even for a session that recorded none, or
	// options that override it), and nothing the engine does afterwards
	// (Add, Compact, Close) is persisted. For looking at a session, as
	// `agentctx inspect` does. [Open] ignores it.
	ReadOnly bool
	// Origin and Metadata are stored on a new session. Optional.
	Origin   string
	Metadata map[string]string

	// Model is the model the requests are for; it picks the tokenizer, the
	// context window and the default budget. Optional. Defaults to
	// [DefaultModel]. An unknown name gets a fallback and a warning in
	// [Engine.Warnings], never an error.
	Model string
	// Budget is the prompt budget in tokens: the most every request may
	// hold. Optional. Defaults to Policy's budget for Model.
	Budget int
	// Policy computes the budget when Budget is 0. Optional. Defaults to
	// model.DefaultPolicy.
	Policy model.Policy
	// MaxTokens caps each reply, in tokens; copied to the provider
	// request. Optional. Defaults to the adapter's default.
	MaxTokens int

	// SystemPrompt is the agent's own base system prompt, the first part
	// of the static prefix. Optional.
	SystemPrompt string
	// Tools are the tool schemas sent with every request; their size is
	// reserved in the budget. Optional.
	Tools []chat.ToolDef
	// RecallToolName is the name the tool-result limiter's notes give the
	// tool that reads a cut output back, when the agent reaches the
	// recall under another name than [RecallToolName]: the proxy sets it
	// to `agentctx mcp`'s recall_output as the agent presents MCP tools
	// (mcp__agentctx__recall_output for Claude Code and Codex). The tool
	// must answer as [Engine.Recall] does, by call_id. Optional. Defaults
	// to [RecallToolName] when Tools has that tool, else "": the notes
	// name no tool. Not recorded in the session.
	RecallToolName string
	// StaticRatio is the largest share of the budget the static system
	// prompt (base prompt, instruction files, context blocks) may take;
	// over it, blocks are dropped (prompt.BuildStatic). Optional.
	// Defaults to 0.25.
	StaticRatio float64

	// Workspace configures the static project context. Optional. Its
	// zero value gathers everything for Dir (its own Dir, when set, wins).
	Workspace workspace.Options
	// NoWorkspace turns the static project context off: no tree, git,
	// instruction files or README in the system prompt.
	NoWorkspace bool
	// RefreshWorkspace makes [Resume] gather the workspace context again
	// and rebuild the static system prompt, instead of reusing the one the
	// session recorded (which keeps the provider's prompt cache valid).
	RefreshWorkspace bool

	// Strategy compacts the window before each request. Optional.
	// Defaults to compact.Summarize with Summarizer (seed 001's 80 %
	// trigger, 20 % kept) escalating to tiered compaction.
	Strategy compact.Strategy
	// Summarizer writes summaries for the default strategy and for
	// [Engine.Compact]. Optional. Defaults to the extractive summarizer
	// (compact.Extractive), which needs no model.
	Summarizer compact.Summarizer

	// NoLimit turns the tool-result limiter (seed 003,
	// compact.LimitToolResult) off. When on, each tool result is sized
	// for the window's usage ratio as it is added, and the full output of
	// a cut result is kept in the session (session.ToolOutput).
	NoLimit bool
	// MaxResultTokens caps, in tokens, what one tool result may take of
	// the window when the window has room for more than the seed's quota
	// (compact.QuotaFor: 6,000 runes at most): the newest result may then
	// use the room left under the strategy's compaction ratio after
	// everything else in the next request, up to this cap, and is added
	// whole when it fits (see [Engine.Add]). Optional. Defaults to
	// compact.DefaultMaxResultTokens (25,000, Claude Code's cap on one
	// Read). Negative: the seed's quotas only.
	MaxResultTokens int
	// RecallCacheBytes caps, in bytes, the full tool outputs an engine
	// keeps in memory for [Engine.Recall]; the oldest are forgotten first.
	// Optional. Defaults to [DefaultRecallCacheBytes] (8 MiB). Without a
	// Store that is all there is; with one, full outputs are kept in the
	// session too, and one forgotten here is read back from it. The texts
	// of summarized spans (recall_output span_id) are kept under a cap of
	// the same size of their own.
	RecallCacheBytes int
	// NoWorkingMemory turns the runtime state tracker (seed 000) and the
	// working memory (seed 002) off, and with them the tracker and
	// working-memory parts of the tail and most of the rehydration.
	NoWorkingMemory bool
	// Tracker configures the runtime state tracker. Optional.
	Tracker track.Options
	// ContextTokens is the budget of the working memory's context in each
	// request, in tokens. Optional. Defaults to 5 % of the budget, at
	// most 2,000; negative leaves it out.
	ContextTokens int
	// NoTrackerSection leaves the tracker's section out of requests (it
	// still feeds reminders and rehydration).
	NoTrackerSection bool

	// Reminders configures system reminders (caps, generators).
	// Optional.
	Reminders reminder.Options
	// NoReminders turns system reminders off.
	NoReminders bool

	// Rehydrate configures what is re-included after a summarizing
	// compaction.
	Rehydrate RehydrateOptions

	// NoDiskReads makes the engine read nothing from the local disk on
	// its sessions' behalf: no workspace context (as NoWorkspace), no
	// file content in the summaries of its own strategy or in
	// rehydration, no stat of the files read to notice changes, and no
	// look at the recorded project directory on Resume. For a service
	// (agentctx serve) whose sessions' paths name files on the agents'
	// machines, never the server's: a session could otherwise have a
	// server file re-included in its next request. Not recorded in the
	// session: pass it on every Open and Resume.
	NoDiskReads bool

	// Logger receives debug records: compactions, dropped tail parts.
	// Optional. Defaults to no logging.
	Logger *slog.Logger
}

// RehydrateOptions configures rehydration: what a request re-includes
// after a summarizing compaction replaced the history (the instruction
// files are in the static prompt, which compaction never touches).
type RehydrateOptions struct {
	// Disabled turns rehydration off.
	Disabled bool
	// Files is how many of the most recently read files are re-read from
	// disk and included. Optional. Defaults to 5 (Claude Code's number).
	Files int
	// FileTokens caps each file, in tokens. Optional. Defaults to 10,000.
	FileTokens int
	// TotalTokens caps the files together, in tokens. Optional. Defaults
	// to 50,000, and never more than 15 % of the budget, so a small
	// budget re-includes fewer files or parts of them.
	TotalTokens int
	// ReadFile reads a file to re-include. Optional. Defaults to
	// os.ReadFile; relative paths are taken from the working directory.
	ReadFile func(path string) ([]byte, error)
}
