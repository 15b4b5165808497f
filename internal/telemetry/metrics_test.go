package telemetry_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/telemetry"
	"github.com/agentctx/agentctx/internal/telemetry/telemetrytest"
	"github.com/agentctx/agentctx/session"
)

// failing is a store whose Get answers err and whose Lock answers busy.
type failing struct {
	session.Store
	err error
}

func (f failing) Get(context.Context, string) (session.Session, error) {
	return session.Session{}, f.err
}
func (f failing) Lock(context.Context, string) error { return session.ErrSessionBusy }

// TestStoreErrors checks what the store wrapper counts: a failure by
// operation, a busy session as a lease conflict, and not the answers a
// caller expects (not found) nor a store without a lock.
func TestStoreErrors(t *testing.T) {
	m := telemetry.New()
	ctx := context.Background()
	down := m.Store(failing{err: fmt.Errorf("pgstore: get: %w", errors.New("connection refused"))}, nil)
	for range 2 {
		if _, err := down.Get(ctx, "s"); err == nil {
			t.Fatal("no error")
		}
	}
	if err := down.(session.Locker).Lock(ctx, "s"); !errors.Is(err, session.ErrSessionBusy) {
		t.Fatalf("lock: %v", err)
	}
	missing := m.Store(failing{err: fmt.Errorf("x: %w", session.ErrNotFound)}, nil)
	if _, err := missing.Get(ctx, "s"); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("get: %v", err)
	}
	m.Compacted([]compact.Record{{Level: compact.LevelL1}, {Level: compact.LevelSummary, Fallback: true}, {Level: compact.LevelSummary}})
	m.Proxied(telemetry.OutcomeUnmanaged, telemetry.ReasonRender, 100, 100)
	m.Proxied(telemetry.OutcomeManaged, telemetry.ReasonRender, 1000, 400)

	ts := httptest.NewServer(m.Handler())
	defer ts.Close()
	f := telemetrytest.Scrape(t, ts.URL)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"agentctx_store_errors_total", map[string]string{"op": "get"}, 2},
		{"agentctx_store_errors_total", nil, 2},
		{"agentctx_store_lease_conflicts_total", nil, 1},
		{"agentctx_compactions_total", map[string]string{"level": "L1"}, 1},
		{"agentctx_compactions_total", map[string]string{"level": "summary"}, 2},
		{"agentctx_compactions_total", map[string]string{"level": "L2"}, 0},
		{"agentctx_summaries_total", nil, 2},
		{"agentctx_summary_fallbacks_total", nil, 1},
		{"agentctx_proxy_requests_total", map[string]string{"outcome": "unmanaged", "reason": "render"}, 1},
		// A managed request has no reason, whatever the caller passed.
		{"agentctx_proxy_requests_total", map[string]string{"outcome": "managed", "reason": ""}, 1},
		{"agentctx_proxy_prompt_tokens_total", map[string]string{"kind": "agent"}, 1100},
		{"agentctx_proxy_prompt_tokens_total", map[string]string{"kind": "sent"}, 500},
	} {
		if got := f.Value(t, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	// A store without a lock: Lock and Unlock do nothing, as their
	// callers do without them.
	plain := m.Store(struct{ session.Store }{}, nil)
	if err := plain.(session.Locker).Lock(ctx, "s"); err != nil {
		t.Fatal(err)
	}
}

// TestNil checks that a nil Metrics records nothing and wraps nothing.
func TestNil(t *testing.T) {
	var m *telemetry.Metrics
	m.Request("/x", "GET", 200, 0)
	m.Compacted([]compact.Record{{Level: compact.LevelL1}})
	m.Proxied(telemetry.OutcomeManaged, "", 1, 1)
	st := failing{}
	if got := m.Store(st, nil); got != session.Store(st) {
		t.Fatal("a nil Metrics wrapped the store")
	}
}
