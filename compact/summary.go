package compact

import (
	"context"

	"github.com/agentctx/agentctx/chat"
)

// Summarizer writes the summary that replaces old history in a summarizing
// compaction ([Summarize]). The extractive summarizer ([Extractive]) needs
// no model; an LLM summarizer sends [SummaryPrompt]'s messages to a model
// (see package provider). Implementations are safe for concurrent use.
type Summarizer interface {
	// Summarize returns the summary of req.Messages. An error makes
	// [Summarize] fall back to truncation and say so.
	Summarize(ctx context.Context, req SummaryRequest) (SummaryResult, error)
	// Name names the summarizer in records: "extractive", "llm:<model>".
	Name() string
}

// SummaryRequest is what a summarizer is given.
type SummaryRequest struct {
	// Messages is the history being replaced, oldest first, whole rounds.
	// A previous summary among them is in Previous, not here.
	Messages []chat.Message
	// Kept is the recent history that stays verbatim after the summary,
	// for context: the summary need not repeat it.
	Kept []chat.Message
	// Previous is the summary of an earlier compaction that is being
	// rolled into this one ("" when none): summaries roll, they do not
	// nest.
	Previous string
	// Files are the important files (seed 001's file analyzer), most
	// important first, with their content when it could be read.
	Files []FileContext
	// Instructions are the user's own instructions for this summary
	// (Claude Code's `/compact <instructions>`). Optional.
	Instructions string
	// MaxTokens is the most tokens the summary may hold; a longer one is
	// rejected and the compaction falls back.
	MaxTokens int
}

// SummaryResult is a summarizer's answer: the summary text and, for a
// model, the usage its call reported.
type SummaryResult struct {
	Text  string
	Usage *chat.Usage
}

// FileContext is one important file for a summary (seed 001's
// FileAnalyzer): its path, why it matters, and its content when the file
// still exists, is text and is small (at most 1,000 lines).
type FileContext struct {
	// Path is the file's path as the transcript names it.
	Path string `json:"path"`
	// Modified is true when a tool call wrote or edited the file.
	Modified bool `json:"modified"`
	// Mentions counts the tool calls and texts that name the file.
	Mentions int `json:"mentions"`
	// LastMention is the index of the last message naming the file.
	LastMention int `json:"last_mention"`
	// Content is the file's text, cut to 1,000 lines; "" when it could not
	// be read (gone, binary, too large) or was not asked for.
	Content string `json:"content,omitempty"`
	// Truncated is true when Content was cut.
	Truncated bool `json:"truncated,omitempty"`
}

// Facts are the key facts of a stretch of history that a compaction must
// not lose, extracted deterministically (no model): each list is sorted
// and free of duplicates. [ExtractFacts] fills it.
type Facts struct {
	// UserMessages holds each user message's text, cut to its first 200
	// runes (compaction notes and summaries are not user messages).
	UserMessages []string `json:"user_messages"`
	// FilesModified and FilesRead are file paths from tool-call arguments
	// of writing and reading tools.
	FilesModified []string `json:"files_modified"`
	FilesRead     []string `json:"files_read"`
	// Errors holds error signatures: the first non-empty line of each
	// failed tool result.
	Errors []string `json:"errors"`
	// FailingTests holds failing test ids found in tool results (pytest
	// "FAILED path::test", Go "--- FAIL: TestX", and the like).
	FailingTests []string `json:"failing_tests"`
	// FailedCommands holds the commands whose result failed or reported a
	// non-zero exit code.
	FailedCommands []string `json:"failed_commands"`
}

// Retention is how many of the removed part's facts are still present in
// the window after a compaction, per category and overall, as fractions
// in [0, 1] (1 when a category had nothing to keep). The JSON names are
// part of `agentctx replay --json`'s contract.
type Retention struct {
	Overall        float64 `json:"overall"`
	UserMessages   float64 `json:"user_messages"`
	FilesModified  float64 `json:"files_modified"`
	FilesRead      float64 `json:"files_read"`
	Errors         float64 `json:"errors"`
	FailingTests   float64 `json:"failing_tests"`
	FailedCommands float64 `json:"failed_commands"`
	// Kept and Total count facts over all categories.
	Kept  int `json:"kept"`
	Total int `json:"total"`
	// Counts holds, per category (the JSON names above: "user_messages",
	// "files_modified", …), the facts kept and the facts in total:
	// Counts[c][0] kept, Counts[c][1] total. [Retention.Add] sums them
	// to give the retention over many compactions.
	Counts map[string][2]int `json:"counts,omitempty"`
	// Missing lists up to 20 facts that were lost, for reports.
	Missing []string `json:"missing,omitempty"`
}
