package compact

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/window"
)

// DefaultMaskKeepRounds is the number of most recent rounds whose tool
// results [Mask] keeps (the JetBrains study's window of 10 turns).
const DefaultMaskKeepRounds = 10

// maskMark starts every placeholder [Mask] writes.
const maskMark = "[agentctx: tool output elided"

// Mask is observation masking (Lindenbauer et al., "The Complexity Trap:
// Simple Observation Masking Is as Efficient as LLM Summarization for
// Agent Context Management", JetBrains Research, 2025, arXiv:2508.21433,
// whose masking window keeps the latest M = 10 turns, this default): the
// tool results of the last KeepRounds rounds
// are kept verbatim and older ones are replaced by a one-line placeholder
// that keeps the tool name and the size, while every call and every
// assistant message stays. It runs before every model call, whatever the
// usage ratio. When the window is still over budget, it escalates through
// the tiered levels L2, L3 and the cut, so that no call goes over budget.
// Safe for concurrent use on different windows.
type Mask struct {
	// KeepRounds is the number of most recent rounds whose tool results are
	// kept. Optional. Defaults to 10.
	KeepRounds int
	// Batch is how many old rounds (out of the last KeepRounds) with
	// unmasked results masking waits for before it masks them all at
	// once, unless the window is over budget. Each masking rewrites the
	// history where it starts, which ends the prefix a provider's prompt
	// cache can serve; masking in batches keeps the prefix stable for
	// Batch calls instead of one. Optional. Defaults to
	// min(5, KeepRounds); 1 masks a round as soon as it falls out.
	Batch int
	// Escalation configures the tiered levels used when masking is not
	// enough. Optional. Defaults to the zero [Tiered].
	Escalation Tiered
	// Logger receives one record per level applied. Optional. Defaults to
	// no logging.
	Logger *slog.Logger
}

// Name returns "mask".
func (m *Mask) Name() string { return "mask" }

// Compact masks the tool results of rounds older than the last KeepRounds
// and, while the window is over budget, escalates. It never returns an
// error.
func (m *Mask) Compact(_ context.Context, w *window.Window) ([]Record, error) {
	keep := m.KeepRounds
	if keep <= 0 {
		keep = DefaultMaskKeepRounds
	}
	var recs []Record
	rec := Record{Strategy: m.Name(), Level: LevelMask, TokensBefore: w.Size(), Budget: w.Budget()}
	units := w.Units()
	var rounds []window.Unit
	for _, u := range units {
		if u.Round {
			rounds = append(rounds, u)
		}
	}
	batch := m.Batch
	if batch <= 0 {
		batch = min(5, keep)
	}
	if len(rounds) > keep && (!w.Fits() || maskable(w, rounds[:len(rounds)-keep]) >= batch) {
		for _, u := range rounds[:len(rounds)-keep] {
			names := callNames(w.At(u.Start))
			for i := u.Start + 1; i < u.End; i++ {
				msg := w.At(i)
				r, ok := msg.ToolResult()
				if !ok || strings.HasPrefix(r.Content, maskMark) {
					continue
				}
				name := r.ToolName
				if name == "" {
					name = names[r.ToolCallID]
				}
				ph := placeholder(name, r.Content, w.TokensAt(i))
				if len(ph) >= len(r.Content) {
					continue
				}
				r.Content = ph
				if w.Replace(i, chat.Message{Role: msg.Role, Parts: []chat.Part{r}, Name: msg.Name, ID: msg.ID}) == nil {
					rec.ResultsCut++
				}
			}
		}
	}
	rec.TokensAfter = w.Size()
	rec.OverBudget = !w.Fits()
	if rec.changed() {
		rec.log(m.Logger)
		recs = append(recs, rec)
	}
	if !w.Fits() {
		esc := m.Escalation
		if esc.Logger == nil {
			esc.Logger = m.Logger
		}
		recs = append(recs, esc.escalate(w, LevelL2, m.Name())...)
	}
	return recs, nil
}

func callNames(m chat.Message) map[string]string {
	out := map[string]string{}
	for _, c := range m.ToolCalls() {
		out[c.ID] = c.Name
	}
	return out
}

func placeholder(tool, content string, tokens int) string {
	if tool == "" {
		tool = "tool"
	}
	lines := strings.Count(content, "\n") + 1
	return fmt.Sprintf("%s: %s output of %d chars, %d lines, ~%d tokens; only the last rounds' outputs are kept]",
		maskMark, tool, utf8.RuneCountInString(content), lines, tokens)
}

// maskable counts the rounds that hold a result that masking would
// shorten.
func maskable(w *window.Window, rounds []window.Unit) int {
	n := 0
	for _, u := range rounds {
		for i := u.Start + 1; i < u.End; i++ {
			r, ok := w.At(i).ToolResult()
			if ok && !strings.HasPrefix(r.Content, maskMark) && len(placeholder(r.ToolName, r.Content, w.TokensAt(i))) < len(r.Content) {
				n++
				break
			}
		}
	}
	return n
}
