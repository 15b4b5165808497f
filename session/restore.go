package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/window"
)

// Snapshot returns the entries that record a compaction of w: a compact
// boundary, then one entry per message of w as compaction left it, in
// order ([NewMessageEntry]), the compaction note marked isCompactSummary.
// The boundary's metadata is meta with what [Restore] needs to rebuild w
// exactly: Messages = w.Len(), PostTokens = w.Tokens() when meta has none,
// the usage anchor (when set) and the tally of what compaction removed
// (when not empty), and Trigger "auto" when meta has none. This is seed
// 001's boundary-then-summary pair, with the kept messages after the
// summary instead of lost. The entries' UUID, parent, session and time are
// left for the [Store] to fill. It returns an error wrapping
// [ErrInvalidEntry] when a message cannot be recorded (see
// [NewMessageEntry]); w is not modified.
func Snapshot(w *window.Window, meta CompactMetadata) ([]Entry, error) {
	meta.Messages = w.Len()
	if meta.PostTokens == 0 {
		meta.PostTokens = w.Tokens()
	}
	if meta.Trigger == "" {
		meta.Trigger = "auto"
	}
	meta.FilesIncluded = slices.Clone(meta.FilesIncluded)
	meta.Anchor = nil
	if a := w.Anchor(); a.Set {
		meta.Anchor = &Anchor{Reported: a.Reported, Counted: a.Counted}
	}
	meta.Dropped = nil
	if d := w.Dropped(); !droppedEmpty(d) {
		meta.Dropped = droppedFromWindow(d)
	}
	out := make([]Entry, 0, w.Len()+1)
	out = append(out, Entry{Type: TypeSystem, Subtype: SubtypeCompactBoundary, CompactMetadata: &meta})
	for i := range w.Len() {
		e, err := NewMessageEntry(w.At(i))
		if err != nil {
			return nil, fmt.Errorf("session: snapshot: message %d: %w", i, err)
		}
		e.IsCompactSummary = w.IsNote(i)
		out = append(out, e)
	}
	return out, nil
}

// Restore rebuilds the context window that entries leave live, under
// opts: the window a process had when it last wrote them. entries are in
// conversation order as [Store.Load] returns them ([Resolve]d, from the
// last complete compact boundary on); a whole transcript works too, as
// Restore starts at [Live]'s boundary itself. The messages come from
// [Messages]' rules (Claude Code responses merged, synthetic lines
// skipped).
//
// After a boundary written by [Snapshot] (Messages = N), the next N
// message entries are the window as compaction left it: they are added in
// order, the one marked isCompactSummary becoming the compaction note
// ([window.Window.SetNote]) where the note would stand; then the usage
// anchor and the tally of removed messages are restored from the
// boundary, and the rest is added. After a Claude Code boundary (Messages
// 0) the summary, the first user message of the new context, is added as
// such, then the rest. An incomplete boundary (see [Live], which reports
// it) is skipped with the lines right after it, its torn snapshot, a copy
// of messages the window already holds; entries appended after the tear
// (by a writer that resumed) are added as usual.
//
// Restore never fails on content: a tool result whose call is not in the
// window is skipped and reported as [ProblemOrphanResult], a message that
// cannot be decoded or that the window rejects as [ProblemUnreadable],
// each naming its entry's line, byte offset and uuid. The error is only
// window.New's, for bad opts.
func Restore(entries []Entry, opts window.Options) (*window.Window, []Problem, error) {
	w, err := window.New(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("session: restore: %w", err)
	}
	start, _ := Live(entries)
	es := dropTornSnapshots(entries[start:])
	c := newConverter()
	for i := range es {
		c.add(i, &es[i])
	}
	c.finish()
	ps := c.probs

	var meta *CompactMetadata
	if len(es) > 0 && es[0].IsBoundary() {
		meta = es[0].CompactMetadata
		if meta == nil {
			meta = &CompactMetadata{}
		}
	}
	lastSnap := -1 // index in es of the last entry of the snapshot
	snapshot := meta != nil && meta.Messages > 0
	if snapshot {
		n := 0
		for i := 1; i < len(es) && n < meta.Messages; i++ {
			if !es[i].IsSidechain && bearsMessage(&es[i]) {
				n++
				lastSnap = i
			}
		}
	}
	applied := meta == nil
	apply := func() {
		if applied {
			return
		}
		applied = true
		var a token.Anchor
		if m := meta.Anchor; m != nil {
			a = token.Anchor{Reported: m.Reported, Counted: m.Counted, Set: true}
		}
		w.SetAnchor(a)
		w.SetDropped(droppedToWindow(meta.Dropped))
	}
	for _, cm := range c.out {
		if cm.entry > lastSnap {
			apply()
		}
		if cm.summary && plainText(cm.msg) && noteFits(w, snapshot) {
			w.SetNote(cm.msg.Text())
			continue
		}
		if err := w.Add(cm.msg); err != nil {
			e := &es[cm.entry]
			if errors.Is(err, window.ErrOrphanToolResult) {
				ps = append(ps, entryProblem(e, ProblemOrphanResult, false, "skipped: %v", err))
			} else {
				ps = append(ps, entryProblem(e, ProblemUnreadable, false, "the window rejects the message, skipped: %v", err))
			}
		}
	}
	apply()
	sortProblems(ps)
	return w, ps, nil
}

// plainText reports whether m is what [window.Window.SetNote] makes: a user
// message of one text part and nothing else.
func plainText(m chat.Message) bool {
	if m.Role != chat.RoleUser || len(m.Parts) != 1 || m.ID != "" || m.Name != "" || m.Model != "" || m.Usage != nil {
		return false
	}
	_, ok := m.Parts[0].(chat.Text)
	return ok
}

// noteFits reports whether SetNote on w, as it is, would put the note at
// the end, where the summary entry stands, and the summary should be the
// note: in agentctx's snapshot always, after a Claude Code boundary only
// when the window already has a user message (Claude Code's summary is
// otherwise the first user message). SetNote puts the note after the
// first user message, or after the system prompt when there is none
// yet.
func noteFits(w *window.Window, snapshot bool) bool {
	pos, user := 0, false
	for i := range w.Len() {
		m := w.At(i)
		if i == 0 && m.Role == chat.RoleSystem {
			pos = 1
		}
		if m.Role == chat.RoleUser && !w.IsNote(i) {
			pos, user = i+1, true
			break
		}
	}
	return (snapshot || user) && pos == w.Len()
}

// droppedEmpty reports whether compaction has removed nothing.
func droppedEmpty(d window.Dropped) bool {
	return d.Messages == 0 && d.Rounds == 0 && d.ToolCalls == 0 && d.ToolResults == 0 &&
		len(d.Tools) == 0 && len(d.Files) == 0 && len(d.UserMessages) == 0 && d.UserMessagesTotal == 0
}

func droppedFromWindow(d window.Dropped) *Dropped {
	return &Dropped{
		Messages:          d.Messages,
		Rounds:            d.Rounds,
		ToolCalls:         d.ToolCalls,
		ToolResults:       d.ToolResults,
		Tools:             maps.Clone(d.Tools),
		Files:             slices.Clone(d.Files),
		UserMessages:      slices.Clone(d.UserMessages),
		UserMessagesTotal: d.UserMessagesTotal,
	}
}

func droppedToWindow(d *Dropped) window.Dropped {
	if d == nil {
		return window.Dropped{}
	}
	return window.Dropped{
		Messages:          d.Messages,
		Rounds:            d.Rounds,
		ToolCalls:         d.ToolCalls,
		ToolResults:       d.ToolResults,
		Tools:             maps.Clone(d.Tools),
		Files:             slices.Clone(d.Files),
		UserMessages:      slices.Clone(d.UserMessages),
		UserMessagesTotal: d.UserMessagesTotal,
	}
}

// Recorder writes what happens to a window into a session: each message
// added, and each compaction as a [Snapshot]. Replaying its entries with
// [Restore] gives back the window. A Recorder is not safe for concurrent
// use: like the window it records, one belongs to one session.
type Recorder struct {
	store Store
	id    string
	// state is the last working-memory state saved or kept
	// ([Recorder.SaveState], [Recorder.KeepState]), re-written after each
	// snapshot; nil when there is none.
	state json.RawMessage
	// lag is the content of the entries appended since the last state
	// entry, in bytes ([ContentBytes]; [Recorder.Lag]).
	lag int
}

// Lag returns the content, in bytes ([ContentBytes]), of the entries the
// Recorder appended since its last [TypeState] entry (or since the lag
// [Recorder.SetLag] set): what a process resuming the session now would
// read again past the last state. Stores count it the same way from
// what they hold ([StateLag]).
func (r *Recorder) Lag() int { return r.lag }

// SetLag sets [Recorder.Lag], for a process that resumed a session: the
// [StateLag] of the entries it loaded.
func (r *Recorder) SetLag(n int) { r.lag = max(n, 0) }

// State returns the state the Recorder remembers ([Recorder.SaveState],
// [Recorder.KeepState]), nil when none. The bytes are the Recorder's: the
// caller does not change them.
func (r *Recorder) State() json.RawMessage { return r.state }

// appended counts es, just appended, into the lag: a state entry resets
// it.
func (r *Recorder) appended(es ...Entry) {
	for i := range es {
		if es[i].Type == TypeState && !es[i].IsSidechain {
			r.lag = 0
			continue
		}
		r.lag += ContentBytes(&es[i])
	}
}

// NewRecorder returns a Recorder that appends to session id of store,
// which must exist ([Store.Create]).
func NewRecorder(store Store, id string) *Recorder {
	return &Recorder{store: store, id: id}
}

// Add records msgs, the messages just added to the window, in one
// [Store.Append] of one entry each ([NewMessageEntry]). Nothing is written
// when msgs is empty or one of them cannot be recorded (an error wrapping
// [ErrInvalidEntry]); the store's errors are returned wrapped.
func (r *Recorder) Add(ctx context.Context, msgs ...chat.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	es := make([]Entry, 0, len(msgs))
	for i, m := range msgs {
		e, err := NewMessageEntry(m)
		if err != nil {
			return fmt.Errorf("session: record %s: message %d: %w", r.id, i, err)
		}
		es = append(es, e)
	}
	if _, err := r.store.Append(ctx, r.id, es...); err != nil {
		return fmt.Errorf("session: record %s: %w", r.id, err)
	}
	r.appended(es...)
	return nil
}

// AddEntries appends es in one [Store.Append]: all of them or, on an
// error, none. The last [TypeState] entry among them becomes the state
// the Recorder remembers ([Recorder.SaveState]). Errors wrap the store's.
func (r *Recorder) AddEntries(ctx context.Context, es ...Entry) error {
	if len(es) == 0 {
		return nil
	}
	if _, err := r.store.Append(ctx, r.id, es...); err != nil {
		return fmt.Errorf("session: record %s: %w", r.id, err)
	}
	r.appended(es...)
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Type == TypeState {
			r.state = slices.Clone(es[i].State)
			break
		}
	}
	return nil
}

// Compacted records a compaction that just left w as it is, in one
// [Store.Append] of its [Snapshot] with meta (Strategy, Level, PreTokens:
// what compaction did), followed in the same append by a [TypeState]
// entry holding the last state the Recorder saved or kept
// ([Recorder.SaveState], [Recorder.KeepState]), so that the state
// survives a load that starts at the new boundary. A torn snapshot stays incomplete whatever is
// appended later ([Live] counts only the lines right after a boundary), so
// a process that resumed past one may simply go on appending; calling
// Compacted with the restored window is optional and makes the next load
// read less. Errors are [Snapshot]'s and the store's, wrapped.
func (r *Recorder) Compacted(ctx context.Context, w *window.Window, meta CompactMetadata) error {
	es, err := Snapshot(w, meta)
	if err != nil {
		return fmt.Errorf("session: record %s: %w", r.id, err)
	}
	if r.state != nil {
		es = append(es, Entry{Type: TypeState, State: slices.Clone(r.state)})
	}
	if _, err := r.store.Append(ctx, r.id, es...); err != nil {
		return fmt.Errorf("session: record %s: compaction: %w", r.id, err)
	}
	r.appended(es...)
	return nil
}

// dropTornSnapshots removes from es (which starts at the live boundary, if
// any) every later boundary, all of them incomplete, together with the
// entries on the lines right after it: the part of its snapshot the crash
// let through. Entries after the gap in the file were appended after the
// crash and stay. es is not modified.
func dropTornSnapshots(es []Entry) []Entry {
	out, copied := es, false
	for i := 1; i < len(out); i++ {
		if !out[i].IsBoundary() {
			continue
		}
		j := i + 1
		for j < len(out) && adjacent(&out[j-1], &out[j]) {
			j++
		}
		if !copied {
			out, copied = slices.Clone(out), true
		}
		out = slices.Delete(out, i, j)
		i--
	}
	return out
}
