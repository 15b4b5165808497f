package sqlitestore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"io"
	"iter"
	"slices"

	"github.com/agentctx/agentctx/session"
)

// Load reads session id; see [session.Store.Load]. It reads in one
// read transaction (a consistent snapshot, never blocked by a writer).
// By default it finds the last compact boundary through the boundary
// index and reads the rows from there on, never the earlier ones; when
// that boundary is incomplete (a compaction cut short) it steps back to
// the previous one. With opts.All it reads every row. The lines are
// decoded by session.Read as the JSONL form of the session (so that
// Problems name the offsets and line numbers of that form, in a "file"
// named "<database>#<id>"), and put in conversation order
// (session.Resolve). Errors: session.ErrInvalidID, session.ErrNotFound,
// session.ErrClosed, ctx.Err(), database errors.
func (s *Store) Load(ctx context.Context, id string, opts session.LoadOptions) (*session.Transcript, error) {
	if err := s.check(ctx, "load", id); err != nil {
		return nil, err
	}
	t, err := s.load(ctx, id, opts)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: load %s: %w", id, dbError(err))
	}
	return t, nil
}

// position is where a line starts: its 0-based seq and byte offset.
type position struct{ seq, off int64 }

func (s *Store) load(ctx context.Context, id string, opts session.LoadOptions) (*session.Transcript, error) {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	sess, err := get(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	file := s.path + "#" + id
	read := func(from position) ([]session.Entry, []session.Problem, error) {
		rows, err := tx.QueryContext(ctx, `SELECT line FROM entries WHERE session_id = ? AND seq >= ? ORDER BY seq`, id, from.seq)
		if err != nil {
			return nil, nil, err
		}
		defer rows.Close()
		return session.Read(&lineReader{rows: rows}, session.ReadOptions{File: file, Start: from.off, FirstLine: int(from.seq) + 1})
	}
	done := func(from position, es []session.Entry, ps []session.Problem) *session.Transcript {
		ordered, rps := session.Resolve(es)
		ps = append(ps, rps...)
		for i := range ps {
			if ps[i].File == "" {
				ps[i].File = file
			}
		}
		slices.SortStableFunc(ps, func(a, b session.Problem) int { return cmp.Compare(a.Offset, b.Offset) })
		return &session.Transcript{Session: sess, Entries: ordered, Offset: from.off, Problems: ps}
	}
	if opts.All {
		es, ps, err := read(position{})
		if err != nil {
			return nil, err
		}
		return done(position{}, es, ps), nil
	}
	bounds, err := boundaries(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	for k := len(bounds) - 1; ; k-- {
		var from position
		if k >= 0 {
			from = bounds[k]
		}
		es, ps, err := read(from)
		if err != nil {
			return nil, err
		}
		start, lps := session.Live(es)
		if k >= 0 && start == 0 && incompleteAt(lps, from.off) {
			continue // a torn compaction: step back to the previous boundary
		}
		return done(from, es[start:], append(ps, lps...)), nil
	}
}

// boundaries returns where session id's compact boundaries start, in
// order, through the partial index entries_boundary.
func boundaries(ctx context.Context, tx *sql.Tx, id string) ([]position, error) {
	rows, err := tx.QueryContext(ctx, `SELECT seq, off FROM entries WHERE session_id = ? AND boundary = 1 ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []position
	for rows.Next() {
		var p position
		if err := rows.Scan(&p.seq, &p.off); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
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

// lineReader reads rows of one "line" column as JSONL: each line and a
// newline.
type lineReader struct {
	rows *sql.Rows
	buf  []byte
}

// Read implements io.Reader.
func (r *lineReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if !r.rows.Next() {
			if err := r.rows.Err(); err != nil {
				return 0, err
			}
			return 0, io.EOF
		}
		var line []byte
		if err := r.rows.Scan(&line); err != nil {
			return 0, err
		}
		r.buf = append(line, '\n')
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// Export returns session id's metadata and every entry it holds, in
// stored order: side chains, abandoned branches and foreign lines
// included, each with Raw the stored line; see [session.Exporter]. The
// entries are read when iterated, in one read transaction, up to the
// entries the metadata counts (appends made meanwhile are left out).
// A stored line that does not decode stops the iteration with an error
// naming its line number. Errors: session.ErrInvalidID,
// session.ErrNotFound, session.ErrClosed, ctx.Err(), database errors.
func (s *Store) Export(ctx context.Context, id string) (session.Session, iter.Seq2[session.Entry, error], error) {
	if err := s.check(ctx, "export", id); err != nil {
		return session.Session{}, nil, err
	}
	sess, err := s.getRead(ctx, id)
	if err != nil {
		return session.Session{}, nil, fmt.Errorf("sqlitestore: export %s: %w", id, err)
	}
	seq := func(yield func(session.Entry, error) bool) {
		fail := func(err error) { yield(session.Entry{}, fmt.Errorf("sqlitestore: export %s: %w", id, dbError(err))) }
		rows, err := s.rdb.QueryContext(ctx, `SELECT seq, off, line FROM entries WHERE session_id = ? AND seq < ? ORDER BY seq`, id, sess.Entries)
		if err != nil {
			fail(err)
			return
		}
		defer rows.Close()
		for rows.Next() {
			var (
				n, off int64
				line   []byte
			)
			if err := rows.Scan(&n, &off, &line); err != nil {
				fail(err)
				return
			}
			e, err := session.DecodeLine(line)
			if err != nil {
				fail(fmt.Errorf("line %d (byte %d): %w", n+1, off, err))
				return
			}
			e.Offset, e.Line = off, int(n)+1
			if !yield(e, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			fail(err)
		}
	}
	return sess, seq, nil
}
