package jsonlstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/agentctx/agentctx/session"
)

var (
	_ session.Importer = (*Store)(nil)
	_ session.Exporter = (*Store)(nil)
)

// errStop ends ReadLines when the consumer of Export stops iterating.
var errStop = errors.New("stop")

// Export returns session id's metadata and every line of its transcript
// as an entry, in file order, each with Raw the line; see
// [session.Exporter]. The file is read when the sequence is iterated, up
// to the size it had when Export was called (appends made meanwhile are
// left out), without holding it in memory. A torn or malformed line
// ends the iteration with an error naming the file, line and byte
// offset: `agentctx sessions check --repair` writes a clean copy first.
// Blank lines are skipped (they hold nothing). Errors:
// session.ErrInvalidID, session.ErrNotFound, session.ErrClosed,
// ctx.Err().
func (s *Store) Export(ctx context.Context, id string) (session.Session, iter.Seq2[session.Entry, error], error) {
	sess, err := s.Get(ctx, id)
	if err != nil {
		return session.Session{}, nil, err
	}
	path, err := s.Path(id)
	if err != nil {
		return session.Session{}, nil, err
	}
	f, err := openRegular(path, os.O_RDONLY)
	if err != nil {
		return session.Session{}, nil, fmt.Errorf("jsonlstore: export %s: %w", id, notFound(err))
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return session.Session{}, nil, fmt.Errorf("jsonlstore: export %s: %w", id, err)
	}
	size := st.Size()
	_ = f.Close()
	seq := func(yield func(session.Entry, error) bool) {
		fail := func(err error) { yield(session.Entry{}, fmt.Errorf("jsonlstore: export %s: %w", id, err)) }
		f, err := openRegular(path, os.O_RDONLY)
		if err != nil {
			fail(notFound(err))
			return
		}
		defer f.Close()
		n := 0
		err = session.ReadLines(io.LimitReader(f, size), 0, 1, func(l session.Line) error {
			if n++; n%scanCheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if l.Torn {
				return fmt.Errorf("%s:%d (byte %d): torn last line; run 'agentctx sessions check --repair %s' first", path, l.Number, l.Offset, id)
			}
			e, err := session.DecodeLine(l.Bytes)
			if err != nil {
				return fmt.Errorf("%s:%d (byte %d): %w; run 'agentctx sessions check --repair %s' first", path, l.Number, l.Offset, err, id)
			}
			e.Offset, e.Line = l.Offset, l.Number
			if !yield(e, nil) {
				return errStop
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			fail(err)
		}
	}
	return sess, seq, nil
}
