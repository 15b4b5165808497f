package server

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/internal/pgtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/pgstore"
	"github.com/agentctx/agentctx/session/sqlitestore"
)

// tenantStores are the stores the per-tenant id tests run on.
var tenantStores = []struct {
	name string
	open func(t *testing.T) session.Store
}{
	{"jsonl", func(t *testing.T) session.Store { return newStore(t) }},
	{"sqlite", func(t *testing.T) session.Store {
		st, err := sqlitestore.Open(sqlitestore.Options{Path: filepath.Join(t.TempDir(), "s.db"), Version: "agentctx-test"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return st
	}},
	{"postgres", func(t *testing.T) session.Store {
		st, err := pgstore.Open(t.Context(), pgstore.Options{DSN: pgtest.DSN(), Schema: pgtest.Schema(t, "tenant_"), LeaseTTL: time.Minute, Version: "agentctx-test"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return st
	}},
}

// TestPerTenantIDs: ids are per tenant. Tenant globex creates "x" that
// acme already has and gets its own session (on main it got 404 and could
// not use the id: acme had squatted it); each tenant reads, writes, lists
// and exports its own "x" under that name, and nothing of the other's. A
// tenant's session stored before ids were per tenant (under its bare id)
// is still found by its tenant, and by no other; the anonymous tenant's
// sessions are stored under their own ids, as before.
func TestPerTenantIDs(t *testing.T) {
	for _, sc := range tenantStores {
		t.Run(sc.name, func(t *testing.T) {
			st := sc.open(t)
			ts := newTestServer(t, Options{Store: st}, true)
			if id := ts.createSession(t, tokenA, map[string]any{"id": "x"}); id != "x" {
				t.Fatalf("acme's id %q", id)
			}
			var created sessionView
			r := ts.call(t, "POST", "/v1/sessions", tokenB, map[string]any{"id": "x"}).must(t, http.StatusCreated)
			r.decode(t, &created)
			if created.ID != "x" || r.Header.Get("Location") != "/v1/sessions/x" {
				t.Fatalf("globex's session %q at %q", created.ID, r.Header.Get("Location"))
			}
			ts.call(t, "POST", "/v1/sessions", tokenA, map[string]any{"id": "x"}).problem(t, 409, CodeExists)
			ts.call(t, "POST", "/v1/sessions/x/messages", tokenA, map[string]any{"messages": []any{map[string]any{"role": "user", "content": "acme's secret plan"}}}).must(t, 200)
			var a, b inspectView
			ts.call(t, "GET", "/v1/sessions/x/inspect", tokenA, nil).must(t, 200).decode(t, &a)
			ts.call(t, "GET", "/v1/sessions/x/inspect", tokenB, nil).must(t, 200).decode(t, &b)
			if a.Window.Messages != 1 || b.Window.Messages != 0 || a.Session.ID != "x" || b.Session.ID != "x" {
				t.Errorf("acme's x: %d messages (%q), globex's x: %d (%q)", a.Window.Messages, a.Session.ID, b.Window.Messages, b.Session.ID)
			}
			exp := ts.call(t, "GET", "/v1/sessions/x/export", tokenB, nil).must(t, 200)
			if strings.Contains(string(exp.Body), "secret plan") {
				t.Error("globex's export holds acme's message")
			}
			for _, tok := range []string{tokenA, tokenB} {
				var list listBody
				ts.call(t, "GET", "/v1/sessions", tok, nil).must(t, 200).decode(t, &list)
				if len(list.Sessions) != 1 || list.Sessions[0].ID != "x" || list.Sessions[0].Metadata[TenantKey] != "" {
					t.Errorf("list: %+v", list.Sessions)
				}
			}
			ts.call(t, "DELETE", "/v1/sessions/x", tokenB, nil).must(t, 204)
			ts.call(t, "GET", "/v1/sessions/x", tokenB, nil).problem(t, 404, CodeNotFound)
			ts.call(t, "GET", "/v1/sessions/x", tokenA, nil).must(t, 200)

			// A session acme made before ids were per tenant: stored under
			// its bare id, its tenant in the metadata.
			if _, err := st.Create(t.Context(), session.Session{ID: "legacy", Project: "/", Origin: Origin, Metadata: map[string]string{TenantKey: "acme"}}); err != nil {
				t.Fatal(err)
			}
			var old sessionView
			ts.call(t, "GET", "/v1/sessions/legacy", tokenA, nil).must(t, 200).decode(t, &old)
			if old.ID != "legacy" {
				t.Errorf("legacy id %q", old.ID)
			}
			ts.call(t, "POST", "/v1/sessions/legacy/messages", tokenA, map[string]any{"messages": []any{map[string]any{"role": "user", "content": "hi"}}}).must(t, 200)
			ts.call(t, "POST", "/v1/sessions", tokenA, map[string]any{"id": "legacy"}).problem(t, 409, CodeExists)
			ts.call(t, "GET", "/v1/sessions/legacy", tokenB, nil).problem(t, 404, CodeNotFound)
			// globex may take the name for its own.
			ts.createSession(t, tokenB, map[string]any{"id": "legacy"})

			// The anonymous tenant (no tokens) stores under the bare id.
			anon := newTestServer(t, Options{Store: st}, false)
			anon.createSession(t, "", map[string]any{"id": "plain"})
			if _, err := st.Get(t.Context(), "plain"); err != nil {
				t.Errorf("the anonymous session is not under its own id: %v", err)
			}
		})
	}
}
