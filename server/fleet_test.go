package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentctx/agentctx/session/pgstore"
)

// pgDSN is the test database: $AGENTCTX_PG_DSN, else the local server's.
func pgDSN() string {
	if d := os.Getenv("AGENTCTX_PG_DSN"); d != "" {
		return d
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

// pgSchema returns a fresh schema on the test database, dropped when the
// test ends; it skips the test where PostgreSQL is unreachable, and fails
// it when CI=true.
func pgSchema(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pgDSN())
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL unreachable (CI=true): %v", err)
		}
		t.Skipf("PostgreSQL unreachable: %v", err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "server_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	return name
}

// TestTwoServersOnPostgres: two servers, each with its own store (two
// lease owners, as two processes are), share one PostgreSQL schema. A
// session written through one is written next through the other at once,
// without waiting for a lease to expire (each request gives its lease
// back), and each server's next request holds what the other added.
func TestTwoServersOnPostgres(t *testing.T) {
	schema := pgSchema(t)
	open := func() *pgstore.Store {
		st, err := pgstore.Open(t.Context(), pgstore.Options{DSN: pgDSN(), Schema: schema, LeaseTTL: time.Minute, Version: "agentctx-test"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return st
	}
	a := newTestServer(t, Options{Store: open()}, true)
	b := newTestServer(t, Options{Store: open()}, true)
	id := a.createSession(t, tokenA, nil)
	base := "/v1/sessions/" + id
	a.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"user","content":"first, through A"}]}`).must(t, 200)
	a.call(t, "POST", base+"/reply", tokenA, replyText).must(t, 200)
	b.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"user","content":"second, through B"}]}`).must(t, 200)
	var req requestView
	a.call(t, "POST", base+"/request", tokenA, map[string]string{"format": "chat"}).must(t, 200).decode(t, &req)
	for _, want := range []string{"first, through A", "main.go is empty.", "second, through B"} {
		if !strings.Contains(string(req.Body), want) {
			t.Errorf("A's request lacks %q: %s", want, req.Body)
		}
	}
	b.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"user","content":"third, through B"}]}`).must(t, 200)
	b.call(t, "POST", base+"/request", tokenA, map[string]string{"format": "chat"}).must(t, 200).decode(t, &req)
	if !strings.Contains(string(req.Body), "third, through B") || !strings.Contains(string(req.Body), "first, through A") {
		t.Errorf("B's request lacks the session's messages: %s", req.Body)
	}
	// The other tenant sees nothing of it on either server.
	b.call(t, "GET", base, tokenB, nil).must(t, 404)
}
