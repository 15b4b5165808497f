// Package storeurl opens the [session.Store] a URL names, so that every
// command and server takes one --store flag:
//
//	jsonl:DIR        package jsonlstore rooted at DIR (one JSONL file per session)
//	sqlite:PATH      package sqlitestore on the database file PATH
//	postgres://…     package pgstore (also postgresql://): pgstore.ParseURL
//	                 reads the URL, its schema, lease and lock_timeout
//	DIR              a bare path: jsonl:DIR
//	""               the default: sqlite at Options.Home (sqlitestore.FileName)
//
// The default store is one SQLite database for every command and server
// of a machine (sqlitestore's WAL mode lets several processes read and
// write it at once). Opening it the first time copies the sessions of
// the previous default, the JSONL files in the same folder, into it (see
// [Migration]).
//
// "jsonl:" and "sqlite:" with no path use the data folder (Options.Home,
// else jsonlstore.DefaultRoot): the folder itself for jsonl, its
// sqlitestore.FileName for sqlite. A query sets store options, the same
// names for every scheme where they apply:
//
//	sync=turn|always|never   fsync policy (jsonlstore.SyncPolicy)
//	lock_timeout=DURATION    how long a write waits for a busy session (Go duration: 2s, 500ms)
//	lease=DURATION           sqlite, postgres: writer lease lifetime
//
// A scheme is one entry of the schemes table: adding a store is a few
// lines there.
package storeurl

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/session/pgstore"
	"github.com/agentctx/agentctx/session/sqlitestore"
)

// Options are what every store is opened with, besides its URL. The zero
// value is usable.
type Options struct {
	// Home is the data folder the default locations are in: the JSONL
	// root for "" and "jsonl:", the folder of the SQLite file for
	// "sqlite:". Optional. Defaults to jsonlstore.DefaultRoot.
	Home string
	// Version is written as every entry's "version" when it has none.
	// Optional.
	Version string
	// Logger receives the store's diagnostics. Optional. Defaults to
	// discarding them.
	Logger *slog.Logger
	// Migrated is called when opening the default store ("") copied
	// sessions from the JSONL files of the previous default, or could not
	// copy some (Migration.Failed). Optional. Defaults to logging the
	// outcome to Logger.
	Migrated func(Migration)
}

// URL is a parsed store URL.
type URL struct {
	// Scheme is "jsonl", "sqlite", or another registered scheme, lower
	// case.
	Scheme string
	// Path is what follows "scheme:" up to the query, for a file scheme
	// ("" for the default location); the whole URL for a network scheme
	// (one whose Raw starts "scheme://"), which its opener parses.
	Path string
	// Query holds the options after '?'.
	Query url.Values
	// Raw is the URL as given.
	Raw string
}

// ErrUnknownScheme reports a URL whose scheme no store handles. Nothing
// was opened; use one of the schemes the message lists.
var ErrUnknownScheme = errors.New("unknown store scheme")

// opener opens the store of a parsed URL.
type opener func(ctx context.Context, u URL, opts Options) (session.Store, error)

// schemes maps each scheme to its opener.
var schemes = map[string]opener{
	"jsonl":      openJSONL,
	"sqlite":     openSQLite,
	"postgres":   openPostgres,
	"postgresql": openPostgres,
}

// Schemes returns the schemes Open knows, sorted.
func Schemes() []string { return slices.Sorted(maps.Keys(schemes)) }

// Parse parses a store URL (see the package documentation). The empty
// string is the default store, sqlite with no path. A string
// without a scheme ("name:" of two or more letters, digits, '+', '-' or
// '.', starting with a letter) is a jsonl path. Errors: a malformed
// query, [ErrUnknownScheme]. It never panics.
func Parse(raw string) (URL, error) {
	if raw == "" {
		return URL{Scheme: "sqlite", Query: url.Values{}}, nil
	}
	scheme, rest, ok := cutScheme(raw)
	if !ok {
		return URL{Scheme: "jsonl", Path: raw, Query: url.Values{}, Raw: raw}, nil
	}
	if _, known := schemes[scheme]; !known {
		return URL{}, fmt.Errorf("store %q: %w %q; known: %s", raw, ErrUnknownScheme, scheme, strings.Join(Schemes(), ", "))
	}
	u := URL{Scheme: scheme, Raw: raw, Path: rest, Query: url.Values{}}
	if strings.HasPrefix(rest, "//") {
		u.Path = raw // a network URL: its opener parses it whole
		return u, nil
	}
	if path, q, found := strings.Cut(rest, "?"); found {
		v, err := url.ParseQuery(q)
		if err != nil {
			return URL{}, fmt.Errorf("store %q: query: %w", raw, err)
		}
		u.Path, u.Query = path, v
	}
	return u, nil
}

// cutScheme splits "scheme:rest". A single letter before ':' is a
// Windows drive, not a scheme.
func cutScheme(raw string) (scheme, rest string, ok bool) {
	i := strings.IndexByte(raw, ':')
	if i < 2 {
		return "", raw, false
	}
	for k, c := range raw[:i] {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case k > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return "", raw, false
		}
	}
	return strings.ToLower(raw[:i]), raw[i+1:], true
}

// Open opens the store raw names (see the package documentation); the
// caller closes it. Errors: those of Parse, an unknown or malformed
// option, and the store's Open errors (sqlitestore.ErrNotDatabase, …),
// each naming the URL.
func Open(raw string, opts Options) (session.Store, error) {
	return OpenContext(context.Background(), raw, opts)
}

// OpenContext is [Open] with a context that bounds connecting to a
// network store (PostgreSQL: the connection and the schema migration).
func OpenContext(ctx context.Context, raw string, opts Options) (session.Store, error) {
	u, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	st, err := schemes[u.Scheme](ctx, u, opts)
	if err != nil {
		return nil, fmt.Errorf("store %q: %w", raw, err)
	}
	if raw == "" {
		if err := migrateDefault(ctx, st, opts); err != nil {
			_ = st.Close()
			return nil, err
		}
	}
	return st, nil
}

// migrateDefault copies the previous default store's JSONL sessions into
// st, the default store just opened, and reports it (Options.Migrated).
func migrateDefault(ctx context.Context, st session.Store, opts Options) error {
	db, ok := st.(*sqlitestore.Store)
	if !ok {
		return nil
	}
	home := filepath.Dir(db.Path())
	m, err := migrate(ctx, home, db.Path(), st)
	if err != nil {
		return fmt.Errorf("default store: copying the JSONL sessions of %s into %s: %w (nothing was lost; --store jsonl:%s opens the files as before)", home, db.Path(), err, home)
	}
	if m == nil || m.Copied == 0 && len(m.Failed) == 0 {
		return nil
	}
	if opts.Migrated != nil {
		opts.Migrated(*m)
		return nil
	}
	if opts.Logger != nil {
		opts.Logger.Info("storeurl: copied the JSONL sessions into the default store", "from", m.From, "to", m.To, "copied", m.Copied, "present", m.Present, "failed", len(m.Failed))
	}
	return nil
}

// common are the options every file store takes from a query.
type common struct {
	sync        jsonlstore.SyncPolicy
	lockTimeout time.Duration
}

// options reads the query's options, refusing names not in allowed
// (besides sync and lock_timeout).
func options(q url.Values, allowed ...string) (common, error) {
	var c common
	for name, vs := range q {
		if len(vs) != 1 {
			return c, fmt.Errorf("option %s given %d times", name, len(vs))
		}
		v := vs[0]
		switch {
		case name == "sync":
			switch v {
			case "turn":
				c.sync = jsonlstore.SyncTurn
			case "always":
				c.sync = jsonlstore.SyncAlways
			case "never":
				c.sync = jsonlstore.SyncNever
			default:
				return c, fmt.Errorf("option sync=%q: want turn, always or never", v)
			}
		case name == "lock_timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return c, fmt.Errorf("option lock_timeout=%q: want a duration such as 2s", v)
			}
			c.lockTimeout = d
		case slices.Contains(allowed, name):
		default:
			return c, fmt.Errorf("unknown option %q", name)
		}
	}
	return c, nil
}

func openJSONL(_ context.Context, u URL, opts Options) (session.Store, error) {
	c, err := options(u.Query)
	if err != nil {
		return nil, err
	}
	return jsonlstore.Open(jsonlstore.Options{Root: cmp.Or(u.Path, opts.Home), Sync: c.sync, LockTimeout: c.lockTimeout, Version: opts.Version, Logger: opts.Logger})
}

func openSQLite(_ context.Context, u URL, opts Options) (session.Store, error) {
	c, err := options(u.Query, "lease")
	if err != nil {
		return nil, err
	}
	var lease time.Duration
	if v := u.Query.Get("lease"); v != "" {
		if lease, err = time.ParseDuration(v); err != nil || lease <= 0 {
			return nil, fmt.Errorf("option lease=%q: want a duration such as 15s", v)
		}
	}
	path := u.Path
	if path == "" && opts.Home != "" {
		path = filepath.Join(opts.Home, sqlitestore.FileName)
	}
	return sqlitestore.Open(sqlitestore.Options{Path: path, Sync: c.sync, LockTimeout: c.lockTimeout, LeaseTTL: lease, Version: opts.Version, Logger: opts.Logger})
}

func openPostgres(ctx context.Context, u URL, opts Options) (session.Store, error) {
	o, err := pgstore.ParseURL(u.Raw)
	if err != nil {
		return nil, err
	}
	o.Version, o.Logger = opts.Version, opts.Logger
	return pgstore.Open(ctx, o)
}
