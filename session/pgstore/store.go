package pgstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentctx/agentctx/session"
)

var (
	_ session.Store  = (*Store)(nil)
	_ session.Locker = (*Store)(nil)
)

// errNoProject is returned by Create for a session without a project.
var errNoProject = errors.New("no project path")

// Store is the PostgreSQL session store: a view of one tenant over a
// connection pool shared with the views [Store.WithTenant] returns. It is
// safe for concurrent use; appends to one session are serialized by its
// row lock, appends to different sessions run in parallel.
type Store struct {
	c      *core
	tenant string
	root   bool // the Store Open returned: its Close closes the pool
	closed atomic.Bool
}

// core is what the views of one Open share.
type core struct {
	pool    *pgxpool.Pool
	schema  string
	sql     *strings.Replacer // "{s}." → the quoted schema and a dot
	owner   uuid.UUID         // this Store's lease owner id
	ttl     time.Duration
	wait    time.Duration // Options.LockTimeout
	version string
	now     func() time.Time
	branch  func(string) string
	log     *slog.Logger

	closed  atomic.Bool
	done    context.Context    // ends when the pool closes (shutdown)
	stop    context.CancelFunc // stops the renewer, ends done
	renewed sync.WaitGroup
}

// Open connects to PostgreSQL (opts.DSN), creates or migrates the
// store's schema (see the package documentation) and starts renewing the
// leases the Store will hold. ctx bounds the connection and the
// migration, not the Store. Errors: ErrInvalidOptions, ErrSchemaTooNew, a
// DSN pgx cannot parse, connection and SQL errors.
func Open(ctx context.Context, opts Options) (*Store, error) {
	schema := opts.Schema
	if schema == "" {
		schema = DefaultSchema
	}
	if err := checkSchema(schema); err != nil {
		return nil, err
	}
	if err := checkTenant(opts.Tenant); err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(opts.DSN)
	if err != nil {
		return nil, fmt.Errorf("pgstore: open: %w", err)
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: open: %w", err)
	}
	if err := migrate(ctx, pool, schema); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: open: migrate schema %s: %w", schema, err)
	}
	c := &core{
		pool:    pool,
		schema:  schema,
		sql:     strings.NewReplacer("{s}.", pgx.Identifier{schema}.Sanitize()+"."),
		owner:   uuid.New(),
		ttl:     max(opts.LeaseTTL, 0),
		wait:    max(opts.LockTimeout, 0),
		version: opts.Version,
		now:     opts.Now,
		branch:  opts.GitBranch,
		log:     opts.Logger,
	}
	if c.ttl == 0 {
		c.ttl = DefaultLeaseTTL
	}
	c.ttl = max(c.ttl, time.Second)
	if c.now == nil {
		c.now = time.Now
	}
	if c.branch == nil {
		c.branch = func(string) string { return "" }
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	rctx, stop := context.WithCancel(context.Background())
	c.done, c.stop = rctx, stop
	c.renewed.Go(func() { c.renew(rctx) })
	return &Store{c: c, tenant: opts.Tenant, root: true}, nil
}

// WithTenant returns a view of the store scoped to tenant, sharing its
// pool and leases: what a server uses per request. Closing the view
// releases its tenant's leases and ends the view only; closing the Store
// Open returned ends every view. Errors: ErrInvalidOptions for a bad
// tenant name.
func (s *Store) WithTenant(tenant string) (*Store, error) {
	if err := checkTenant(tenant); err != nil {
		return nil, err
	}
	return &Store{c: s.c, tenant: tenant}, nil
}

// Tenant returns the tenant the Store is scoped to.
func (s *Store) Tenant() string { return s.tenant }

// Schema returns the PostgreSQL schema holding the store's tables.
func (s *Store) Schema() string { return s.c.schema }

// Pool returns the store's connection pool, for health checks
// (/readyz pings it). Do not close it: Close does.
func (s *Store) Pool() *pgxpool.Pool { return s.c.pool }

// q returns query with "{s}." replaced by the quoted schema.
func (c *core) q(query string) string { return c.sql.Replace(query) }

// check returns ctx's error or session.ErrClosed, wrapped with op and id
// (id may be ""), after validating id when it is not "".
func (s *Store) check(ctx context.Context, op, id string, validate bool) error {
	if validate {
		if err := session.ValidateID(id); err != nil {
			return fmt.Errorf("pgstore: %s: %w", op, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return wrap(op, id, err)
	}
	if s.closed.Load() || s.c.closed.Load() {
		return wrap(op, id, session.ErrClosed)
	}
	return nil
}

// wrap wraps err as "pgstore: op id: err".
func wrap(op, id string, err error) error {
	if id == "" {
		return fmt.Errorf("pgstore: %s: %w", op, err)
	}
	return fmt.Errorf("pgstore: %s %s: %w", op, id, err)
}

// fail wraps an error of a database call for op on session id, making
// sure that a canceled or expired ctx shows as ctx.Err() (errors.Is).
func fail(ctx context.Context, op, id string, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		err = fmt.Errorf("%w: %w", cerr, err)
	}
	return wrap(op, id, err)
}

// cleanProject makes a project path absolute and clean, as jsonlstore
// does.
func cleanProject(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.Clean(abs), nil
}

// sessionCols are the sessions columns scanRow reads, in order.
const sessionCols = `id, project, title, created, last_activity, git_branch, model, entry_count, message_count,
	prompt_tokens, compactions, origin, metadata`

// row is a sessions row: the metadata and what appending needs.
type row struct {
	sess     session.Session
	size     int64
	lastUUID string
	owner    *uuid.UUID // lease owner, nil when free
	live     bool       // the lease has not expired
}

// scanSession scans sessionCols (plus extra destinations) into sess.
func scanSession(r pgx.Row, sess *session.Session, extra ...any) error {
	var entries, messages, prompt, compactions int64
	var md map[string]string
	dst := append([]any{&sess.ID, &sess.Project, &sess.Title, &sess.Created, &sess.LastActivity, &sess.GitBranch,
		&sess.Model, &entries, &messages, &prompt, &compactions, &sess.Origin, &md}, extra...)
	if err := r.Scan(dst...); err != nil {
		return err
	}
	sess.Created, sess.LastActivity = sess.Created.UTC(), sess.LastActivity.UTC()
	sess.Entries, sess.Messages, sess.PromptTokens, sess.Compactions = int(entries), int(messages), int(prompt), int(compactions)
	if len(md) > 0 {
		sess.Metadata = md
	}
	return nil
}

// notFound turns pgx.ErrNoRows into session.ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return session.ErrNotFound
	}
	return err
}

// metadataArg is md as a jsonb argument: NULL when empty.
func metadataArg(md map[string]string) any {
	if len(md) == 0 {
		return nil
	}
	return md
}

// Create records a new session; see [session.Store.Create]. The project
// path is made absolute and clean; Created defaults to Options.Now, kept
// to the microsecond (PostgreSQL's precision); GitBranch to
// Options.GitBranch's answer. Errors: session.ErrInvalidID,
// session.ErrExists, session.ErrClosed, an empty Project, ctx.Err(), SQL
// errors.
func (s *Store) Create(ctx context.Context, in session.Session) (session.Session, error) {
	id := in.ID
	if id == "" {
		id = session.NewID()
	}
	if err := s.check(ctx, "create", id, true); err != nil {
		return session.Session{}, err
	}
	sess, err := s.newSession(id, in)
	if err != nil {
		return session.Session{}, wrap("create", id, err)
	}
	tag, err := s.c.pool.Exec(ctx, s.c.q(`INSERT INTO {s}.sessions (tenant, id, project, title, created, last_activity, git_branch, model, origin, metadata)
		VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`),
		s.tenant, id, sess.Project, sess.Title, sess.Created, sess.GitBranch, sess.Model, sess.Origin, metadataArg(sess.Metadata))
	if err != nil {
		return session.Session{}, fail(ctx, "create", id, err)
	}
	if tag.RowsAffected() == 0 {
		return session.Session{}, wrap("create", id, session.ErrExists)
	}
	return cloneSession(sess), nil
}

// newSession returns session id's metadata as Create stores it.
func (s *Store) newSession(id string, in session.Session) (session.Session, error) {
	if in.Project == "" {
		return session.Session{}, errNoProject
	}
	project, err := cleanProject(in.Project)
	if err != nil {
		return session.Session{}, err
	}
	sess := session.Session{
		ID:        id,
		Project:   project,
		Title:     in.Title,
		Created:   in.Created,
		GitBranch: in.GitBranch,
		Model:     in.Model,
		Origin:    in.Origin,
		Metadata:  maps.Clone(in.Metadata),
	}
	if sess.Created.IsZero() {
		sess.Created = s.c.now()
	}
	sess.Created = sess.Created.UTC().Truncate(time.Microsecond)
	sess.LastActivity = sess.Created
	if sess.GitBranch == "" {
		sess.GitBranch = s.c.branch(project)
	}
	if len(sess.Metadata) == 0 {
		sess.Metadata = nil
	}
	pgSafe(&sess)
	return sess, nil
}

// Get returns session id's metadata; see [session.Store.Get]. One
// indexed read; it never waits for a writer. Errors: session.ErrInvalidID,
// session.ErrNotFound, session.ErrClosed, ctx.Err(), SQL errors.
func (s *Store) Get(ctx context.Context, id string) (session.Session, error) {
	if err := s.check(ctx, "get", id, true); err != nil {
		return session.Session{}, err
	}
	var sess session.Session
	err := scanSession(s.c.pool.QueryRow(ctx, s.c.q(`SELECT `+sessionCols+` FROM {s}.sessions WHERE tenant = $1 AND id = $2`), s.tenant, id), &sess)
	if err != nil {
		return session.Session{}, fail(ctx, "get", id, notFound(err))
	}
	return sess, nil
}

// List returns the sessions opts selects, the most recently active first
// (ties: the greater id first, by bytes); see [session.Store.List].
// Errors: session.ErrClosed, ctx.Err(), SQL errors.
func (s *Store) List(ctx context.Context, opts session.ListOptions) ([]session.Session, error) {
	if err := s.check(ctx, "list", "", false); err != nil {
		return nil, err
	}
	query := `SELECT ` + sessionCols + ` FROM {s}.sessions WHERE tenant = $1`
	args := []any{s.tenant}
	if opts.Project != "" {
		p, err := cleanProject(opts.Project)
		if err != nil {
			return nil, wrap("list", "", err)
		}
		query += ` AND project = $2`
		args = append(args, p)
	}
	query += ` ORDER BY last_activity DESC, id DESC`
	if opts.Limit > 0 {
		query += fmt.Sprintf(` LIMIT %d`, opts.Limit)
	}
	rows, err := s.c.pool.Query(ctx, s.c.q(query), args...)
	if err != nil {
		return nil, fail(ctx, "list", "", err)
	}
	defer rows.Close()
	var out []session.Session
	for rows.Next() {
		var sess session.Session
		if err := scanSession(rows, &sess); err != nil {
			return nil, fail(ctx, "list", "", err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, "list", "", err)
	}
	return out, nil
}

// Update applies fn to session id's metadata in a transaction holding
// the session's row lock and its lease, and stores Title, Model and
// Metadata as fn left them; see [session.Store.Update]. Errors:
// session.ErrInvalidID, session.ErrNotFound, session.ErrSessionBusy,
// session.ErrClosed, ctx.Err(), fn's error (wrapped; nothing stored), SQL
// errors.
func (s *Store) Update(ctx context.Context, id string, fn func(*session.Session) error) (session.Session, error) {
	if err := s.check(ctx, "update", id, true); err != nil {
		return session.Session{}, err
	}
	var view session.Session
	err := s.write(ctx, "update", id, func(r *row, b *pgx.Batch) error {
		view = r.sess
		next := cloneSession(view)
		if err := fn(&next); err != nil {
			return errFn{err}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		view.Title, view.Model, view.Metadata = next.Title, next.Model, maps.Clone(next.Metadata)
		if len(view.Metadata) == 0 {
			view.Metadata = nil
		}
		pgSafe(&view)
		b.Queue(s.c.q(`UPDATE {s}.sessions SET title = $3, model = $4, metadata = $5,
			lease_owner = $6, lease_expires = clock_timestamp() + $7 * interval '1 microsecond' WHERE tenant = $1 AND id = $2`),
			s.tenant, id, view.Title, view.Model, metadataArg(view.Metadata), s.c.owner, s.c.ttl.Microseconds())
		return nil
	})
	if err != nil {
		return session.Session{}, err
	}
	return view, nil
}

// errFn carries the error of Update's fn through write unchanged.
type errFn struct{ err error }

func (e errFn) Error() string { return e.err.Error() }
func (e errFn) Unwrap() error { return e.err }

// Delete removes session id and its entries in one transaction; see
// [session.Store.Delete]. Errors: session.ErrInvalidID,
// session.ErrNotFound, session.ErrSessionBusy (another Store holds the
// lease), session.ErrClosed, ctx.Err(), SQL errors.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := s.check(ctx, "delete", id, true); err != nil {
		return err
	}
	return s.write(ctx, "delete", id, func(_ *row, b *pgx.Batch) error {
		b.Queue(s.c.q(`DELETE FROM {s}.sessions WHERE tenant = $1 AND id = $2`), s.tenant, id)
		return nil
	})
}

// Lock takes session id's writer lease now, as the first Append would,
// and keeps it (renewed in the background) until [Store.Unlock], Delete
// or Close; it writes nothing. It implements [session.Locker]. Errors:
// session.ErrInvalidID, session.ErrNotFound, session.ErrSessionBusy
// (after Options.LockTimeout), session.ErrClosed, ctx.Err(), SQL errors.
func (s *Store) Lock(ctx context.Context, id string) error {
	if err := s.check(ctx, "lock", id, true); err != nil {
		return err
	}
	return s.write(ctx, "lock", id, func(_ *row, b *pgx.Batch) error {
		b.Queue(s.c.q(`UPDATE {s}.sessions SET lease_owner = $3, lease_expires = clock_timestamp() + $4 * interval '1 microsecond'
			WHERE tenant = $1 AND id = $2`), s.tenant, id, s.c.owner, s.c.ttl.Microseconds())
		return nil
	})
}

// Unlock releases session id's writer lease when this Store holds it, so
// that another server can write the session at once rather than after
// the lease expires: a stateless server calls it at the end of each
// request. A lease this Store does not hold is left alone. Errors:
// session.ErrInvalidID, session.ErrNotFound, session.ErrClosed,
// ctx.Err(), SQL errors.
func (s *Store) Unlock(ctx context.Context, id string) error {
	if err := s.check(ctx, "unlock", id, true); err != nil {
		return err
	}
	var exists bool
	err := s.c.pool.QueryRow(ctx, s.c.q(`WITH u AS (UPDATE {s}.sessions SET lease_owner = NULL, lease_expires = NULL
		WHERE tenant = $1 AND id = $2 AND lease_owner = $3)
		SELECT EXISTS (SELECT 1 FROM {s}.sessions WHERE tenant = $1 AND id = $2)`), s.tenant, id, s.c.owner).Scan(&exists)
	if err != nil {
		return fail(ctx, "unlock", id, err)
	}
	if !exists {
		return wrap("unlock", id, session.ErrNotFound)
	}
	return nil
}

// Sync checks that session id exists; see [session.Store.Sync]. There is
// nothing to flush: every Append returns after its transaction committed,
// and PostgreSQL's commit is durable (with synchronous_commit on, its
// default). Errors: session.ErrInvalidID, session.ErrNotFound,
// session.ErrClosed, ctx.Err(), SQL errors.
func (s *Store) Sync(ctx context.Context, id string) error {
	if err := s.check(ctx, "sync", id, true); err != nil {
		return err
	}
	var one int
	err := s.c.pool.QueryRow(ctx, s.c.q(`SELECT 1 FROM {s}.sessions WHERE tenant = $1 AND id = $2`), s.tenant, id).Scan(&one)
	if err != nil {
		return fail(ctx, "sync", id, notFound(err))
	}
	return nil
}

// Close releases the leases this Store holds (of its tenant, for a view
// from WithTenant; of every tenant for the Store Open returned, which
// also stops the renewal and closes the pool, after the calls in
// progress return). Later calls, Close included, return
// session.ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) || s.c.closed.Load() {
		return wrap("close", "", session.ErrClosed)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	query := `UPDATE {s}.sessions SET lease_owner = NULL, lease_expires = NULL WHERE lease_owner = $1`
	args := []any{s.c.owner}
	if !s.root {
		query += ` AND tenant = $2`
		args = append(args, s.tenant)
	}
	var err error
	if _, e := s.c.pool.Exec(ctx, s.c.q(query), args...); e != nil {
		err = wrap("close: releasing leases", "", e)
	}
	if s.root {
		s.c.shutdown()
	}
	return err
}

// shutdown stops the renewer and closes the pool, releasing nothing.
func (c *core) shutdown() {
	c.closed.Store(true)
	c.stop()
	c.renewed.Wait()
	c.pool.Close()
}

// renew extends every lease this Store holds every ttl/3 until ctx ends.
// A failed renewal is logged; the leases then expire unless the next one
// succeeds, and each write checks its lease anyway.
func (c *core) renew(ctx context.Context) {
	t := time.NewTicker(c.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, c.ttl/3)
		_, err := c.pool.Exec(rctx, c.q(`UPDATE {s}.sessions SET lease_expires = clock_timestamp() + $2 * interval '1 microsecond'
			WHERE lease_owner = $1`), c.owner, c.ttl.Microseconds())
		cancel()
		if err != nil && ctx.Err() == nil {
			c.log.Warn("pgstore: renewing leases", "err", err)
		}
	}
}

// lockRetry is how often a write waiting for a lease retries.
const lockRetry = 50 * time.Millisecond

// write runs a transaction on session id in two round trips: BEGIN with
// SELECT … FOR UPDATE of the session's row, then the statements fn
// queues in b (from the row it is given) with COMMIT. fn runs only when
// no other Store holds a live lease on the session; it takes the lease
// (or deletes the row) itself. While another Store holds the lease, write
// retries for Options.LockTimeout. Errors: session.ErrNotFound,
// session.ErrSessionBusy, fn's (errFn, unwrapped), SQL errors; wrapped
// with op and id. Nothing is written unless it returns nil.
func (s *Store) write(ctx context.Context, op, id string, fn func(r *row, b *pgx.Batch) error) error {
	deadline := time.Now().Add(s.c.wait)
	for {
		err := s.tx(ctx, id, fn)
		if !errors.Is(err, session.ErrSessionBusy) || time.Now().After(deadline) {
			var fe errFn
			if errors.As(err, &fe) {
				return wrap(op, id, fe.err)
			}
			if err != nil {
				return fail(ctx, op, id, err)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return wrap(op, id, ctx.Err())
		case <-time.After(min(lockRetry, time.Until(deadline)+time.Millisecond)):
		}
	}
}

// tx is one attempt of write.
func (s *Store) tx(ctx context.Context, id string, fn func(r *row, b *pgx.Batch) error) (err error) {
	conn, err := s.c.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	var r row
	first := &pgx.Batch{}
	first.Queue("BEGIN")
	first.Queue(s.c.q(`SELECT `+sessionCols+`, size, last_uuid, lease_owner, coalesce(lease_expires > clock_timestamp(), false)
		FROM {s}.sessions WHERE tenant = $1 AND id = $2 FOR UPDATE`), s.tenant, id).QueryRow(func(row pgx.Row) error {
		return scanSession(row, &r.sess, &r.size, &r.lastUUID, &r.owner, &r.live)
	})
	begun := false
	defer func() {
		if err != nil && begun {
			s.rollback(ctx, conn)
		}
	}()
	err = conn.SendBatch(ctx, first).Close()
	begun = conn.Conn().PgConn().TxStatus() != 'I'
	if err != nil {
		return notFound(err)
	}
	if r.owner != nil && *r.owner != s.c.owner && r.live {
		return session.ErrSessionBusy
	}
	if s.closed.Load() || s.c.closed.Load() {
		return session.ErrClosed
	}
	second := &pgx.Batch{}
	if err := fn(&r, second); err != nil {
		return err
	}
	second.Queue("COMMIT")
	return conn.SendBatch(ctx, second).Close()
}

// rollback ends the failed transaction open on conn, or closes conn (the
// pool then drops it) when that fails: a connection never goes back to
// the pool inside a transaction.
func (s *Store) rollback(ctx context.Context, conn *pgxpool.Conn) {
	if conn.Conn().PgConn().TxStatus() == 'I' {
		return // ended: the COMMIT failed, or the server rolled back
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, err := conn.Exec(rctx, "ROLLBACK"); err != nil {
		_ = conn.Conn().Close(rctx)
	}
}

// isUniqueViolation reports a unique_violation (23505) error.
func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// cloneSession copies s with its own Metadata map.
func cloneSession(s session.Session) session.Session {
	s.Metadata = maps.Clone(s.Metadata)
	return s
}

// pgText returns s as a PostgreSQL text value can hold it: a NUL (which
// text refuses) and invalid UTF-8 become U+FFFD. Entry lines never pass
// through it (they are bytea); only metadata strings do.
func pgText(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// pgSafe makes sess's strings storable (pgText), Metadata's keys and
// values included.
func pgSafe(sess *session.Session) {
	for _, p := range []*string{&sess.Project, &sess.Title, &sess.GitBranch, &sess.Model, &sess.Origin} {
		*p = pgText(*p)
	}
	for k, v := range sess.Metadata {
		if k2, v2 := pgText(k), pgText(v); k2 != k || v2 != v {
			delete(sess.Metadata, k)
			sess.Metadata[k2] = v2
		}
	}
}
