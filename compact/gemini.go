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

// Defaults of [GeminiCLI], from google-gemini/gemini-cli
// packages/core/src/services/chatCompressionService.ts (commit 02b2885,
// read 2026-11-27), as shares of the budget (the budget is the window):
//
//   - DEFAULT_COMPRESSION_TOKEN_THRESHOLD = 0.5: the history is
//     compressed once the last prompt reaches half the model's token
//     limit;
//   - COMPRESSION_PRESERVE_THRESHOLD = 0.3: the latest 30 % of the
//     history (by size) is kept, from a user turn on;
//   - COMPRESSION_FUNCTION_RESPONSE_TOKEN_BUDGET = 50,000 tokens: before
//     splitting, tool outputs are counted from the newest back, and those
//     past the budget are cut to their last 30 lines; 50,000 of Gemini
//     2.5 Pro's 1,048,576-token window is 0.048.
const (
	DefaultGeminiThreshold     = 0.5
	DefaultGeminiPreserve      = 0.3
	DefaultGeminiToolShare     = 0.048
	geminiTruncatedOutputLines = 30
)

// GeminiCLI is Gemini CLI's chat compression: when the window reaches
// Threshold of its budget, the tool outputs past ToolShare of the budget
// (counted from the newest back) are cut to their last 30 lines, and the
// history before the split point becomes one summary. The split point is
// the first user turn at which at least 1 − Preserve of the history's
// tokens lie before it (Gemini counts the characters of the JSON); with
// none, the whole history when it ends with an assistant text, else the
// last user turn before that point (Gemini splits only at a user turn,
// never between a function call and its response). Agents run a task
// from one user message, which the window pins, so Gemini would find no
// split point and compress nothing: then the split falls at the first
// unit boundary past 1 − Preserve of the history, which, a round being a
// unit, never separates a call from its result either.
//
// The summary is written by Summarizer (the extractive one by default),
// within [DefaultSummaryRatio] of the budget; Gemini's second,
// verifying summary call is not made. A window still over budget
// afterwards runs the tiered levels. Safe for concurrent use on
// different windows.
type GeminiCLI struct {
	// Summarizer writes the summary. Optional. Defaults to the extractive
	// summarizer.
	Summarizer Summarizer
	// Files finds the important files of the summarized history for the
	// summarizer. Optional.
	Files FileAnalyzer
	// Threshold is the usage ratio that triggers the compression.
	// Optional. Defaults to 0.5.
	Threshold float64
	// Preserve is the share of the history, in tokens, kept verbatim.
	// Optional. Defaults to 0.3.
	Preserve float64
	// ToolShare is the most tokens of tool output kept whole, from the
	// newest back, as a share of the budget. Optional. Defaults to 0.048.
	ToolShare float64
	// Logger receives the records. Optional. Defaults to no logging.
	Logger *slog.Logger
}

// Name returns "gemini-cli".
func (c *GeminiCLI) Name() string { return "gemini-cli" }

// ThresholdRatio returns Threshold, 0.5 by default.
func (c *GeminiCLI) ThresholdRatio() float64 { return orDefault(c.Threshold, DefaultGeminiThreshold) }

// Compact compresses w when its usage ratio reaches the threshold or it
// is over budget; see [GeminiCLI]. A window without a budget, or below
// the threshold, is left as it is. It returns a [LevelL1] record for the
// tool outputs cut, then the summary's; its error is ctx's.
func (c *GeminiCLI) Compact(ctx context.Context, w *window.Window) ([]Record, error) {
	if w.Budget() <= 0 || (w.Ratio() < c.ThresholdRatio() && w.Fits()) {
		return nil, nil
	}
	var recs []Record
	if rec := c.cutOutputs(w); rec.changed() {
		rec.log(c.Logger)
		recs = append(recs, rec)
	}
	units := w.Units()
	o := spanSummary{strategy: c.Name(), summarizer: c.Summarizer, files: c.Files, logger: c.Logger}
	more, err := o.run(ctx, w, units, dropUnitsBefore(units, c.split(w, units)))
	return append(recs, more...), err
}

// split returns the index in units of the first unit kept (see
// [GeminiCLI]).
func (c *GeminiCLI) split(w *window.Window, units []window.Unit) int {
	total := 0
	for _, u := range units {
		if !u.Pinned {
			total += unitTokens(w, u)
		}
	}
	target := (1 - orDefault(c.Preserve, DefaultGeminiPreserve)) * float64(total)
	cum, lastUser, boundary := 0, -1, -1
	for i, u := range units {
		if u.Pinned {
			continue
		}
		if float64(cum) >= target {
			if isUserTurn(w, u) {
				return i
			}
			if boundary < 0 {
				boundary = i
			}
		} else if isUserTurn(w, u) {
			lastUser = i
		}
		cum += unitTokens(w, u)
	}
	if n := len(units); n > 0 {
		last := units[n-1]
		if m := w.At(last.Start); !last.Pinned && !last.Round && m.Role == chat.RoleAssistant {
			return n
		}
	}
	if lastUser >= 0 {
		return lastUser
	}
	if boundary >= 0 {
		return boundary
	}
	return lastUnpinned(units)
}

// cutOutputs cuts the tool outputs past ToolShare of the budget, counted
// from the newest back, to their last 30 lines, and returns its record.
func (c *GeminiCLI) cutOutputs(w *window.Window) Record {
	rec := Record{Strategy: c.Name(), Level: LevelL1, TokensBefore: w.Size(), Budget: w.Budget()}
	limit := int(orDefault(c.ToolShare, DefaultGeminiToolShare) * float64(w.Budget()))
	seen := 0
	for i := w.Len() - 1; i >= 0; i-- {
		m := w.At(i)
		r, ok := m.ToolResult()
		if !ok {
			continue
		}
		t := w.TokensAt(i)
		if seen+t <= limit {
			seen += t
			continue
		}
		cut, ok := lastLines(r.Content, geminiTruncatedOutputLines)
		if !ok {
			seen += t
			continue
		}
		r.Content = cut
		if w.Replace(i, chat.Message{Role: m.Role, Parts: []chat.Part{r}, Name: m.Name, ID: m.ID}) == nil {
			rec.ResultsCut++
		}
		seen += w.TokensAt(i)
	}
	rec.TokensAfter = w.Size()
	rec.OverBudget = !w.Fits()
	return rec
}

// geminiCutMark starts a tool output [GeminiCLI] cut to its last lines.
const geminiCutMark = "…[agentctx: older tool output cut to its last"

// lastLines returns the last n lines of s under a marker, and whether
// that is shorter than s (an output cut before is left as it is).
func lastLines(s string, n int) (string, bool) {
	if strings.HasPrefix(s, geminiCutMark) {
		return s, false
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return s, false
	}
	out := fmt.Sprintf("%s %d of %d lines]\n%s", geminiCutMark, n, len(lines), strings.Join(lines[len(lines)-n:], "\n"))
	return out, len(out) < len(s)
}

// geminiConfig is the recorded form of [GeminiCLI]'s parameters.
type geminiConfig struct {
	Summarizer string  `json:"summarizer,omitempty"`
	Threshold  float64 `json:"threshold,omitempty"`
	Preserve   float64 `json:"preserve,omitempty"`
	ToolShare  float64 `json:"tool_share,omitempty"`
}

// Config records c's parameters and its summarizer's name.
func (c *GeminiCLI) Config() (json.RawMessage, error) {
	return json.Marshal(geminiConfig{Summarizer: SummarizerName(c.Summarizer), Threshold: c.Threshold, Preserve: c.Preserve, ToolShare: c.ToolShare})
}

func buildGeminiCLI(config json.RawMessage, opts BuildOptions) (Strategy, error) {
	var c geminiConfig
	if err := decodeConfig(config, &c); err != nil {
		return nil, err
	}
	return &GeminiCLI{
		Summarizer: opts.Summarizer, Files: opts.Files, Logger: opts.Logger,
		Threshold: c.Threshold, Preserve: c.Preserve, ToolShare: c.ToolShare,
	}, nil
}
