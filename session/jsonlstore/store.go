package jsonlstore

import (
	"cmp"
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentctx/agentctx/session"
)

// File names of the layout. See the package documentation.
const (
	projectsDir  = "projects"
	projectFile  = "project.json"
	transcriptEx = ".jsonl"
	sidecarEx    = ".meta.json"
	dirMode      = 0o700
	fileMode     = 0o600
)

var _ session.Store = (*Store)(nil)

// errNoProject is returned by Create for a session without a project.
var errNoProject = errors.New("no project path")

// Store is the JSONL session store: one append-only transcript file per
// session, a sidecar of metadata next to it. Open one per process (or
// several: they coordinate through file locks like separate processes).
// A Store is safe for concurrent use: calls on one session are serialized
// by a mutex per session, calls on different sessions run in parallel.
type Store struct {
	root   string
	opts   Options
	log    *slog.Logger
	now    func() time.Time
	branch func(string) string

	mu      sync.Mutex // guards closed, handles, lru and every handle's elem
	closed  bool
	handles map[string]*handle
	lru     list.List // of *handle with a writer, the most recently used first (lru.go)
}

// handle is one session as this Store knows it. mu serializes every
// operation on the session within the process.
type handle struct {
	id string

	mu     sync.Mutex
	path   string        // the .jsonl file; "" until located
	w      *writer       // non-nil while this Store holds the session's lock
	gone   bool          // deleted; the handle left the map
	closed bool          // the Store was closed
	elem   *list.Element // in Store.lru while w is set; guarded by Store.mu
}

// Open returns a store rooted at opts.Root (default [DefaultRoot]),
// creating the root folder (0700) when missing. It does not read any
// session. Errors: the root cannot be determined or created.
func Open(opts Options) (*Store, error) {
	root := opts.Root
	if root == "" {
		r, err := DefaultRoot()
		if err != nil {
			return nil, err
		}
		root = r
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("jsonlstore: open %s: %w", opts.Root, err)
	}
	if err := os.MkdirAll(filepath.Join(root, projectsDir), dirMode); err != nil {
		return nil, fmt.Errorf("jsonlstore: open %s: %w", root, err)
	}
	s := &Store{
		root:    root,
		opts:    opts,
		log:     opts.Logger,
		now:     opts.Now,
		branch:  opts.GitBranch,
		handles: map[string]*handle{},
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.branch == nil {
		s.branch = DetectGitBranch
	}
	if s.opts.LockTimeout < 0 {
		s.opts.LockTimeout = 0
	}
	return s, nil
}

// Root returns the store's root folder, absolute.
func (s *Store) Root() string { return s.root }

// Path returns the transcript file of session id
// ("<root>/projects/<escaped project>/<id>.jsonl"). Errors: ErrInvalidID,
// ErrNotFound, ErrClosed.
func (s *Store) Path(id string) (string, error) {
	h, err := s.acquire(context.Background(), "path", id)
	if err != nil {
		return "", err
	}
	defer h.mu.Unlock()
	return h.path, nil
}

// acquire returns session id's handle, located and locked (h.mu), after
// checking the id, ctx and that the store is open. The caller unlocks
// h.mu. Errors: ctx.Err(), ErrInvalidID, ErrClosed, ErrNotFound; each
// wrapped with op and id.
func (s *Store) acquire(ctx context.Context, op, id string) (*handle, error) {
	h, err := s.acquireAny(ctx, op, id)
	if err != nil {
		return nil, err
	}
	if h.path == "" || (h.w == nil && !exists(h.path)) {
		p, err := s.locate(id)
		if err != nil {
			s.forget(h)
			h.mu.Unlock()
			return nil, fmt.Errorf("jsonlstore: %s %s: %w", op, id, err)
		}
		h.path = p
	}
	return h, nil
}

// acquireAny is acquire without locating the session: h.path may be "".
func (s *Store) acquireAny(ctx context.Context, op, id string) (*handle, error) {
	if err := session.ValidateID(id); err != nil {
		return nil, fmt.Errorf("jsonlstore: %s: %w", op, err)
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("jsonlstore: %s %s: %w", op, id, err)
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, fmt.Errorf("jsonlstore: %s %s: %w", op, id, session.ErrClosed)
		}
		h := s.handles[id]
		if h == nil {
			h = &handle{id: id}
			s.handles[id] = h
		}
		s.mu.Unlock()
		h.mu.Lock()
		switch {
		case h.closed:
			h.mu.Unlock()
			return nil, fmt.Errorf("jsonlstore: %s %s: %w", op, id, session.ErrClosed)
		case h.gone:
			h.mu.Unlock()
			continue // deleted meanwhile; take the fresh handle
		}
		return h, nil
	}
}

// forget drops h from the map (h.mu held) unless it holds a lock.
func (s *Store) forget(h *handle) {
	if h.w != nil {
		return
	}
	h.gone = true
	s.mu.Lock()
	if s.handles[h.id] == h {
		delete(s.handles, h.id)
	}
	s.mu.Unlock()
}

// locate finds session id's file under any project folder. Errors:
// session.ErrNotFound, or the projects folder cannot be read.
func (s *Store) locate(id string) (string, error) {
	dirs, err := os.ReadDir(filepath.Join(s.root, projectsDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		p := filepath.Join(s.root, projectsDir, d.Name(), id+transcriptEx)
		err := checkRegular(p)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err // a symbolic link, a FIFO…: refused, not skipped
		}
	}
	return "", session.ErrNotFound
}

// exists reports whether p is a regular file; a symbolic link is not
// followed (and does not count).
func exists(p string) bool {
	return checkRegular(p) == nil
}

// maxSmallFile caps the size of project.json and of a sidecar read, in
// bytes.
const maxSmallFile = 64 << 20

// projectOf returns the project path of a project folder: project.json's
// path, else the unescaped folder name, else the folder name itself.
func projectOf(dir string) string {
	if b, err := readRegular(filepath.Join(dir, projectFile), maxSmallFile); err == nil {
		var pf struct {
			Path string `json:"path"`
		}
		if json.Unmarshal(b, &pf) == nil && pf.Path != "" {
			return pf.Path
		}
	}
	name := filepath.Base(dir)
	if p, ok := UnescapeProject(name); ok {
		return p
	}
	return name
}

// cleanProject makes a project path absolute and clean.
func cleanProject(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.Clean(abs), nil
}

// Create records a new session; see [session.Store.Create]. It creates the
// project folder (0700) with its project.json when missing, the
// transcript with O_EXCL (0600) and the sidecar, then fsyncs the folder.
// The project path is made absolute; the git branch is detected once,
// here, with Options.GitBranch. Errors: session.ErrInvalidID,
// session.ErrExists, session.ErrClosed, an empty Project, I/O errors.
func (s *Store) Create(ctx context.Context, in session.Session) (session.Session, error) {
	id := in.ID
	if id == "" {
		id = session.NewID()
	}
	h, err := s.acquireAny(ctx, "create", id)
	if err != nil {
		return session.Session{}, err
	}
	defer h.mu.Unlock()
	fail := func(err error) (session.Session, error) {
		return session.Session{}, fmt.Errorf("jsonlstore: create %s: %w", id, err)
	}
	sess, dir, err := s.newSession(h, id, in)
	if err != nil {
		return fail(err)
	}
	path := filepath.Join(dir, id+transcriptEx)
	// A concurrent Delete may remove an empty project folder between
	// ensureProject and OpenFile; try again once.
	var f *os.File
	for try := 0; ; try++ {
		if err := s.ensureProject(dir, sess.Project); err != nil {
			return fail(err)
		}
		f, err = os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, fileMode)
		if errors.Is(err, fs.ErrNotExist) && try == 0 {
			continue
		}
		break
	}
	if errors.Is(err, fs.ErrExist) {
		return fail(session.ErrExists)
	}
	if err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if err := writeSidecar(path, &index{Session: sess}, true); err != nil {
		_ = os.Remove(path)
		return fail(err)
	}
	if err := syncDir(dir); err != nil {
		return fail(err)
	}
	h.path = path
	return cloneSession(sess), nil
}

// newSession checks that session id (h, locked) does not exist and
// returns its metadata as Create stores it (in's, the project made
// absolute, Created and GitBranch filled) and its project folder.
// Errors: an empty Project, session.ErrExists, ErrNotRegular.
func (s *Store) newSession(h *handle, id string, in session.Session) (session.Session, string, error) {
	if in.Project == "" {
		return session.Session{}, "", errNoProject
	}
	project, err := cleanProject(in.Project)
	if err != nil {
		return session.Session{}, "", err
	}
	if h.path != "" && exists(h.path) {
		return session.Session{}, "", session.ErrExists
	}
	if _, err := s.locate(id); err == nil {
		return session.Session{}, "", session.ErrExists
	} else if !errors.Is(err, session.ErrNotFound) {
		return session.Session{}, "", err
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
		// In milliseconds, as entries' times are written: the times a
		// transcript rebuilds its sidecar from match those it kept.
		sess.Created = s.now().Truncate(time.Millisecond)
	}
	sess.Created = sess.Created.UTC()
	sess.LastActivity = sess.Created
	if sess.GitBranch == "" {
		sess.GitBranch = s.branch(project)
	}
	return sess, filepath.Join(s.root, projectsDir, EscapeProject(project)), nil
}

// ensureProject creates a project folder and its project.json.
func (s *Store) ensureProject(dir, project string) error {
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return err
	}
	pf := filepath.Join(dir, projectFile)
	if exists(pf) {
		return nil
	}
	b, err := json.Marshal(struct {
		Path string `json:"path"`
	}{project})
	if err != nil {
		return err
	}
	if err := writeAtomic(pf, append(b, '\n'), true); err != nil {
		return err
	}
	return syncDir(filepath.Dir(dir))
}

// Get returns session id's metadata; see [session.Store.Get]. It reads the
// sidecar and, when the transcript has grown past it, scans only the new
// tail; a missing or corrupt sidecar is rebuilt in memory by one
// streaming scan. Errors: session.ErrInvalidID, session.ErrNotFound,
// session.ErrClosed, ctx.Err().
func (s *Store) Get(ctx context.Context, id string) (session.Session, error) {
	h, err := s.acquire(ctx, "get", id)
	if err != nil {
		return session.Session{}, err
	}
	defer h.mu.Unlock()
	sess, err := s.meta(ctx, h)
	if err != nil {
		return session.Session{}, fmt.Errorf("jsonlstore: get %s: %w", id, err)
	}
	return sess, nil
}

// meta returns h's current metadata (h.mu held, h located).
func (s *Store) meta(ctx context.Context, h *handle) (session.Session, error) {
	if h.w != nil && h.w.f != nil {
		return h.w.current().Session, nil
	}
	f, err := openRegular(h.path, os.O_RDONLY)
	if err != nil {
		return session.Session{}, notFound(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return session.Session{}, err
	}
	idx, _, err := s.readIndex(ctx, h.id, h.path, f, st, true)
	if err != nil {
		return session.Session{}, err
	}
	return idx.Session, nil
}

// notFound turns a missing file into session.ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return session.ErrNotFound
	}
	return err
}

// List returns the sessions opts selects, the most recently active first
// (ties: the greater id first); see [session.Store.List]. It reads one
// sidecar per session (plus the tail a writer has not indexed yet). Files
// whose name is not a valid session id are skipped. Errors:
// session.ErrClosed, ctx.Err(), an unreadable projects folder.
func (s *Store) List(ctx context.Context, opts session.ListOptions) ([]session.Session, error) {
	if err := s.checkOpen(ctx, "list"); err != nil {
		return nil, err
	}
	base := filepath.Join(s.root, projectsDir)
	var dirs []string
	want := ""
	if opts.Project != "" {
		p, err := cleanProject(opts.Project)
		if err != nil {
			return nil, fmt.Errorf("jsonlstore: list: %w", err)
		}
		want = p
		dirs = []string{EscapeProject(p)}
	} else {
		des, err := os.ReadDir(base)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("jsonlstore: list: %w", err)
		}
		for _, d := range des {
			if d.IsDir() {
				dirs = append(dirs, d.Name())
			}
		}
	}
	var out []session.Session
	for _, d := range dirs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("jsonlstore: list: %w", err)
		}
		des, err := os.ReadDir(filepath.Join(base, d))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("jsonlstore: list: %w", err)
		}
		for _, de := range des {
			name, ok := strings.CutSuffix(de.Name(), transcriptEx)
			if !ok {
				continue
			}
			if !de.Type().IsRegular() {
				s.log.Warn("jsonlstore: list: skipping a session file that is not a regular file", "file", filepath.Join(base, d, de.Name()), "type", de.Type().String())
				continue
			}
			if session.ValidateID(name) != nil {
				s.log.Warn("jsonlstore: list: skipping file with an invalid session id", "file", filepath.Join(base, d, de.Name()))
				continue
			}
			sess, err := s.getAt(ctx, name, filepath.Join(base, d, de.Name()))
			if errors.Is(err, session.ErrNotFound) {
				continue // deleted meanwhile
			}
			if err != nil {
				return nil, err
			}
			if want != "" && sess.Project != want {
				continue
			}
			out = append(out, sess)
		}
	}
	slices.SortFunc(out, func(a, b session.Session) int {
		if c := b.LastActivity.Compare(a.LastActivity); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	if opts.Limit > 0 && len(out) > opts.Limit {
		out = out[:opts.Limit]
	}
	return out, nil
}

// getAt is Get for a session whose file List found at path.
func (s *Store) getAt(ctx context.Context, id, path string) (session.Session, error) {
	h, err := s.acquireAny(ctx, "list", id)
	if err != nil {
		return session.Session{}, err
	}
	defer h.mu.Unlock()
	if h.w == nil {
		h.path = path
	}
	sess, err := s.meta(ctx, h)
	if err != nil {
		return session.Session{}, fmt.Errorf("jsonlstore: list %s: %w", id, err)
	}
	return sess, nil
}

// checkOpen returns ctx's error or ErrClosed, wrapped with op.
func (s *Store) checkOpen(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("jsonlstore: %s: %w", op, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("jsonlstore: %s: %w", op, session.ErrClosed)
	}
	return nil
}

// Update applies fn to session id's metadata under the session's lock and
// stores Title, Model and Metadata as fn left them; see
// [session.Store.Update]. The sidecar is rewritten atomically and synced:
// these caller-owned fields live only there. Errors:
// session.ErrInvalidID, session.ErrNotFound, session.ErrSessionBusy,
// session.ErrClosed, ctx.Err(), fn's error (wrapped; nothing stored).
func (s *Store) Update(ctx context.Context, id string, fn func(*session.Session) error) (session.Session, error) {
	h, err := s.acquire(ctx, "update", id)
	if err != nil {
		return session.Session{}, err
	}
	defer h.mu.Unlock()
	if err := s.ensureWriter(ctx, h); err != nil {
		return session.Session{}, fmt.Errorf("jsonlstore: update %s: %w", id, err)
	}
	w := h.w
	view := w.current().Session // what fn sees: the file as readers see it
	next := cloneSession(view)
	if err := fn(&next); err != nil {
		return session.Session{}, fmt.Errorf("jsonlstore: update %s: %w", id, err)
	}
	if err := ctx.Err(); err != nil {
		return session.Session{}, fmt.Errorf("jsonlstore: update %s: %w", id, err)
	}
	idx := w.idx
	idx.Session = cloneSession(idx.Session)
	idx.Session.Title, idx.Session.Model, idx.Session.Metadata = next.Title, next.Model, maps.Clone(next.Metadata)
	if err := writeSidecar(h.path, &idx, true); err != nil {
		return session.Session{}, fmt.Errorf("jsonlstore: update %s: %w", id, err)
	}
	w.idx = idx
	w.sidecarDone()
	view.Title, view.Model, view.Metadata = next.Title, next.Model, maps.Clone(next.Metadata)
	return view, nil
}

// Delete removes session id's transcript and sidecar, and its project
// folder when no session is left in it; see [session.Store.Delete]. It
// takes the session's lock first. Errors: session.ErrInvalidID,
// session.ErrNotFound, session.ErrSessionBusy, session.ErrClosed,
// ctx.Err().
func (s *Store) Delete(ctx context.Context, id string) error {
	h, err := s.acquire(ctx, "delete", id)
	if err != nil {
		return err
	}
	defer h.mu.Unlock()
	if h.w == nil {
		w, err := s.lock(ctx, h)
		if err != nil {
			return fmt.Errorf("jsonlstore: delete %s: %w", id, err)
		}
		h.w = w
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("jsonlstore: delete %s: %w", id, err)
	}
	err = os.Remove(h.path)
	if err := os.Remove(sidecarPath(h.path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.log.Warn("jsonlstore: delete: sidecar", "file", sidecarPath(h.path), "err", err)
	}
	s.dropWriter(h)
	dir := filepath.Dir(h.path)
	s.forget(h)
	if err != nil {
		return fmt.Errorf("jsonlstore: delete %s: %w", id, notFound(err))
	}
	s.removeEmptyProject(dir)
	if err := syncDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("jsonlstore: delete %s: %w", id, err)
	}
	return nil
}

// removeEmptyProject removes a project folder that holds no session any
// more (only its project.json, or leftovers of a crashed sidecar write).
func (s *Store) removeEmptyProject(dir string) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, de := range des {
		n := de.Name()
		if n != projectFile && !strings.HasSuffix(n, tmpEx) {
			return
		}
	}
	project := projectOf(dir)
	for _, de := range des {
		_ = os.Remove(filepath.Join(dir, de.Name()))
	}
	if err := os.Remove(dir); err != nil {
		// A session was created meanwhile: give the folder its
		// project.json back.
		if err := s.ensureProject(dir, project); err != nil {
			s.log.Warn("jsonlstore: delete: restoring project.json", "dir", dir, "err", err)
		}
		return
	}
	_ = syncDir(filepath.Dir(dir))
}

// Sync fsyncs session id's transcript and rewrites its sidecar when this
// Store has appended to it, whatever the sync policy; see
// [session.Store.Sync]. For a session this Store has not written it only
// checks that the session exists. Errors: session.ErrInvalidID,
// session.ErrNotFound, session.ErrClosed, ctx.Err(), I/O errors.
func (s *Store) Sync(ctx context.Context, id string) error {
	h, err := s.acquire(ctx, "sync", id)
	if err != nil {
		return err
	}
	defer h.mu.Unlock()
	if h.w == nil || h.w.f == nil {
		return nil
	}
	if err := h.w.sync(); err != nil {
		return fmt.Errorf("jsonlstore: sync %s: %w", id, err)
	}
	if err := s.flushSidecar(h); err != nil {
		return fmt.Errorf("jsonlstore: sync %s: %w", id, err)
	}
	return nil
}

// Close fsyncs what the sync policy left unsynced (not under SyncNever),
// writes the sidecars of the sessions this Store wrote, and releases
// their locks. Operations in progress finish first. Later calls, Close
// included, return session.ErrClosed. The error joins every session's
// failure.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("jsonlstore: close: %w", session.ErrClosed)
	}
	s.closed = true
	hs := slices.Collect(maps.Values(s.handles))
	s.handles = nil
	s.lru.Init()
	s.mu.Unlock()
	var errs []error
	for _, h := range hs {
		h.mu.Lock()
		h.closed = true
		if w := h.w; w != nil {
			if w.f != nil {
				if s.opts.Sync != SyncNever && w.unsynced {
					if err := w.sync(); err != nil {
						errs = append(errs, fmt.Errorf("jsonlstore: close %s: %w", h.id, err))
					}
				}
				if err := s.flushSidecar(h); err != nil {
					errs = append(errs, fmt.Errorf("jsonlstore: close %s: %w", h.id, err))
				}
			}
			w.release()
			h.w = nil
		}
		h.mu.Unlock()
	}
	return errors.Join(errs...)
}

// cloneSession copies s with its own Metadata map.
func cloneSession(s session.Session) session.Session {
	s.Metadata = maps.Clone(s.Metadata)
	return s
}
