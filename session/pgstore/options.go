package pgstore

import (
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Options configures [Open]. The zero value connects with the libpq
// environment (PGHOST, PGDATABASE, …) to schema "agentctx", tenant "".
type Options struct {
	// DSN is the PostgreSQL connection string, a URL
	// ("postgres://user@host:5432/db?sslmode=disable") or key=value
	// pairs ("host=/var/run/postgresql dbname=agentctx"), as pgx reads
	// it; pool settings such as pool_max_conns are accepted. Optional.
	// Defaults to "": libpq's defaults and PG* environment variables.
	DSN string
	// Schema is the PostgreSQL schema holding the store's tables,
	// created and migrated by Open. It must match [a-z_][a-z0-9_]* and
	// be at most 63 bytes; several stores (tests: one per test) can
	// share a database in different schemas. Optional. Defaults to
	// [DefaultSchema].
	Schema string
	// Tenant scopes every operation of the Store: sessions of another
	// tenant are invisible (Get says session.ErrNotFound) and the same
	// id can exist once per tenant. A server binds each bearer token to
	// a tenant and uses [Store.WithTenant] to get a view of one pool per
	// tenant. Any UTF-8 string of at most [MaxTenantLength] bytes
	// without NUL. Optional. Defaults to "" (the default tenant).
	Tenant string
	// LeaseTTL is how long a session's writer lease lasts without
	// renewal, by the database's clock. A Store renews its leases every
	// LeaseTTL/3 while it is open, so they expire only when it stops:
	// a server that crashed (or lost the database) frees its sessions
	// LeaseTTL after its last renewal. Optional. Defaults to
	// [DefaultLeaseTTL]; at least one second.
	LeaseTTL time.Duration
	// LockTimeout is how long a write (Append, Update, Delete, Lock)
	// waits for a session whose lease another Store holds, retrying
	// every 50 ms. Optional. Defaults to 0: fail at once with
	// session.ErrSessionBusy (as jsonlstore does). Negative counts as 0.
	LockTimeout time.Duration
	// MaxConns caps the pool's connections. Optional. Defaults to the
	// DSN's pool_max_conns, else pgx's default (4, or the number of
	// CPUs when greater).
	MaxConns int32
	// Version is written as every entry's "version" field when the
	// entry has none. Optional. Defaults to "" (no version field).
	Version string
	// GitBranch returns the git branch of a project folder, called once
	// by Create when the session names none. Optional. Defaults to
	// none: a server does not see its clients' folders, so the branch
	// comes with the session or not at all.
	GitBranch func(dir string) string
	// Now returns the current time, for entry timestamps and Created.
	// Optional. Defaults to time.Now. Leases use the database's clock.
	Now func() time.Time
	// Logger receives diagnostics (a failed lease renewal). Optional.
	// Defaults to discarding them.
	Logger *slog.Logger
}

// DefaultSchema is the schema Open uses when Options.Schema is empty.
const DefaultSchema = "agentctx"

// DefaultLeaseTTL is the writer lease's lifetime when Options.LeaseTTL
// is zero: a crashed server's sessions are writable by another server
// at most this long after its last renewal.
const DefaultLeaseTTL = 15 * time.Second

// MaxTenantLength is the longest tenant name accepted, in bytes.
const MaxTenantLength = 255

// ErrSchemaTooNew reports that the database's schema was migrated by a
// newer agentctx than this one. Nothing was changed; upgrade this
// program, or use another schema.
var ErrSchemaTooNew = errors.New("pgstore: database schema is newer than this program")

// ErrInvalidOptions reports a bad Options field (a schema or tenant
// name). Nothing was opened; fix the field named in the error.
var ErrInvalidOptions = errors.New("pgstore: invalid options")

var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// checkSchema validates a schema name.
func checkSchema(s string) error {
	if !schemaName.MatchString(s) || strings.HasPrefix(s, "pg_") {
		return fmt.Errorf("%w: schema %q: want [a-z_][a-z0-9_]*, at most 63 bytes, not pg_*", ErrInvalidOptions, s)
	}
	return nil
}

// checkTenant validates a tenant name.
func checkTenant(t string) error {
	if len(t) > MaxTenantLength || !utf8.ValidString(t) || strings.ContainsRune(t, 0) {
		return fmt.Errorf("%w: tenant %q: want UTF-8 without NUL, at most %d bytes", ErrInvalidOptions, t, MaxTenantLength)
	}
	return nil
}
