package compact

import (
	"context"
	"log/slog"
	"slices"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/agentctx/agentctx/window"
)

// This file holds what the anchors' strategies share: the strategies
// written after other agents' documented compaction ([ClaudeCode],
// [Codex], [OpenCode], [OpenHands], [GeminiCLI]) and the floor every
// strategy must beat ([Truncate]). Each strategy decides which units of
// the window a summary replaces; spanSummary writes the summary with the
// summarizer the caller configured (the extractive one by default, so a
// model-free comparison is about structure), and the window keeps its
// invariants: a unit (a round, or one message) is removed whole, pinned
// messages stay, and a window left over budget runs the tiered levels ([Tiered]) so that
// no request goes out over budget when the pinned parts fit.

// restoredMark starts the files [ClaudeCode] restores in the note, after
// the summary. A later summary is given the note without them: they are
// restored again from the history, not summarized.
const restoredMark = "\n\n## Files restored after the summary"

// spanSummary is one summarizing compaction of an anchor strategy.
type spanSummary struct {
	// strategy names the strategy in records.
	strategy string
	// summarizer writes the summary; nil is the extractive summarizer.
	summarizer Summarizer
	// files finds the important files of the summarized history.
	files FileAnalyzer
	// logger receives the records; nil logs nothing.
	logger *slog.Logger
	// before, when positive, is the window's size before the strategy
	// changed it ahead of the summary (Codex's cut of a user message), for
	// the summary's record.
	before int
	// after, when set, returns text the note carries after the summary,
	// from the messages the summary replaces (Claude Code's restored
	// files).
	after func(w *window.Window, removed []chat.Message) string
}

// run replaces the units of units (w's [window.Window.Units]) whose drop
// entry is true with one summary, the window's compaction note (a
// previous summary is rolled into it). Pinned units are kept whatever
// drop says. The
// summarizer chain is [Summarize]'s: the configured summarizer, then the
// extractive one, then a note that says the summary failed and what was
// removed. When w is still over budget afterwards, the tiered levels run.
// It returns the summary's record (none when nothing could be removed)
// followed by the tiered levels'; its error is ctx's.
func (o spanSummary) run(ctx context.Context, w *window.Window, units []window.Unit, drop []bool) ([]Record, error) {
	marked := slices.Clone(units)
	var removed, kept []chat.Message
	removedTokens := 0
	for i, u := range marked {
		if u.Pinned {
			continue
		}
		if i >= len(drop) || !drop[i] {
			// Marked pinned: removeUnits keeps it and splits the removal
			// around it.
			marked[i].Pinned = true
			for j := u.Start; j < u.End; j++ {
				kept = append(kept, w.At(j))
			}
			continue
		}
		for j := u.Start; j < u.End; j++ {
			removed = append(removed, w.At(j))
			removedTokens += w.TokensAt(j)
		}
	}
	if len(removed) == 0 {
		return o.escalate(w, nil, nil), nil
	}
	prev, prevTokens := "", 0
	if n := w.Note(); n >= 0 {
		prev, prevTokens = w.At(n).Text(), w.TokensAt(n)
		if i := strings.Index(prev, restoredMark); i >= 0 {
			prev = prev[:i]
		}
	}
	budget := w.Budget()
	rec := Record{Strategy: o.strategy, Level: LevelSummary, TokensBefore: w.Size(), Budget: budget}
	if o.before > 0 {
		rec.TokensBefore = o.before
	}
	files := o.files.Analyze(removed)
	for _, f := range files {
		rec.FilesIncluded = append(rec.FilesIncluded, f.Path)
	}
	req := SummaryRequest{
		Messages: removed, Kept: kept, Previous: prev, Files: files,
		MaxTokens: max(int(DefaultSummaryRatio*float64(budget)), 1),
	}
	s := &Summarize{Summarizer: o.summarizer, Logger: o.logger}
	text := ""
	var reasons []string
	for _, sum := range s.chain(w, nil) {
		t, reason, err := s.attempt(ctx, w, sum, req, prevTokens+removedTokens, &rec)
		if err != nil {
			return nil, err
		}
		if reason == "" {
			text, rec.Summarizer = t, sum.Name()
			break
		}
		reasons = append(reasons, reason)
	}
	if len(reasons) > 0 {
		rec.Fallback, rec.FallbackReason = true, strings.Join(reasons, "; ")
	}
	extra := ""
	if o.after != nil {
		extra = o.after(w, removed)
	}
	rec.MessagesRemoved, rec.RoundsRemoved = removeUnits(w, marked)
	if text == "" {
		rec.Summarizer = TruncationSummarizer
		text = withEarlierSummary(fallbackMark+" ("+rec.FallbackReason+"), so the older messages were dropped instead.\n"+note(w.Dropped()), prev)
	}
	rec.Summary = text
	rec.SummaryTokens = w.Count(chat.NewText(chat.RoleUser, text))
	if extra != "" {
		text += extra
	}
	w.SetNote(text)
	rec.TokensAfter = w.Size()
	rec.OverBudget = !w.Fits()
	return o.escalate(w, &rec, removed), nil
}

// escalate runs the tiered levels when w is over budget (its records
// name the strategy), measures the summary's retention on the window as
// it is left, logs and returns the records.
func (o spanSummary) escalate(w *window.Window, rec *Record, removed []chat.Message) []Record {
	var recs []Record
	if rec != nil {
		recs = append(recs, *rec)
	}
	if !w.Fits() {
		t := &Tiered{Logger: o.logger}
		lvl := t.LevelFor(w.Ratio())
		if lvl == LevelNone {
			lvl = LevelL1
		}
		recs = append(recs, t.escalate(w, lvl, o.strategy)...)
	}
	if n := w.Note(); n >= 0 && !w.Fits() {
		// The note is pinned and too small for the cut: at a tiny budget
		// the summary itself can be what does not fit. It is cut to what
		// the budget leaves it.
		cut := Record{Strategy: o.strategy, Level: LevelCut, TokensBefore: w.Size(), Budget: w.Budget(), MessagesCut: 1}
		room := w.TokensAt(n) - (w.Size() - w.Budget()) - (w.TokensAt(n) - w.Counter().Count(w.At(n).Text()))
		w.SetNote(cutWithMark(w, w.At(n).Text(), max(room, 0), "summary cut to fit the token budget"))
		cut.TokensAfter = w.Size()
		cut.OverBudget = !w.Fits()
		cut.log(o.logger)
		if last := len(recs) - 1; last >= 0 && recs[last].Level == LevelCut {
			recs[last].MessagesCut++
			recs[last].TokensAfter, recs[last].OverBudget = cut.TokensAfter, cut.OverBudget
		} else {
			recs = append(recs, cut)
		}
	}
	if rec != nil {
		r := MeasureRetention(ExtractFacts(removed), w.Messages())
		recs[0].Retention = &r
		(&Summarize{Logger: o.logger}).log(recs[0])
	}
	return recs
}

// unitTokens returns the size in tokens of unit u of w.
func unitTokens(w *window.Window, u window.Unit) int {
	t := 0
	for j := u.Start; j < u.End; j++ {
		t += w.TokensAt(j)
	}
	return t
}

// isUserTurn reports whether unit u of w is a user's message: not a tool
// result, not pinned (the first user message, the note).
func isUserTurn(w *window.Window, u window.Unit) bool {
	return !u.Pinned && !u.Round && u.End-u.Start == 1 && w.At(u.Start).Role == chat.RoleUser
}

// dropUnitsBefore returns the drop marks of units: every unit before
// from (an index into units) is dropped.
func dropUnitsBefore(units []window.Unit, from int) []bool {
	drop := make([]bool, len(units))
	for i := range min(from, len(units)) {
		drop[i] = true
	}
	return drop
}

// cutWithMark returns text cut to at most n tokens as w counts them
// (extractive's cutToTokens), with a marker saying why; text that fits
// is returned unchanged.
func cutWithMark(w *window.Window, text string, n int, why string) string {
	c := w.Counter()
	if c.Count(text) <= n {
		return text
	}
	mark := "\n…[agentctx: " + why + "]"
	return cutToTokens(c, text, max(n-c.Count(mark), 0)) + mark
}

// recentReads returns the latest result of each file the read calls of
// msgs read, newest first: path and content (a result the limiter or
// masking cut is what the agent saw, and is taken as it is).
func recentReads(msgs []chat.Message) (paths, contents []string) {
	results := map[string]string{}
	for _, m := range msgs {
		if r, ok := m.ToolResult(); ok && !r.IsError {
			results[r.ToolCallID] = r.Content
		}
	}
	seen := map[string]bool{}
	for i := len(msgs) - 1; i >= 0; i-- {
		calls := msgs[i].ToolCalls()
		for k := len(calls) - 1; k >= 0; k-- {
			c := calls[k]
			u := tooluse.Classify(c)
			if u.Kind != tooluse.KindRead || len(u.Reads) == 0 {
				continue
			}
			content, ok := results[c.ID]
			p := u.Reads[0]
			if !ok || seen[p] || strings.TrimSpace(content) == "" {
				continue
			}
			seen[p] = true
			paths = append(paths, p)
			contents = append(contents, content)
		}
	}
	return paths, contents
}
