package jsonlstore

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// SyncPolicy says when [Store.Append] calls fsync on the transcript. Every
// policy writes the bytes to the file before Append returns, so a killed
// process (kill -9, a panic, an OOM kill) never loses an acknowledged
// entry: the bytes are in the operating system's page cache and reach the
// disk without the process (TestCrash). fsync only adds protection
// against an operating-system crash or a power loss, and it costs far
// more than the write: BenchmarkAppend, one 1.5 KB entry per Append on
// ext4 in a 2-core VM, measured about 31,000 entries/s (32 µs, spent
// encoding JSON) without fsync, and 1,000 to 3,000 entries/s (0.3 to
// 1 ms per fsync, more when the disk is busy) with one per Append.
type SyncPolicy int

// The sync policies. The zero value is [SyncTurn].
const (
	// SyncTurn, the default, calls fsync when an Append holds the end of
	// a turn (an assistant entry without tool calls: the model is done
	// and waits for the user) or a compact boundary that cannot be redone
	// for free (manual, a fork or rewind, a model's summary:
	// session.SyncsAtTurn), and on [Store.Sync] and [Store.Close]. An
	// operating-system crash then loses at most the turn in progress,
	// which the agent would redo anyway, while the tool calls and results
	// of a turn and its automatic local compactions cost no fsync each:
	// with ten entries per turn, about 3,000 entries/s in BenchmarkAppend.
	SyncTurn SyncPolicy = iota
	// SyncAlways calls fsync after every Append.
	SyncAlways
	// SyncNever never calls fsync on its own; [Store.Sync] still does.
	SyncNever
)

// String returns "turn", "always" or "never".
func (p SyncPolicy) String() string {
	switch p {
	case SyncTurn:
		return "turn"
	case SyncAlways:
		return "always"
	case SyncNever:
		return "never"
	}
	return fmt.Sprintf("SyncPolicy(%d)", int(p))
}

// Options configures a [Store]. The zero value is usable: the default root,
// fsync at turn ends, no waiting for locks.
type Options struct {
	// Root is the folder holding the store ("<Root>/projects/…").
	// Optional. Defaults to [DefaultRoot]. It is created (0700) when
	// missing.
	Root string
	// Sync is the fsync policy. Optional. Defaults to [SyncTurn].
	Sync SyncPolicy
	// LockTimeout is how long a write (Append, Update, Delete) waits for a
	// session's lock held by another process or Store. Optional. Defaults
	// to 0: fail at once with session.ErrSessionBusy. Failing at once is
	// the default because a session's writer holds its lock for as long as
	// the agent runs, not for one write: waiting would normally only delay
	// the same error, while a caller that knows the other writer is
	// finishing (a CLI command after an agent exits) can set a timeout.
	// Negative values count as 0.
	LockTimeout time.Duration
	// MaxOpen is the most sessions this Store keeps open at once for
	// writing, at 2 file descriptors each (the session's lock and its
	// transcript opened for appending). Past it, the least recently used
	// idle session is closed as [Store.Close] closes one: fsynced unless
	// SyncNever, its sidecar written, its lock released, so that another
	// process may then take it. Its next write takes the lock again
	// (session.ErrSessionBusy if another writer has it meanwhile) and
	// reads the file's end, as a first write does. A session with an
	// operation in progress is not closed under it, so the bound is
	// MaxOpen plus the sessions in use at that moment. Optional. Defaults
	// to [DefaultMaxOpen] (64) when 0 or negative.
	MaxOpen int
	// Version is written as every entry's "version" field when the entry
	// has none. Optional. Defaults to "" (no version field).
	Version string
	// Logger receives diagnostics: rebuilt sidecars, skipped files.
	// Optional. Defaults to discarding them.
	Logger *slog.Logger
	// GitBranch returns the git branch of a project folder, called once by
	// Create. Optional. Defaults to [DetectGitBranch].
	GitBranch func(dir string) string
	// Now returns the current time, for timestamps. Optional. Defaults to
	// time.Now.
	Now func() time.Time
}

// DefaultRoot returns the default store folder, where agentctx keeps its
// data: $AGENTCTX_HOME when set, else $XDG_DATA_HOME/agentctx when
// XDG_DATA_HOME is an absolute path, else ~/.local/share/agentctx. A
// relative XDG_DATA_HOME is ignored, as the XDG Base Directory
// Specification requires. Configuration lives elsewhere
// ($XDG_CONFIG_HOME/agentctx: see the workspace package). It returns an
// error only when neither variable applies and the home folder is
// unknown.
func DefaultRoot() (string, error) {
	if d := os.Getenv("AGENTCTX_HOME"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "agentctx"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("jsonlstore: default root: %w", err)
	}
	if home == "" {
		return "", errors.New("jsonlstore: default root: no home folder")
	}
	return filepath.Join(home, ".local", "share", "agentctx"), nil
}
