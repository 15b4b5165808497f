package pgstore

import (
	"context"
	"embed"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/agentctx/agentctx/internal/migration"
)

// migrations holds the schema's migrations, "NNNN_name.sql": version
// NNNN, applied in order (package internal/migration reads them).
//
//go:embed migrations/*.sql
var migrations embed.FS

// SchemaVersion is the version of the schema this package writes: the
// last embedded migration.
const SchemaVersion = 2

// migrate brings schema (a valid name; see Options.Schema) up to
// SchemaVersion in one transaction: it creates the schema and its
// schema_version table when missing and applies the migrations not yet
// recorded there. A transaction-level advisory lock keyed by the
// schema's name serializes servers that start together: the second waits,
// then finds nothing to do. PostgreSQL's DDL is transactional, so a
// migration cut short leaves the schema as it was. Errors:
// ErrSchemaTooNew, SQL errors.
func migrate(ctx context.Context, conn interface {
	Begin(context.Context) (pgx.Tx, error)
}, schema string) error {
	ms, err := migration.Load(migrations, "migrations")
	if err != nil {
		return err
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", "agentctx/pgstore migrate "+schema); err != nil {
		return err
	}
	ident := pgx.Identifier{schema}.Sanitize()
	if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+ident+"; SET LOCAL search_path TO "+ident+
		"; CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, name text NOT NULL, applied timestamptz NOT NULL DEFAULT now())"); err != nil {
		return err
	}
	var cur int
	if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM "+ident+".schema_version").Scan(&cur); err != nil {
		return err
	}
	if latest := ms[len(ms)-1].Version; cur > latest {
		return fmt.Errorf("%w: schema %s is at version %d, this program knows %d", ErrSchemaTooNew, schema, cur, latest)
	}
	for _, m := range ms {
		if m.Version <= cur {
			continue
		}
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO "+ident+".schema_version (version, name) VALUES ($1, $2)", m.Version, m.Name); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	return tx.Commit(ctx)
}
