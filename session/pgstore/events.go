package pgstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentctx/agentctx/session"
)

// A session's events are what a server did for it (compactions,
// reminders, usage: package server's Event), kept in the events table so
// that a client following a session through any server of a fleet sees
// the events of every server. AppendEvents numbers them per session and
// sends a PostgreSQL notification (NOTIFY) carrying the session and the
// last number only; a listener ([Store.ListenEvents]) wakes the
// subscribers, which read the events from the table ([Store.ReadEvents]).
// A lost notification (a listener reconnecting, a full queue) therefore
// loses no event: the next read, prompted by the next notification, a
// reconnection or a subscriber's periodic catch-up, returns it.

// MaxEventBytes is the largest event a session can append, in bytes
// (1 MiB): events are small JSON records.
const MaxEventBytes = 1 << 20

// eventNote is the payload of an event notification: the session (its
// tenant and id) and the sequence number of its last event. It stays far
// below PostgreSQL's 8,000-byte payload limit (ids are at most
// session.MaxIDLength bytes, tenants MaxTenantLength).
type eventNote struct {
	Tenant  string `json:"t"`
	Session string `json:"s"`
	Seq     int64  `json:"n"`
}

// eventChannel is the notification channel of schema: "agentctx_events_"
// and the schema's name, or a hash of it when that would pass
// PostgreSQL's 63-byte identifier limit.
func eventChannel(schema string) string {
	ch := "agentctx_events_" + schema
	if len(ch) > 63 {
		sum := sha256.Sum256([]byte(schema))
		ch = "agentctx_events_" + hex.EncodeToString(sum[:16])
	}
	return ch
}

// AppendEvents stores events (each one JSON value, at most MaxEventBytes)
// as session id's next events, numbered on from the last, and notifies
// every listener of the schema, all in one transaction: the notification
// is delivered on commit, after the rows are readable. It does not need
// the session's writer lease (events are not transcript entries; two
// servers may add events to one session, each gets its own numbers). It
// returns the sequence number of the last event stored. Errors:
// session.ErrInvalidID, session.ErrNotFound, session.ErrClosed, an event
// too large or not JSON, ctx.Err(), SQL errors.
func (s *Store) AppendEvents(ctx context.Context, id string, events [][]byte) (int64, error) {
	if err := s.check(ctx, "append events", id, true); err != nil {
		return 0, err
	}
	for i, e := range events {
		if len(e) > MaxEventBytes || !json.Valid(e) {
			return 0, wrap("append events", id, fmt.Errorf("event %d: want JSON of at most %d bytes (%d bytes)", i, MaxEventBytes, len(e)))
		}
	}
	if len(events) == 0 {
		return s.LastEvent(ctx, id)
	}
	var last int64
	err := pgx.BeginFunc(ctx, s.c.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, s.c.q(`UPDATE {s}.sessions SET event_seq = event_seq + $3 WHERE tenant = $1 AND id = $2 RETURNING event_seq`),
			s.tenant, id, len(events)).Scan(&last)
		if err != nil {
			return notFound(err)
		}
		if _, err := tx.Exec(ctx, s.c.q(`INSERT INTO {s}.events (tenant, session_id, seq, data)
			SELECT $1, $2, $3 + u.n, u.d FROM unnest($4::bytea[]) WITH ORDINALITY AS u(d, n)`),
			s.tenant, id, last-int64(len(events)), events); err != nil {
			return err
		}
		note, err := json.Marshal(eventNote{Tenant: s.tenant, Session: id, Seq: last})
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "SELECT pg_notify($1, $2)", eventChannel(s.c.schema), string(note))
		return err
	})
	if err != nil {
		return 0, fail(ctx, "append events", id, err)
	}
	return last, nil
}

// LastEvent returns the sequence number of session id's last event, 0
// when it has none. Errors: session.ErrInvalidID, session.ErrNotFound,
// session.ErrClosed, ctx.Err(), SQL errors.
func (s *Store) LastEvent(ctx context.Context, id string) (int64, error) {
	if err := s.check(ctx, "last event", id, true); err != nil {
		return 0, err
	}
	var last int64
	err := s.c.pool.QueryRow(ctx, s.c.q(`SELECT event_seq FROM {s}.sessions WHERE tenant = $1 AND id = $2`), s.tenant, id).Scan(&last)
	if err != nil {
		return 0, fail(ctx, "last event", id, notFound(err))
	}
	return last, nil
}

// ReadEvents calls fn with session id's events numbered after after, in
// order, at most limit of them (all when limit ≤ 0), and stops at fn's
// first error, which it returns. Errors: session.ErrInvalidID,
// session.ErrNotFound (when it has no such events and no such session:
// a subscriber's stream ends), session.ErrClosed, ctx.Err(), SQL errors.
func (s *Store) ReadEvents(ctx context.Context, id string, after int64, limit int, fn func(seq int64, data []byte) error) error {
	if err := s.check(ctx, "read events", id, true); err != nil {
		return err
	}
	query := `SELECT seq, data FROM {s}.events WHERE tenant = $1 AND session_id = $2 AND seq > $3 ORDER BY seq`
	if limit > 0 {
		query += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := s.c.pool.Query(ctx, s.c.q(query), s.tenant, id, after)
	if err != nil {
		return fail(ctx, "read events", id, err)
	}
	n := 0
	var seq int64
	var data []byte
	_, err = pgx.ForEachRow(rows, []any{&seq, &data}, func() error {
		n++
		return fn(seq, data)
	})
	if err != nil {
		return fail(ctx, "read events", id, err)
	}
	if n == 0 {
		if _, err := s.LastEvent(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// Backoffs of ListenEvents' reconnections.
const (
	listenMinBackoff = 100 * time.Millisecond
	listenMaxBackoff = 5 * time.Second
)

// ListenEvents listens for the event notifications of the Store's
// tenant (every session's AppendEvents, from any process on the schema)
// on a connection of its own, outside the pool, and calls fn(id, seq)
// for each: session id has events up to seq. After each connection,
// the first included, it calls fn("", 0): notifications sent while it
// was not listening are lost, and the caller catches up on every session
// it follows. A lost connection is reopened after a backoff (100 ms
// doubling to 5 s), logged at warning level. fn runs on ListenEvents'
// goroutine: it must not block. It returns when ctx ends (nil) or the
// Store closes (session.ErrClosed).
func (s *Store) ListenEvents(ctx context.Context, fn func(id string, seq int64)) error {
	if err := s.check(ctx, "listen events", "", false); err != nil {
		return err
	}
	// The Store's closing ends the listener too.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.c.done, cancel)
	defer stop()
	backoff := listenMinBackoff
	for {
		err := s.listen(ctx, fn, func() { backoff = listenMinBackoff })
		if ctx.Err() != nil {
			if s.c.closed.Load() {
				return wrap("listen events", "", session.ErrClosed)
			}
			return nil
		}
		s.c.log.Warn("pgstore: listening for events", "err", err, "retry_in", backoff.String())
		select {
		case <-ctx.Done():
			continue
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, listenMaxBackoff)
	}
}

// listen is one connection of ListenEvents: it returns the error that
// ended it. connected is called once the LISTEN is in force.
func (s *Store) listen(ctx context.Context, fn func(string, int64), connected func()) error {
	conn, err := pgx.ConnectConfig(ctx, s.c.pool.Config().ConnConfig)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{eventChannel(s.c.schema)}.Sanitize()); err != nil {
		return err
	}
	connected()
	fn("", 0)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		var note eventNote
		if err := json.Unmarshal([]byte(n.Payload), &note); err != nil {
			s.c.log.Warn("pgstore: an event notification that is not agentctx's", "payload", n.Payload, "err", err)
			continue
		}
		if note.Tenant == s.tenant {
			fn(note.Session, note.Seq)
		}
	}
}
