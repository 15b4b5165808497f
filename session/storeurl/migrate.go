package storeurl

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// MigratedFile is the file, in the data folder, whose presence says that
// the JSONL session files of the previous default store were all copied
// into the default SQLite database: opening the default store then does
// not look at them again. Deleting it makes the next open look again
// (copying only what the database lacks).
const MigratedFile = "jsonl-migrated"

// migrateLock is the file, in the data folder, that two processes opening
// the default store at once lock, so that one copies and the other then
// finds the work done.
const migrateLock = MigratedFile + ".lock"

// lockRetry is how often a process waiting for another's migration tries
// the lock again.
const lockRetry = 50 * time.Millisecond

// Migration reports what opening the default store ("") did with the
// JSONL session files of the previous default (package jsonlstore's
// layout in the same data folder): each session there is copied, whole
// and byte for byte ([session.Copy]), into the SQLite database, once.
// The files themselves are left in place, untouched; nothing writes them
// afterwards.
type Migration struct {
	// From is the folder of the JSONL files (the data folder).
	From string
	// To is the database file.
	To string
	// Copied counts the sessions copied by this open.
	Copied int
	// Present counts the sessions the database held already: copied by
	// an earlier open that was interrupted, or by another process.
	Present int
	// Failed lists the sessions that could not be copied (a torn or
	// malformed line stops a lossless copy), each error naming the
	// session and the line. Their files are kept, readable with
	// --store jsonl:DIR; the next open tries them again.
	Failed []error
}

// migrateHook, when set (by the package's tests), runs after each session
// is copied: returning an error stops the migration there, as a crash
// would.
var migrateHook func(copied int) error

// migrate copies the JSONL sessions in home into dst (the default SQLite
// store), unless home holds MigratedFile or no JSONL sessions. It is
// idempotent: a session the database holds is skipped, and each copy is
// one transaction, so a migration interrupted at any point (a kill, a
// crash) loses nothing and the next call finishes it. MigratedFile is
// written, atomically, only once every session is in the database. It
// returns nil when there was nothing to look at.
func migrate(ctx context.Context, home, dbPath string, dst session.Store) (*Migration, error) {
	done := filepath.Join(home, MigratedFile)
	if _, err := os.Stat(done); err == nil {
		return nil, nil
	}
	if _, err := os.Stat(filepath.Join(home, "projects")); errors.Is(err, fs.ErrNotExist) {
		return nil, nil // no JSONL store here: nothing to migrate, now or later
	}
	lk := flock.New(filepath.Join(home, migrateLock))
	if _, err := lk.TryLockContext(ctx, lockRetry); err != nil {
		return nil, fmt.Errorf("migrate %s: lock: %w", home, err)
	}
	defer func() { _ = lk.Unlock() }()
	if _, err := os.Stat(done); err == nil {
		return nil, nil // another process finished it while we waited
	}
	src, err := jsonlstore.Open(jsonlstore.Options{Root: home})
	if err != nil {
		return nil, fmt.Errorf("migrate %s: %w", home, err)
	}
	defer func() { _ = src.Close() }()
	ss, err := src.List(ctx, session.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("migrate %s: %w", home, err)
	}
	m := &Migration{From: home, To: dbPath}
	last := ""
	for _, s := range ss {
		if _, err := dst.Get(ctx, s.ID); err == nil {
			m.Present++
			continue
		} else if !errors.Is(err, session.ErrNotFound) {
			return m, fmt.Errorf("migrate %s: %w", s.ID, err)
		}
		_, err := session.Copy(ctx, dst, src, s.ID)
		switch {
		case errors.Is(err, session.ErrExists):
			m.Present++ // another process copied it meanwhile
			continue
		case ctx.Err() != nil:
			return m, ctx.Err()
		case err != nil:
			m.Failed = append(m.Failed, err)
			continue
		}
		m.Copied++
		last = s.ID
		if migrateHook != nil {
			if err := migrateHook(m.Copied); err != nil {
				return m, err
			}
		}
	}
	if len(m.Failed) == 0 {
		if last != "" {
			// The copies are committed; make them durable (a full sync)
			// before the marker says they are there.
			if err := dst.Sync(ctx, last); err != nil {
				return m, fmt.Errorf("migrate %s: %w", last, err)
			}
		}
		if err := writeMarker(done, m); err != nil {
			return m, fmt.Errorf("migrate %s: %w", home, err)
		}
	}
	return m, nil
}

// writeMarker writes MigratedFile at path atomically: a temporary file
// renamed into place.
func writeMarker(path string, m *Migration) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), MigratedFile+".tmp*")
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The JSONL session files in %s were copied into %s\n", m.From, m.To)
	fmt.Fprintf(&b, "(%d sessions); agentctx no longer reads or writes them. Delete this file to copy\n", m.Copied+m.Present)
	b.WriteString("again what the database lacks.\n")
	if _, err := tmp.WriteString(b.String()); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}
