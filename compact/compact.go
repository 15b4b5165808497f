package compact

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/window"
)

// Level is a compaction level.
type Level int

// The compaction levels. The tiered levels are seed 003's; [LevelCut] is the
// last resort that cuts message content when whole messages can no longer
// be removed; [LevelMask] is observation masking.
const (
	LevelNone     Level = iota
	LevelL1             // cut old tool results (60-70 % of the budget)
	LevelL2             // replace all but the last 3 rounds with a note (70-95 %)
	LevelL3             // keep system prompt, first user message, note, last round (> 95 %)
	LevelCut            // cut the content of the largest messages to fit
	LevelMask           // replace old tool results with placeholders
	LevelSummary        // replace old history with a summary (seed 001's CompactionService)
	LevelTruncate       // remove the oldest messages, without a note ([Truncate])
)

var levelNames = [...]string{"none", "L1", "L2", "L3", "cut", "mask", "summary", "truncate"}

// String returns the level's short name: "none", "L1", "L2", "L3", "cut",
// "mask", "summary" or "truncate".
func (l Level) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return fmt.Sprintf("Level(%d)", int(l))
	}
	return levelNames[l]
}

// MarshalText encodes the level as its [Level.String] name.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText decodes a name written by [Level.MarshalText].
func (l *Level) UnmarshalText(b []byte) error {
	for i, n := range levelNames {
		if n == string(b) {
			*l = Level(i)
			return nil
		}
	}
	return fmt.Errorf("compact: unknown level %q", b)
}

// Levels lists every level in order, for reports.
func Levels() []Level {
	return []Level{LevelL1, LevelL2, LevelL3, LevelCut, LevelMask, LevelSummary, LevelTruncate}
}

// Record says what one compaction level did to a window. Token counts are
// the window's [window.Window.Size] before and after, in tokens.
type Record struct {
	Strategy        string `json:"strategy"`
	Level           Level  `json:"level"`
	MessagesRemoved int    `json:"messages_removed"`
	RoundsRemoved   int    `json:"rounds_removed"`
	// ResultsCut counts tool results cut (L1) or masked (mask).
	ResultsCut int `json:"results_cut"`
	// MessagesCut counts messages whose content was cut to fit (cut).
	MessagesCut  int `json:"messages_cut"`
	TokensBefore int `json:"tokens_before"`
	TokensAfter  int `json:"tokens_after"`
	Budget       int `json:"budget"`
	// OverBudget is true when the window was still over budget after this
	// level.
	OverBudget bool `json:"over_budget"`

	// Escalated is true on the first record of the levels a strategy ran
	// instead of its own ([Summarize]'s guard declined a summary), and
	// EscalationReason says why.
	Escalated        bool   `json:"escalated,omitempty"`
	EscalationReason string `json:"escalation_reason,omitempty"`

	// The fields below are set by [LevelSummary] only.

	// Summarizer names who wrote the note: the summarizer ("extractive",
	// "llm:<model>") or [TruncationSummarizer] when every summarizer
	// failed and seed 001's fallback kept the most recent 30 %.
	Summarizer string `json:"summarizer,omitempty"`
	// Fallback is true when the configured summarizer failed, timed out,
	// returned an empty summary or one larger than what it replaced or
	// than its limit (or was skipped by the circuit breaker), and the next
	// in the chain wrote the note: the extractive summarizer, else the
	// truncation (seed 001).
	Fallback bool `json:"fallback,omitempty"`
	// FallbackReason says why each summarizer tried before Summarizer
	// failed, separated by "; ".
	FallbackReason string `json:"fallback_reason,omitempty"`
	// FilesIncluded lists the files whose content went into the summary
	// request (seed 001's file analyzer, top 5).
	FilesIncluded []string `json:"files_included,omitempty"`
	// SummaryTokens is the summary's size in tokens.
	SummaryTokens int `json:"summary_tokens,omitempty"`
	// DurationMS is how long the summarizer took, in milliseconds.
	DurationMS float64 `json:"duration_ms,omitempty"`
	// Usage is what the summarizer's model call reported; nil for the
	// extractive summarizer.
	Usage *chat.Usage `json:"usage,omitempty"`
	// Retention is how many of the removed part's key facts are still
	// present in the window after this compaction ([MeasureRetention]).
	Retention *Retention `json:"retention,omitempty"`
	// Summary is the summary text that replaced the removed history.
	Summary string `json:"-"`
	// Span is the id of the span of history this summary replaced ("s1",
	// "s2"… per window: [NextSpanID]), named in the summary under
	// [SecSpans]; SpanMessages are its messages, for the Engine to keep
	// and read back (recall_output span_id). Empty for a fallback note.
	Span         string         `json:"span,omitempty"`
	SpanMessages []chat.Message `json:"-"`
	// Refill says what regrew since the previous compaction when this one
	// followed it within a few model calls (set by the Engine); nil
	// otherwise.
	Refill *Refill `json:"refill,omitempty"`
}

// TokensRemoved returns TokensBefore − TokensAfter.
func (r Record) TokensRemoved() int { return r.TokensBefore - r.TokensAfter }

// changed reports whether the level did anything.
func (r Record) changed() bool {
	return r.MessagesRemoved > 0 || r.ResultsCut > 0 || r.MessagesCut > 0 || r.TokensBefore != r.TokensAfter
}

func (r Record) log(l *slog.Logger) {
	if l == nil {
		return
	}
	l.Info("compaction", "strategy", r.Strategy, "level", r.Level.String(),
		"messages_removed", r.MessagesRemoved, "rounds_removed", r.RoundsRemoved,
		"results_cut", r.ResultsCut, "messages_cut", r.MessagesCut,
		"tokens_before", r.TokensBefore, "tokens_after", r.TokensAfter, "budget", r.Budget)
}

// Strategy compacts a window before a model call. Compact changes w in
// place so that it fits its budget where the pinned parts allow, and
// returns one [Record] per level it applied (none when nothing was needed).
// It returns an error only for a failure of its own (a summarizer that could
// not be reached, a cancelled ctx); the window is then unchanged or sound.
// Implementations are safe for concurrent use on different windows,
// except those that remember a window between calls ([Summarize]): one
// value of those serves one window.
type Strategy interface {
	Name() string
	Compact(ctx context.Context, w *window.Window) ([]Record, error)
}

// None is the strategy that never compacts: a baseline for replay.
type None struct{}

// Name returns "none".
func (None) Name() string { return "none" }

// Compact does nothing and returns no record.
func (None) Compact(context.Context, *window.Window) ([]Record, error) { return nil, nil }

// ParseStrategy returns the strategy named "tiered" (also ""), "mask",
// "summarize", "none" or any [Register]ed name, with default options
// (summarize with the extractive summarizer), or an error naming the known
// strategies ([ErrUnknownStrategy]).
func ParseStrategy(name string, logger *slog.Logger) (Strategy, error) {
	return Build(cmp.Or(name, "tiered"), nil, BuildOptions{Logger: logger})
}

// noteTail is the compaction note's last line; the names section goes
// before it ([withNames]).
const noteTail = "The messages after this note are kept verbatim."

// note renders the compaction note from what the window has dropped.
func note(d window.Dropped) string {
	var b strings.Builder
	b.WriteString("[agentctx compaction note] Earlier parts of this conversation were removed to fit the context window.\n")
	fmt.Fprintf(&b, "- removed: %d messages, %d rounds (%d tool calls, %d tool results)\n", d.Messages, d.Rounds, d.ToolCalls, d.ToolResults)
	if len(d.Tools) > 0 {
		b.WriteString("- tools used: ")
		for i, t := range sortedTools(d.Tools) {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s ×%d", t, d.Tools[t])
		}
		b.WriteByte('\n')
	}
	if len(d.Files) > 0 {
		b.WriteString("- files touched: ")
		b.WriteString(strings.Join(d.Files, ", "))
		b.WriteByte('\n')
	}
	if d.UserMessagesTotal > 0 {
		fmt.Fprintf(&b, "- %d earlier user messages", d.UserMessagesTotal)
		if len(d.UserMessages) > 0 {
			fmt.Fprintf(&b, "; the last %d (oldest first):\n", len(d.UserMessages))
			for _, u := range d.UserMessages {
				b.WriteString("  > ")
				b.WriteString(strings.ReplaceAll(u, "\n", "\n  > "))
				b.WriteByte('\n')
			}
		} else {
			b.WriteByte('\n')
		}
	}
	b.WriteString(noteTail)
	return b.String()
}

func sortedTools(m map[string]int) []string {
	out := slices.Collect(maps.Keys(m))
	// Most used first, then by name: deterministic.
	slices.SortFunc(out, func(a, b string) int {
		if c := cmp.Compare(m[b], m[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return out
}

// isJSON reports whether s looks like and parses as a JSON object or array.
func isJSON(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return false
	}
	return json.Valid([]byte(t))
}
