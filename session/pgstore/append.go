package pgstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/agentctx/agentctx/session"
)

// Append writes entries at the end of session id in one transaction and
// returns them as stored (Offset is the line's byte offset in the
// session's JSONL form, Line its 1-based number); see
// [session.Store.Append]. The transaction locks the session's row, checks
// that no other Store holds a live lease on it, takes or renews this
// Store's lease, inserts one row per entry and updates the metadata; it
// commits before Append returns, so a server killed afterwards loses
// nothing. Entries are filled as jsonlstore fills them
// ([session.EncodeAppend]).
//
// Errors: session.ErrInvalidID, session.ErrNotFound,
// session.ErrInvalidEntry (nothing written; also a line that is not
// valid JSON), session.ErrSessionBusy (after Options.LockTimeout),
// session.ErrClosed, ctx.Err(), SQL errors (nothing written).
func (s *Store) Append(ctx context.Context, id string, entries ...session.Entry) ([]session.Entry, error) {
	if err := s.check(ctx, "append", id, true); err != nil {
		return nil, err
	}
	for i := range entries {
		if err := session.CheckAppend(id, &entries[i]); err != nil {
			return nil, wrap("append", id, fmt.Errorf("entry %d: %w", i, err))
		}
	}
	if len(entries) == 0 {
		return nil, s.Sync(ctx, id) // ErrNotFound as for a batch
	}
	var out []session.Entry
	err := s.write(ctx, "append", id, func(r *row, q *pgx.Batch) error {
		out = slices.Clone(entries)
		var b batch
		now := s.c.now().UTC().Truncate(time.Millisecond)
		for i := range out {
			if err := b.add(&out[i], r, now, s.c.version); err != nil {
				return errFn{fmt.Errorf("entry %d: %w", i, err)}
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		s.queueInsert(q, id, &b)
		s.queueSave(q, r, true)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// batch is the rows of entries about to be inserted, as insert's
// arrays.
type batch struct {
	seq, off []int64
	uuid     []string
	boundary []bool
	entry    []*string
	line     [][]byte
}

// add encodes e as the next line of the session r describes, appends it
// to b and observes it in r (size, last uuid, metadata). e gets its
// Offset and Line. Errors: session.ErrInvalidEntry.
func (b *batch) add(e *session.Entry, r *row, now time.Time, version string) error {
	line, err := session.EncodeAppend(e, session.AppendContext{ID: r.sess.ID, Prev: r.lastUUID, Now: now, Session: &r.sess, Version: version})
	if err != nil {
		return err
	}
	if !json.Valid(line) {
		return fmt.Errorf("%w: line of type %q is not valid JSON", session.ErrInvalidEntry, e.Type)
	}
	e.Offset, e.Line = r.size, r.sess.Entries+1
	b.seq = append(b.seq, int64(e.Line))
	b.off = append(b.off, e.Offset)
	b.uuid = append(b.uuid, e.UUID)
	b.boundary = append(b.boundary, e.IsBoundary())
	b.entry = append(b.entry, jsonbArg(line))
	b.line = append(b.line, line)
	r.size += int64(len(line)) + 1
	if e.UUID != "" && !e.IsSidechain { // the next entry's parent
		r.lastUUID = e.UUID
	}
	r.sess.Observe(*e)
	return nil
}

// len returns the number of rows in b.
func (b *batch) len() int { return len(b.seq) }

// reset empties b, keeping its arrays.
func (b *batch) reset() {
	b.seq, b.off, b.uuid, b.boundary, b.entry, b.line = b.seq[:0], b.off[:0], b.uuid[:0], b.boundary[:0], b.entry[:0], b.line[:0]
}

// jsonbArg returns line as the text of the entry column, or nil (NULL)
// when PostgreSQL's jsonb cannot hold it: invalid UTF-8, or a \u0000
// escape (jsonb refuses it; a line that only looks like one, an escaped
// backslash before "u0000", is left NULL too, which costs nothing but
// the query column).
func jsonbArg(line []byte) *string {
	if !utf8.Valid(line) || bytes.Contains(line, []byte(`\u0000`)) {
		return nil
	}
	s := string(line)
	return &s
}

// insert inserts b's rows into session id's entries in one statement.
func (s *Store) insert(ctx context.Context, tx pgx.Tx, id string, b *batch) error {
	q := &pgx.Batch{}
	s.queueInsert(q, id, b)
	return tx.SendBatch(ctx, q).Close()
}

// queueInsert queues the statement that inserts b's rows into session
// id's entries.
func (s *Store) queueInsert(q *pgx.Batch, id string, b *batch) {
	q.Queue(s.c.q(`INSERT INTO {s}.entries (tenant, session_id, seq, off, uuid, boundary, entry, line)
		SELECT $1, $2, u.seq, u.off, u.uuid, u.boundary, u.entry::jsonb, u.line
		FROM unnest($3::bigint[], $4::bigint[], $5::text[], $6::boolean[], $7::text[], $8::bytea[]) AS u(seq, off, uuid, boundary, entry, line)`),
		s.tenant, id, b.seq, b.off, b.uuid, b.boundary, b.entry, b.line)
}

// saveRow writes r's metadata, size and last uuid to its sessions row,
// and with lease takes or renews this Store's lease.
func (s *Store) saveRow(ctx context.Context, tx pgx.Tx, r *row, lease bool) error {
	q := &pgx.Batch{}
	s.queueSave(q, r, lease)
	return tx.SendBatch(ctx, q).Close()
}

// queueSave queues saveRow's statement.
func (s *Store) queueSave(q *pgx.Batch, r *row, lease bool) {
	sess := &r.sess
	sess.Title, sess.Model = pgText(sess.Title), pgText(sess.Model)
	query := `UPDATE {s}.sessions SET title = $3, last_activity = $4, model = $5, entry_count = $6, message_count = $7,
		prompt_tokens = $8, compactions = $9, size = $10, last_uuid = $11`
	args := []any{s.tenant, sess.ID, sess.Title, sess.LastActivity, sess.Model, sess.Entries, sess.Messages,
		sess.PromptTokens, sess.Compactions, r.size, r.lastUUID}
	if lease {
		query += `, lease_owner = $12, lease_expires = clock_timestamp() + $13 * interval '1 microsecond'`
		args = append(args, s.c.owner, s.c.ttl.Microseconds())
	}
	q.Queue(s.c.q(query+` WHERE tenant = $1 AND id = $2`), args...)
}

// importBatch is how many entries Import inserts per statement.
const importBatch = 512

// Import creates session in with all its entries in one transaction, so
// that a crash or a kill part-way leaves no session at all; see
// [session.Importer]: `agentctx sessions import` and [session.Copy] use
// it. entries yields the
// entries in file order; a non-nil error stops the import, nothing is
// stored and the error is returned. Each entry is filled and stored as
// Append does (a line read from a file is kept byte for byte), in
// statements of 512 rows: memory does not grow with the session. The
// metadata is as Create stores it; the session is not leased afterwards.
//
// Errors: session.ErrInvalidID, session.ErrExists (nothing changed),
// session.ErrInvalidEntry (naming the entry's index), session.ErrClosed,
// ctx.Err(), entries' error, SQL errors.
func (s *Store) Import(ctx context.Context, in session.Session, entries iter.Seq2[session.Entry, error]) (session.Session, error) {
	id := in.ID
	if id == "" {
		id = session.NewID()
	}
	if err := s.check(ctx, "import", id, true); err != nil {
		return session.Session{}, err
	}
	sess, err := s.newSession(id, in)
	if err != nil {
		return session.Session{}, wrap("import", id, err)
	}
	r := row{sess: sess}
	err = pgx.BeginFunc(ctx, s.c.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, s.c.q(`INSERT INTO {s}.sessions (tenant, id, project, title, created, last_activity, git_branch, model, origin, metadata)
			VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`),
			s.tenant, id, sess.Project, sess.Title, sess.Created, sess.GitBranch, sess.Model, sess.Origin, metadataArg(sess.Metadata))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return session.ErrExists
		}
		now := s.c.now().UTC().Truncate(time.Millisecond)
		var b batch
		n := 0
		for e, err := range entries {
			if err != nil {
				return errFn{err}
			}
			err := session.CheckAppend(id, &e)
			if err == nil {
				err = b.add(&e, &r, now, s.c.version)
			}
			if err != nil {
				return errFn{fmt.Errorf("entry %d: %w", n, err)}
			}
			n++
			if b.len() == importBatch {
				if err := s.insert(ctx, tx, id, &b); err != nil {
					return err
				}
				b.reset()
			}
		}
		if b.len() > 0 {
			if err := s.insert(ctx, tx, id, &b); err != nil {
				return err
			}
		}
		return s.saveRow(ctx, tx, &r, false)
	})
	if err != nil {
		var fe errFn
		if errors.As(err, &fe) {
			return session.Session{}, wrap("import", id, fe.err)
		}
		if isUniqueViolation(err) {
			err = session.ErrExists
		}
		return session.Session{}, fail(ctx, "import", id, err)
	}
	return cloneSession(r.sess), nil
}
