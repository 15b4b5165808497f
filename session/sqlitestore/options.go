package sqlitestore

import (
	"log/slog"
	"path/filepath"
	"time"

	"github.com/agentctx/agentctx/session/jsonlstore"
)

// Defaults of [Options].
const (
	// DefaultLeaseTTL is how long a session's writer lease lasts unless
	// renewed: a crashed writer's sessions can be written by another
	// process this long after its last renewal. A live Store renews its
	// leases every third of it.
	DefaultLeaseTTL = 15 * time.Second
	// DefaultBusyTimeout is how long a statement waits for SQLite's
	// database lock held by another connection or process (PRAGMA
	// busy_timeout). Writes hold that lock for one transaction, not for
	// a session's lifetime.
	DefaultBusyTimeout = 10 * time.Second
	// FileName is the database's file name under the data folder
	// ([DefaultPath]).
	FileName = "sessions.db"
)

// Options configures a [Store]. The zero value is usable: the default
// path, fsync at turn ends, no waiting for leases.
type Options struct {
	// Path is the database file. Optional. Defaults to [DefaultPath]. It
	// and its folder (0700) are created when missing; the file is
	// created 0600.
	Path string
	// Sync is the fsync policy, as in package jsonlstore. Every commit
	// runs with SQLite's synchronous=NORMAL: in WAL mode it is in the
	// operating system's page cache when Append returns, so a killed
	// process loses nothing acknowledged under any policy. The writes
	// that must also survive an operating-system crash or power loss
	// return only once an fsync of the write-ahead log covers them, one
	// fsync shared by the writes that end together (group commit): under
	// SyncTurn (the default) the appends that hold an entry
	// session.SyncsAtTurn names (a turn's end; a compact boundary that
	// is manual, a fork or rewind, or a model's summary), and Create, Import, Update, Delete, Store.Sync
	// and Close; under SyncAlways every write; under SyncNever Create,
	// Update, Delete and Store.Sync only. Optional.
	Sync jsonlstore.SyncPolicy
	// LockTimeout is how long a write (Append, Update, Delete, Lock)
	// waits for a session's lease held by another Store or process.
	// Optional. Defaults to 0: fail at once with session.ErrSessionBusy.
	// Negative values count as 0.
	LockTimeout time.Duration
	// LeaseTTL is how long a writer lease lasts without renewal.
	// Optional. Defaults to [DefaultLeaseTTL]; values under 100ms count
	// as 100ms.
	LeaseTTL time.Duration
	// BusyTimeout is SQLite's busy_timeout. Optional. Defaults to
	// [DefaultBusyTimeout].
	BusyTimeout time.Duration
	// Version is written as every entry's "version" field when the entry
	// has none. Optional. Defaults to "" (no version field).
	Version string
	// Logger receives diagnostics: a lease renewal that failed. Optional.
	// Defaults to discarding them.
	Logger *slog.Logger
	// GitBranch returns the git branch of a project folder, called once by
	// Create. Optional. Defaults to jsonlstore.DetectGitBranch.
	GitBranch func(dir string) string
	// Now returns the current time, for entry timestamps and session
	// times (not for leases, which use the clock). Optional. Defaults to
	// time.Now.
	Now func() time.Time
}

// DefaultPath returns the default database file: [FileName] in the data
// folder that jsonlstore.DefaultRoot names ($AGENTCTX_HOME, else
// $XDG_DATA_HOME/agentctx, else ~/.local/share/agentctx). Errors: those
// of DefaultRoot.
func DefaultPath() (string, error) {
	root, err := jsonlstore.DefaultRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, FileName), nil
}
