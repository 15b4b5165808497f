package jsonlstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/agentctx/agentctx/session"
)

// Import creates session in with all its entries at once, so that a crash
// or a kill (SIGKILL, the OOM killer) part-way leaves no session at all,
// rather than one that looks complete: the transcript is written to a
// temporary file in the project folder (".<id>.jsonl.<random>.tmp", which
// List ignores), fsynced, its sidecar written, and the file then linked
// to its name "<id>.jsonl", which publishes the session whole. The
// temporary file is locked while it is written; an Import of the same id
// later removes the ones whose writer died. `agentctx sessions import`
// uses it.
//
// entries yields the entries in file order; a non-nil error stops the
// import, nothing is stored and the error is returned. Each entry is
// filled and written as [Store.Append] does, streamed through a buffer:
// memory does not grow with the session. The metadata is as
// [Store.Create] stores it. The transcript and its sidecar are fsynced
// before the session is published, unless Options.Sync is SyncNever. The
// session is not locked afterwards.
//
// Errors: session.ErrInvalidID, session.ErrExists (the id is taken,
// perhaps by a concurrent import; nothing was changed),
// session.ErrInvalidEntry (naming the entry's index), session.ErrClosed,
// ErrNotRegular, ctx.Err(), entries' error, I/O errors.
func (s *Store) Import(ctx context.Context, in session.Session, entries iter.Seq2[session.Entry, error]) (session.Session, error) {
	id := in.ID
	if id == "" {
		id = session.NewID()
	}
	h, err := s.acquireAny(ctx, "import", id)
	if err != nil {
		return session.Session{}, err
	}
	defer h.mu.Unlock()
	fail := func(err error) (session.Session, error) {
		return session.Session{}, fmt.Errorf("jsonlstore: import %s: %w", id, err)
	}
	sess, dir, err := s.newSession(h, id, in)
	if err != nil {
		return fail(err)
	}
	if err := s.ensureProject(dir, sess.Project); err != nil {
		return fail(err)
	}
	path := filepath.Join(dir, id+transcriptEx)
	s.removeStaleTemps(path)
	tmp, lk, err := createLockedTemp(path)
	if err != nil {
		return fail(err)
	}
	published := false
	defer func() {
		if !published {
			_ = os.Remove(tmp.Name())
		}
		_ = tmp.Close()
		_ = lk.Unlock()
	}()
	idx := index{Session: sess}
	bw := bufio.NewWriterSize(tmp, 256<<10)
	now := s.now().UTC().Truncate(time.Millisecond)
	n := 0
	for e, err := range entries {
		if err != nil {
			return fail(err)
		}
		if n%scanCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return fail(err)
			}
		}
		if err := session.CheckAppend(id, &e); err != nil {
			return fail(fmt.Errorf("entry %d: %w", n, err))
		}
		line, err := session.EncodeAppend(&e, session.AppendContext{ID: id, Prev: idx.LastUUID, Now: now, Session: &idx.Session, Version: s.opts.Version})
		if err != nil {
			return fail(fmt.Errorf("entry %d: %w", n, err))
		}
		if _, err := bw.Write(line); err != nil {
			return fail(err)
		}
		if err := bw.WriteByte('\n'); err != nil {
			return fail(err)
		}
		observeEntry(&idx, e, idx.Size, false)
		idx.Size += int64(len(line)) + 1
		n++
	}
	if err := bw.Flush(); err != nil {
		return fail(err)
	}
	durable := s.opts.Sync != SyncNever
	if durable {
		if err := tmp.Sync(); err != nil {
			return fail(err)
		}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	// The sidecar first: a kill between the two leaves a sidecar without
	// a transcript, which nothing lists and the next Create overwrites.
	if err := writeSidecar(path, &idx, durable); err != nil {
		return fail(err)
	}
	// A hard link, unlike a rename, never replaces a file created
	// meanwhile.
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fail(session.ErrExists)
		}
		return fail(err)
	}
	published = true
	if err := os.Remove(tmp.Name()); err != nil {
		s.log.Warn("jsonlstore: import: removing the temporary file", "file", tmp.Name(), "err", err)
	}
	if durable {
		if err := syncDir(dir); err != nil {
			return fail(err)
		}
	}
	h.path = path
	return cloneSession(idx.Session), nil
}

// tempPattern is the name pattern (os.CreateTemp) of the temporary
// transcripts of the session whose transcript is path.
func tempPattern(path string) string {
	return "." + filepath.Base(path) + ".*" + tmpEx
}

// createLockedTemp creates a temporary file (0600) beside path, named by
// tempPattern, and takes its file lock, which says that its writer is
// alive (removeStaleTemps).
func createLockedTemp(path string) (*os.File, *flock.Flock, error) {
	f, err := os.CreateTemp(filepath.Dir(path), tempPattern(path))
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*os.File, *flock.Flock, error) {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil, nil, err
	}
	if err := f.Chmod(fileMode); err != nil {
		return fail(err)
	}
	lk := flock.New(f.Name(), flock.SetFlag(os.O_RDONLY|noFollow))
	ok, err := lk.TryLock()
	if err != nil {
		return fail(err)
	}
	if !ok {
		return fail(fmt.Errorf("%s: locked by another process", f.Name()))
	}
	return f, lk, nil
}

// removeStaleTemps removes the temporary transcripts of path left by a
// writer that died (a killed Import or rewrite): those whose lock can be
// taken. Failures are logged.
func (s *Store) removeStaleTemps(path string) {
	names, err := filepath.Glob(filepath.Join(filepath.Dir(path), globEscape(tempPattern(path))))
	if err != nil {
		return
	}
	for _, name := range names {
		if checkRegular(name) != nil {
			continue
		}
		lk := flock.New(name, flock.SetFlag(os.O_RDONLY|noFollow))
		ok, err := lk.TryLock()
		if err != nil || !ok {
			continue
		}
		if err := os.Remove(name); err != nil {
			s.log.Warn("jsonlstore: removing a stale temporary file", "file", name, "err", err)
		} else {
			s.log.Info("jsonlstore: removed the temporary file of a writer that died", "file", name)
		}
		_ = lk.Unlock()
	}
}

// globEscape escapes the glob metacharacters of a CreateTemp pattern
// except its '*'.
func globEscape(pattern string) string {
	var b []byte
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '?', '[', ']', '\\':
			b = append(b, '\\', c)
		default:
			b = append(b, c)
		}
	}
	return string(b)
}
