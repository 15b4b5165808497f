package sqlitestore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"

	"github.com/agentctx/agentctx/internal/migration"
)

// migrations holds the schema, one file per version: "NNNN_name.sql"
// takes the database from version NNNN-1 to NNNN. A file, once released,
// never changes; a change of schema is a new file (package
// internal/migration reads them).
//
//go:embed migrations/*.sql
var migrations embed.FS

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
	ms, err := migration.Load(migrations, "migrations")
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
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version, name) VALUES (?, ?)`, m.Version, m.Name); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	return tx.Commit()
}
