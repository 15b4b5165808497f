package sqlitestore

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

var (
	_ session.Store    = (*Store)(nil)
	_ session.Locker   = (*Store)(nil)
	_ session.Importer = (*Store)(nil)
	_ session.Exporter = (*Store)(nil)
)

// errNoProject is returned by Create for a session without a project.
var errNoProject = errors.New("no project path")

// Store is the SQLite session store: one database file (WAL mode) holding
// every session's metadata and lines. Any number of Stores, in one
// process or several, may open the same file: a session is written by
// one of them at a time, the holder of its lease. A Store is safe for
// concurrent use; its writes go through one connection, one transaction
// at a time (SQLite has one writer), its reads through a pool.
type Store struct {
	path   string
	opts   Options
	log    *slog.Logger
	now    func() time.Time
	branch func(string) string
	owner  string // this Store's lease owner id
	ttl    time.Duration

	rdb *sql.DB // readers: a pool, query_only
	wdb *sql.DB // the writer: one connection
	cdb *sql.DB // the checkpointer: one connection (checkpoint)

	// getStmt is get's query prepared on rdb: each reader connection
	// prepares it once, not every request (preparing was a sixth of the
	// service's turn).
	getStmt *sql.Stmt

	// commits counts the writer's commits: it numbers them for group
	// (the one just made is numbered by Add's result) and tells the
	// checkpointer there were some.
	commits atomic.Int64
	group   groupSync      // the fsyncs of the write-ahead log
	syncing sync.WaitGroup // writes waiting for group after their commit

	closeOnce sync.Once
	closing   chan struct{} // closed by Close: stops renew and checkpoint
	renewDone chan struct{}
	ckptDone  chan struct{}

	wmu   sync.Mutex // guards what follows and every use of wconn
	wconn *sql.Conn  // nil once closed
	ws    wstmts     // prepared on wconn
	held  map[string]bool

	rows rowCache // the rows of the sessions held, as this Store wrote them
}

// Open opens (creating when missing) the database at opts.Path (default
// [DefaultPath]) and applies the schema's migrations. Errors: the path
// cannot be determined, created or opened; [ErrNotDatabase] for a file
// that is not an SQLite database or is corrupt; [ErrNewerSchema].
func Open(opts Options) (*Store, error) {
	path := opts.Path
	if path == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: open %s: %w", path, err)
	}
	path = abs
	fail := func(err error) (*Store, error) {
		return nil, fmt.Errorf("sqlitestore: open %s: %w", path, err)
	}
	if strings.ContainsAny(path, "?#") {
		return fail(errors.New("the path may not contain '?' or '#'"))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fail(err)
	}
	// Create the file ourselves, 0600: SQLite would make it 0644, and its
	// -wal and -shm files take the database file's mode.
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600); err != nil {
		return fail(err)
	} else if err := f.Close(); err != nil {
		return fail(err)
	}
	s := &Store{
		path:      path,
		opts:      opts,
		log:       cmp.Or(opts.Logger, slog.New(slog.DiscardHandler)),
		now:       opts.Now,
		branch:    opts.GitBranch,
		owner:     session.NewID(),
		ttl:       max(cmp.Or(opts.LeaseTTL, DefaultLeaseTTL), 100*time.Millisecond),
		closing:   make(chan struct{}),
		renewDone: make(chan struct{}),
		ckptDone:  make(chan struct{}),
		held:      map[string]bool{},
	}
	s.group.cond = sync.NewCond(&s.group.mu)
	if s.now == nil {
		s.now = time.Now
	}
	if s.branch == nil {
		s.branch = jsonlstore.DetectGitBranch
	}
	if s.opts.LockTimeout < 0 {
		s.opts.LockTimeout = 0
	}
	busy := cmp.Or(opts.BusyTimeout, DefaultBusyTimeout)
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(busy.Milliseconds(), 10))
	q.Set("_foreign_keys", "1")
	wq := maps.Clone(q)
	wq.Set("_journal_mode", "WAL")
	// Commits write the log without syncing it; the writes that must be
	// durable wait for an fsync of it shared with others (groupSync).
	wq.Set("_synchronous", "NORMAL")
	wq.Set("_txlock", "immediate")
	s.wdb, err = sql.Open("sqlite", path+"?"+wq.Encode())
	if err != nil {
		return fail(err)
	}
	s.wdb.SetMaxOpenConns(1)
	ctx := context.Background()
	if s.wconn, err = connect(ctx, s.wdb, busy); err != nil {
		_ = s.wdb.Close()
		return fail(dbError(err))
	}
	// Commits never checkpoint: the checkpointer does (checkpoint).
	if _, err := s.wconn.ExecContext(ctx, "PRAGMA wal_autocheckpoint = 0"); err != nil {
		_ = s.wconn.Close()
		_ = s.wdb.Close()
		return fail(dbError(err))
	}
	if err := migrate(ctx, s.wconn); err != nil {
		_ = s.wconn.Close()
		_ = s.wdb.Close()
		return fail(dbError(err))
	}
	// Durability rests on the write-ahead log (groupSync).
	var mode string
	if err := s.wconn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || !strings.EqualFold(mode, "wal") {
		_ = s.wconn.Close()
		_ = s.wdb.Close()
		if err == nil {
			err = fmt.Errorf("journal mode %q: the store needs WAL mode (a local file system)", mode)
		}
		return fail(dbError(err))
	}
	if err := s.ws.prepare(ctx, s.wconn); err != nil {
		_ = s.ws.close()
		_ = s.wconn.Close()
		_ = s.wdb.Close()
		return fail(dbError(err))
	}
	rq := maps.Clone(q)
	rq.Set("_query_only", "1")
	if s.rdb, err = sql.Open("sqlite", path+"?"+rq.Encode()); err != nil {
		_ = s.ws.close()
		_ = s.wconn.Close()
		_ = s.wdb.Close()
		return fail(err)
	}
	if s.getStmt, err = s.rdb.PrepareContext(ctx, getQuery); err != nil {
		_ = s.rdb.Close()
		_ = s.ws.close()
		_ = s.wconn.Close()
		_ = s.wdb.Close()
		return fail(dbError(err))
	}
	if s.cdb, err = sql.Open("sqlite", path+"?"+q.Encode()); err != nil {
		_ = s.getStmt.Close()
		_ = s.rdb.Close()
		_ = s.ws.close()
		_ = s.wconn.Close()
		_ = s.wdb.Close()
		return fail(err)
	}
	s.cdb.SetMaxOpenConns(1)
	go s.renew()
	go s.checkpoint()
	return s, nil
}

// SQLite's primary result codes: busy, and those that say the file is
// not a database.
const (
	sqliteBusy    = 5
	sqliteCorrupt = 11
	sqliteNotADB  = 26
)

// connect returns a connection of db, asking again while SQLite answers
// SQLITE_BUSY at once, for up to busy. Opening the writer's connection
// switches a new file to WAL (the DSN's journal_mode), which takes an
// exclusive lock: two processes or stores opening the same new file
// together each hold the shared lock the other waits for, and SQLite
// answers one of them SQLITE_BUSY rather than call its busy handler
// ("if SQLite determines that invoking the busy handler could result in
// a deadlock, it will go ahead and return SQLITE_BUSY",
// https://sqlite.org/c3ref/busy_handler.html). Errors: the last
// attempt's.
func connect(ctx context.Context, db *sql.DB, busy time.Duration) (*sql.Conn, error) {
	deadline := time.Now().Add(busy)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		c, err := db.Conn(ctx)
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqliteBusy || time.Now().Add(wait).After(deadline) {
			return c, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(wait):
		}
	}
}

// dbError wraps an SQLite error saying that the file is not a database
// or is corrupt with [ErrNotDatabase].
func dbError(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		if c := se.Code() & 0xff; c == sqliteNotADB || c == sqliteCorrupt {
			return fmt.Errorf("%w: %w", ErrNotDatabase, err)
		}
	}
	return err
}

// Path returns the database file, absolute.
func (s *Store) Path() string { return s.path }

// closed reports whether Close was called.
func (s *Store) closed() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

// checkOpen returns ctx's error or session.ErrClosed, wrapped with op.
func (s *Store) checkOpen(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlitestore: %s: %w", op, err)
	}
	if s.closed() {
		return fmt.Errorf("sqlitestore: %s: %w", op, session.ErrClosed)
	}
	return nil
}

// check validates id and checks ctx and that the store is open.
func (s *Store) check(ctx context.Context, op, id string) error {
	if err := session.ValidateID(id); err != nil {
		return fmt.Errorf("sqlitestore: %s: %w", op, err)
	}
	if err := s.checkOpen(ctx, op+" "+id); err != nil {
		return err
	}
	return nil
}

// sessionCols are the columns scanSession reads, in its order.
const sessionCols = `id, project, title, created, last_activity, git_branch, model, entries, messages, prompt_tokens, compactions, origin, metadata`

// row is what Scan needs: *sql.Row and *sql.Rows.
type row interface{ Scan(dest ...any) error }

// scanSession reads a session's metadata from r (the columns of
// sessionCols).
func scanSession(r row) (session.Session, error) {
	var (
		ss              session.Session
		created, active int64
		meta            sql.NullString
	)
	if err := r.Scan(&ss.ID, &ss.Project, &ss.Title, &created, &active, &ss.GitBranch, &ss.Model,
		&ss.Entries, &ss.Messages, &ss.PromptTokens, &ss.Compactions, &ss.Origin, &meta); err != nil {
		return session.Session{}, err
	}
	ss.Created = time.Unix(0, created).UTC()
	ss.LastActivity = time.Unix(0, active).UTC()
	if meta.Valid {
		if err := json.Unmarshal([]byte(meta.String), &ss.Metadata); err != nil {
			return session.Session{}, fmt.Errorf("session %s: metadata column: %w", ss.ID, err)
		}
	}
	return ss, nil
}

// metadataJSON encodes a session's Metadata for its column (NULL when
// empty).
func metadataJSON(m map[string]string) (any, error) {
	if len(m) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// nanos returns t as Unix nanoseconds.
func nanos(t time.Time) int64 { return t.UnixNano() }

// get reads session id's metadata through q. Errors: session.ErrNotFound.
func get(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, id string) (session.Session, error) {
	return gotSession(q.QueryRowContext(ctx, getQuery, id))
}

// getQuery reads one session's metadata by id.
const getQuery = `SELECT ` + sessionCols + ` FROM sessions WHERE id = ?`

// getRead is [get] on the readers' pool, through the prepared getStmt.
func (s *Store) getRead(ctx context.Context, id string) (session.Session, error) {
	return gotSession(s.getStmt.QueryRowContext(ctx, id))
}

// gotSession scans get's row: session.ErrNotFound when there is none.
func gotSession(row *sql.Row) (session.Session, error) {
	ss, err := scanSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		return session.Session{}, session.ErrNotFound
	}
	return ss, dbError(err)
}

// Create records a new session, in a commit synced to disk as package
// jsonlstore syncs its new files; see [session.Store.Create]. The project
// path is made absolute; the git branch is detected once, here, with
// Options.GitBranch. Errors: session.ErrInvalidID, session.ErrExists,
// session.ErrClosed, an empty Project, ctx.Err(), database errors.
func (s *Store) Create(ctx context.Context, in session.Session) (session.Session, error) {
	id := cmp.Or(in.ID, session.NewID())
	if err := s.check(ctx, "create", id); err != nil {
		return session.Session{}, err
	}
	sess, err := s.newSession(id, in)
	if err != nil {
		return session.Session{}, fmt.Errorf("sqlitestore: create %s: %w", id, err)
	}
	err = s.write(ctx, true, func(tx txn) error { return insertSession(ctx, tx, sess) }, nil)
	if err != nil {
		return session.Session{}, fmt.Errorf("sqlitestore: create %s: %w", id, err)
	}
	return cloneSession(sess), nil
}

// newSession returns session id's metadata as Create stores it: in's,
// the project made absolute, Created and GitBranch filled.
func (s *Store) newSession(id string, in session.Session) (session.Session, error) {
	if in.Project == "" {
		return session.Session{}, errNoProject
	}
	project, err := filepath.Abs(in.Project)
	if err != nil {
		return session.Session{}, err
	}
	sess := session.Session{
		ID:        id,
		Project:   filepath.Clean(project),
		Title:     in.Title,
		Created:   in.Created,
		GitBranch: in.GitBranch,
		Model:     in.Model,
		Origin:    in.Origin,
		Metadata:  maps.Clone(in.Metadata),
	}
	if sess.Created.IsZero() {
		sess.Created = s.now()
	}
	sess.Created = sess.Created.UTC()
	sess.LastActivity = sess.Created
	if sess.GitBranch == "" {
		sess.GitBranch = s.branch(sess.Project)
	}
	return sess, nil
}

// insertSession inserts sess's row. Errors: session.ErrExists.
func insertSession(ctx context.Context, tx txn, sess session.Session) error {
	md, err := metadataJSON(sess.Metadata)
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO sessions (`+sessionCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`,
		sess.ID, sess.Project, sess.Title, nanos(sess.Created), nanos(sess.LastActivity), sess.GitBranch, sess.Model,
		sess.Entries, sess.Messages, sess.PromptTokens, sess.Compactions, sess.Origin, md)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return session.ErrExists
	}
	return nil
}

// Get returns session id's metadata; see [session.Store.Get]. One
// indexed read, or none for a session this Store holds the lease of
// (its row as this Store's last write left it: see rowCache). Errors: session.ErrInvalidID, session.ErrNotFound,
// session.ErrClosed, ctx.Err(), database errors.
func (s *Store) Get(ctx context.Context, id string) (session.Session, error) {
	if err := s.check(ctx, "get", id); err != nil {
		return session.Session{}, err
	}
	if ss, ok := s.rows.get(id, s.ttl); ok {
		return ss, nil
	}
	ss, err := s.getRead(ctx, id)
	if err != nil {
		return session.Session{}, fmt.Errorf("sqlitestore: get %s: %w", id, err)
	}
	return ss, nil
}

// List returns the sessions opts selects, the most recently active first
// (ties: the greater id first); see [session.Store.List]. One indexed
// query. Errors: session.ErrClosed, ctx.Err(), database errors.
func (s *Store) List(ctx context.Context, opts session.ListOptions) ([]session.Session, error) {
	if err := s.checkOpen(ctx, "list"); err != nil {
		return nil, err
	}
	q := `SELECT ` + sessionCols + ` FROM sessions`
	var args []any
	if opts.Project != "" {
		p, err := filepath.Abs(opts.Project)
		if err != nil {
			return nil, fmt.Errorf("sqlitestore: list: %w", err)
		}
		q += ` WHERE project = ?`
		args = append(args, filepath.Clean(p))
	}
	q += ` ORDER BY last_activity DESC, id DESC`
	if opts.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, opts.Limit)
	}
	rows, err := s.rdb.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: list: %w", dbError(err))
	}
	defer rows.Close()
	var out []session.Session
	for rows.Next() {
		ss, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlitestore: list: %w", err)
		}
		out = append(out, ss)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlitestore: list: %w", dbError(err))
	}
	return out, nil
}

// Update applies fn to session id's metadata under the session's lease
// and stores Title, Model and Metadata as fn left them, in one
// transaction synced to disk (these caller-owned fields exist nowhere
// else, as in package jsonlstore); see [session.Store.Update]. Like Append it takes the
// lease and keeps it. Errors: session.ErrInvalidID, session.ErrNotFound,
// session.ErrSessionBusy, session.ErrClosed, ctx.Err(), fn's error
// (wrapped; nothing stored), database errors.
func (s *Store) Update(ctx context.Context, id string, fn func(*session.Session) error) (session.Session, error) {
	if err := s.check(ctx, "update", id); err != nil {
		return session.Session{}, err
	}
	var view session.Session
	err := s.leased(ctx, id, true, func(tx txn, st *state) error {
		next := cloneSession(st.sess)
		if err := fn(&next); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		md, err := metadataJSON(next.Metadata)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ?, model = ?, metadata = ? WHERE id = ?`,
			next.Title, next.Model, md, id); err != nil {
			return err
		}
		view = st.sess
		view.Title, view.Model, view.Metadata = next.Title, next.Model, maps.Clone(next.Metadata)
		st.sess = view // the row as committed (rowCache)
		return nil
	})
	if err != nil {
		return session.Session{}, fmt.Errorf("sqlitestore: update %s: %w", id, err)
	}
	return view, nil
}

// Delete removes session id and its entries in one transaction synced
// to disk, after taking its lease; see [session.Store.Delete]. Errors:
// session.ErrInvalidID, session.ErrNotFound, session.ErrSessionBusy,
// session.ErrClosed, ctx.Err(), database errors.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := s.check(ctx, "delete", id); err != nil {
		return err
	}
	err := s.leased(ctx, id, true, func(tx txn, st *state) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		st.gone = true
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
		return err
	})
	s.wmu.Lock()
	delete(s.held, id)
	s.rows.drop(id)
	s.wmu.Unlock()
	if err != nil {
		return fmt.Errorf("sqlitestore: delete %s: %w", id, err)
	}
	return nil
}

// Sync makes what this Store appended durable, whatever the sync policy;
// see [session.Store.Sync]. It fsyncs the write-ahead log when this
// Store committed anything since its last fsync, or waits for the fsync
// running (groupSync). Errors: session.ErrInvalidID,
// session.ErrNotFound, session.ErrClosed, ctx.Err(), database errors,
// the fsync's.
func (s *Store) Sync(ctx context.Context, id string) error {
	if err := s.check(ctx, "sync", id); err != nil {
		return err
	}
	if _, err := s.getRead(ctx, id); err != nil {
		return fmt.Errorf("sqlitestore: sync %s: %w", id, err)
	}
	if err := s.syncTo(s.commits.Load()); err != nil {
		return fmt.Errorf("sqlitestore: sync %s: %w", id, err)
	}
	return nil
}

// Close releases this Store's leases, syncs what the sync policy left
// unsynced (not under SyncNever) and closes the database. Operations in
// progress finish first, the writes waiting for an fsync included.
// Later calls, Close included, return session.ErrClosed.
func (s *Store) Close() error {
	first := false
	s.closeOnce.Do(func() { first = true })
	if !first {
		return fmt.Errorf("sqlitestore: close: %w", session.ErrClosed)
	}
	s.wmu.Lock()
	close(s.closing)
	s.wmu.Unlock()
	<-s.renewDone
	<-s.ckptDone
	var errs []error
	ctx := context.Background()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if len(s.held) > 0 {
		if _, err := s.writeLocked(ctx, func(tx txn) error {
			_, err := tx.ExecContext(ctx, `UPDATE sessions SET lease_owner = NULL, lease_expires = 0 WHERE lease_owner = ?`, s.owner)
			return err
		}); err != nil {
			errs = append(errs, err)
		}
	}
	s.held = nil
	s.rows.clear()
	s.syncing.Wait()
	if s.opts.Sync != jsonlstore.SyncNever && s.pending() {
		if err := s.syncTo(s.commits.Load()); err != nil {
			errs = append(errs, err)
		}
	}
	// The writer's connection closes last: SQLite checkpoints the log
	// into the database when its last connection closes.
	errs = append(errs, s.cdb.Close(), s.getStmt.Close(), s.rdb.Close(), s.ws.close(), s.wconn.Close(), s.wdb.Close(), s.group.closeLog())
	s.wconn = nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sqlitestore: close: %w", err)
	}
	return nil
}

// cloneSession copies ss with its own Metadata map.
func cloneSession(ss session.Session) session.Session {
	ss.Metadata = maps.Clone(ss.Metadata)
	return ss
}
