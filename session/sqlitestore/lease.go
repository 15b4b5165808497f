package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// lockRetry is how often a write waiting for a lease (Options.LockTimeout)
// tries again.
const lockRetry = 10 * time.Millisecond

// state is a session's row as a write transaction reads it.
type state struct {
	sess     session.Session
	size     int64  // bytes of the JSONL form
	lastUUID string // the next entry's parent
	// gone is set by a write that deletes the row: it is not cached.
	gone bool
}

// expiry returns the lease expiry of a lease taken or renewed now, in
// Unix milliseconds.
func (s *Store) expiry() int64 { return time.Now().Add(s.ttl).UnixMilli() }

// write runs fn in an immediate transaction on the write connection and
// commits it, then calls committed (when not nil) with the writer's lock
// still held. A durable write (durable, or every write under
// SyncAlways) then waits, without holding the writer, until an fsync of
// the write-ahead log covers its commit (syncTo): writes that end
// together share one fsync. ctx is checked before the transaction
// starts; neither the commit nor that wait is canceled by ctx. Errors:
// ctx.Err(), session.ErrClosed, fn's error, database errors, the
// fsync's (then the write is committed but not known durable).
func (s *Store) write(ctx context.Context, durable bool, fn func(tx txn) error, committed func()) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.wmu.Lock()
	if s.wconn == nil || s.closed() {
		s.wmu.Unlock()
		return session.ErrClosed
	}
	n, err := s.writeLocked(ctx, fn)
	if err == nil && committed != nil {
		committed()
	}
	durable = err == nil && (durable || s.opts.Sync == jsonlstore.SyncAlways)
	if durable {
		s.syncing.Add(1) // Close waits for it before closing the log
	}
	s.wmu.Unlock()
	if !durable {
		return err
	}
	defer s.syncing.Done()
	return s.syncTo(n)
}

// writeLocked is write with s.wmu held and the store open, without the
// wait for durability: it returns the commit's number (Store.commits).
// The transaction runs on the writer's connection between BEGIN
// IMMEDIATE and COMMIT, statements prepared once (wstmts).
func (s *Store) writeLocked(ctx context.Context, fn func(tx txn) error) (int64, error) {
	bg := context.WithoutCancel(ctx)
	if _, err := s.ws.begin.ExecContext(bg); err != nil {
		return 0, dbError(err)
	}
	if err := fn(s.wconn); err != nil {
		_, _ = s.ws.rollback.ExecContext(bg)
		return 0, dbError(err)
	}
	if _, err := s.ws.commit.ExecContext(bg); err != nil {
		// SQLite may have left the transaction open: end it.
		_, _ = s.ws.rollback.ExecContext(bg)
		return 0, dbError(err)
	}
	return s.commits.Add(1), nil
}

// txn is what a write transaction's statements run on: the writer's
// connection between BEGIN IMMEDIATE and COMMIT (writeLocked).
type txn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// wstmts are the statements every Append runs, prepared once on the
// writer's connection: preparing them in each transaction (SQLite
// parsing the SQL) was about a quarter of the writer's time under
// load, time every other session's write waited for.
type wstmts struct {
	begin, commit, rollback *sql.Stmt
	leaseRow                *sql.Stmt // takeLease's read of the row
	lease                   *sql.Stmt // takeLease's update
	insert                  *sql.Stmt // writer.add's
	finish                  *sql.Stmt // writer.finish's
}

// prepare prepares the statements on conn. Errors: SQLite's (naming
// the statement).
func (w *wstmts) prepare(ctx context.Context, conn *sql.Conn) error {
	for _, p := range []struct {
		st  **sql.Stmt
		sql string
	}{
		{&w.begin, `BEGIN IMMEDIATE`},
		{&w.commit, `COMMIT`},
		{&w.rollback, `ROLLBACK`},
		{&w.leaseRow, `SELECT ` + sessionCols + `, size, last_uuid, lease_owner, lease_expires FROM sessions WHERE id = ?`},
		{&w.lease, `UPDATE sessions SET lease_owner = ?, lease_expires = ? WHERE id = ?`},
		{&w.insert, `INSERT INTO entries (session_id, seq, off, uuid, type, boundary, line) VALUES (?, ?, ?, ?, ?, ?, ?)`},
		{&w.finish, `UPDATE sessions SET title = ?, last_activity = ?, model = ?, entries = ?, messages = ?,
			prompt_tokens = ?, compactions = ?, size = ?, last_uuid = ? WHERE id = ?`},
	} {
		st, err := conn.PrepareContext(ctx, p.sql)
		if err != nil {
			return fmt.Errorf("preparing %.40q: %w", p.sql, err)
		}
		*p.st = st
	}
	return nil
}

// close closes the statements prepared.
func (w *wstmts) close() error {
	var errs []error
	for _, st := range []*sql.Stmt{w.begin, w.commit, w.rollback, w.leaseRow, w.lease, w.insert, w.finish} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(errs...)
}

// leased runs fn in a write transaction that holds session id's lease:
// it takes the lease when it is free or expired, renews it when this
// Store holds it, and fails with session.ErrSessionBusy when another
// Store does, after waiting up to Options.LockTimeout. The lease is
// kept after the transaction, until Close or Delete. Errors:
// session.ErrNotFound, session.ErrSessionBusy, those of write.
func (s *Store) leased(ctx context.Context, id string, durable bool, fn func(tx txn, st *state) error) error {
	deadline := time.Now().Add(s.opts.LockTimeout)
	for {
		var (
			st     *state
			leased time.Time
		)
		err := s.write(ctx, durable, func(tx txn) error {
			var err error
			if st, leased, err = s.takeLease(ctx, id); err != nil {
				return err
			}
			return fn(tx, st)
		}, func() {
			if st.gone {
				s.rows.drop(id)
			} else {
				s.rows.put(id, *st, leased)
			}
		})
		wait := time.Until(deadline)
		if !errors.Is(err, session.ErrSessionBusy) || wait <= 0 {
			return err
		}
		t := time.NewTimer(min(lockRetry, wait))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// takeLease returns session id's row as the write transaction reads it,
// with its lease held (s.wmu held), and when the lease was last written
// by this Store (for rowCache).
//
// While the row cache says the lease is surely still this Store's (see
// rowCache: written or renewed less than two thirds of its lifetime
// ago), the row is the one cached and nothing is read or written: no
// other Store can have changed the row or taken the lease, and none can
// before this transaction commits, since taking a lease is a write and
// this transaction holds SQLite's write lock. The renewal loop (renew)
// keeps the lease. This saves an append two of its five statements, the
// point read of the row and the lease's update (issue 29: the store's
// transaction was a fifth of the service's CPU under load). Otherwise
// the row is read and the lease taken or renewed. Errors:
// session.ErrNotFound, session.ErrSessionBusy, database errors.
func (s *Store) takeLease(ctx context.Context, id string) (*state, time.Time, error) {
	if s.held[id] {
		if st, leased, ok := s.rows.state(id, s.ttl); ok {
			return &st, leased, nil
		}
	}
	var (
		st      state
		owner   sql.NullString
		expires int64
	)
	begun := time.Now()
	r := s.ws.leaseRow.QueryRowContext(ctx, id)
	sess, err := scanSession(scanTail{r, []any{&st.size, &st.lastUUID, &owner, &expires}})
	if errors.Is(err, sql.ErrNoRows) {
		delete(s.held, id)
		s.rows.drop(id)
		return nil, time.Time{}, session.ErrNotFound
	}
	if err != nil {
		return nil, time.Time{}, err
	}
	st.sess = sess
	if owner.Valid && owner.String != s.owner && expires > time.Now().UnixMilli() {
		delete(s.held, id) // lost to another writer after it expired
		s.rows.drop(id)
		return nil, time.Time{}, fmt.Errorf("%w (its lease expires in %v unless renewed)", session.ErrSessionBusy,
			time.Until(time.UnixMilli(expires)).Round(time.Millisecond))
	}
	if _, err := s.ws.lease.ExecContext(ctx, s.owner, s.expiry(), id); err != nil {
		return nil, time.Time{}, err
	}
	s.held[id] = true
	return &st, begun, nil
}

// scanTail scans the columns of sessionCols and then extra ones.
type scanTail struct {
	r     row
	extra []any
}

// Scan implements row: dest (sessionCols') then t.extra.
func (t scanTail) Scan(dest ...any) error {
	return t.r.Scan(append(dest, t.extra...)...)
}

// Lock takes session id's lease now, as the first Append would, and
// keeps it as that Append would: until Close or Delete. It implements
// [session.Locker]. Nothing is written but the lease. Errors:
// session.ErrInvalidID, session.ErrNotFound, session.ErrSessionBusy
// (after Options.LockTimeout), session.ErrClosed, ctx.Err().
func (s *Store) Lock(ctx context.Context, id string) error {
	if err := s.check(ctx, "lock", id); err != nil {
		return err
	}
	if err := s.leased(ctx, id, false, func(txn, *state) error { return nil }); err != nil {
		return fmt.Errorf("sqlitestore: lock %s: %w", id, err)
	}
	return nil
}

// renew renews this Store's leases every third of their lifetime until
// Close. A failed renewal is logged; the next write notices a lease
// lost meanwhile (session.ErrSessionBusy).
func (s *Store) renew() {
	defer close(s.renewDone)
	t := time.NewTicker(s.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-s.closing:
			return
		case <-t.C:
		}
		s.wmu.Lock()
		if len(s.held) > 0 && s.wconn != nil {
			// A renewal needs no fsync of its own.
			ctx := context.Background()
			begun := time.Now()
			all := false
			_, err := s.writeLocked(ctx, func(tx txn) error {
				exp := s.expiry()
				if _, err := tx.ExecContext(ctx, `UPDATE sessions SET lease_expires = ? WHERE lease_owner = ?`, exp, s.owner); err != nil {
					return err
				}
				// Counted as the database now has them, rather than the
				// rows the update matched: what the cached rows and the
				// appends that skip the lease (takeLease) rely on is that
				// every held lease expires at exp.
				var n int
				if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE lease_owner = ? AND lease_expires = ?`, s.owner, exp).Scan(&n); err != nil {
					return err
				}
				all = n == len(s.held)
				return nil
			})
			if err == nil && all {
				// Every held lease is still this Store's, now renewed: a
				// lease another Store took while this one stalled is not
				// renewed by the update (its owner differs), and then the
				// cached rows age out.
				s.rows.renewal(begun)
			}
			if err != nil {
				s.log.Warn("sqlitestore: renewing leases", "file", s.path, "err", err)
			}
		}
		s.wmu.Unlock()
	}
}
