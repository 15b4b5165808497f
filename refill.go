package agentctx

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/secret"
	"github.com/agentctx/agentctx/window"
)

// RefillCalls is the most model calls from one compaction to the next
// for the second to be back to back with the first: its record then says
// what regrew ([compact.Record].Refill). Claude Code's thrash guard uses
// the same span: "the context refilled to the limit within 3 turns of the
// previous compact" (its error message, quoted in
// anthropics/claude-code#60485, v2.1.144).
const RefillCalls = 3

// ThrashCompactions is how many back-to-back compactions in a row make
// the engine report [ErrCompactionThrash]: Claude Code stops after "3
// times in a row".
const ThrashCompactions = 3

// ErrCompactionThrash reports that the context refilled to its limit
// within [RefillCalls] model calls of the previous compaction,
// [ThrashCompactions] times in a row: each compaction frees less than the
// next round brings, and the agent spends its calls compacting (Claude
// Code's "Autocompact is thrashing" error, anthropics/claude-code#60485).
// The request is still built and fits its budget. Show the error to the
// user; the [ThrashError] it comes in names what regrew. What helps:
// raise the budget; read files in ranges rather than whole, and keep tool
// outputs small (the tool-result limiter, Options.Limit); unpin long
// pins; or start a new session from a handoff note.
var ErrCompactionThrash = errors.New("agentctx: compaction thrashing")

// ThrashError is [ErrCompactionThrash] with its data: the refills of the
// back-to-back compactions, oldest first.
type ThrashError struct {
	Refills []compact.Refill
}

// Error says what happened and which categories regrew most.
func (t *ThrashError) Error() string {
	grew := map[string]int{}
	for _, r := range t.Refills {
		for k, v := range r.Tokens {
			grew[k] += v
		}
	}
	top := (&compact.Refill{Tokens: grew}).Top()
	msg := fmt.Sprintf("%v: the context refilled to the limit within %d model calls of the previous compaction, %d times in a row", ErrCompactionThrash, RefillCalls, len(t.Refills))
	if len(top) > 0 {
		msg += " (regrew, in tokens: " + strings.Join(top[:min(len(top), 4)], ", ") + ")"
	}
	return msg
}

// Unwrap returns [ErrCompactionThrash].
func (t *ThrashError) Unwrap() error { return ErrCompactionThrash }

// refillState is the window as the last counted compaction left it.
type refillState struct {
	valid bool
	call  int // model calls then
	after window.Breakdown
	// results are the tool call ids of the results the window held, and
	// reads the files read so far (in the window or summarized).
	results map[string]bool
	reads   map[string]bool
	// refills are the back-to-back compactions in a row so far.
	refills []compact.Refill
	thrash  error
}

// dueSummary reports whether recs is a compaction that counts for the
// thrash guard: a summary was made, or was due and declined (escalated).
// The tiered levels' routine cuts of tool results do not count.
func dueSummary(recs []compact.Record) bool {
	for _, r := range recs {
		if r.Level == compact.LevelSummary || r.Escalated {
			return true
		}
	}
	return false
}

// refillBefore returns the window's breakdown before a compaction, and
// the tokens of the tool results that read files read before the last
// counted compaction, when that compaction was at most RefillCalls model
// calls ago; false otherwise (nothing is computed).
func (e *Engine) refillBefore() (window.Breakdown, int, bool) {
	r := &e.refill
	if !r.valid || e.modelCalls-r.call > RefillCalls {
		return window.Breakdown{}, 0, false
	}
	calls := map[string]chat.ToolCall{}
	rereads := 0
	for i := range e.w.Len() {
		m := e.w.At(i)
		for _, c := range m.ToolCalls() {
			calls[c.ID] = c
		}
		res, ok := m.ToolResult()
		if !ok || m.Role != chat.RoleTool || r.results[res.ToolCallID] {
			continue
		}
		if c, ok := calls[res.ToolCallID]; ok {
			for _, p := range e.uses.Classify(c).Reads {
				if r.reads[p] {
					rereads += e.w.TokensAt(i)
					break
				}
			}
		}
	}
	return e.w.Breakdown(), rereads, true
}

// afterCompaction keeps the spans recs summarized, and, for a compaction
// that counts (dueSummary), sets recs[0].Refill when it came back to back
// with the previous one (before and rereads from refillBefore, ok when
// it did) and remembers the window as it is left. It returns the
// [ThrashError] when this is the ThrashCompactions-th back-to-back
// compaction in a row, else nil.
func (e *Engine) afterCompaction(recs []compact.Record, before window.Breakdown, rereads int, ok bool) error {
	for _, r := range recs {
		if r.Span != "" && len(r.SpanMessages) > 0 {
			e.spans.put(r.Span, spanText(r.SpanMessages))
		}
	}
	if len(recs) == 0 || !dueSummary(recs) {
		return nil
	}
	r := &e.refill
	var err error
	if ok {
		prev := r.after
		rf := compact.Refill{Calls: e.modelCalls - r.call, InARow: len(r.refills) + 1, Tokens: map[string]int{
			compact.RefillToolResults: before.ToolResults - prev.ToolResults,
			compact.RefillRereads:     rereads,
			compact.RefillReminders:   before.Reserved - prev.Reserved,
			compact.RefillUser:        before.User - prev.User,
			compact.RefillAssistant:   before.Assistant - prev.Assistant,
			compact.RefillToolCalls:   before.ToolCalls - prev.ToolCalls,
			compact.RefillThinking:    before.Thinking - prev.Thinking,
		}}
		recs[0].Refill = &rf
		r.refills = append(r.refills, rf)
		if len(r.refills) >= ThrashCompactions {
			err = &ThrashError{Refills: r.refills}
			r.thrash = err
			r.refills = nil // reported: the next report needs three more
		}
	} else {
		r.refills = nil
		r.thrash = nil
	}
	r.valid, r.call, r.after = true, e.modelCalls, e.w.Breakdown()
	r.results = map[string]bool{}
	if r.reads == nil {
		r.reads = map[string]bool{}
	}
	note := func(m chat.Message) {
		for _, c := range m.ToolCalls() {
			for _, p := range e.uses.Classify(c).Reads {
				r.reads[p] = true
			}
		}
	}
	for _, rec := range recs {
		for _, m := range rec.SpanMessages {
			note(m)
		}
	}
	for i := range e.w.Len() {
		m := e.w.At(i)
		note(m)
		if res, ok := m.ToolResult(); ok && m.Role == chat.RoleTool {
			r.results[res.ToolCallID] = true
		}
	}
	return err
}

// Thrashing returns the [ThrashError] (wrapping [ErrCompactionThrash]) the
// last back-to-back run of compactions raised, until a compaction comes
// more than [RefillCalls] model calls after the previous one; nil
// otherwise. Safe for concurrent use.
func (e *Engine) Thrashing() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.refill.thrash
}

// spanText is the text a summarized span is kept and read back as: its
// messages rendered (compact.RenderSpan), secrets redacted (the raw
// messages keep them in their own entries only).
func spanText(msgs []chat.Message) string {
	return secret.Redact(compact.RenderSpan(msgs))
}
