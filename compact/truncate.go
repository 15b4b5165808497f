package compact

import (
	"context"
	"log/slog"

	"github.com/agentctx/agentctx/window"
)

// Truncate is plain truncation, the floor every strategy must beat: the
// system prompt, the first user message (both pinned by the window) and
// the newest messages that fit the budget, nothing else. It runs only
// when the window is over budget, and then removes the oldest whole units
// (a round is never split, a call waiting for its result never removed)
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
// keeping at least its newest unit, then cuts content if it is still over
// budget. It returns one [LevelTruncate] record (and a [LevelCut] one when
// content was cut), none when w fits. It never returns an error.
func (t *Truncate) Compact(_ context.Context, w *window.Window) ([]Record, error) {
	if w.Budget() <= 0 || w.Fits() {
		return nil, nil
	}
	var recs []Record
	units := w.Units()
	open := openCallIDs(w)
	last := lastUnpinned(units)
	marked := make([]window.Unit, len(units))
	copy(marked, units)
	excess := w.Size() - w.Budget()
	some := false
	for i := range marked {
		u := marked[i]
		if u.Pinned {
			continue
		}
		if excess <= 0 || i >= last || holdsCall(w, u, open) {
			marked[i].Pinned = true
			continue
		}
		excess -= unitTokens(w, u)
		some = true
	}
	rec := Record{Strategy: t.Name(), Level: LevelTruncate, TokensBefore: w.Size(), Budget: w.Budget()}
	if some {
		rec.MessagesRemoved, rec.RoundsRemoved = removeUnits(w, marked)
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
