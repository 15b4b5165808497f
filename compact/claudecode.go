package compact

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/window"
)

// Defaults of [ClaudeCode], from Claude Code's auto-compact for a
// 200,000-token window, as shares of the budget (the budget is the
// window):
//
//   - the threshold is the window minus the summary's output reserve,
//     min(max output, 20,000) tokens, and AUTOCOMPACT_BUFFER_TOKENS =
//     13,000 below it: 167,000 of 200,000, 0.835
//     (getAutoCompactThreshold, quoted from the CLI's source in
//     anthropics/claude-code issue #31806, 2026-03-07; "~83 %");
//   - after the summary, up to POST_COMPACT_MAX_FILES_TO_RESTORE = 5
//     recently read files are restored, each cut to
//     POST_COMPACT_MAX_TOKENS_PER_FILE = 5,000 tokens (0.025 of 200,000),
//     all together within POST_COMPACT_TOKEN_BUDGET = 50,000 (0.25)
//     (src/services/compact/compact.ts constants, as public analyses of
//     the CLI quote them, e.g. dust-tt/dust pull request #23767,
//     2026-04-05; read 2026-11-27).
const (
	DefaultClaudeCodeThreshold    = 0.835
	DefaultClaudeCodeFiles        = 5
	DefaultClaudeCodeFileShare    = 0.025
	DefaultClaudeCodeRestoreShare = 0.25
)

// ClaudeCode is Claude Code's auto-compact: when the window reaches
// Threshold of its budget, the whole history (every unpinned message,
// the last round included) becomes one summary, and the most recently
// read files are restored after it, each cut to its token cap. Claude
// Code reads them again from disk; a replayed trajectory's files are not
// on disk, so ClaudeCode restores the content the agent last read, from
// the results of its read calls in the summarized history (Read, cat,
// str_replace_editor view… as [tooluse.Classify] reads them), newest
// first. The pinned messages (system prompt, first user message) stay,
// as the window requires; Claude Code summarizes its first message too.
// The Engine also rehydrates after a summary (re-reading files from disk
// when it can): set Files to -1 to leave restoring to it.
//
// The summary is written by Summarizer (the extractive one by default),
// within [DefaultSummaryRatio] of the budget. A window still over budget
// afterwards runs the tiered levels. Claude Code's circuit breaker
// (three failed summaries in a row) is [Summarize]'s, not this one's.
// Safe for concurrent use on different windows.
type ClaudeCode struct {
	// Summarizer writes the summary. Optional. Defaults to the extractive
	// summarizer.
	Summarizer Summarizer
	// Files finds the important files of the summarized history for the
	// summarizer. Optional. The zero value finds the top 5 and does not
	// read them.
	Files FileAnalyzer
	// Threshold is the usage ratio that triggers the summary. Optional.
	// Defaults to 0.835.
	Threshold float64
	// RestoreFiles is how many recently read files are restored after
	// the summary; -1 restores none. Optional. Defaults to 5.
	RestoreFiles int
	// FileShare is the most tokens one restored file may hold, as a share
	// of the budget. Optional. Defaults to 0.025.
	FileShare float64
	// RestoreShare is the most tokens the restored files may hold
	// together, as a share of the budget. Optional. Defaults to 0.25.
	RestoreShare float64
	// Logger receives the records. Optional. Defaults to no logging.
	Logger *slog.Logger
}

// Name returns "claude-code".
func (c *ClaudeCode) Name() string { return "claude-code" }

// ThresholdRatio returns Threshold, 0.835 by default.
func (c *ClaudeCode) ThresholdRatio() float64 {
	return orDefault(c.Threshold, DefaultClaudeCodeThreshold)
}

// Compact summarizes the whole history of w when its usage ratio reaches
// the threshold or it is over budget, and restores the recently read
// files after the summary. A window without a budget, or below the
// threshold, is left as it is. Its error is ctx's.
func (c *ClaudeCode) Compact(ctx context.Context, w *window.Window) ([]Record, error) {
	if w.Budget() <= 0 || (w.Ratio() < c.ThresholdRatio() && w.Fits()) {
		return nil, nil
	}
	units := w.Units()
	o := spanSummary{strategy: c.Name(), summarizer: c.Summarizer, files: c.Files, logger: c.Logger, after: c.restore}
	return o.run(ctx, w, units, dropUnitsBefore(units, len(units)))
}

// restore renders the recently read files of removed, within the caps,
// for the note after the summary; "" when there are none.
func (c *ClaudeCode) restore(w *window.Window, removed []chat.Message) string {
	n := c.RestoreFiles
	if n == 0 {
		n = DefaultClaudeCodeFiles
	}
	if n < 0 {
		return ""
	}
	per := int(orDefault(c.FileShare, DefaultClaudeCodeFileShare) * float64(w.Budget()))
	total := int(orDefault(c.RestoreShare, DefaultClaudeCodeRestoreShare) * float64(w.Budget()))
	paths, contents := recentReads(removed)
	var b strings.Builder
	for i := 0; i < len(paths) && n > 0 && total > 0; i++ {
		body := cutWithMark(w, contents[i], min(per, total), "restored file cut to its token cap")
		block := fmt.Sprintf("\n\n### %s\n```\n%s\n```", paths[i], strings.TrimRight(body, "\n"))
		t := w.Counter().Count(block)
		if t > total {
			break
		}
		total -= t
		n--
		b.WriteString(block)
	}
	if b.Len() == 0 {
		return ""
	}
	return restoredMark + " (as the agent last read them; they may have changed since)" + b.String()
}

// claudeCodeConfig is the recorded form of [ClaudeCode]'s parameters.
type claudeCodeConfig struct {
	Summarizer   string  `json:"summarizer,omitempty"`
	Threshold    float64 `json:"threshold,omitempty"`
	RestoreFiles int     `json:"restore_files,omitempty"`
	FileShare    float64 `json:"file_share,omitempty"`
	RestoreShare float64 `json:"restore_share,omitempty"`
}

// Config records c's parameters and its summarizer's name.
func (c *ClaudeCode) Config() (json.RawMessage, error) {
	return json.Marshal(claudeCodeConfig{
		Summarizer: SummarizerName(c.Summarizer), Threshold: c.Threshold,
		RestoreFiles: c.RestoreFiles, FileShare: c.FileShare, RestoreShare: c.RestoreShare,
	})
}

func buildClaudeCode(config json.RawMessage, opts BuildOptions) (Strategy, error) {
	var c claudeCodeConfig
	if err := decodeConfig(config, &c); err != nil {
		return nil, err
	}
	return &ClaudeCode{
		Summarizer: opts.Summarizer, Files: opts.Files, Logger: opts.Logger, Threshold: c.Threshold,
		RestoreFiles: c.RestoreFiles, FileShare: c.FileShare, RestoreShare: c.RestoreShare,
	}, nil
}
