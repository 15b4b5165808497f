package sqlitestore

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"time"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// Append writes entries at the end of session id in one transaction and
// returns them as stored (with the byte Offset each line has in the
// session's JSONL form); see [session.Store.Append]. Each entry is
// filled and encoded by session.EncodeAppend, as package jsonlstore does,
// and its line stored byte for byte. The first write to a session takes
// its lease and keeps it (renewed) until Close or Delete.
//
// Durability follows Options.Sync: the transaction is in the write-ahead
// log (in the page cache) when Append returns; an append that must be
// durable (under SyncTurn one that holds an entry session.SyncsAtTurn
// names: a turn's end, a compact boundary not made locally and
// automatically; under SyncAlways every one) returns only once an fsync of
// the log that started after its commit has ended, an fsync shared with
// the other Stores' writes committed meanwhile (group commit). Errors:
// session.ErrInvalidID, session.ErrNotFound, session.ErrInvalidEntry
// (nothing written), session.ErrSessionBusy, session.ErrClosed,
// ctx.Err() (checked before writing), database errors, the fsync's
// (the entries are then stored but not known durable).
func (s *Store) Append(ctx context.Context, id string, entries ...session.Entry) ([]session.Entry, error) {
	if err := session.ValidateID(id); err != nil {
		return nil, fmt.Errorf("sqlitestore: append: %w", err)
	}
	for i := range entries {
		if err := session.CheckAppend(id, &entries[i]); err != nil {
			return nil, fmt.Errorf("sqlitestore: append %s: entry %d: %w", id, i, err)
		}
	}
	if err := s.check(ctx, "append", id); err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		if _, err := s.getRead(ctx, id); err != nil {
			return nil, fmt.Errorf("sqlitestore: append %s: %w", id, err)
		}
		return nil, nil
	}
	durable := false
	if s.opts.Sync == jsonlstore.SyncTurn {
		for i := range entries {
			durable = durable || session.SyncsAtTurn(&entries[i])
		}
	}
	// The lines are encoded before the writer's lock is taken, after the
	// row this Store last wrote (the row cache), so that other sessions'
	// writes do not wait for the encoding (issue 29: half of an append's
	// time in the lock); in the transaction they are used when the row is
	// still that one, as it is unless another write to the session came
	// in between, and encoded again otherwise.
	pre := s.prepare(id, entries)
	var out []session.Entry
	err := s.leased(ctx, id, durable, func(_ txn, st *state) error {
		w := s.newWriter(ctx, id, st)
		if pre != nil && sameRow(&pre.from, st) {
			out = pre.out
			for i, line := range pre.lines {
				if err := w.insert(&out[i], line); err != nil {
					return fmt.Errorf("entry %d: %w", i, err)
				}
			}
			*st = pre.to
			return w.finish()
		}
		out = slices.Clone(entries)
		for i := range out {
			if err := w.add(&out[i]); err != nil {
				return fmt.Errorf("entry %d: %w", i, err)
			}
		}
		return w.finish()
	})
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: append %s: %w", id, err)
	}
	return out, nil
}

// writer inserts a session's entries in a write transaction (s.wmu
// held) and keeps its row's state.
type writer struct {
	ctx  context.Context
	ws   *wstmts
	id   string
	st   *state
	now  time.Time
	vers string
}

// newWriter returns the writer of session id, whose row st holds, in
// the write transaction.
func (s *Store) newWriter(ctx context.Context, id string, st *state) *writer {
	return &writer{ctx: ctx, ws: &s.ws, id: id, st: st, now: s.now().UTC().Truncate(time.Millisecond), vers: s.opts.Version}
}

// add fills and encodes e and inserts its row.
func (w *writer) add(e *session.Entry) error {
	line, err := w.encode(e)
	if err != nil {
		return err
	}
	return w.insert(e, line)
}

// encode fills and encodes e after the row w.st holds, numbers it
// (Offset, Line) and advances the row past it; it returns the line.
func (w *writer) encode(e *session.Entry) ([]byte, error) {
	st := w.st
	line, err := session.EncodeAppend(e, session.AppendContext{ID: w.id, Prev: st.lastUUID, Now: w.now, Session: &st.sess, Version: w.vers})
	if err != nil {
		return nil, err
	}
	e.Offset = st.size
	e.Line = st.sess.Entries + 1
	st.sess.Observe(*e)
	st.size += int64(len(line)) + 1
	if e.UUID != "" && !e.IsSidechain {
		st.lastUUID = e.UUID
	}
	return line, nil
}

// insert inserts the row of e, encoded and numbered, as line.
func (w *writer) insert(e *session.Entry, line []byte) error {
	_, err := w.ws.insert.ExecContext(w.ctx, w.id, e.Line-1, e.Offset, e.UUID, e.Type, e.IsBoundary(), line)
	return err
}

// prepared holds entries encoded outside the write transaction, after
// the row from: their lines, the entries as stored, and the row after
// them.
type prepared struct {
	from, to state
	lines    [][]byte
	out      []session.Entry
}

// prepare encodes entries after session id's row as this Store last
// wrote it (rowCache), without the writer's lock, or returns nil when no
// row is cached or an entry does not encode (the transaction then
// encodes them, and reports the error).
func (s *Store) prepare(id string, entries []session.Entry) *prepared {
	from, _, ok := s.rows.state(id, s.ttl)
	if !ok {
		return nil
	}
	p := &prepared{from: from, to: from, out: slices.Clone(entries), lines: make([][]byte, len(entries))}
	p.to.sess.Metadata = maps.Clone(from.sess.Metadata)
	w := &writer{id: id, st: &p.to, now: s.now().UTC().Truncate(time.Millisecond), vers: s.opts.Version}
	for i := range p.out {
		line, err := w.encode(&p.out[i])
		if err != nil {
			return nil
		}
		p.lines[i] = line
	}
	return p
}

// sameRow reports whether a and b are the same row of a session.
func sameRow(a, b *state) bool {
	x, y := &a.sess, &b.sess
	return a.size == b.size && a.lastUUID == b.lastUUID && a.gone == b.gone &&
		x.ID == y.ID && x.Project == y.Project && x.Title == y.Title &&
		x.Created.Equal(y.Created) && x.LastActivity.Equal(y.LastActivity) &&
		x.GitBranch == y.GitBranch && x.Model == y.Model && x.Entries == y.Entries &&
		x.Messages == y.Messages && x.PromptTokens == y.PromptTokens && x.Compactions == y.Compactions &&
		x.Origin == y.Origin && maps.Equal(x.Metadata, y.Metadata)
}

// finish stores the session's row as the entries left it.
func (w *writer) finish() error {
	ss := &w.st.sess
	_, err := w.ws.finish.ExecContext(w.ctx,
		ss.Title, nanos(ss.LastActivity), ss.Model, ss.Entries, ss.Messages, ss.PromptTokens, ss.Compactions,
		w.st.size, w.st.lastUUID, w.id)
	return err
}

// Import creates session in with all its entries in one transaction, so
// that a crash or a kill part-way leaves no session at all; see
// [session.Importer]. entries yields the entries in order; a non-nil
// error stops the import, nothing is stored and the error is returned.
// Each entry is filled and encoded as Append does; the metadata is as
// Create stores it. The session is not leased afterwards. The
// transaction holds SQLite's write lock while entries are read: other
// writers of the file wait (busy_timeout) meanwhile.
//
// Errors: session.ErrInvalidID, session.ErrExists (nothing was changed),
// session.ErrInvalidEntry (naming the entry's index), session.ErrClosed,
// ctx.Err(), entries' error, database errors.
func (s *Store) Import(ctx context.Context, in session.Session, entries iter.Seq2[session.Entry, error]) (session.Session, error) {
	id := in.ID
	if id == "" {
		id = session.NewID()
	}
	if err := s.check(ctx, "import", id); err != nil {
		return session.Session{}, err
	}
	fail := func(err error) (session.Session, error) {
		return session.Session{}, fmt.Errorf("sqlitestore: import %s: %w", id, err)
	}
	sess, err := s.newSession(id, in)
	if err != nil {
		return fail(err)
	}
	st := &state{sess: sess}
	durable := s.opts.Sync != jsonlstore.SyncNever
	err = s.write(ctx, durable, func(tx txn) error {
		if err := insertSession(ctx, tx, sess); err != nil {
			return err
		}
		w := s.newWriter(ctx, id, st)
		n := 0
		for e, err := range entries {
			if err != nil {
				return err
			}
			if n%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if err := session.CheckAppend(id, &e); err != nil {
				return fmt.Errorf("entry %d: %w", n, err)
			}
			if err := w.add(&e); err != nil {
				return fmt.Errorf("entry %d: %w", n, err)
			}
			n++
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return w.finish()
	}, nil)
	if err != nil {
		return fail(err)
	}
	return cloneSession(st.sess), nil
}
