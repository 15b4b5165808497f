package pgstore_test

import (
	"testing"

	"github.com/agentctx/agentctx/internal/pgtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/pgstore"
	"github.com/agentctx/agentctx/session/sessiontest"
)

// TestConformance runs the store conformance suite, each case on a store
// of its own in a schema of its own (so 21 stores migrate concurrently).
func TestConformance(t *testing.T) {
	pgtest.Need(t)
	sessiontest.Run(t, func(t *testing.T) session.Store {
		return open(t, pgstore.Options{Schema: pgtest.Schema(t, "test_"), MaxConns: 2})
	})
}

// TestConformanceTenants runs the suite again on tenant views of one
// store: each case sees only its own tenant's sessions, and closing a
// view ends that view only.
func TestConformanceTenants(t *testing.T) {
	root := openFresh(t)
	sessiontest.Run(t, func(t *testing.T) session.Store {
		v, err := root.WithTenant("tenant " + t.Name())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = v.Close() })
		return v
	})
}
