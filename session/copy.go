package session

import (
	"context"
	"errors"
	"fmt"
	"iter"
)

// Importer is implemented by a [Store] that can create a session with all
// its entries at once (packages jsonlstore and sqlitestore): a crash
// part-way leaves no session. Import records in's metadata as
// [Store.Create] does (its ID, or a new one when empty; Project, Title,
// Created, GitBranch, Model, Origin and Metadata kept) and writes each
// entry entries yields, in order, filled and encoded as [Store.Append]
// does ([EncodeAppend]): an entry read from a store, whose fields are
// all filled, is stored byte for byte. A non-nil error from entries
// stops the import; nothing is stored and the error is returned. The
// session is not locked afterwards. Errors: [ErrInvalidID], [ErrExists],
// [ErrInvalidEntry], [ErrClosed], ctx.Err(), entries' error.
type Importer interface {
	Import(ctx context.Context, in Session, entries iter.Seq2[Entry, error]) (Session, error)
}

// Exporter is implemented by a [Store] that can read a session whole, as
// stored (packages jsonlstore and sqlitestore). Export returns session
// id's metadata and its entries in stored order (file order), side
// chains, abandoned branches and foreign lines included, each with Raw
// the stored line, so that importing them elsewhere ([Copy]) stores the
// same bytes. The entries are read as the sequence is iterated; a line
// that cannot be read whole (torn, malformed) ends it with an error
// rather than being skipped, so that a copy is never silently lossy.
// Errors: [ErrNotFound], [ErrInvalidID], [ErrClosed], ctx.Err().
type Exporter interface {
	Export(ctx context.Context, id string) (Session, iter.Seq2[Entry, error], error)
}

// ErrCannotCopy reports a [Copy] between stores of which one cannot
// export or import whole sessions. Nothing was written; copy through
// stores that implement [Exporter] and [Importer].
var ErrCannotCopy = errors.New("store cannot export or import whole sessions")

// Copy copies session id from src to dst, whole and losslessly: its
// metadata (id, project, title, created time, git branch, model, origin,
// metadata) and every entry, byte for byte, in stored order. The copy is
// atomic in dst (Importer): a failure or a kill part-way leaves no
// session there. src is only read; a writer may keep appending to it
// (the entries counted when Copy starts are copied). It returns the
// session as dst stored it. Errors: [ErrCannotCopy], src's Export errors
// ([ErrNotFound], …), dst's Import errors ([ErrExists], …).
func Copy(ctx context.Context, dst, src Store, id string) (Session, error) {
	ex, ok := src.(Exporter)
	if !ok {
		return Session{}, fmt.Errorf("session: copy %s: source %T: %w", id, src, ErrCannotCopy)
	}
	im, ok := dst.(Importer)
	if !ok {
		return Session{}, fmt.Errorf("session: copy %s: destination %T: %w", id, dst, ErrCannotCopy)
	}
	meta, entries, err := ex.Export(ctx, id)
	if err != nil {
		return Session{}, fmt.Errorf("session: copy %s: %w", id, err)
	}
	got, err := im.Import(ctx, meta, entries)
	if err != nil {
		return Session{}, fmt.Errorf("session: copy %s: %w", id, err)
	}
	return got, nil
}
