package compact

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/agentctx/agentctx/window"
)

// DefaultOpenHandsMaxSize is the number of events (here: messages) above
// which [OpenHands] condenses: LLMSummarizingCondenser's max_size = 100
// (openhands/memory/condenser/impl/llm_summarizing_condenser.py,
// All-Hands-AI/OpenHands commit 01b5b7b, read 2026-11-27). It is a count,
// not tokens, and is not scaled to the budget.
const DefaultOpenHandsMaxSize = 100

// OpenHands is OpenHands' LLM-summarizing condenser: when the history
// holds more than MaxSize events, the first events (keep_first: here the
// pinned messages, the system prompt and the first user message) and the
// most recent max_size/2 − keep_first − 1 events are kept, and every
// event between them, with the previous summary, becomes one summary
// event (the "recent half": the condenser halves the history each time
// it fires, so it fires again only after max_size/2 more events). A
// message is an event here; a unit is never split, so the recent part
// starts at the first whole unit that fits the count.
//
// OpenHands also condenses when the model reports that the context
// window is exceeded (a condensation request). The budget is the window:
// a window over budget condenses whatever its length, keeping the recent
// half of its unpinned messages, and halving again while that half alone
// would leave no room for the pinned messages and the summary (OpenHands
// would hit the limit and condense again). A window still over budget
// afterwards runs the tiered levels.
//
// The summary is written by Summarizer (the extractive one by default),
// within [DefaultSummaryRatio] of the budget. Safe for concurrent use on
// different windows.
type OpenHands struct {
	// Summarizer writes the summary. Optional. Defaults to the extractive
	// summarizer.
	Summarizer Summarizer
	// Files finds the important files of the summarized history for the
	// summarizer. Optional.
	Files FileAnalyzer
	// MaxSize is the number of messages above which the history is
	// condensed. Optional. Defaults to 100.
	MaxSize int
	// Logger receives the records. Optional. Defaults to no logging.
	Logger *slog.Logger
}

// Name returns "openhands".
func (c *OpenHands) Name() string { return "openhands" }

// ThresholdRatio returns 1: by tokens, OpenHands condenses when the
// window is exceeded.
func (c *OpenHands) ThresholdRatio() float64 { return 1 }

// Compact condenses w when it holds more than MaxSize messages or is
// over budget, and leaves it as it is otherwise (or when it has no
// budget). Its error is ctx's.
func (c *OpenHands) Compact(ctx context.Context, w *window.Window) ([]Record, error) {
	maxSize := c.MaxSize
	if maxSize <= 0 {
		maxSize = DefaultOpenHandsMaxSize
	}
	byCount := w.Len() > maxSize
	if w.Budget() <= 0 || (!byCount && w.Fits()) {
		return nil, nil
	}
	units := w.Units()
	pinned, pinnedTokens, free := 0, 0, 0
	for _, u := range units {
		if u.Pinned {
			pinned += u.End - u.Start
			pinnedTokens += unitTokens(w, u)
		} else {
			free += u.End - u.Start
		}
	}
	target := free / 2
	if byCount {
		target = min(target, max(maxSize/2-pinned-1, 0))
	}
	room := w.Budget() - pinnedTokens - int(DefaultSummaryRatio*float64(w.Budget()))
	var from int
	for {
		count, tokens := 0, 0
		from = len(units)
		for i := len(units) - 1; i >= 0; i-- {
			u := units[i]
			if u.Pinned {
				continue
			}
			if count+u.End-u.Start > target {
				break
			}
			count += u.End - u.Start
			tokens += unitTokens(w, u)
			from = i
		}
		if tokens <= room || target <= 1 {
			break
		}
		target /= 2
	}
	o := spanSummary{strategy: c.Name(), summarizer: c.Summarizer, files: c.Files, logger: c.Logger}
	return o.run(ctx, w, units, dropUnitsBefore(units, from))
}

// openHandsConfig is the recorded form of [OpenHands]' parameters.
type openHandsConfig struct {
	Summarizer string `json:"summarizer,omitempty"`
	MaxSize    int    `json:"max_size,omitempty"`
}

// Config records c's parameters and its summarizer's name.
func (c *OpenHands) Config() (json.RawMessage, error) {
	return json.Marshal(openHandsConfig{Summarizer: SummarizerName(c.Summarizer), MaxSize: c.MaxSize})
}

func buildOpenHands(config json.RawMessage, opts BuildOptions) (Strategy, error) {
	var c openHandsConfig
	if err := decodeConfig(config, &c); err != nil {
		return nil, err
	}
	return &OpenHands{Summarizer: opts.Summarizer, Files: opts.Files, Logger: opts.Logger, MaxSize: c.MaxSize}, nil
}
