package compact

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/window"
)

// Defaults of [OpenCode], from sst/opencode (packages/opencode/src/session/
// compaction.ts and overflow.ts, commit 31e22f6, read 2026-11-27), as
// shares of the budget (the budget is the window; opencode's numbers are
// tokens, here taken against a 200,000-token window with 32,000 tokens of
// output, Claude Sonnet's):
//
//   - prune keeps the tool outputs of the last two user turns and then
//     the newest PRUNE_PROTECT = 40,000 tokens of tool output (0.20);
//     older outputs are erased only when that frees more than
//     PRUNE_MINIMUM = 20,000 tokens (0.10);
//   - the session overflows at usable = window − max output −
//     min(COMPACTION_BUFFER = 20,000, max output): 148,000 of 200,000,
//     0.74;
//   - the summary keeps the most recent turns within
//     preserve_recent_tokens = min(15,000, max(2,000, usable/4)) tokens
//     (MAX_PRESERVE_RECENT_TOKENS, MIN_PRESERVE_RECENT_TOKENS): 15,000 of
//     200,000, 0.075 (at least 0.01).
const (
	DefaultOpenCodeProtectShare  = 0.20
	DefaultOpenCodeMinimumShare  = 0.10
	DefaultOpenCodeThreshold     = 0.74
	DefaultOpenCodePreserveShare = 0.075
	openCodeMinPreserveShare     = 0.01
)

// openCodeCleared is opencode's placeholder for an erased tool output
// (message-v2.ts toModelMessages: "[Old tool result content cleared]").
const openCodeCleared = "[Old tool result content cleared]"

// OpenCode is opencode's prune, then compact. Before every model call,
// prune walks the tool results from the newest back, skipping those of
// the last two user turns, and once ProtectShare of the budget in tokens
// of tool output has been seen, erases every older one (the placeholder
// opencode sends for it), provided that frees more than MinimumShare of
// the budget; it stops at an output already erased. When the window then
// still reaches Threshold of its budget (opencode's overflow), the
// history before the most recent units that fit PreserveShare of the
// budget becomes one summary (opencode keeps whole turns, else the part
// of the newest turn that fits, else nothing). opencode skips the
// "skill" tool's outputs in prune; so does this one.
//
// In a run with a single user message every tool output is in the last
// two turns and prune never fires, as in opencode. The summary is written
// by Summarizer (the extractive one by default), within
// [DefaultSummaryRatio] of the budget; a window still over budget runs
// the tiered levels. Safe for concurrent use on different windows.
type OpenCode struct {
	// Summarizer writes the summary. Optional. Defaults to the extractive
	// summarizer.
	Summarizer Summarizer
	// Files finds the important files of the summarized history for the
	// summarizer. Optional.
	Files FileAnalyzer
	// ProtectShare is the newest tool output kept by prune, in tokens, as
	// a share of the budget. Optional. Defaults to 0.20.
	ProtectShare float64
	// MinimumShare is the least prune must free to erase anything, as a
	// share of the budget. Optional. Defaults to 0.10.
	MinimumShare float64
	// Threshold is the usage ratio that triggers the summary. Optional.
	// Defaults to 0.74.
	Threshold float64
	// PreserveShare is the most tokens the recent history kept verbatim
	// after a summary may hold, as a share of the budget. Optional.
	// Defaults to 0.075.
	PreserveShare float64
	// Logger receives the records. Optional. Defaults to no logging.
	Logger *slog.Logger
}

// Name returns "opencode".
func (c *OpenCode) Name() string { return "opencode" }

// ThresholdRatio returns Threshold, 0.74 by default.
func (c *OpenCode) ThresholdRatio() float64 {
	return orDefault(c.Threshold, DefaultOpenCodeThreshold)
}

// Compact prunes old tool outputs of w and, when its usage ratio still
// reaches the threshold or it is over budget, summarizes all but its most
// recent units. A window without a budget is left as it is. It returns a
// [LevelMask] record for the prune, then the summary's; its error is
// ctx's.
func (c *OpenCode) Compact(ctx context.Context, w *window.Window) ([]Record, error) {
	if w.Budget() <= 0 {
		return nil, nil
	}
	var recs []Record
	if rec := c.prune(w); rec.changed() {
		rec.log(c.Logger)
		recs = append(recs, rec)
	}
	if w.Ratio() < c.ThresholdRatio() && w.Fits() {
		return recs, nil
	}
	units := w.Units()
	preserve := int(max(orDefault(c.PreserveShare, DefaultOpenCodePreserveShare), openCodeMinPreserveShare) * float64(w.Budget()))
	from, sum := len(units), 0
	for i := len(units) - 1; i >= 0; i-- {
		if units[i].Pinned {
			continue
		}
		t := unitTokens(w, units[i])
		if sum+t > preserve {
			break
		}
		sum += t
		from = i
	}
	o := spanSummary{strategy: c.Name(), summarizer: c.Summarizer, files: c.Files, logger: c.Logger}
	more, err := o.run(ctx, w, units, dropUnitsBefore(units, from))
	return append(recs, more...), err
}

// prune erases old tool outputs (see [OpenCode]) and returns its record.
func (c *OpenCode) prune(w *window.Window) Record {
	rec := Record{Strategy: c.Name(), Level: LevelMask, TokensBefore: w.Size(), Budget: w.Budget()}
	protect := int(orDefault(c.ProtectShare, DefaultOpenCodeProtectShare) * float64(w.Budget()))
	minimum := int(orDefault(c.MinimumShare, DefaultOpenCodeMinimumShare) * float64(w.Budget()))
	names := map[string]string{}
	for i := 0; i < w.Len(); i++ {
		for _, call := range w.At(i).ToolCalls() {
			names[call.ID] = call.Name
		}
	}
	total, pruned, turns := 0, 0, 0
	var erase []int
scan:
	for i := w.Len() - 1; i >= 0; i-- {
		m := w.At(i)
		if m.Role == chat.RoleUser && !w.IsNote(i) {
			turns++
		}
		if turns < 2 {
			continue
		}
		if w.IsNote(i) {
			break // opencode stops at the previous summary
		}
		r, ok := m.ToolResult()
		if !ok || r.IsError || strings.EqualFold(cmpOr(r.ToolName, names[r.ToolCallID]), "skill") {
			continue
		}
		if strings.HasPrefix(r.Content, openCodeCleared) {
			break scan
		}
		t := w.TokensAt(i)
		total += t
		if total <= protect {
			continue
		}
		pruned += t
		erase = append(erase, i)
	}
	if pruned <= minimum {
		rec.TokensAfter = w.Size()
		return rec
	}
	for _, i := range erase {
		m := w.At(i)
		r, _ := m.ToolResult()
		r.Content = openCodeCleared
		if w.Replace(i, chat.Message{Role: m.Role, Parts: []chat.Part{r}, Name: m.Name, ID: m.ID}) == nil {
			rec.ResultsCut++
		}
	}
	rec.TokensAfter = w.Size()
	rec.OverBudget = !w.Fits()
	return rec
}

// cmpOr returns a, or b when a is empty.
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// openCodeConfig is the recorded form of [OpenCode]'s parameters.
type openCodeConfig struct {
	Summarizer    string  `json:"summarizer,omitempty"`
	ProtectShare  float64 `json:"protect_share,omitempty"`
	MinimumShare  float64 `json:"minimum_share,omitempty"`
	Threshold     float64 `json:"threshold,omitempty"`
	PreserveShare float64 `json:"preserve_share,omitempty"`
}

// Config records c's parameters and its summarizer's name.
func (c *OpenCode) Config() (json.RawMessage, error) {
	return json.Marshal(openCodeConfig{
		Summarizer: SummarizerName(c.Summarizer), ProtectShare: c.ProtectShare, MinimumShare: c.MinimumShare,
		Threshold: c.Threshold, PreserveShare: c.PreserveShare,
	})
}

func buildOpenCode(config json.RawMessage, opts BuildOptions) (Strategy, error) {
	var c openCodeConfig
	if err := decodeConfig(config, &c); err != nil {
		return nil, err
	}
	return &OpenCode{
		Summarizer: opts.Summarizer, Files: opts.Files, Logger: opts.Logger,
		ProtectShare: c.ProtectShare, MinimumShare: c.MinimumShare, Threshold: c.Threshold, PreserveShare: c.PreserveShare,
	}, nil
}
