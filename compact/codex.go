package compact

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/window"
)

// Defaults of [Codex], from openai/codex (read 2026-11-27), as shares of
// the budget (the budget is the window):
//
//   - auto-compaction starts at auto_compact_token_limit, 256,000 tokens
//     of the gpt-5 and codex- models' 272,000-token window
//     (DEFAULT_AUTO_COMPACT_TOKEN_LIMIT, codex-rs/core/src/
//     openai_model_info.rs): 0.94;
//   - the compacted history keeps the most recent user messages, newest
//     first, up to COMPACT_USER_MESSAGE_MAX_TOKENS = 20,000 tokens (the
//     one that crosses the cap is cut to what is left), then the summary
//     (build_compacted_history, codex-rs/core/src/compact.rs): 20,000 of
//     272,000 is 0.0735.
const (
	DefaultCodexThreshold = 0.94
	DefaultCodexUserShare = 0.0735
)

// Codex is Codex's compaction: when the window reaches Threshold of its
// budget, every assistant message, tool call and tool result becomes one
// summary, and only the most recent user messages are kept verbatim, up
// to UserShare of the budget in tokens (the newest first; the one that
// crosses the cap is cut to what is left, as Codex cuts it). Codex puts
// the summary after the user messages; here it is the window's note,
// after the first user message, and the kept messages stay where they
// were. The pinned messages (system prompt, first user message) stay.
//
// The summary is written by Summarizer (the extractive one by default),
// within [DefaultSummaryRatio] of the budget. A window still over budget
// afterwards runs the tiered levels. Safe for concurrent use on
// different windows.
type Codex struct {
	// Summarizer writes the summary. Optional. Defaults to the extractive
	// summarizer.
	Summarizer Summarizer
	// Files finds the important files of the summarized history for the
	// summarizer. Optional.
	Files FileAnalyzer
	// Threshold is the usage ratio that triggers the compaction.
	// Optional. Defaults to 0.94.
	Threshold float64
	// UserShare is the most tokens the kept user messages may hold, as a
	// share of the budget. Optional. Defaults to 0.0735.
	UserShare float64
	// Logger receives the records. Optional. Defaults to no logging.
	Logger *slog.Logger
}

// Name returns "codex".
func (c *Codex) Name() string { return "codex" }

// ThresholdRatio returns Threshold, 0.94 by default.
func (c *Codex) ThresholdRatio() float64 { return orDefault(c.Threshold, DefaultCodexThreshold) }

// Compact summarizes everything but the recent user messages of w when
// its usage ratio reaches the threshold or it is over budget. A window
// without a budget, or below the threshold, is left as it is. Its error
// is ctx's.
func (c *Codex) Compact(ctx context.Context, w *window.Window) ([]Record, error) {
	if w.Budget() <= 0 || (w.Ratio() < c.ThresholdRatio() && w.Fits()) {
		return nil, nil
	}
	before := w.Size()
	units := w.Units()
	drop := dropUnitsBefore(units, len(units))
	left := int(orDefault(c.UserShare, DefaultCodexUserShare) * float64(w.Budget()))
	for i := len(units) - 1; i >= 0 && left > 0; i-- {
		u := units[i]
		if !isUserTurn(w, u) {
			continue
		}
		t := unitTokens(w, u)
		if t > left {
			m := w.At(u.Start)
			if !onlyText(m) {
				break
			}
			// The cap holds the message with its overhead.
			room := left - (t - w.Counter().Count(m.Text()))
			if room <= 0 {
				break
			}
			cut := cutWithMark(w, m.Text(), room, "user message cut to the kept user messages' token cap")
			if err := w.Replace(u.Start, chat.Message{Role: m.Role, Parts: []chat.Part{chat.Text{Text: cut}}, Name: m.Name, ID: m.ID}); err != nil {
				break
			}
			t = w.TokensAt(u.Start)
			if t > left {
				break
			}
		}
		drop[i] = false
		left -= t
	}
	o := spanSummary{strategy: c.Name(), summarizer: c.Summarizer, files: c.Files, logger: c.Logger, before: before}
	return o.run(ctx, w, units, drop)
}

// onlyText reports whether every part of m is text.
func onlyText(m chat.Message) bool {
	for _, p := range m.Parts {
		if _, ok := p.(chat.Text); !ok {
			return false
		}
	}
	return len(m.Parts) > 0
}

// codexConfig is the recorded form of [Codex]'s parameters.
type codexConfig struct {
	Summarizer string  `json:"summarizer,omitempty"`
	Threshold  float64 `json:"threshold,omitempty"`
	UserShare  float64 `json:"user_share,omitempty"`
}

// Config records c's parameters and its summarizer's name.
func (c *Codex) Config() (json.RawMessage, error) {
	return json.Marshal(codexConfig{Summarizer: SummarizerName(c.Summarizer), Threshold: c.Threshold, UserShare: c.UserShare})
}

func buildCodex(config json.RawMessage, opts BuildOptions) (Strategy, error) {
	var c codexConfig
	if err := decodeConfig(config, &c); err != nil {
		return nil, err
	}
	return &Codex{Summarizer: opts.Summarizer, Files: opts.Files, Logger: opts.Logger, Threshold: c.Threshold, UserShare: c.UserShare}, nil
}
