package jsonlstore

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/agentctx/agentctx/session"
)

// Load reads session id; see [session.Store.Load]. By default it seeks to
// the last compact boundary the index knows (after checking that a
// boundary line starts there; else the index is rebuilt by a streaming
// scan), reads from there to the end, and keeps the part from the last
// complete boundary on. When that boundary is incomplete (a compaction
// torn by a crash) it steps back to the previous one. The part of the
// file before the boundary read from is never held in memory. With
// opts.All it reads the whole file. The entries are then put in
// conversation order (session.Resolve). Torn and malformed lines are
// skipped and reported as Problems naming the file and byte offset.
// Errors: session.ErrInvalidID, session.ErrNotFound, session.ErrClosed,
// ctx.Err(), I/O errors.
func (s *Store) Load(ctx context.Context, id string, opts session.LoadOptions) (*session.Transcript, error) {
	h, err := s.acquire(ctx, "load", id)
	if err != nil {
		return nil, err
	}
	defer h.mu.Unlock()
	t, err := s.load(ctx, h, opts)
	if err != nil {
		return nil, fmt.Errorf("jsonlstore: load %s: %w", id, err)
	}
	return t, nil
}

func (s *Store) load(ctx context.Context, h *handle, opts session.LoadOptions) (*session.Transcript, error) {
	var (
		f    io.ReaderAt
		idx  index
		size int64
	)
	if w := h.w; w != nil && w.f != nil {
		f, idx, size = w.f, w.current(), w.size
	} else {
		file, err := openRegular(h.path, os.O_RDONLY)
		if err != nil {
			return nil, notFound(err)
		}
		defer file.Close()
		st, err := file.Stat()
		if err != nil {
			return nil, err
		}
		if idx, _, err = s.readIndex(ctx, h.id, h.path, file, st, true); err != nil {
			return nil, err
		}
		f, size = file, st.Size()
	}
	read := func(from int64) ([]session.Entry, []session.Problem, error) {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		first := 0
		if from == 0 {
			first = 1
		}
		return session.Read(io.NewSectionReader(f, from, size-from), session.ReadOptions{File: h.path, Start: from, FirstLine: first})
	}
	done := func(from int64, es []session.Entry, ps []session.Problem) *session.Transcript {
		ordered, rps := session.Resolve(es)
		ps = append(ps, rps...)
		for i := range ps {
			if ps[i].File == "" {
				ps[i].File = h.path
			}
		}
		slices.SortStableFunc(ps, func(a, b session.Problem) int { return cmp.Compare(a.Offset, b.Offset) })
		return &session.Transcript{Session: idx.Session, Entries: ordered, Offset: from, Problems: ps}
	}
	if opts.All {
		es, ps, err := read(0)
		if err != nil {
			return nil, err
		}
		return done(0, es, ps), nil
	}
	bounds := idx.Boundaries
	rebuilt := false
	for k := len(bounds) - 1; ; k-- {
		from := int64(0)
		if k >= 0 {
			from = bounds[k]
		}
		es, ps, err := read(from)
		if err != nil {
			return nil, err
		}
		if from > 0 && (len(es) == 0 || es[0].Offset != from || !es[0].IsBoundary() || !lineStartsAt(f, from)) {
			// The index is wrong: no boundary line starts at from.
			s.log.Warn("jsonlstore: load: index does not match the transcript; scanning it", "file", h.path, "offset", from)
			if rebuilt {
				k = 0 // read the whole file next
				continue
			}
			var fresh index
			if err := scan(ctx, f, &fresh, size, false, true); err != nil {
				return nil, err
			}
			bounds, rebuilt = fresh.Boundaries, true
			k = len(bounds)
			continue
		}
		start, lps := session.Live(es)
		if from > 0 && start == 0 && incompleteAt(lps, from) {
			continue // a torn compaction: step back to the previous boundary
		}
		return done(from, es[start:], append(ps, lps...)), nil
	}
}

// incompleteAt reports whether ps says the boundary at offset is
// incomplete.
func incompleteAt(ps []session.Problem, offset int64) bool {
	for _, p := range ps {
		if p.Kind == session.ProblemIncompleteBoundary && p.Offset == offset {
			return true
		}
	}
	return false
}

// lineStartsAt reports whether a line of f starts at offset: the byte
// before it is a newline.
func lineStartsAt(f io.ReaderAt, offset int64) bool {
	var b [1]byte
	_, err := f.ReadAt(b[:], offset-1)
	return err == nil && b[0] == '\n'
}
