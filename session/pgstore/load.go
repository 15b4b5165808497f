package pgstore

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/agentctx/agentctx/session"
)

// Load reads session id; see [session.Store.Load]. It reads in one
// read-only REPEATABLE READ transaction (a consistent snapshot; it never
// waits for a writer): by default only the rows from the last compact
// boundary on (found through a partial index), keeping the part from the
// last complete boundary on, and stepping back to the previous boundary
// when that one is incomplete, as jsonlstore does. With opts.All it reads
// every row. The entries are then put in conversation order
// (session.Resolve). Each entry's Offset is its line's byte offset in the
// session's JSONL form and Line its number; Transcript.Offset is the
// offset of the first line read. A stored line that does not decode (none
// should) is skipped and reported as session.ProblemMalformed. Errors:
// session.ErrInvalidID, session.ErrNotFound, session.ErrClosed,
// ctx.Err(), SQL errors.
func (s *Store) Load(ctx context.Context, id string, opts session.LoadOptions) (*session.Transcript, error) {
	if err := s.check(ctx, "load", id, true); err != nil {
		return nil, err
	}
	var t *session.Transcript
	err := s.read(ctx, func(tx pgx.Tx) error {
		var sess session.Session
		err := scanSession(tx.QueryRow(ctx, s.c.q(`SELECT `+sessionCols+` FROM {s}.sessions WHERE tenant = $1 AND id = $2`), s.tenant, id), &sess)
		if err != nil {
			return notFound(err)
		}
		done := func(from int64, es []session.Entry, ps []session.Problem) {
			ordered, rps := session.Resolve(es)
			ps = append(ps, rps...)
			slices.SortStableFunc(ps, func(a, b session.Problem) int { return cmp.Compare(a.Offset, b.Offset) })
			t = &session.Transcript{Session: sess, Entries: ordered, Offset: from, Problems: ps}
		}
		if opts.All {
			es, ps, err := s.readFrom(ctx, tx, id, 1, sess.Entries)
			if err != nil {
				return err
			}
			done(0, es, ps)
			return nil
		}
		bounds, err := s.boundaries(ctx, tx, id)
		if err != nil {
			return err
		}
		for k := len(bounds) - 1; ; k-- {
			from := int64(1)
			if k >= 0 {
				from = bounds[k]
			}
			es, ps, err := s.readFrom(ctx, tx, id, from, sess.Entries-int(from)+1)
			if err != nil {
				return err
			}
			off := int64(0)
			if len(es) > 0 {
				off = es[0].Offset
			}
			start, lps := session.Live(es)
			if k >= 0 && start == 0 && incompleteAt(lps, off) {
				continue // a torn compaction: step back to the previous boundary
			}
			if k < 0 {
				off = 0
			}
			done(off, es[start:], append(ps, lps...))
			return nil
		}
	})
	if err != nil {
		return nil, fail(ctx, "load", id, err)
	}
	return t, nil
}

// read runs fn in a read-only REPEATABLE READ transaction.
func (s *Store) read(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, s.c.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

// boundaries returns the line numbers (seq) of session id's compact
// boundaries, ascending.
func (s *Store) boundaries(ctx context.Context, tx pgx.Tx, id string) ([]int64, error) {
	rows, err := tx.Query(ctx, s.c.q(`SELECT seq FROM {s}.entries WHERE tenant = $1 AND session_id = $2 AND boundary ORDER BY seq`), s.tenant, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// readFrom decodes session id's lines from line number from on, in
// order; about n of them (a capacity hint).
func (s *Store) readFrom(ctx context.Context, tx pgx.Tx, id string, from int64, n int) ([]session.Entry, []session.Problem, error) {
	es := make([]session.Entry, 0, max(n, 0))
	var ps []session.Problem
	err := s.lines(ctx, tx, id, from, func(seq, off int64, line []byte) error {
		e, err := session.DecodeLine(line)
		if err != nil {
			ps = append(ps, session.Problem{Kind: session.ProblemMalformed, Line: int(seq), Offset: off, Detail: err.Error()})
			return nil
		}
		e.Offset, e.Line = off, int(seq)
		es = append(es, e)
		return nil
	})
	return es, ps, err
}

// lines calls fn with each of session id's lines from line number from
// on, in order; line is valid only during the call.
func (s *Store) lines(ctx context.Context, tx pgx.Tx, id string, from int64, fn func(seq, off int64, line []byte) error) error {
	rows, err := tx.Query(ctx, s.c.q(`SELECT seq, off, line FROM {s}.entries WHERE tenant = $1 AND session_id = $2 AND seq >= $3 ORDER BY seq`),
		s.tenant, id, from)
	if err != nil {
		return err
	}
	defer rows.Close()
	var (
		seq, off int64
		line     []byte
	)
	for rows.Next() {
		if err := rows.Scan(&seq, &off, &line); err != nil {
			return err
		}
		if err := fn(seq, off, line); err != nil {
			return err
		}
	}
	return rows.Err()
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

var (
	_ session.Importer = (*Store)(nil)
	_ session.Exporter = (*Store)(nil)
)

// Export returns session id's metadata and every stored line as an
// entry, in stored order, each with Raw the line, Offset and Line; see
// [session.Exporter] ([session.Copy] moves sessions between stores with
// it). The rows are read when the sequence is iterated, in one
// consistent snapshot, up to the entries the metadata counted when
// Export was called (appends made meanwhile are left out), streamed
// rather than held in memory. A stored line that does not decode (none
// should) ends the iteration with an error naming its line and offset.
// Errors: session.ErrInvalidID, session.ErrNotFound, session.ErrClosed,
// ctx.Err(), SQL errors.
func (s *Store) Export(ctx context.Context, id string) (session.Session, iter.Seq2[session.Entry, error], error) {
	sess, err := s.Get(ctx, id)
	if err != nil {
		return session.Session{}, nil, err
	}
	upTo := int64(sess.Entries)
	seq := func(yield func(session.Entry, error) bool) {
		stopped := false
		err := s.read(ctx, func(tx pgx.Tx) error {
			return s.lines(ctx, tx, id, 1, func(seq, off int64, line []byte) error {
				if seq > upTo {
					return errStop
				}
				e, err := session.DecodeLine(line)
				if err != nil {
					return fmt.Errorf("line %d (byte %d): %w", seq, off, err)
				}
				e.Offset, e.Line = off, int(seq)
				if !yield(e, nil) {
					stopped = true
					return errStop
				}
				return nil
			})
		})
		if err != nil && !errors.Is(err, errStop) && !stopped {
			yield(session.Entry{}, fail(ctx, "export", id, err))
		}
	}
	return sess, seq, nil
}

// errStop ends the row loop of Export early.
var errStop = errors.New("stop")

// WriteJSONL writes session id as a JSONL transcript to w: every stored
// line in order, each followed by a newline, byte for byte what
// jsonlstore's file of the same appends holds (tested on every real
// transcript): what a server's "export as JSONL" route sends. It reads
// one consistent snapshot and streams it (memory does not grow with the
// session). It returns the number of bytes written. Errors:
// session.ErrInvalidID, session.ErrNotFound, session.ErrClosed,
// ctx.Err(), w's and SQL errors.
func (s *Store) WriteJSONL(ctx context.Context, id string, w io.Writer) (int64, error) {
	if err := s.check(ctx, "export", id, true); err != nil {
		return 0, err
	}
	var n int64
	err := s.read(ctx, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, s.c.q(`SELECT 1 FROM {s}.sessions WHERE tenant = $1 AND id = $2`), s.tenant, id).Scan(&one); err != nil {
			return notFound(err)
		}
		bw := bufio.NewWriterSize(w, 256<<10)
		err := s.lines(ctx, tx, id, 1, func(_, _ int64, line []byte) error {
			k, err := bw.Write(line)
			n += int64(k)
			if err != nil {
				return err
			}
			if err := bw.WriteByte('\n'); err != nil {
				return err
			}
			n++
			return nil
		})
		if err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return n, fail(ctx, "export", id, err)
	}
	return n, nil
}
