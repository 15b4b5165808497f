package sqlitestore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// migrations holds the schema, one file per version: "NNNN_name.sql"
// takes the database from version NNNN-1 to NNNN. A file, once released,
// never changes; a change of schema is a new file.
//
//go:embed migrations/*.sql
var migrations embed.FS

// migration is one schema version.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations returns the embedded migrations in version order.
// Errors: a file name without a version, a gap in the versions (a bug:
// TestMigrations checks it).
func loadMigrations() ([]migration, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name does not start with a version", base)
		}
		b, err := migrations.ReadFile(name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: base, sql: string(b)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: version %d, want %d", m.name, m.version, i+1)
		}
	}
	return out, nil
}

// SchemaVersion is the schema version this package writes: the number of
// its migrations.
const SchemaVersion = 1

// ErrNewerSchema reports a database whose schema is newer than this
// program knows (written by a later agentctx). Nothing was changed;
// upgrade agentctx.
var ErrNewerSchema = errors.New("sqlitestore: database schema is newer than this program")

// ErrNotDatabase reports a file that is not an SQLite database, or one
// whose header is corrupt. Nothing was changed; check the path, or move
// the file away and start a new store.
var ErrNotDatabase = errors.New("sqlitestore: file is not an SQLite database or is corrupt")

// migrate brings the database on conn (the Store's write connection) to
// the latest schema in one immediate transaction, so that two processes
// opening a new file at once do not both apply a migration.
func migrate(ctx context.Context, conn *sql.Conn) (err error) {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
	version INTEGER PRIMARY KEY,
	name    TEXT    NOT NULL
) STRICT`); err != nil {
		return err
	}
	var cur int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&cur); err != nil {
		return err
	}
	if cur > len(ms) {
		return fmt.Errorf("%w: version %d, this program knows up to %d", ErrNewerSchema, cur, len(ms))
	}
	for _, m := range ms[cur:] {
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version, name) VALUES (?, ?)`, m.version, m.name); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return tx.Commit()
}
