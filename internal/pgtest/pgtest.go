// Package pgtest gives tests the PostgreSQL test database: its DSN and a
// fresh schema per test, dropped when the test ends. Where PostgreSQL is
// unreachable the test is skipped, except when CI=true (CI starts
// PostgreSQL: .ci/run), where it fails.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultDSN is the local server's test database (trust authentication,
// database "test"), used unless $AGENTCTX_PG_DSN names another.
const DefaultDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// DSN returns the test database's DSN: $AGENTCTX_PG_DSN, else DefaultDSN.
func DSN() string {
	if d := os.Getenv("AGENTCTX_PG_DSN"); d != "" {
		return d
	}
	return DefaultDSN
}

var (
	reachOnce sync.Once
	reachErr  error
)

// Need skips tb when the test database is unreachable (5 s), or fails it
// when CI=true. The database is tried once per process.
func Need(tb testing.TB) {
	tb.Helper()
	reachOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, DSN())
		if err == nil {
			err = conn.Ping(ctx)
			_ = conn.Close(ctx)
		}
		reachErr = err
	})
	if reachErr != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("PostgreSQL at %s unreachable (CI=true): %v", DSN(), reachErr)
		}
		tb.Skipf("PostgreSQL at %s unreachable (set AGENTCTX_PG_DSN): %v", DSN(), reachErr)
	}
}

// Schema returns a fresh schema name, prefix followed by 12 random hex
// digits, for one test; the schema (created by whoever uses it) is
// dropped with its tables when the test ends. It calls [Need] first.
// prefix must match [a-z_][a-z0-9_]* and be at most 50 bytes.
func Schema(tb testing.TB, prefix string) string {
	tb.Helper()
	Need(tb)
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := prefix + hex.EncodeToString(b[:])
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, DSN())
		if err != nil {
			tb.Errorf("drop schema %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			tb.Errorf("drop schema %s: %v", name, err)
		}
	})
	return name
}
