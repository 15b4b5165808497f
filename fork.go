package agentctx

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/tooluse"
)

// ErrMessageIndex reports a fork or rewind point outside the window: it
// must be between 0 and the number of messages [Engine.Messages]
// returns. Nothing was written; pick a point in range.
var ErrMessageIndex = errors.New("agentctx: message index out of range")

// Fork starts a new session whose history is this one's first at
// messages, in [Engine.Messages]' numbering (index 0 is the first message
// of the window; at = len(Messages()) forks the whole window), and
// returns its engine, resumed as [Resume] does: the same configuration
// (model, budget, strategy, tools, system prompt, switches), pins,
// reminder history and compaction count; the tracker, working memory and
// todo list rebuilt from the kept messages. This session is not changed.
//
// The store records the child with [session.MetaParent] and
// [session.MetaForkAt] in its metadata, and starts its transcript with a
// compact boundary whose Trigger is [session.TriggerFork] and whose
// Branch names the parent, followed by a copy of the kept messages as
// the window holds them (the same form as a compaction's snapshot, so
// every store loads it unchanged, and a fork outlives its parent's
// deletion); the parent's older history, before its last compaction, is
// not copied. Full outputs the limiter cut stay in the parent: the
// child's recall_output cannot read them back. The child takes this
// session's project, origin and metadata as the store has them, with the
// link; its [Options] are this engine's. Fork holds this engine's lock
// while it writes the child.
//
// The returned engine must be closed by the caller. Errors:
// [ErrMessageIndex], [ErrClosed], [ErrNoStore] (the engine has no
// store), and the store's.
func (e *Engine) Fork(ctx context.Context, at int) (*Engine, error) {
	return e.ForkWith(ctx, at, ForkOptions{})
}

// ForkOptions configures [Engine.ForkWith]. The zero value is
// [Engine.Fork]'s behaviour.
type ForkOptions struct {
	// SessionID is the new session's id. Optional. Defaults to a new
	// [session.NewID]; an id the store has is [session.ErrExists].
	SessionID string
	// Metadata is added to the new session's metadata, over this
	// session's (the link keys [session.MetaParent] and
	// [session.MetaForkAt] are always the fork's own). Optional.
	Metadata map[string]string
}

// ForkWith is [Engine.Fork] with options: the new session's id and
// metadata. Errors are Fork's, and session.ErrInvalidID for a bad
// SessionID.
func (e *Engine) ForkWith(ctx context.Context, at int, fo ForkOptions) (*Engine, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, ErrClosed
	}
	if e.store == nil {
		return nil, fmt.Errorf("agentctx: fork %s: %w", e.id, ErrNoStore)
	}
	n := e.w.Len()
	if at < 0 || at > n {
		return nil, fmt.Errorf("agentctx: fork %s at %d: %w (the window holds %d messages)", e.id, at, ErrMessageIndex, n)
	}
	es, err := e.branchEntries(session.TriggerFork, at, &session.Branch{Parent: e.id, At: at, From: n})
	if err != nil {
		return nil, fmt.Errorf("agentctx: fork %s: %w", e.id, err)
	}
	// The parent's metadata, project and origin as the store has them
	// (a resumed engine's options may lack them).
	parent, err := e.store.Get(ctx, e.id)
	if err != nil {
		return nil, fmt.Errorf("agentctx: fork %s: %w", e.id, err)
	}
	meta := maps.Clone(parent.Metadata)
	if meta == nil {
		meta = map[string]string{}
	}
	maps.Copy(meta, fo.Metadata)
	meta[session.MetaParent] = e.id
	meta[session.MetaForkAt] = strconv.Itoa(at)
	if fo.SessionID != "" {
		if err := session.ValidateID(fo.SessionID); err != nil {
			return nil, fmt.Errorf("agentctx: fork %s: %w", e.id, err)
		}
	}
	s, err := e.store.Create(ctx, session.Session{
		ID: fo.SessionID, Project: cmp.Or(parent.Project, e.opts.Dir), Model: e.info.Name, Origin: parent.Origin, Metadata: meta,
	})
	if err != nil {
		return nil, fmt.Errorf("agentctx: fork %s: %w", e.id, err)
	}
	if _, err := e.store.Append(ctx, s.ID, es...); err != nil {
		return nil, fmt.Errorf("agentctx: fork %s: write %s: %w", e.id, s.ID, err)
	}
	opts := e.opts
	opts.SessionID, opts.ReadOnly, opts.Metadata = "", false, meta
	// The recorded configuration, unchanged: no override is recorded.
	opts.Model, opts.Budget = e.info.Name, e.w.Budget()
	child, err := Resume(ctx, s.ID, opts)
	if err != nil {
		return nil, fmt.Errorf("agentctx: fork %s: %w", e.id, err)
	}
	return child, nil
}

// Rewind returns the session to its first to messages, in
// [Engine.Messages]' numbering (to = 0 empties the window; to =
// len(Messages()) changes nothing and writes nothing). The later
// messages leave the window but not the store: the session records a
// compact boundary whose Trigger is [session.TriggerRewind], followed by
// the kept messages (a snapshot, as a compaction writes one), so a load
// or a [Resume] starts from the rewound window, while the abandoned
// branch stays in the transcript before the boundary
// (session.LoadOptions.All reads it). The tracker, working memory and
// todo list are rebuilt from the kept messages; pins, the reminder
// history, the compaction count and the counters ([Engine.Stats]) stay.
// A request built and not yet sent is forgotten: build it again.
//
// A read-only engine rewinds its window only. Errors: [ErrMessageIndex],
// [ErrClosed], and the store's (then nothing changed).
func (e *Engine) Rewind(ctx context.Context, to int) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return ErrClosed
	}
	n := e.w.Len()
	if to < 0 || to > n {
		return fmt.Errorf("agentctx: rewind %s to %d: %w (the window holds %d messages)", e.id, to, ErrMessageIndex, n)
	}
	if to == n {
		return nil
	}
	es, err := e.branchEntries(session.TriggerRewind, to, &session.Branch{At: to, From: n})
	if err != nil {
		return fmt.Errorf("agentctx: rewind %s: %w", e.id, err)
	}
	if e.rec != nil {
		if err := e.rec.AddEntries(ctx, es...); err != nil {
			return fmt.Errorf("agentctx: rewind %s: %w", e.id, err)
		}
	}
	// Rebuild what the messages made, as a resume of the new live part
	// would.
	calls := e.modelCalls
	if e.tracker != nil {
		e.tracker = e.newTracker()
	}
	e.active, e.todos, e.results = nil, nil, nil
	e.open = tooluse.Pairer[chat.ToolCall]{}
	e.pending, e.reqBuf = nil, prompt.Buffer{}
	e.lastMem, e.lastTracker = counted{}, counted{}
	e.refill = refillState{}
	if err := e.restore(&session.Transcript{Entries: es}); err != nil {
		return fmt.Errorf("agentctx: rewind %s: %w", e.id, err)
	}
	e.modelCalls = calls
	if e.rec != nil {
		// The state a later compaction carries is the rebuilt one.
		st, err := e.state(true)
		if err != nil {
			return err
		}
		e.rec.KeepState(st)
	}
	return nil
}

// branchEntries returns what a fork or rewind writes: a compact boundary
// with trigger and b, the window's first n messages, and a state entry
// holding the configuration and the engine's own state, marked Replay so
// that a resume rebuilds the tracker and working memory from the n
// messages. The caller holds e.mu.
func (e *Engine) branchEntries(trigger string, n int, b *session.Branch) ([]session.Entry, error) {
	es, err := session.Snapshot(e.w, session.CompactMetadata{Trigger: trigger})
	if err != nil {
		return nil, err
	}
	es = es[:1+n]
	meta := *es[0].CompactMetadata
	meta.Messages, meta.PostTokens, meta.Anchor, meta.Branch = n, 0, nil, b
	note := false
	for i := range n {
		meta.PostTokens += e.w.TokensAt(i)
		note = note || e.w.IsNote(i)
	}
	es[0].CompactMetadata = &meta
	raw, err := e.state(true)
	if err != nil {
		return nil, err
	}
	var st savedState
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("agentctx: state: %w", err)
	}
	st.Tracker, st.Workmem, st.Replay = nil, nil, true
	if st.Engine != nil {
		st.Engine.Todos = nil
		if !note {
			// The rehydration block follows a summary the branch drops.
			st.Engine.Rehydration = ""
		}
	}
	raw, err = json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("agentctx: state: %w", err)
	}
	return append(es, session.Entry{Type: session.TypeState, State: raw}), nil
}
