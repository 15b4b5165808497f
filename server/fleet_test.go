package server

import (
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/internal/pgtest"
	"github.com/agentctx/agentctx/session/pgstore"
)

// twoServers returns two servers, each with its own store (two lease
// owners, as two processes are), on one fresh PostgreSQL schema.
func twoServers(t *testing.T) (a, b *testServer) {
	t.Helper()
	schema := pgtest.Schema(t, "server_")
	open := func() *pgstore.Store {
		st, err := pgstore.Open(t.Context(), pgstore.Options{DSN: pgtest.DSN(), Schema: schema, LeaseTTL: time.Minute, Version: "agentctx-test"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return st
	}
	return newTestServer(t, Options{Store: open()}, true), newTestServer(t, Options{Store: open()}, true)
}

// TestTwoServersOnPostgres: two servers, each with its own store (two
// lease owners, as two processes are), share one PostgreSQL schema. A
// session written through one is written next through the other at once,
// without waiting for a lease to expire (each request gives its lease
// back), and each server's next request holds what the other added.
func TestTwoServersOnPostgres(t *testing.T) {
	a, b := twoServers(t)
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

// TestEventsOnTheHandlingServer: a server publishes the events of the
// requests it handles, and only those: a client subscribed to server A
// sees the usage of a reply A took, not of one B took (events are not
// shared through the store; the package documentation says so).
func TestEventsOnTheHandlingServer(t *testing.T) {
	a, b := twoServers(t)
	id := a.createSession(t, tokenA, map[string]any{"tools": []any{readFileTool}})
	base := "/v1/sessions/" + id
	events := subscribe(t, a, id, tokenA)
	// A turn through B (usage 160 prompt tokens), then one through A (120).
	b.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"user","content":"hi"}]}`).must(t, 200)
	b.call(t, "POST", base+"/request", tokenA, nil).must(t, 200)
	b.call(t, "POST", base+"/reply", tokenA, replyText).must(t, 200)
	a.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"user","content":"read main.go"}]}`).must(t, 200)
	a.call(t, "POST", base+"/request", tokenA, nil).must(t, 200)
	a.call(t, "POST", base+"/reply", tokenA, replyToolCall).must(t, 200)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("event stream ended")
			}
			if ev.Kind != "usage" {
				continue // reminders of A's request
			}
			if ev.Usage == nil || ev.Usage.PromptTokens != 120 {
				t.Fatalf("A's stream carried %+v, want the usage of A's reply (120 prompt tokens) first", ev.Usage)
			}
			return
		case <-time.After(10 * time.Second):
			t.Fatal("no usage event on A's stream")
		}
	}
}
