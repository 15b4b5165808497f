package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// NewStateEntry returns a [TypeState] entry whose [Entry.State] is state
// encoded as JSON (without HTML escaping), with the fields a [Store] fills
// (UUID, parent, session, time) left empty. state may be a
// json.RawMessage, which is checked and compacted onto one line. It
// returns an error wrapping [ErrInvalidEntry] when state cannot be
// encoded, is not valid JSON, or is JSON null.
func NewStateEntry(state any) (Entry, error) {
	raw, err := encodeState(state)
	if err != nil {
		return Entry{}, fmt.Errorf("session: state entry: %w", err)
	}
	return Entry{Type: TypeState, State: raw}, nil
}

// encodeState returns state as compact JSON, or an error wrapping
// [ErrInvalidEntry].
func encodeState(state any) (json.RawMessage, error) {
	var b []byte
	switch s := state.(type) {
	case json.RawMessage:
		b = s
	case []byte:
		b = s
	default:
		var err error
		if b, err = jsonx.MarshalNoEscape(state); err != nil {
			return nil, fmt.Errorf("%w: state: %w", ErrInvalidEntry, err)
		}
	}
	var out []byte
	if compactJSON(b) {
		// What json.Compact would return (an Engine's state, encoded
		// compact, always is): no second pass over it.
		out = bytes.Clone(b)
	} else {
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			return nil, fmt.Errorf("%w: state is not valid JSON: %w", ErrInvalidEntry, err)
		}
		out = buf.Bytes()
	}
	if len(out) == 0 || isNull(out) {
		return nil, fmt.Errorf("%w: state is null", ErrInvalidEntry)
	}
	return out, nil
}

// LastState returns the state of the last [TypeState] entry of entries
// that is not on a side chain, and true; nil and false when there is
// none. entries are the live entries as [Store.Load] returns them (from
// the last compact boundary on): [Recorder.Compacted] re-writes the last
// state after each snapshot, so the latest state is always among them.
// The returned bytes are shared with the entry. O(n) from the end; never
// fails.
func LastState(entries []Entry) (json.RawMessage, bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		e := &entries[i]
		if e.Type == TypeState && !e.IsSidechain && len(e.State) > 0 && !isNull(e.State) {
			return e.State, true
		}
	}
	return nil, false
}

// SaveState records state, the engine's working-memory state (for example
// {"tracker": …, "workmem": …}), as one [TypeState] entry
// ([NewStateEntry]) in one [Store.Append], and remembers it: the next
// [Recorder.Compacted] writes it again after its snapshot. The Recorder
// remembers the state only once it is written. Errors wrap
// [ErrInvalidEntry] for a state that is not valid JSON, or are the
// store's, wrapped.
func (r *Recorder) SaveState(ctx context.Context, state any) error {
	e, err := NewStateEntry(state)
	if err != nil {
		return fmt.Errorf("session: record %s: %w", r.id, err)
	}
	if _, err := r.store.Append(ctx, r.id, e); err != nil {
		return fmt.Errorf("session: record %s: state: %w", r.id, err)
	}
	r.state = e.State
	r.lag = 0
	return nil
}

// ContentBytes returns the bytes of content entry e holds: its message,
// its tool call's input, its tool result's output and its state, as
// JSON. It is the measure of [Recorder.Lag] and [StateLag].
func ContentBytes(e *Entry) int {
	n := len(e.Message) + len(e.State)
	if e.Tool != nil {
		n += len(e.Tool.Input)
	}
	if e.ToolResult != nil {
		n += len(e.ToolResult.Output)
	}
	return n
}

// StateLag returns the content, in bytes ([ContentBytes]), of the
// entries after the last [TypeState] entry among entries (all of them
// when there is none), side chains aside: what [Recorder.Lag] counted
// when the process that wrote them stopped.
func StateLag(entries []Entry) int {
	n := 0
	for i := len(entries) - 1; i >= 0; i-- {
		e := &entries[i]
		if e.IsSidechain {
			continue
		}
		if e.Type == TypeState {
			break
		}
		n += ContentBytes(e)
	}
	return n
}

// KeepState makes the Recorder remember state, as if [Recorder.SaveState]
// had written it, without writing anything: a process that resumed a
// session passes the [LastState] it loaded, so that its next
// [Recorder.Compacted] carries the state over even if it has saved none
// since. A nil or empty state forgets the remembered one. state is
// copied; it is not validated here ([Recorder.Compacted] then fails with
// [ErrInvalidEntry] when it is not valid JSON).
func (r *Recorder) KeepState(state json.RawMessage) {
	if len(state) == 0 {
		r.state = nil
		return
	}
	r.state = slices.Clone(state)
}
