package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/session"
)

// windowMessages returns the number of messages in session id's window,
// as GET .../inspect reports it.
func windowMessages(t *testing.T, ts *testServer, id string) int {
	t.Helper()
	var v inspectView
	ts.call(t, "GET", "/v1/sessions/"+id+"/inspect", tokenA, nil).must(t, http.StatusOK).decode(t, &v)
	return v.Window.Messages
}

// TestForkRewind forks a tenant's session, rewinds the parent, and finds
// both as they were after a restart; the abandoned message stays in the
// parent's export.
func TestForkRewind(t *testing.T) {
	t.Parallel()
	store := newStore(t)
	ts := newTestServer(t, Options{Store: store}, true)
	ts.createSession(t, tokenA, map[string]any{"id": "p", "model": "gpt-4o"})
	ts.call(t, "POST", "/v1/sessions/p/messages", tokenA, `{"messages":[{"role":"user","content":"one"},{"role":"assistant","content":"two"},{"role":"user","content":"three"}]}`).must(t, http.StatusOK)

	var c sessionView
	res := ts.call(t, "POST", "/v1/sessions/p/fork", tokenA, `{"at":2,"id":"c"}`).must(t, http.StatusCreated)
	res.decode(t, &c)
	if c.ID != "c" || c.Metadata[session.MetaParent] != "p" || c.Metadata[session.MetaForkAt] != "2" || res.Header.Get("Location") != "/v1/sessions/c" {
		t.Fatalf("fork answered %s (Location %q)", res.Body, res.Header.Get("Location"))
	}
	if _, ok := c.Metadata[TenantKey]; ok {
		t.Errorf("fork's view shows the tenant key: %v", c.Metadata)
	}
	if n := windowMessages(t, ts, "c"); n != 2 {
		t.Fatalf("fork holds %d messages, want 2", n)
	}
	ts.call(t, "POST", "/v1/sessions/p/fork", tokenA, `{"at":9}`).problem(t, http.StatusBadRequest, CodeBadRequest)
	ts.call(t, "POST", "/v1/sessions/p/fork", tokenA, `{"id":"c"}`).problem(t, http.StatusConflict, CodeExists)
	ts.call(t, "POST", "/v1/sessions/c/fork", tokenB, `{}`).problem(t, http.StatusNotFound, CodeNotFound)
	var whole sessionView
	ts.call(t, "POST", "/v1/sessions/p/fork", tokenA, nil).must(t, http.StatusCreated).decode(t, &whole)
	if n := windowMessages(t, ts, whole.ID); n != 3 {
		t.Errorf("fork without at holds %d messages, want 3", n)
	}

	ts.call(t, "POST", "/v1/sessions/p/rewind", tokenA, `{}`).problem(t, http.StatusBadRequest, CodeBadRequest)
	ts.call(t, "POST", "/v1/sessions/p/rewind", tokenA, `{"to":4}`).problem(t, http.StatusBadRequest, CodeBadRequest)
	ts.call(t, "POST", "/v1/sessions/p/rewind", tokenA, `{"to":1}`).must(t, http.StatusOK)
	if n := windowMessages(t, ts, "p"); n != 1 {
		t.Fatalf("rewound session holds %d messages, want 1", n)
	}
	ts.call(t, "POST", "/v1/sessions/c/messages", tokenA, `{"messages":[{"role":"user","content":"four"}]}`).must(t, http.StatusOK)
	export := string(ts.call(t, "GET", "/v1/sessions/p/export", tokenA, nil).must(t, http.StatusOK).Body)
	if !strings.Contains(export, "three") || !strings.Contains(export, `"trigger":"rewind"`) {
		t.Errorf("export lacks the abandoned message or the rewind boundary:\n%s", export)
	}

	// A new server on the same store resumes both as they were.
	_ = ts.Close()
	ts2 := newTestServer(t, Options{Store: store}, true)
	if n := windowMessages(t, ts2, "p"); n != 1 {
		t.Errorf("resumed parent holds %d messages, want 1", n)
	}
	if n := windowMessages(t, ts2, "c"); n != 3 {
		t.Errorf("resumed fork holds %d messages, want 3", n)
	}
}
