package compact

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/runes"
	"github.com/agentctx/agentctx/window"
)

// Defaults of [Tiered], from seed 003 but for L2's ratio and rounds: L2
// starts at 0.70 where the seed has 0.80 and keeps 3 rounds where it
// keeps 2. agentctx eval on ../shared/data, over eight budgets from
// 6,000 to 32,000 tokens (next-action support / edit support / mean
// request tokens): 0.80 → 0.75 gave 95.18 / 93.13 / 7,127 → 95.17 /
// 92.50 / 6,969; 0.75 → 0.70, once the names section kept its room from
// one compaction to the next, 95.39 / 92.71 / 6,918 → 95.60 / 92.08 /
// 6,750 (2.4 % fewer tokens, 98.3 % support at 32,000 tokens where it
// was 96.6; one edit's text lost at 6,000 and at 20,000).
const (
	DefaultL1Ratio      = 0.60 // L1 starts at 60 % of the budget
	DefaultL2Ratio      = 0.70 // L2 starts at 70 % (seed 003: 80 %)
	DefaultL3Ratio      = 0.95 // L3 starts at 95 %
	DefaultL1MinRunes   = 2000 // L1 cuts tool results longer than this, in runes
	DefaultL1KeepRunes  = 500  // … to this many runes
	DefaultL2KeepRounds = 3    // L2 keeps the last 3 rounds (seed 003 keeps 2; see Tiered.L2KeepRounds)
)

// cutMark starts every marker agentctx writes into cut content, so that a
// cut is recognised and never cut twice by the same level.
const cutMark = "…[agentctx:"

// Tiered is seed 003's three-level compaction, with escalation and a last
// resort that cuts oversized messages. Every field's zero value means its
// default; each ratio is of the window's budget and may be set lower or
// higher. Safe for concurrent use on different windows.
type Tiered struct {
	// L1, L2, L3 are the usage ratios at which each level starts.
	// Optional. Default to 0.60, 0.70 and 0.95.
	L1, L2, L3 float64
	// L1MinRunes is the length in runes above which L1 cuts an old tool
	// result. Optional. Defaults to 2,000.
	L1MinRunes int
	// L1KeepRunes is the length in runes L1 cuts to. Optional. Defaults to
	// 500.
	L1KeepRunes int
	// L2KeepRounds is the number of most recent rounds L2 keeps, and
	// whose results L1 leaves whole; L2 keeps with them, and L1 leaves
	// whole, the newest earlier read of each file they edit
	// ([MaxWorkingReadsRatio]). Optional.
	// Defaults to 3, where seed 003 keeps 2: on the shared trajectories
	// the third round raised edit support by 2.3 points on average over
	// eight budgets from 6,000 to 32,000 tokens, next-action support by
	// 0.1, at the same tokens sent (agentctx eval).
	L2KeepRounds int
	// NamesRatio is the share of the budget the compaction note's names
	// section may take, in tokens: the paths and identifiers the tool
	// outputs L2 and L3 remove held, grouped by the file or command each
	// came from, newest first, carried from one compaction to the next;
	// when they do not all fit, the paths of every group go in before the
	// identifiers (the files a listing showed are what an agent opens
	// next: +0.9 points of next-action support on average over eight
	// budgets, agentctx eval).
	// Optional. Defaults to [DefaultNamesRatio] (0.15), never more than
	// [MaxNamesTokens]; a negative value leaves the section out. On the
	// shared trajectories it raised next-action support by 3.5 points and
	// edit support by 4.8 on average over eight budgets from 6,000 to
	// 32,000 tokens, for 1 % more tokens sent (agentctx eval).
	NamesRatio float64
	// Logger receives one record per level applied. Optional. Defaults to
	// no logging.
	Logger *slog.Logger
}

// Name returns "tiered".
func (t *Tiered) Name() string { return "tiered" }

func (t *Tiered) ratios() (l1, l2, l3 float64) {
	l1, l2, l3 = t.L1, t.L2, t.L3
	if l1 <= 0 {
		l1 = DefaultL1Ratio
	}
	if l2 <= 0 {
		l2 = DefaultL2Ratio
	}
	if l3 <= 0 {
		l3 = DefaultL3Ratio
	}
	return
}

// LevelFor returns the level seed 003 assigns to a usage ratio.
func (t *Tiered) LevelFor(ratio float64) Level {
	l1, l2, l3 := t.ratios()
	switch {
	case ratio >= l3:
		return LevelL3
	case ratio >= l2:
		return LevelL2
	case ratio >= l1:
		return LevelL1
	}
	return LevelNone
}

// Compact applies the level that w's usage ratio calls for; while w is still
// over budget, or still at the next level's ratio, it escalates to the next
// level, and after L3 it cuts the largest messages' content ([LevelCut]).
// Compacting again a window it just compacted does nothing: a retried model
// call sees the same window. A window below the L1 ratio, or
// without a budget, is left as it is. It never returns an error.
func (t *Tiered) Compact(_ context.Context, w *window.Window) ([]Record, error) {
	if w.Budget() <= 0 {
		return nil, nil
	}
	lvl := t.LevelFor(w.Ratio())
	if lvl == LevelNone {
		if w.Fits() {
			return nil, nil
		}
		// Ratios configured above 1 leave a band that is over budget but
		// below L1; the budget still wins.
		lvl = LevelL1
	}
	return t.escalate(w, lvl, t.Name()), nil
}

// escalate runs level from and, while w is over budget or at the next
// level's ratio, every later level and then the cut.
func (t *Tiered) escalate(w *window.Window, from Level, strategy string) []Record {
	var recs []Record
	for lvl := from; ; lvl++ {
		rec := Record{Strategy: strategy, Level: lvl, TokensBefore: w.Size(), Budget: w.Budget()}
		switch lvl {
		case LevelL1:
			rec.ResultsCut = t.cutOldResults(w)
		case LevelL2:
			keep := keepFrom(w, t.keepRounds())
			rec.MessagesRemoved, rec.RoundsRemoved = t.drop(w, keep, workingReads(w, w.Units(), keep))
		case LevelL3:
			rec.MessagesRemoved, rec.RoundsRemoved = t.drop(w, keepFrom(w, 1), nil)
			if !w.Fits() {
				// Text turns after the last round: keep only the last turn.
				m, r := t.drop(w, lastTurn(w), nil)
				rec.MessagesRemoved += m
				rec.RoundsRemoved += r
			}
		case LevelCut:
			rec.MessagesCut = cutToFit(w)
		}
		rec.TokensAfter = w.Size()
		rec.OverBudget = !w.Fits()
		if rec.changed() {
			rec.log(t.Logger)
			recs = append(recs, rec)
		}
		if lvl >= LevelCut || (w.Fits() && (lvl >= LevelL3 || t.LevelFor(w.Ratio()) <= lvl)) {
			t.finishL1(w, from, recs)
			return recs
		}
	}
}

// finishL1 runs L1 after the levels from from, when they started above
// it and left w at its ratio: compacting again (a retried request) then
// finds nothing to do, and a round kept whole by L2 does not keep its
// old results longer than L1 allows. Its cuts are counted in the last
// record's ResultsCut.
func (t *Tiered) finishL1(w *window.Window, from Level, recs []Record) {
	if from <= LevelL1 || from > LevelL3 || len(recs) == 0 || t.LevelFor(w.Ratio()) < LevelL1 {
		return
	}
	if n := t.cutOldResults(w); n > 0 {
		last := &recs[len(recs)-1]
		last.ResultsCut += n
		last.TokensAfter = w.Size()
		last.OverBudget = !w.Fits()
	}
}

// cutOldResults is L1: tool results longer than L1MinRunes are cut to
// L1KeepRunes, but for those of the rounds L2 keeps (L2KeepRounds, where
// seed 003 cuts every result before the last round) and of the reads L2
// keeps with them ([workingReads]): L1 should not take from a round what
// the next level would keep whole. On the shared trajectories, a file's
// 25,000-character Read was cut two rounds after it arrived, before the
// five edits that quoted it (agentctx eval). It returns how many it cut.
func (t *Tiered) cutOldResults(w *window.Window) int {
	minRunes, keep := t.L1MinRunes, t.L1KeepRunes
	if minRunes <= 0 {
		minRunes = DefaultL1MinRunes
	}
	if keep <= 0 {
		keep = DefaultL1KeepRunes
	}
	units := w.Units()
	last := -1
	for i := len(units) - 1; i >= 0; i-- {
		if units[i].Round {
			last = units[i].Start
			break
		}
	}
	if last < 0 {
		return 0
	}
	// The rounds L2 would keep, and the reads it would keep with them,
	// keep their results whole: L1 cuts what is older.
	last = min(last, keepFrom(w, t.keepRounds()))
	spare := workingReads(w, units, last)
	n := 0
	for i := 0; i < last; i++ {
		if spare.holds(i) {
			continue
		}
		m := w.At(i)
		r, ok := m.ToolResult()
		if !ok || len(r.Content) <= minRunes || strings.Contains(r.Content, cutMark) ||
			runes.Count(r.Content) <= minRunes {
			continue
		}
		c, cut := cutContent(r.Content, keep, "older tool result cut")
		if !cut {
			continue
		}
		r.Content = c
		if err := w.Replace(i, chat.Message{Role: m.Role, Parts: []chat.Part{r}, Name: m.Name, ID: m.ID}); err == nil {
			n++
		}
	}
	return n
}

// cutContent cuts a tool result's content to about keep runes: JSON stays
// valid JSON, other text keeps its head and its last fifth, with a marker.
// It reports false when the content is already short enough.
func cutContent(s string, keep int, why string) (string, bool) {
	if len(s) <= keep {
		return s, false
	}
	if isJSON(s) {
		note := fmt.Sprintf("agentctx: %s; was %d chars", why, runes.Count(s))
		if b, ok := shrinkJSON([]byte(strings.TrimSpace(s)), keep+keep/5+len(note)+20, note); ok && len(b) < len(s) {
			return string(b), true
		}
	}
	c := CutText(s, keep, keep/5, why)
	return c, len(c) < len(s)
}

// keepFrom returns the index where the kept suffix starts when the last n
// rounds are kept (L2 keeps the last 3 rounds, seed 003 2; L3 the last one),
// with everything after them. With fewer than n rounds it keeps from the
// first round; with none, from the last assistant turn (a text reply), and
// with no assistant message at all, the last unit.
func keepFrom(w *window.Window, n int) int {
	units := w.Units()
	if len(units) == 0 {
		return 0
	}
	var rounds []int
	turn := -1
	for _, u := range units {
		if u.Round {
			rounds = append(rounds, u.Start)
		}
		if w.At(u.Start).Role == chat.RoleAssistant {
			turn = u.Start
		}
	}
	switch {
	case len(rounds) >= n:
		return rounds[len(rounds)-n]
	case len(rounds) > 0:
		return rounds[0]
	case turn >= 0:
		return turn
	}
	return units[len(units)-1].Start
}

// lastTurn returns the start of the last assistant turn (a round or a text
// reply), or of the last unit when there is no assistant message.
func lastTurn(w *window.Window) int {
	units := w.Units()
	if len(units) == 0 {
		return 0
	}
	for i := len(units) - 1; i >= 0; i-- {
		if w.At(units[i].Start).Role == chat.RoleAssistant {
			return units[i].Start
		}
	}
	return units[len(units)-1].Start
}

// keepRounds is the number of rounds L2 keeps.
func (t *Tiered) keepRounds() int {
	if t.L2KeepRounds > 0 {
		return t.L2KeepRounds
	}
	return DefaultL2KeepRounds
}

// MaxWorkingReadsRatio is the most of the budget, in tokens, that the
// earlier reads L2 keeps with its rounds (the newest read of each file
// the kept rounds edit, see [Tiered.L2KeepRounds]) may take together; a
// read that would take more goes. At 0.25 a 25,000-character Read of
// numbered lines (about 8,500 tokens) was dropped at a 32,000-token
// budget, at 0.40 it is kept (agentctx eval).
const MaxWorkingReadsRatio = 0.4

// spared is a set of the window's units kept whole by a compaction level
// although they come before the rounds it keeps, by their first index.
type spared map[int]int // unit start -> unit end

// holds reports whether message i is in a spared unit.
func (s spared) holds(i int) bool {
	for start, end := range s {
		if i >= start && i < end {
			return true
		}
	}
	return false
}

// workingReads returns the rounds before keep to keep whole with the
// rounds from keep on: for each file the kept rounds edit or write, the
// newest earlier round that read it (newest first, while they take at
// most [MaxWorkingReadsRatio] of the budget together). An agent edits a
// file by quoting the text it read (Claude Code's Edit old_string,
// Codex's apply_patch context, str_replace_editor's old_str): dropping
// the read while the edits go on leaves the next edit's text nowhere in
// the window. On the shared trajectories, a 25,000-character Read
// followed by five rounds of edits to it was dropped after three
// (agentctx eval). Claude Code, after its compaction, attaches the files
// it read most recently again for the same reason (its compact service's
// post-compact file attachments); the window here keeps the read the
// agent saw instead of reading the disk.
func workingReads(w *window.Window, units []window.Unit, keep int) spared {
	edited := map[string]bool{}
	for _, u := range units {
		if u.End <= keep || !u.Round {
			continue
		}
		for _, c := range w.At(u.Start).ToolCalls() {
			for _, wr := range w.Classify(c).Writes {
				edited[wr.Path] = true
			}
		}
	}
	if len(edited) == 0 {
		return nil
	}
	var out spared
	room := int(MaxWorkingReadsRatio * float64(w.Budget()))
	for k := len(units) - 1; k >= 0 && len(edited) > 0; k-- {
		u := units[k]
		if u.End > keep || !u.Round || u.Pinned {
			continue
		}
		hit := false
		for _, c := range w.At(u.Start).ToolCalls() {
			for _, p := range w.Classify(c).Reads {
				if edited[p] {
					delete(edited, p)
					hit = true
				}
			}
		}
		if !hit {
			continue
		}
		size := 0
		for i := u.Start; i < u.End; i++ {
			size += w.TokensAt(i)
		}
		if size > room {
			continue
		}
		room -= size
		if out == nil {
			out = spared{}
		}
		out[u.Start] = u.End
	}
	return out
}

// dropBefore removes every unit that ends at or before keep and holds no
// pinned message, but those spare holds, then writes the compaction note,
// keeping under it the summary the previous note held (a summarizing
// compaction's work is not thrown away by a later level). It returns the
// messages and rounds removed.
func dropBefore(w *window.Window, keep int, spare spared) (msgs, rounds int) {
	units := w.Units()
	// Walk backwards so earlier indexes stay valid while removing.
	end := -1
	flush := func(start int) {
		if end > start {
			if err := w.Remove(start, end); err == nil {
				msgs += end - start
			}
		}
		end = -1
	}
	var start int
	for i := len(units) - 1; i >= 0; i-- {
		u := units[i]
		if _, ok := spare[u.Start]; u.End > keep || u.Pinned || ok {
			flush(start)
			continue
		}
		if end < 0 {
			end = u.End
		}
		start = u.Start
		if u.Round {
			rounds++
		}
	}
	flush(start)
	if msgs > 0 {
		prev := ""
		if n := w.Note(); n >= 0 {
			prev = w.At(n).Text()
		}
		w.SetNote(withEarlierSummary(note(w.Dropped()), prev))
	}
	return msgs, rounds
}

// drop is [dropBefore] with the names section: the names of the tool
// outputs removed, then those the note listed before, within
// NamesRatio of the budget.
func (t *Tiered) drop(w *window.Window, keep int, spare spared) (msgs, rounds int) {
	ratio := t.NamesRatio
	if ratio == 0 {
		ratio = DefaultNamesRatio
	}
	if ratio < 0 {
		return dropBefore(w, keep, spare)
	}
	before := w.Tokens() // counted: an anchored size need not fall by what is removed
	groups := removedNames(w, keep, spare)
	carried := 0 // the tokens of the section the note holds now
	if n := w.Note(); n >= 0 {
		text := w.At(n).Text()
		groups = append(groups, notedNames(text)...)
		carried = w.Counter().Count(namesSection(text))
	}
	msgs, rounds = dropBefore(w, keep, spare)
	n := w.Note()
	if msgs == 0 || n < 0 || len(groups) == 0 {
		return msgs, rounds
	}
	// The section keeps the room the earlier one took (the new note was
	// written without it), and takes at most a third of the room the
	// drop made otherwise, so that a drop still makes room and does not
	// push the window on to the next level. When the section took a
	// third of all the room freed, the earlier section's tokens
	// included, each drop that removed little shrank it by two thirds:
	// an L2 that came every few calls cut the names of older listings
	// within three drops (agentctx eval: +0.3 points of next-action
	// support over eight budgets, 95.16 → 95.45, for 0.2 % more tokens).
	freed := max(0, before-w.Tokens()-carried)
	limit := min(int(ratio*float64(w.Budget())), MaxNamesTokens, carried+freed/3)
	base := w.At(n).Text()
	w.SetNote(withNames(base, groups, limit, w.Counter().Count))
	if !w.Fits() {
		w.SetNote(base)
	}
	return msgs, rounds
}

// Reclaimer is a [Strategy] that can say how much of a window its
// compaction may remove to make room for the round in progress. The
// Engine's tool-result limiter then sizes the newest result against the
// room the strategy can make, not only the room left now: a result the
// agent has just asked for stays whole, and the older history is
// compacted for it at the next request, oldest first.
type Reclaimer interface {
	// Reclaimable returns the tokens of w, in the window's count, that
	// the strategy may remove at its next compaction without touching
	// the round in progress or a pinned message; in [0, w.Size()].
	Reclaimable(w *window.Window) int
}

// Reclaimable returns the tokens of the units before w's last assistant
// turn that are not pinned: what L3 removes when the window is over
// budget. The round in progress (the last assistant turn and the results
// that answer it) and the pinned messages are never counted.
func (t *Tiered) Reclaimable(w *window.Window) int {
	stop := lastTurn(w)
	n := 0
	for _, u := range w.Units() {
		if u.End > stop {
			break
		}
		if !u.Pinned {
			n += unitTokens(w, u)
		}
	}
	return n
}
