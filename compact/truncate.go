package compact

import (
	"context"
	"log/slog"
	"slices"

	"github.com/agentctx/agentctx/window"
)

// Truncate is plain truncation, the floor every strategy must beat: the
// system prompt, the first user message (both pinned by the window) and
// the newest messages that fit the budget, nothing else. It runs only
// when the window is over budget, and then removes the oldest whole units
// (a round is never split)
// until the window fits; no note says what was removed, no summary is
// written. When even the newest unit alone does not fit, its content is
// cut ([LevelCut]) so that no request goes out over budget when the
// pinned parts fit. This is the "keep the newest messages that fit"
// baseline of issue 27's first measurement, and the sliding window every
// agent falls back to (Codex trims the oldest history item when even its
// compaction request overflows: codex-rs/core/src/compact.rs,
// openai/codex, read 2026-11-27).
//
// The budget is the window: Truncate fills it to the last token, so it
// removes a few messages at nearly every call once the window is full
// (each removal ends the prefix a provider's prompt cache can serve).
// Safe for concurrent use on different windows.
type Truncate struct {
	// Logger receives one record per compaction. Optional. Defaults to no
	// logging.
	Logger *slog.Logger
}

// Name returns "truncate".
func (t *Truncate) Name() string { return "truncate" }

// ThresholdRatio returns 1: Truncate acts only over budget.
func (t *Truncate) ThresholdRatio() float64 { return 1 }

// Compact removes the oldest unpinned units of w while it is over budget,
// keeping at least its last assistant turn (a round or a reply) and what
// follows it, then cuts content if it is still over budget. It returns one [LevelTruncate] record (and a [LevelCut] one when
// content was cut), none when w fits. It never returns an error.
func (t *Truncate) Compact(_ context.Context, w *window.Window) ([]Record, error) {
	if w.Budget() <= 0 || w.Fits() {
		return nil, nil
	}
	var recs []Record
	rec := Record{Strategy: t.Name(), Level: LevelTruncate, TokensBefore: w.Size(), Budget: w.Budget()}
	// One unit at a time: a usage-anchored size does not fall by the
	// counted size of what is removed.
	for !w.Fits() {
		units := w.Units()
		stop := lastTurn(w) // the last assistant turn, and what follows, stays
		i := slices.IndexFunc(units, func(u window.Unit) bool {
			return u.End <= stop && !u.Pinned
		})
		if i < 0 {
			break
		}
		m, r := removeUnits(w, units[i:i+1])
		if m == 0 {
			break
		}
		rec.MessagesRemoved += m
		rec.RoundsRemoved += r
	}
	if rec.MessagesRemoved > 0 {
		rec.TokensAfter = w.Size()
		rec.OverBudget = !w.Fits()
		rec.log(t.Logger)
		recs = append(recs, rec)
	}
	if !w.Fits() {
		cut := Record{Strategy: t.Name(), Level: LevelCut, TokensBefore: w.Size(), Budget: w.Budget()}
		cut.MessagesCut = cutToFit(w)
		cut.TokensAfter = w.Size()
		cut.OverBudget = !w.Fits()
		if cut.changed() {
			cut.log(t.Logger)
			recs = append(recs, cut)
		}
	}
	return recs, nil
}
