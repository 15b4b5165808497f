package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/agentctx/agentctx/internal/pgtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/pgstore"
)

// TestConcurrentSessions appends to 50 sessions at once from two stores
// (each session written by one of them), with a compaction every 10th
// batch: every session ends with all its entries in one chain, its
// metadata counts them, and its live part starts at its last boundary.
func TestConcurrentSessions(t *testing.T) {
	t.Parallel()
	schema := pgtest.Schema(t, "test_")
	stores := []*pgstore.Store{
		open(t, pgstore.Options{Schema: schema, MaxConns: 4}),
		open(t, pgstore.Options{Schema: schema, MaxConns: 4}),
	}
	const sessions, batches = 50, 12
	ids := make([]string, sessions)
	for i := range ids {
		ids[i] = newSession(t, stores[i%2]).ID
	}
	var wg sync.WaitGroup
	for i, id := range ids {
		s := stores[i%2]
		wg.Go(func() {
			for b := range batches {
				es := []session.Entry{userMsg(t, fmt.Sprint("q", b)), assistantMsg(t, fmt.Sprint("a", b))}
				if b%10 == 9 {
					es = append(es, boundaryEntry(1), assistantMsg(t, "kept"))
				}
				if _, err := s.Append(t.Context(), id, es...); err != nil {
					t.Errorf("session %d: %v", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for i, id := range ids {
		s := stores[(i+1)%2] // read through the other store
		tr := mustLoad(t, s, id, true)
		want := batches*2 + 2
		if len(tr.Entries) != want || len(tr.Problems) != 0 {
			t.Fatalf("session %d: %d entries (want %d), problems %v", i, len(tr.Entries), want, tr.Problems)
		}
		linear(t, tr.Entries)
		if got := mustGet(t, s, id); got.Entries != want || got.Compactions != 1 {
			t.Errorf("session %d: metadata counts %d entries, %d compactions", i, got.Entries, got.Compactions)
		}
		live := mustLoad(t, s, id, false)
		if len(live.Entries) != 2+2*(batches-10) || !live.Entries[0].IsBoundary() {
			t.Errorf("session %d: live part has %d entries starting with %s", i, len(live.Entries), live.Entries[0].Type)
		}
	}
}

// TestMigrateConcurrent opens eight stores on one new schema at once, as
// servers starting together: each migrates or waits for the one that
// does, none fails; opening again is a no-op; the schema is at
// SchemaVersion, recorded once.
func TestMigrateConcurrent(t *testing.T) {
	t.Parallel()
	schema := pgtest.Schema(t, "test_")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			s, err := pgstore.Open(t.Context(), pgstore.Options{DSN: pgtest.DSN(), Schema: schema, MaxConns: 1})
			if err != nil {
				errs <- err
				return
			}
			errs <- s.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent Open: %v", err)
		}
	}
	s := open(t, pgstore.Options{Schema: schema})
	sess := newSession(t, s)
	mustAppend(t, s, sess.ID, userMsg(t, "q"))
	s2 := open(t, pgstore.Options{Schema: schema}) // idempotent: data kept
	if got := mustGet(t, s2, sess.ID); got.Entries != 1 {
		t.Errorf("after a second Open: %d entries, want 1", got.Entries)
	}
	var versions, latest int
	if err := s.Pool().QueryRow(t.Context(), fmt.Sprintf("SELECT count(*), max(version) FROM %s.schema_version", schema)).Scan(&versions, &latest); err != nil {
		t.Fatal(err)
	}
	if versions != pgstore.SchemaVersion || latest != pgstore.SchemaVersion {
		t.Errorf("schema_version has %d rows, max %d; want %d", versions, latest, pgstore.SchemaVersion)
	}
}

// TestMigrateTooNew: a schema migrated by a newer program is refused.
func TestMigrateTooNew(t *testing.T) {
	t.Parallel()
	schema := pgtest.Schema(t, "test_")
	s := open(t, pgstore.Options{Schema: schema})
	if _, err := s.Pool().Exec(t.Context(), fmt.Sprintf("INSERT INTO %s.schema_version (version, name) VALUES (999, 'future')", schema)); err != nil {
		t.Fatal(err)
	}
	_, err := pgstore.Open(t.Context(), pgstore.Options{DSN: pgtest.DSN(), Schema: schema})
	if err == nil || !errors.Is(err, pgstore.ErrSchemaTooNew) {
		t.Errorf("Open of a newer schema: %v, want ErrSchemaTooNew", err)
	}
}

// TestOpenInvalid: bad schema and tenant names are refused before
// connecting.
func TestOpenInvalid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, o := range []pgstore.Options{{Schema: "Bad"}, {Schema: "a;drop"}, {Schema: "pg_catalog"}, {Tenant: "x\x00y"}, {Tenant: "\xff"}} {
		if _, err := pgstore.Open(ctx, o); !errors.Is(err, pgstore.ErrInvalidOptions) {
			t.Errorf("Open(%+v): %v, want ErrInvalidOptions", o, err)
		}
	}
}
