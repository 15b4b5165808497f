package server

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/internal/pgtest"
	"github.com/agentctx/agentctx/session/pgstore"
)

// twoServers returns two servers, each with its own store (two lease
// owners, as two processes are), on one fresh PostgreSQL schema.
func twoServers(t *testing.T, opts Options) (a, b *testServer) {
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
	oa, ob := opts, opts
	oa.Store, ob.Store = open(), open()
	return newTestServer(t, oa, true), newTestServer(t, ob, true)
}

// TestTwoServersOnPostgres: two servers, each with its own store (two
// lease owners, as two processes are), share one PostgreSQL schema. A
// session written through one is written next through the other at once,
// without waiting for a lease to expire (each request gives its lease
// back), and each server's next request holds what the other added.
func TestTwoServersOnPostgres(t *testing.T) {
	a, b := twoServers(t, Options{})
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

// drive makes turns on session id through the servers in turn (the
// first through via[0], …): each a user message, a request and a reply
// with usage (a usage event; reminders when the Engine adds some). It
// returns the prompt tokens of each reply, in order.
func drive(t *testing.T, id string, via ...*testServer) []int {
	t.Helper()
	base := "/v1/sessions/" + id
	var prompts []int
	for i, ts := range via {
		ts.call(t, "POST", base+"/messages", tokenA, fmt.Sprintf(`{"messages":[{"role":"user","content":"turn %d"}]}`, i)).must(t, 200)
		ts.call(t, "POST", base+"/request", tokenA, nil).must(t, 200)
		reply := replyText
		if i%2 == 0 {
			reply = replyToolCall
			prompts = append(prompts, 120)
		} else {
			prompts = append(prompts, 160)
		}
		ts.call(t, "POST", base+"/reply", tokenA, reply).must(t, 200)
		if i%2 == 0 {
			ts.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"tool","tool_call_id":"call_1","content":"package main"}]}`).must(t, 200)
		}
	}
	return prompts
}

// collect reads events until it has the usage events of prompts (their
// prompt tokens, in order), and returns every event read.
func collect(t *testing.T, events <-chan Event, prompts []int) []Event {
	t.Helper()
	var got []Event
	usages := 0
	for usages < len(prompts) {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("event stream ended after %d events", len(got))
			}
			got = append(got, ev)
			if ev.Kind == "usage" {
				if ev.Usage == nil || ev.Usage.PromptTokens != prompts[usages] {
					t.Fatalf("usage event %d: %+v, want %d prompt tokens", usages, ev.Usage, prompts[usages])
				}
				usages++
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%d usage events of %d after 10 s (events: %+v)", usages, len(prompts), got)
		}
	}
	return got
}

// inOrder checks that events are numbered from first on, one by one.
func inOrder(t *testing.T, events []Event, first uint64) {
	t.Helper()
	for i, ev := range events {
		if ev.Seq != first+uint64(i) {
			t.Fatalf("event %d has id %d, want %d (%+v)", i, ev.Seq, first+uint64(i), events)
		}
	}
}

// TestEventsAcrossServers: two servers on one PostgreSQL schema. A
// client subscribed to server B sees every event of the writes made
// through A (and through B), in order, numbered once for both (the
// notifications only: the periodic read is off); a client subscribed to
// A sees the same events with the same ids. A client that lost its
// stream resumes with Last-Event-ID on the other server and gets what it
// missed, then what comes next.
func TestEventsAcrossServers(t *testing.T) {
	a, b := twoServers(t, Options{EventPoll: time.Hour})
	id := a.createSession(t, tokenA, map[string]any{"tools": []any{readFileTool}})
	onB, onA := subscribe(t, b, id, tokenA), subscribe(t, a, id, tokenA)
	prompts := drive(t, id, a, a, b, a)
	gotB := collect(t, onB, prompts)
	inOrder(t, gotB, 1)
	gotA := collect(t, onA, prompts)
	if diff := cmp.Diff(gotB, gotA); diff != "" {
		t.Errorf("A's and B's streams differ (-B +A):\n%s", diff)
	}
	for _, ev := range gotB {
		if ev.Session != id {
			t.Errorf("event %d names session %q, want %q", ev.Seq, ev.Session, id)
		}
	}
	// Resume on A after the second event: the rest, then what follows.
	resumed := subscribeFrom(t, a, id, tokenA, "2")
	more := drive(t, id, b)
	seen := 0
	for _, ev := range gotB[:2] {
		if ev.Kind == "usage" {
			seen++
		}
	}
	got := collect(t, resumed, append(prompts[seen:], more...))
	inOrder(t, got, 3)
	if diff := cmp.Diff(gotB[2:], got[:len(gotB)-2]); diff != "" {
		t.Errorf("the resumed stream's first events (-before +resumed):\n%s", diff)
	}
	// A bad Last-Event-ID is refused.
	req, _ := http.NewRequestWithContext(t.Context(), "GET", b.URL+"/v1/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+tokenA)
	req.Header.Set("Last-Event-ID", "x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("Last-Event-ID x: status %d, want 400", resp.StatusCode)
	}
}

// TestEventsLostNotification: server B loses every notification (a
// test hook drops them before its subscribers are woken); its
// subscriber still gets every event of the writes made through A, in
// order, from the periodic read of the store.
func TestEventsLostNotification(t *testing.T) {
	a, b := twoServers(t, Options{EventPoll: 20 * time.Millisecond})
	var dropped atomic.Int64
	b.dropNote = func(id string, _ int64) bool {
		if id != "" {
			dropped.Add(1)
		}
		return true
	}
	id := a.createSession(t, tokenA, map[string]any{"tools": []any{readFileTool}})
	onB := subscribe(t, b, id, tokenA)
	prompts := drive(t, id, a, a, a)
	inOrder(t, collect(t, onB, prompts), 1)
	if dropped.Load() == 0 {
		t.Error("B dropped no notification: the test did not test the catch-up")
	}
}

// TestEventsDeletedElsewhere: a session deleted through server A ends
// the event streams of its subscribers on server B (B finds it gone when
// it reads the events).
func TestEventsDeletedElsewhere(t *testing.T) {
	a, b := twoServers(t, Options{EventPoll: 20 * time.Millisecond})
	id := a.createSession(t, tokenA, nil)
	onB := subscribe(t, b, id, tokenA)
	a.call(t, "DELETE", "/v1/sessions/"+id, tokenA, nil).must(t, 204)
	for {
		select {
		case _, ok := <-onB:
			if !ok {
				return
			}
		case <-time.After(10 * time.Second):
			t.Fatal("B's stream of a deleted session did not end")
		}
	}
}
