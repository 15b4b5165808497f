package agentctx

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/reminder"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/token"
)

// Request is the next model call's request, assembled by
// [Engine.Request], with its accounting. Building it has no lasting
// effect beyond compaction: the agent reports that it was sent
// ([Request.Sent]) or adds the model's reply ([Engine.Add]), and only
// then are its reminders marked as sent and recorded, and the engine's
// counters moved. A request whose provider call failed is simply built
// again: the retry carries the same reminders.
//
// Its messages share the Engine's memory ([prompt.Buffer]): the next
// [Engine.Request] may write over the last of them and leaves the others
// as they are. Send a request before building the next one, and clone
// its messages (slices.Clone) to keep them longer; do not modify them.
type Request struct {
	// Request is the assembled request: the provider-neutral request to
	// send (Messages, Tools, CacheAfter…), the token table, and the size
	// against the budget.
	*prompt.Request
	// Compactions are the compaction levels applied before assembly, in
	// order; none when the window fitted.
	Compactions []compact.Record
	// Dropped names the tail parts left out to fit the budget
	// (prompt.KindTracker, prompt.KindWorkingMemory, reminder kinds,
	// "rehydration").
	Dropped []string
	// Interrupted are the tool calls answered with a synthetic result
	// ([InterruptedResult]) before assembly: calls left without a result
	// when the request was built.
	Interrupted []chat.ToolCall
	// Thrash is a [*ThrashError] (errors.Is [ErrCompactionThrash]) when
	// this request's compaction was the [ThrashCompactions]-th in a row to
	// come within [RefillCalls] model calls of the previous one; nil
	// otherwise. The request is valid and fits: show the error to the
	// user, as Claude Code does, and see ErrCompactionThrash for what
	// helps.
	Thrash error

	e         *Engine
	reminders []reminder.Reminder
	committed bool
}

// Provider returns the provider-neutral request to send: the messages,
// tool schemas, cache breakpoints and reply limit ([provider.Model].Send
// takes it).
func (r *Request) Provider() provider.Request { return r.Request.Request }

// ErrStaleRequest reports [Request.Sent] on a request that a later
// [Engine.Request] replaced. Nothing was committed; send the newer
// request.
var ErrStaleRequest = errors.New("agentctx: request replaced by a newer one")

// Sent tells the engine that the request went to the provider: its
// reminders are marked as sent (never repeated) and recorded in the
// session on their own entry, and the engine's counters move. Adding the
// model's reply with [Engine.Add] does the same, so an agent needs Sent
// only when it wants the effect before the reply (a stream that may be
// cut). Calling it again does nothing. Errors: [ErrClosed],
// [ErrStaleRequest], the store's.
func (r *Request) Sent(ctx context.Context) error {
	e := r.e
	if e == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return ErrClosed
	}
	if r.committed {
		return nil
	}
	if r != e.pending {
		return ErrStaleRequest
	}
	return e.commit(ctx)
}

// commit commits the pending request, if any, recording its reminders
// in one append.
func (e *Engine) commit(ctx context.Context) error {
	en, ok := e.commitEntry()
	if !ok || e.rec == nil {
		return nil
	}
	if err := e.rec.AddEntries(ctx, en); err != nil {
		return fmt.Errorf("agentctx: request %s: %w", e.id, err)
	}
	return nil
}

// commitEntry commits the pending request, if any, and returns the
// [session.TypeReminder] entry of its reminders, for the caller to
// append; false when there is nothing to record.
func (e *Engine) commitEntry() (session.Entry, bool) {
	r := e.pending
	if r == nil {
		return session.Entry{}, false
	}
	e.pending = nil
	r.committed = true
	e.countCall()
	e.callCounted = true
	e.stats.Requests++
	if r.Over > 0 {
		e.stats.RequestsOverBudget++
	}
	e.stats.TailDropped += len(r.Dropped)
	e.results = nil
	if len(r.reminders) == 0 {
		return session.Entry{}, false
	}
	e.reminders.MarkSent(r.reminders...)
	e.stats.Reminders += len(r.reminders)
	rs := make([]session.Reminder, len(r.reminders))
	for i, m := range r.reminders {
		rs[i] = session.Reminder{Kind: m.Kind, Key: m.Key, Text: m.Text}
	}
	return session.Entry{Type: session.TypeReminder, Reminders: rs}, true
}

// tailSlack is the tokens reserved on top of the tail's own count: the
// BPE merge at the join between the tail and the user text it is
// prepended to, and the framing of a message appended for it.
const tailSlack = 8

// Request compacts the window when needed and assembles the next model
// call's request, in this order (seed 004's query):
//
//  1. tool calls left without a result (an interrupted run) get a
//     synthetic result ([InterruptedResult]), recorded in the session: no
//     provider accepts a call without its result;
//  2. the tail is prepared: the tracker's section, the working memory's
//     context and the pending system reminders; with the static prompt,
//     the rehydration block and the tool schemas, its size is reserved
//     out of the budget;
//  3. the strategy compacts the window within what is left (seed 003:
//     compact before every model call); a summarizing compaction is
//     followed by rehydration (recent files, todo list, plan) and is
//     recorded in the session;
//  4. the request is assembled (prompt.Assemble); if it is still over the
//     budget, tail parts are dropped, lowest priority first, and as a
//     last resort the rehydration block.
//
// Building a request commits nothing else: see [Request]. Called again
// before the request was sent (a retry), it returns the same request, byte
// for byte, unless messages were added in between.
//
// The returned request fits the budget unless the pinned parts alone (the
// static prompt, the first user message, the last round) do not:
// [prompt.Request].Over then says by how much, and Stats counts it. The
// stored history never holds the tail. Errors: [ErrClosed], a compaction
// failure (a summarizer error is not one: Summarize falls back) and the
// store's.
func (e *Engine) Request(ctx context.Context) (*Request, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, ErrClosed
	}
	return e.request(ctx)
}

// request is Request with e.mu held.
func (e *Engine) request(ctx context.Context) (*Request, error) {
	if e.lines != nil {
		// The lines counted since the last request and in this one are
		// remembered through the next.
		defer e.lines.Turn()
	}
	out := &Request{e: e}
	if open := e.w.Unanswered(); len(open) > 0 {
		if err := e.answerInterrupted(ctx, open); err != nil {
			return nil, err
		}
		out.Interrupted = open
	}
	var changed []string // files changed on disk by others: stat once per request
	if e.reminders != nil && e.tracker != nil {
		changed = e.tracker.StaleExternal()
	}
	e.lastMem.built = nil // built by this request, reused after its compaction
	trackerText, memText, pend := e.tail(changed)
	// Compaction may remove rounds whose tracker entries the window now
	// shows, and the section then lists them: room for them is reserved
	// before compacting, so that the request fits without another pass,
	// and a retry builds the same request.
	e.w.SetReserved(e.reserve(trackerText, memText, pend) + e.trackerHidden())
	// A stateful strategy counts model calls (the summarizing guard): a
	// request counts once it is committed, not each time it is built (a
	// retry); a reply to a request this engine did not build (another
	// server's) counts too, and a resumed engine counts the replies
	// written after the state it restored.
	st, _ := e.strategy.(compact.Stateful)
	var calls int
	if st != nil {
		calls = st.Calls()
	}
	before, rereads, soon := e.refillBefore()
	recs, err := e.strategy.Compact(ctx, e.w)
	if st != nil {
		st.SetCalls(calls)
	}
	if err != nil {
		return nil, fmt.Errorf("agentctx: request %s: compact: %w", e.id, err)
	}
	if len(recs) > 0 {
		e.compactions++
		if summarized(recs) {
			e.rehydrate()
		}
		// The working memory's context, the rehydration block and the
		// pressure reminder depend on the compaction: prepare the tail
		// again, as a retry of this request will.
		e.memReuse = true // the working memory did not change since
		trackerText, memText, pend = e.tail(changed)
		e.memReuse = false
		if e.w.SetReserved(e.reserve(trackerText, memText, pend)); summarized(recs) && !e.w.Fits() {
			more, err := e.escalate(ctx)
			if err != nil {
				return nil, fmt.Errorf("agentctx: request %s: compact: %w", e.id, err)
			}
			recs = append(recs, more...)
		}
		out.Thrash = e.afterCompaction(recs, before, rereads, soon)
		if err := e.recordCompaction(ctx, recs, "auto"); err != nil {
			return nil, err
		}
	}
	out.Compactions = recs

	in := prompt.Input{
		Static: e.static, Rehydration: e.systemTail(), Window: e.w,
		Tracker: trackerText, WorkingMemory: memText, Reminders: pend,
		Tools: e.opts.Tools, ToolTokens: e.toolTokens,
		Model: e.info.Name, MaxTokens: e.opts.MaxTokens, CacheKey: e.id, Counter: e.memo,
		BlockTokens: e.blockTokens, Buffer: &e.reqBuf,
	}
	req := prompt.Assemble(in)
	kept := req.Kept
	for req.Over > 0 {
		switch {
		case len(in.Reminders) > 0:
			// Reminders are sorted by priority: drop the last.
			r := in.Reminders[len(in.Reminders)-1]
			in.Reminders = in.Reminders[:len(in.Reminders)-1]
			out.Dropped = append(out.Dropped, r.Kind)
		case in.WorkingMemory != "":
			in.WorkingMemory = ""
			out.Dropped = append(out.Dropped, prompt.KindWorkingMemory)
		case in.Tracker != "":
			in.Tracker = ""
			out.Dropped = append(out.Dropped, prompt.KindTracker)
		case in.Rehydration != e.pinnedText():
			// The pins stay: only the rehydration block goes.
			in.Rehydration = e.pinnedText()
			out.Dropped = append(out.Dropped, "rehydration")
		default:
			goto done
		}
		req = prompt.Assemble(in)
		kept = min(kept, req.Kept) // against the request before this one
	}
done:
	req.Kept = kept
	if len(out.Dropped) > 0 {
		e.log.Debug("tail parts dropped to fit the budget", "session", e.id, "dropped", out.Dropped, "tokens", req.Tokens, "budget", req.Budget)
	}
	out.reminders = in.Reminders
	// Between requests the window reserves the stable parts only (tool
	// schemas, static prompt, rehydration block): a resumed window gets
	// the same reserve, so sizes and usage anchors agree across a resume.
	e.w.SetReserved(e.baseReserve())
	out.Request = req
	e.lastTokens = req.Tokens
	e.gen++
	e.pending = out
	return out, nil
}

// tail returns the tracker's section, the working memory's context and
// the pending reminders for the next request. The reminders are computed
// with the window reserving its stable parts only, so that a retry sees
// the same usage ratio.
func (e *Engine) tail(changed []string) (trackerText, memText string, pend []reminder.Reminder) {
	trackerText, memText = e.tailTexts()
	e.w.SetReserved(e.baseReserve())
	return trackerText, memText, e.pendingReminders(changed)
}

// Compact summarizes the history now, whatever the usage ratio (Claude
// Code's /compact): the older history becomes a summary written with
// instructions (optional) and the recent part is kept, followed by
// rehydration. It returns the levels applied (none when there was nothing
// to summarize). Errors: [ErrClosed], the strategy's and the store's.
func (e *Engine) Compact(ctx context.Context, instructions string) ([]compact.Record, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, ErrClosed
	}
	f, ok := e.strategy.(compact.Forcer)
	if !ok {
		// A strategy that cannot compact on demand: a summary does.
		f = &compact.Summarize{Summarizer: e.opts.Summarizer, Logger: e.opts.Logger, Files: e.files}
	}
	recs, err := f.CompactNow(ctx, e.w, instructions)
	if err != nil {
		return nil, fmt.Errorf("agentctx: compact %s: %w", e.id, err)
	}
	if len(recs) == 0 {
		return nil, nil
	}
	e.compactions++
	if summarized(recs) {
		e.rehydrate()
		e.w.SetReserved(e.baseReserve())
	}
	// Asked for: kept for recall, never counted as thrashing.
	for _, r := range recs {
		if r.Span != "" && len(r.SpanMessages) > 0 {
			e.spans.put(r.Span, spanText(r.SpanMessages))
		}
	}
	if err := e.recordCompaction(ctx, recs, "manual"); err != nil {
		return nil, err
	}
	return recs, nil
}

// tailTexts returns the tracker's section and the working memory's
// context for the next request.
func (e *Engine) tailTexts() (string, string) {
	tr := ""
	if e.tracker != nil && !e.opts.NoTrackerSection {
		e.syncShown()
		var n int
		tr, n = e.tracker.SectionTokens()
		if tr != e.lastTracker.text || n != e.lastTracker.tokens {
			e.lastTracker = counted{text: tr, tokens: n}
		}
	}
	return tr, e.memText()
}

// syncShown tells the tracker which tool calls' results the window shows
// (track.Tracker.SetShown): its section then lists only what the window
// no longer shows, the reads, edits, searches and failures of the rounds
// compaction removed, rather than repeating the window (agentctx eval on
// the shared trajectories, over budgets from 6,000 to 32,000 tokens:
// next-action support +0.4 points on average, equal or higher at six
// of seven budgets, for about the same tokens sent). The set is rebuilt
// from the window after it was edited (compaction), which the tracker's
// cached section then follows; results added since are recorded as they
// come (Engine.noteShown).
func (e *Engine) syncShown() {
	if e.tracker == nil || (e.shownCalls != nil && e.shownWin == e.w && e.shownEdits == e.w.Edits()) {
		return
	}
	ids := make(map[string]struct{}, len(e.shownCalls))
	for i := range e.w.Len() {
		if m := e.w.At(i); m.Role == chat.RoleTool {
			if r, ok := m.ToolResult(); ok {
				ids[r.ToolCallID] = struct{}{}
			}
		}
	}
	e.shownCalls, e.shownWin, e.shownEdits = ids, e.w, e.w.Edits()
	e.tracker.SetShown(e.callShown)
}

// trackerHidden is the tokens the tracker's section leaves out because
// the window shows them (track.Tracker.HiddenTokens); 0 without one.
func (e *Engine) trackerHidden() int {
	if e.tracker == nil || e.opts.NoTrackerSection {
		return 0
	}
	return e.tracker.HiddenTokens()
}

// callShown reports whether the window shows the result of tool call id.
func (e *Engine) callShown(id string) bool {
	_, ok := e.shownCalls[id]
	return ok
}

// noteShown records that the window now shows m, just added: a tool
// result's call joins the shown set, when there is one (syncShown), and
// the tracker renders its section again (the entries of that call, which
// it recorded before the result entered the window, leave it).
func (e *Engine) noteShown(m chat.Message) {
	if e.shownCalls == nil || m.Role != chat.RoleTool {
		return
	}
	if r, ok := m.ToolResult(); ok {
		e.shownCalls[r.ToolCallID] = struct{}{}
		e.tracker.SetShown(e.callShown)
	}
}

// memText returns the working memory's context for the next request. It
// is left out while nothing was compacted and the agent noted no finding
// and has no plan: the window then holds the whole history, which the
// working memory's recent rounds would only repeat.
func (e *Engine) memText() string {
	if e.active == nil {
		return ""
	}
	if e.compactions == 0 {
		_, plan := e.active.Plan()
		if !plan && e.active.Findings() == 0 {
			return ""
		}
	}
	n := e.contextTokens()
	if n <= 0 {
		return ""
	}
	shown := e.memShown()
	if e.memReuse && e.lastMem.built == e.active && e.lastMem.budget == n && e.lastMem.shown == shown {
		return e.lastMem.text
	}
	e.active.SetShown(shown.task, shown.history)
	text, tokens := e.active.BuildContextTokens(n)
	if text != e.lastMem.text || tokens != e.lastMem.tokens {
		e.lastMem = counted{text: text, tokens: tokens}
	}
	e.lastMem.built, e.lastMem.budget, e.lastMem.shown = e.active, n, shown
	return text
}

// memShown returns what the window shows of the working memory's state
// (workmem.ActiveContext.SetShown): whether it holds the task (the user's
// first message, which the working memory takes as its task and the
// window pins) and whether it holds rounds of the history besides its
// pinned messages and note. Only the pinned start of the window and its
// end, back to the newest assistant message, are read: the cost does not
// grow with the window.
func (e *Engine) memShown() memShown {
	var s memShown
	first := e.w.FirstUserSeq()
	i := 0
	for ; i < e.w.Len() && (e.w.Pinned(i) || e.w.IsNote(i)); i++ {
		s.task = s.task || first != 0 && e.w.Seq(i) == first
	}
	for j := e.w.Len() - 1; j >= i && !s.history; j-- {
		s.history = e.w.At(j).Role == chat.RoleAssistant && !e.w.Pinned(j)
	}
	return s
}

// memRenders reports whether the working memory has something to render
// that the window does not show (workmem.ActiveContext.SetShown): a
// finding, a plan, or, once a compaction ran, the rounds when the window
// holds none or the task when it no longer holds the user's first
// message. It reads the state, not the last rendering, so
// that a resumed engine sizes tool results as the live one did.
func (e *Engine) memRenders() bool {
	if e.active == nil || e.opts.NoWorkingMemory {
		return false
	}
	if _, plan := e.active.Plan(); plan || e.active.Findings() > 0 {
		return true
	}
	if e.compactions == 0 {
		return false // memText renders nothing before a compaction
	}
	s := e.memShown()
	return !s.history || e.active.Task() != "" && !s.task
}

// memShown is what a request's window shows of the working memory's
// state: see [Engine.memShown].
type memShown struct {
	task, history bool
}

// blockTokens returns the size in tokens of r rendered alone
// (reminder.Render), for the reserve and the token table. The blocks of
// the working memory and of the tracker's section are neither rendered
// nor counted again: their text's count is the one BuildContext or
// SectionTokens made, and the block's is that count plus the wrapper's,
// joined with token.AppendCount at the end; at the start, the opening tag
// ends a line and the text begins one with "#", where the pre-tokenizer
// starts a piece anyway (TestMemoryBlockTokens).
// The block's count is kept with the text's, so that the reserve and the
// token table, before and after a compaction, count it once.
// Other blocks are rendered and counted through the count cache.
func (e *Engine) blockTokens(r reminder.Reminder) int {
	var last *counted
	switch r.Kind {
	case prompt.KindWorkingMemory:
		last = &e.lastMem
	case prompt.KindTracker:
		last = &e.lastTracker
	}
	if last == nil || r.Text != last.text || !strings.HasPrefix(r.Text, "#") || !token.Joinable(e.memo) {
		return e.memo.Count(reminder.Render([]reminder.Reminder{r}))
	}
	if last.block == 0 {
		last.block = e.memo.Count(reminder.BlockOpen) + token.AppendCount(e.memo, r.Text, last.tokens, reminder.BlockClose)
	}
	return last.block
}

// contextTokens is the working memory's share of a request, in tokens.
func (e *Engine) contextTokens() int {
	if e.opts.ContextTokens != 0 {
		return e.opts.ContextTokens
	}
	return min(2000, e.w.Budget()/20)
}

// baseReserve returns the stable tokens a request holds outside the
// window's messages: the tool schemas, the static prompt and the
// rehydration block.
func (e *Engine) baseReserve() int {
	return e.reserve("", "", nil)
}

// reserve returns the tokens a request holds outside the window's
// messages: the tool schemas, the static prompt and the rehydration block
// (each a system message) and the tail.
func (e *Engine) reserve(trackerText, memText string, pend []reminder.Reminder) int {
	ov := e.w.Overhead()
	n := e.toolTokens
	// Through the count cache: both stay the same from request to
	// request.
	if e.static.Text != "" {
		n += token.Message(e.memo, ov, chat.NewText(chat.RoleSystem, e.static.Text))
	}
	if st := e.systemTail(); st != "" {
		n += token.Message(e.memo, ov, chat.NewText(chat.RoleSystem, st))
	}
	var tail []reminder.Reminder
	if trackerText != "" {
		tail = append(tail, reminder.Reminder{Kind: prompt.KindTracker, Text: trackerText})
	}
	if memText != "" {
		tail = append(tail, reminder.Reminder{Kind: prompt.KindWorkingMemory, Text: memText})
	}
	tail = append(tail, pend...)
	for _, r := range tail {
		n += e.blockTokens(r)
	}
	if len(tail) > 0 {
		n += ov.PerMessage + tailSlack
	}
	return n
}

// pendingReminders returns the reminders the next request would carry,
// given the files changed on disk by others.
func (e *Engine) pendingReminders(changed []string) []reminder.Reminder {
	if e.reminders == nil {
		return nil
	}
	s := reminder.State{
		Todos: slices.Clone(e.todos), TodosKnown: e.todoTool,
		Results: e.results, Ratio: e.w.Ratio(), Threshold: threshold(e.strategy),
		Tokens: e.w.Size(), Budget: e.w.Budget(), Compactions: e.compactions,
		ChangedFiles: changed,
	}
	return e.reminders.Pending(s)
}

// threshold is the usage ratio at which s compacts
// ([compact.Thresholder]), 0 when unknown.
func threshold(s compact.Strategy) float64 {
	if t, ok := s.(compact.Thresholder); ok {
		return t.ThresholdRatio()
	}
	return 0
}

// escalate compacts the window further after a summary left it over
// budget (the rehydration block it brought is reserved now): the
// strategy's own escalation ([compact.Escalator]), else the tiered
// levels.
func (e *Engine) escalate(ctx context.Context) ([]compact.Record, error) {
	if esc, ok := e.strategy.(compact.Escalator); ok {
		return esc.Escalate(ctx, e.w)
	}
	return (&compact.Tiered{Logger: e.opts.Logger}).Compact(ctx, e.w)
}

func summarized(recs []compact.Record) bool {
	for _, r := range recs {
		if r.Level == compact.LevelSummary {
			return true
		}
	}
	return false
}

// recordCompaction writes a compact boundary and the window as compaction
// left it, followed by the current working-memory state.
func (e *Engine) recordCompaction(ctx context.Context, recs []compact.Record, trigger string) error {
	for _, r := range recs {
		e.stats.Compactions[r.Level.String()]++
	}
	if e.rec == nil {
		return nil
	}
	top := recs[0].Level
	for _, r := range recs[1:] {
		top = max(top, r.Level)
	}
	meta := session.CompactMetadata{
		Trigger:    trigger,
		PreTokens:  recs[0].TokensBefore,
		PostTokens: recs[len(recs)-1].TokensAfter,
		Strategy:   recs[0].Strategy,
		Level:      top.String(),
	}
	for _, r := range recs {
		if r.Escalated && meta.Reason == "" {
			meta.Reason = r.EscalationReason
		}
		if r.Span != "" && len(r.SpanMessages) > 0 {
			text, ok := e.spans.get(r.Span)
			if !ok {
				text = spanText(r.SpanMessages)
			}
			meta.Span = &session.Span{ID: r.Span, Text: text}
		}
		if r.Level == compact.LevelSummary {
			meta.FilesIncluded = r.FilesIncluded
			meta.Fallback = r.Fallback
			meta.Summarizer, meta.DurationMS, meta.Usage = r.Summarizer, r.DurationMS, r.Usage
		}
	}
	st, err := e.state(true)
	if err != nil {
		return err
	}
	e.rec.KeepState(st)
	start := time.Now()
	if err := e.rec.Compacted(ctx, e.w, meta); err != nil {
		return fmt.Errorf("agentctx: record compaction of %s: %w", e.id, err)
	}
	e.log.Debug("compaction recorded", "session", e.id, "level", top.String(), "took", time.Since(start))
	return nil
}
