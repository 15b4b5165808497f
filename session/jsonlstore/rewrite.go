package jsonlstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/agentctx/agentctx/session"
)

// BackupEx ends the name of the backup [Store.Rewrite] and [RewriteFile]
// keep of the transcript they replace: "<id>.jsonl.bak" beside it. Only
// the latest backup is kept; the store never lists or reads it.
const BackupEx = ".bak"

// RewriteFunc writes the new content of a transcript to dst, reading the
// current one from src (which nobody appends to meanwhile). An error
// leaves the transcript as it was.
type RewriteFunc func(src io.Reader, dst io.Writer) error

// Rewrite replaces session id's transcript by what fn writes, under the
// session's lock, so that no entry a writer appends is lost: it takes the
// lock (as Append does, waiting at most Options.LockTimeout), lets fn
// write the new transcript to a temporary file beside it (locked, then
// fsynced), hard-links the old transcript to "<id>.jsonl.bak" (the
// backup, replacing an older one) and renames the new one into place
// while both are locked; the sidecar is rebuilt from the new transcript,
// keeping the caller-owned fields (Title, Model, Metadata, Origin) and
// Created. A writer waiting for the lock then writes to the new file.
// `agentctx sessions check ID --repair --in-place` uses it. It returns
// the backup's path.
//
// Errors: session.ErrInvalidID, session.ErrNotFound,
// session.ErrSessionBusy (nothing changed), session.ErrClosed,
// ErrNotRegular, ctx.Err(), fn's error (nothing changed), I/O errors.
func (s *Store) Rewrite(ctx context.Context, id string, fn RewriteFunc) (string, error) {
	h, err := s.acquire(ctx, "rewrite", id)
	if err != nil {
		return "", err
	}
	defer h.mu.Unlock()
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("jsonlstore: rewrite %s: %w", id, err)
	}
	held := h.w != nil // this Store writes the session: it keeps doing so
	if !held {
		w, err := s.lock(ctx, h)
		if err != nil {
			return fail(err)
		}
		h.w = w
	}
	w := h.w
	if w.f != nil {
		s.flushSidecarLogged(h)
	}
	old, err := s.meta(ctx, h)
	if err != nil {
		s.rewriteFailed(h, held)
		return fail(err)
	}
	lk, backup, err := rewriteLocked(ctx, h.path, fn)
	if err != nil {
		s.rewriteFailed(h, held)
		return fail(err)
	}
	// The new transcript is in place and locked by lk: index it.
	idx, err := s.reindex(ctx, h.path, old)
	if err == nil {
		err = writeSidecar(h.path, &idx, true)
	}
	w.release() // the old file: its lock and descriptor
	h.w = nil
	if held {
		h.w = &writer{lock: lk, written: time.Now()}
	} else {
		_ = lk.Unlock()
	}
	if err != nil {
		// The transcript is replaced; only the cache is stale, and
		// readers rebuild it.
		s.log.Warn("jsonlstore: rewrite: sidecar", "file", sidecarPath(h.path), "err", err)
	}
	return backup, nil
}

// rewriteFailed releases the lock Rewrite took, unless the Store held it
// before.
func (s *Store) rewriteFailed(h *handle, held bool) {
	if !held && h.w != nil {
		h.w.release()
		h.w = nil
	}
}

// reindex builds the index of the transcript at path from scratch, with
// old's caller-owned fields (Title, Model, Metadata, Origin), identity,
// Created and GitBranch.
func (s *Store) reindex(ctx context.Context, path string, old session.Session) (index, error) {
	f, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		return index{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return index{}, err
	}
	idx := index{Session: session.Session{
		ID: old.ID, Project: old.Project, Title: old.Title, Created: old.Created, LastActivity: old.Created,
		GitBranch: old.GitBranch, Model: old.Model, Origin: old.Origin, Metadata: old.Metadata,
	}}
	if err := scan(ctx, f, &idx, st.Size(), false, false); err != nil {
		return index{}, err
	}
	return idx, nil
}

// RewriteFile is [Store.Rewrite] for a transcript file outside a store
// (a Claude Code session file, a copy): it takes the file's lock as a
// store's writer would (failing with session.ErrSessionBusy when another
// process holds it), lets fn write the new content to a temporary file
// beside it, hard-links the old file to path+".bak" and renames the new
// one into place. It returns the backup's path. Errors:
// session.ErrSessionBusy, ErrNotRegular, ctx.Err(), fn's error (nothing
// changed), I/O errors.
func RewriteFile(ctx context.Context, path string, fn RewriteFunc) (string, error) {
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("jsonlstore: rewrite %s: %w", path, err)
	}
	if err := checkRegular(path); err != nil {
		return fail(err)
	}
	old := flock.New(path, flock.SetFlag(os.O_RDONLY|noFollow))
	ok, err := old.TryLock()
	if err != nil {
		return fail(err)
	}
	if !ok {
		return fail(session.ErrSessionBusy)
	}
	defer func() { _ = old.Unlock() }()
	lst, lerr := old.Stat()
	pst, perr := os.Lstat(path)
	if lerr != nil || perr != nil || !os.SameFile(lst, pst) {
		return fail(errors.New("replaced while being locked; try again"))
	}
	lk, backup, err := rewriteLocked(ctx, path, fn)
	if err != nil {
		return fail(err)
	}
	_ = lk.Unlock()
	return backup, nil
}

// rewriteLocked replaces the transcript at path, whose lock the caller
// holds, by what fn writes: to a temporary file beside it, locked,
// fsynced; the old file hard-linked to path+BackupEx; the new one renamed
// over path; the folder fsynced. It returns the new file's lock, still
// held, so that no writer opens the new file before the caller is done.
func rewriteLocked(ctx context.Context, path string, fn RewriteFunc) (*flock.Flock, string, error) {
	src, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		return nil, "", err
	}
	defer src.Close()
	tmp, lk, err := createLockedTemp(path)
	if err != nil {
		return nil, "", err
	}
	done := false
	defer func() {
		_ = tmp.Close()
		if !done {
			_ = os.Remove(tmp.Name())
			_ = lk.Unlock()
		}
	}()
	bw := bufio.NewWriterSize(tmp, 256<<10)
	if err := fn(src, bw); err != nil {
		return nil, "", err
	}
	if err := bw.Flush(); err != nil {
		return nil, "", err
	}
	if err := tmp.Sync(); err != nil {
		return nil, "", err
	}
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	dir := filepath.Dir(path)
	backup := path + BackupEx
	// The backup: a second name for the old file, given atomically.
	bt, err := os.CreateTemp(dir, "."+filepath.Base(backup)+".*"+tmpEx)
	if err != nil {
		return nil, "", err
	}
	_ = bt.Close()
	_ = os.Remove(bt.Name())
	if err := os.Link(path, bt.Name()); err != nil {
		return nil, "", fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(bt.Name(), backup); err != nil {
		_ = os.Remove(bt.Name())
		return nil, "", fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return nil, "", err
	}
	done = true
	if err := syncDir(dir); err != nil {
		_ = lk.Unlock()
		return nil, "", err
	}
	return lk, backup, nil
}
