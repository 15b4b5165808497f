package jsonlstore

import (
	"errors"
	"syscall"
)

// DefaultMaxOpen is the default of [Options.MaxOpen]: how many sessions a
// [Store] keeps open at once, at 2 file descriptors each.
const DefaultMaxOpen = 64

// This file bounds the file descriptors a Store holds. A session this
// Store writes holds 2: its lock (flock(2) on the transcript opened
// read-only) and the transcript opened for appending. The sessions with a
// writer are kept in s.lru, the most recently used first; when there are
// more than Options.MaxOpen, the least recently used idle ones are closed
// as Close would close them (fsynced unless SyncNever, sidecar written,
// lock released). The next write to a closed session takes its lock
// again and learns the file's state from disk, as the first write does,
// so nothing acknowledged is lost and an entry another process appended
// meanwhile is seen. A session with an operation in progress is never
// closed under it: the bound is MaxOpen sessions plus those in use.

// maxOpen returns the bound on sessions with open files.
func (s *Store) maxOpen() int {
	if s.opts.MaxOpen > 0 {
		return s.opts.MaxOpen
	}
	return DefaultMaxOpen
}

// opened records that h (h.mu held, h.w set) was just used, and closes
// the least recently used idle sessions over the bound.
func (s *Store) opened(h *handle) {
	s.shed(h, s.maxOpen())
}

// shed makes h (h.mu held) the most recently used session when it has a
// writer, then closes least recently used idle sessions (not h) until at
// most keep have a writer or none is idle.
func (s *Store) shed(h *handle, keep int) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if h.w != nil {
		if h.elem == nil {
			h.elem = s.lru.PushFront(h)
		} else {
			s.lru.MoveToFront(h.elem)
		}
	}
	var victims []*handle
	for e := s.lru.Back(); e != nil && s.lru.Len()-len(victims) > keep; e = e.Prev() {
		if v := e.Value.(*handle); v != h {
			victims = append(victims, v)
		}
	}
	s.mu.Unlock()
	for _, v := range victims {
		// TryLock: a session in use is not idle (and waiting for it
		// while holding h.mu could deadlock with its own shed).
		if !v.mu.TryLock() {
			continue
		}
		if v.w != nil && !v.closed && !v.gone {
			s.closeWriter(v)
		}
		v.mu.Unlock()
	}
}

// closeWriter closes session h's files (h.mu held, h.w set) as Close
// does: what the sync policy left unsynced is fsynced (not under
// SyncNever), the sidecar written, the lock released. The entries are
// already written and acknowledged; a failure here is logged, as the
// bytes are in the file either way.
func (s *Store) closeWriter(h *handle) {
	w := h.w
	if w.f != nil {
		if s.opts.Sync != SyncNever && w.unsynced {
			if err := w.sync(); err != nil {
				s.log.Warn("jsonlstore: closing an idle session: fsync", "file", h.path, "err", err)
			}
		}
		s.flushSidecarLogged(h)
	}
	s.dropWriter(h)
}

// dropWriter releases h's writer (h.mu held, h.w set) and takes h out of
// the open sessions.
func (s *Store) dropWriter(h *handle) {
	h.w.release()
	h.w = nil
	s.mu.Lock()
	if h.elem != nil && !s.closed { // Close emptied the list
		s.lru.Remove(h.elem)
	}
	h.elem = nil
	s.mu.Unlock()
}

// tooManyFiles reports whether err is the process's (EMFILE) or the
// system's (ENFILE) limit on open files.
func tooManyFiles(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}
