package jsonlstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/gofrs/flock"

	"github.com/agentctx/agentctx/session"
)

// Sidecar refresh while appending: the sidecar is rewritten after a
// boundary, and otherwise at most once per sidecarInterval, or after
// sidecarEvery appends (readers scan the tail it does not cover). A
// rewrite creates a file, which costs about as much as 10 appends without
// fsync.
const (
	sidecarEvery    = 1024
	sidecarInterval = time.Second
)

// lockRetry is how often a waiting writer retries a held lock.
const lockRetry = 10 * time.Millisecond

// writer is a session this Store holds the lock of. f is nil until the
// session is opened for appending (Delete only needs the lock).
type writer struct {
	lock *flock.Flock
	f    *os.File // O_RDWR|O_APPEND
	idx  index    // current: covers the whole file once f is open
	size int64    // the file's size in bytes
	// needNL says the file ends in a torn line: the next write starts
	// with '\n' so the new entry starts a fresh line.
	needNL bool
	// torn is the torn last line when it decodes as an entry (Offset
	// set): observed once the next write ends its line.
	torn     *session.Entry
	unsynced bool      // bytes written since the last fsync
	pending  int       // appends since the sidecar was written
	written  time.Time // when the sidecar was last written
}

// lock takes session h's file lock, waiting at most Options.LockTimeout.
// Errors: session.ErrSessionBusy, session.ErrNotFound (the file is gone,
// or was replaced while waiting), ctx.Err().
func (s *Store) lock(ctx context.Context, h *handle) (*writer, error) {
	for try := 0; ; try++ {
		if err := checkRegular(h.path); err != nil {
			return nil, notFound(err)
		}
		fl := flock.New(h.path, flock.SetFlag(os.O_RDONLY|noFollow))
		var ok bool
		var err error
		if s.opts.LockTimeout <= 0 {
			ok, err = fl.TryLock()
		} else {
			lctx, cancel := context.WithTimeout(ctx, s.opts.LockTimeout)
			ok, err = fl.TryLockContext(lctx, min(lockRetry, s.opts.LockTimeout))
			cancel()
			if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				ok, err = false, nil
			}
		}
		if errors.Is(err, syscall.ELOOP) {
			return nil, notRegular(h.path, fs.ModeSymlink)
		}
		if err != nil {
			return nil, notFound(err)
		}
		if !ok {
			return nil, session.ErrSessionBusy
		}
		// The file may have been deleted, or deleted and created again,
		// while we waited: the lock must be on the file the path names.
		lst, lerr := fl.Stat()
		pst, perr := os.Lstat(h.path)
		if lerr == nil && perr == nil && os.SameFile(lst, pst) {
			return &writer{lock: fl, written: time.Now()}, nil
		}
		_ = fl.Unlock()
		if perr != nil || try == 2 {
			return nil, session.ErrNotFound
		}
	}
}

// ensureWriter makes h a session this Store writes: locked, the file open
// for appending, the index current and the tail learnt (h.mu held).
//
// It keeps the Store's open sessions within Options.MaxOpen (lru.go). When
// the process is out of file descriptors (EMFILE, ENFILE) it closes every
// other idle session and tries once more; the error, when it persists, is
// returned: nothing was written.
func (s *Store) ensureWriter(ctx context.Context, h *handle) error {
	err := s.tryWriter(ctx, h)
	if err != nil && tooManyFiles(err) {
		s.shed(h, 0)
		err = s.tryWriter(ctx, h)
	}
	if err != nil {
		return err
	}
	s.opened(h)
	return nil
}

// tryWriter is ensureWriter's one attempt.
func (s *Store) tryWriter(ctx context.Context, h *handle) error {
	if h.w == nil {
		w, err := s.lock(ctx, h)
		if err != nil {
			return err
		}
		h.w = w
	}
	w := h.w
	if w.f != nil {
		return nil
	}
	if err := s.openWriter(ctx, h, w); err != nil {
		s.dropWriter(h)
		return err
	}
	return nil
}

// Lock takes session id's write lock now, as the first Append would, and
// keeps it as that Append would: until Close or Delete, or until
// Options.MaxOpen closes the session as the least recently used. It implements
// [session.Locker]: an Engine that will write calls it when it opens or
// resumes the session, so that a second writer is told at once, not at
// its first write. Nothing is written; a session this Store already
// writes is left as it is. Errors: session.ErrInvalidID,
// session.ErrNotFound, session.ErrSessionBusy (after Options.LockTimeout),
// session.ErrClosed, ErrNotRegular, ctx.Err().
func (s *Store) Lock(ctx context.Context, id string) error {
	h, err := s.acquire(ctx, "lock", id)
	if err != nil {
		return err
	}
	defer h.mu.Unlock()
	if h.w != nil {
		s.opened(h)
		return nil
	}
	w, err := s.lock(ctx, h)
	if err != nil && tooManyFiles(err) {
		s.shed(h, 0)
		w, err = s.lock(ctx, h)
	}
	if err != nil {
		return fmt.Errorf("jsonlstore: lock %s: %w", id, err)
	}
	h.w = w
	s.opened(h)
	return nil
}

// openWriter opens h's file for appending and learns its state: the index
// (sidecar plus tail), the last entry's uuid and whether the last line is
// torn, read backwards from the end.
func (s *Store) openWriter(ctx context.Context, h *handle, w *writer) error {
	f, err := openRegular(h.path, os.O_RDWR|os.O_APPEND)
	if err != nil {
		return notFound(err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return err
	}
	idx, stale, err := s.readIndex(ctx, h.id, h.path, f, st, false)
	if err != nil {
		_ = f.Close()
		return err
	}
	last, torn, err := lastEntry(f, st.Size())
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("%s: %w", h.path, err)
	}
	w.torn = nil
	if torn {
		s.log.Warn("jsonlstore: transcript ends in a torn line; appending on a fresh line", "file", h.path, "size", st.Size())
		// The index stops before the torn line and covers it once the
		// next write ends it: then the line is observed if it decodes.
		if w.torn, err = tornEntry(f, idx.Size, st.Size()); err != nil {
			_ = f.Close()
			return fmt.Errorf("%s: %w", h.path, err)
		}
	}
	idx.LastUUID = last
	w.f, w.idx, w.size, w.needNL = f, idx, st.Size(), torn
	if stale {
		s.flushSidecarLogged(h)
	}
	return nil
}

// tornEntry decodes the torn last line of f, which starts after the
// blank lines from offset from to size, or returns nil.
func tornEntry(f io.ReaderAt, from, size int64) (*session.Entry, error) {
	line := make([]byte, size-from)
	if _, err := f.ReadAt(line, from); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	at := from
	if i := bytes.LastIndexByte(line, '\n'); i >= 0 {
		at += int64(i) + 1
		line = line[i+1:]
	}
	e, err := session.DecodeLine(line)
	if err != nil {
		return nil, nil
	}
	e.Offset = at
	return &e, nil
}

// current returns a copy of w's index as readers see the file: with the
// torn last line observed when it is an entry.
func (w *writer) current() index {
	idx := w.idx.clone()
	if w.torn != nil {
		observeEntry(&idx, *w.torn, w.torn.Offset, false)
	}
	return idx
}

// release closes w's file and releases its lock.
func (w *writer) release() {
	if w.f != nil {
		_ = w.f.Close()
		w.f = nil
	}
	_ = w.lock.Unlock()
}

// sync fsyncs w's file.
func (w *writer) sync() error {
	if err := w.f.Sync(); err != nil {
		return err
	}
	w.unsynced = false
	return nil
}

// sidecarDone records a sidecar write.
func (w *writer) sidecarDone() {
	w.pending = 0
	w.written = time.Now()
}

// flushSidecar rewrites h's sidecar from the writer's index.
func (s *Store) flushSidecar(h *handle) error {
	w := h.w
	if w == nil || w.f == nil {
		return nil
	}
	if err := writeSidecar(h.path, &w.idx, false); err != nil {
		return err
	}
	w.sidecarDone()
	return nil
}

// flushSidecarLogged is flushSidecar for the cases where a failure only
// costs readers a longer scan: it is logged, not returned.
func (s *Store) flushSidecarLogged(h *handle) {
	if err := s.flushSidecar(h); err != nil {
		s.log.Warn("jsonlstore: writing sidecar", "file", sidecarPath(h.path), "err", err)
	}
}

// Append writes entries at the end of session id in one write(2) on the
// file opened with O_APPEND, and returns them as stored (with their byte
// Offset); see [session.Store.Append]. The first write to a session takes
// its lock and keeps it until Close or Delete, or until the session is the
// least recently used of more than Options.MaxOpen open ones.
//
// Filled when empty: UUID (a version 7 UUID), SessionID, Timestamp
// (Options.Now, cut to milliseconds as on the wire), CWD (the project),
// GitBranch (detected at Create), Version (Options.Version) and
// ParentUUID (the previous entry with a uuid). A compact boundary gets a
// null parent and LogicalParentUUID instead (Claude Code's form). A
// side-chain entry's parent is left as given and it does not become the
// next entry's parent. An entry read from a file (with Raw) gets only
// UUID, SessionID, Timestamp and its parent filled, and is written as Raw,
// byte for byte, when that still describes it (session.MarshalLine); a
// foreign entry with Raw is written byte for byte and gets nothing
// filled. A returned entry's Raw is the line written, or nil for an entry
// built in memory.
//
// Durability follows Options.Sync. On an fsync error the entries are
// written (and returned) but maybe not durable; the error says so.
// Errors: session.ErrInvalidID, session.ErrNotFound,
// session.ErrInvalidEntry (nothing written), session.ErrSessionBusy,
// session.ErrClosed, ctx.Err() (checked before writing), I/O errors.
func (s *Store) Append(ctx context.Context, id string, entries ...session.Entry) ([]session.Entry, error) {
	if err := session.ValidateID(id); err != nil {
		return nil, fmt.Errorf("jsonlstore: append: %w", err)
	}
	for i := range entries {
		if err := session.CheckAppend(id, &entries[i]); err != nil {
			return nil, fmt.Errorf("jsonlstore: append %s: entry %d: %w", id, i, err)
		}
	}
	h, err := s.acquire(ctx, "append", id)
	if err != nil {
		return nil, err
	}
	defer h.mu.Unlock()
	if len(entries) == 0 {
		return nil, nil
	}
	if err := s.ensureWriter(ctx, h); err != nil {
		return nil, fmt.Errorf("jsonlstore: append %s: %w", id, err)
	}
	w := h.w
	out := slices.Clone(entries)
	offsets := make([]int64, len(out))
	prev := w.idx.LastUUID
	now := s.now().UTC().Truncate(time.Millisecond)
	sess := &w.idx.Session
	var buf bytes.Buffer
	if w.needNL {
		buf.WriteByte('\n')
	}
	for i := range out {
		e := &out[i]
		line, err := session.EncodeAppend(e, session.AppendContext{ID: id, Prev: prev, Now: now, Session: sess, Version: s.opts.Version})
		if err != nil {
			return nil, fmt.Errorf("jsonlstore: append %s: entry %d: %w", id, i, err)
		}
		offsets[i] = w.size + int64(buf.Len())
		buf.Write(line)
		buf.WriteByte('\n')
		if e.UUID != "" && !e.IsSidechain {
			prev = e.UUID
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("jsonlstore: append %s: %w", id, err)
	}
	n, err := w.f.Write(buf.Bytes())
	if err != nil {
		// Part of the batch may be in the file: learn the tail again
		// before the next write (the lock stays).
		_ = w.f.Close()
		w.f = nil
		return nil, fmt.Errorf("jsonlstore: append %s: %w", id, err)
	}
	w.size += int64(n)
	w.needNL = false
	if w.torn != nil {
		observeEntry(&w.idx, *w.torn, w.torn.Offset, false)
		w.torn = nil
	}
	w.idx.Size = w.size
	w.idx.LastUUID = prev
	boundary, turn := false, false
	for i := range out {
		out[i].Offset = offsets[i]
		sess.Observe(out[i])
		if out[i].IsBoundary() {
			boundary = true
			w.idx.Boundaries = append(w.idx.Boundaries, offsets[i])
		}
		turn = turn || s.opts.Sync == SyncTurn && session.SyncsAtTurn(&out[i])
	}
	w.unsynced = true
	w.pending++
	var serr error
	if s.opts.Sync == SyncAlways || turn {
		if err := w.sync(); err != nil {
			serr = fmt.Errorf("jsonlstore: append %s: written but not synced: %w", id, err)
		}
	}
	if boundary || w.pending >= sidecarEvery || time.Since(w.written) >= sidecarInterval {
		s.flushSidecarLogged(h)
	}
	return out, serr
}

// tailChunk is how much lastEntry reads backwards at a time, in bytes.
const tailChunk = 64 << 10

// lastEntry reads a transcript of size bytes backwards from its end: torn
// reports that the last line has no newline, uuid is the uuid of the last
// line that is an entry with one (not a side chain), or "". A torn last
// line counts when it decodes (its bytes are all there but the newline,
// and session.Read keeps it). Only the lines it inspects are read,
// normally just the last one.
func lastEntry(r io.ReaderAt, size int64) (uuid string, torn bool, err error) {
	if size == 0 {
		return "", false, nil
	}
	buf := make([]byte, tailChunk)
	if _, err := r.ReadAt(buf[:1], size-1); err != nil {
		return "", false, err
	}
	torn = buf[0] != '\n'
	// end is the end of the region left to inspect, the newline of its
	// last line excluded; byte end is '\n' unless end == size.
	end := size
	if !torn {
		end = size - 1
	}
	for end > 0 {
		start, err := lineStart(r, end, buf)
		if err != nil {
			return "", false, err
		}
		line := make([]byte, end-start)
		if _, err := r.ReadAt(line, start); err != nil && !errors.Is(err, io.EOF) {
			return "", false, err
		}
		if e, err := session.DecodeLine(line); err == nil && e.UUID != "" && !e.IsSidechain {
			return e.UUID, torn, nil
		}
		end = start - 1
	}
	return "", torn, nil
}

// lineStart returns the offset of the first byte of the line that ends at
// end (exclusive): one past the last '\n' before end, or 0.
func lineStart(r io.ReaderAt, end int64, buf []byte) (int64, error) {
	for pos := end; pos > 0; {
		n := min(int64(len(buf)), pos)
		pos -= n
		if _, err := r.ReadAt(buf[:n], pos); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
	}
	return 0, nil
}
