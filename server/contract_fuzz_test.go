package server

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzContract sends every route of the served OpenAPI document hostile
// requests: a route picked by the first byte, a session id (any bytes:
// NULs, invalid UTF-8, quotes, "..", 10 KB), a body (wrong types, huge
// strings, invalid UTF-8, NUL bytes, nulls) and a query. Whatever comes,
// the server answers within a bound (no hang), never with a 5xx, and with
// a status the document gives the route.
func FuzzContract(f *testing.F) {
	ts := newTestServer(f, Options{MaxBodyBytes: 64 << 10}, false)
	doc := documented(f, servedDoc(f, ts))
	ts.createSession(f, "", map[string]any{"id": "s"})
	for i := range routes {
		for _, c := range []struct{ id, body, query string }{
			{"s", `{}`, ""},
			{"s", `{"messages":[{"role":"user","content":"hi"}]}`, ""},
			{"s", `{"format":"anthropic","system":"x","messages":[{"role":"user","content":"hi"}]}`, "format=anthropic"},
			{"s", `{"id":1,"model":[],"budget":"x","max_tokens":-1,"tools":{},"metadata":[]}`, "limit=-1"},
			{"s", `{"system_prompt":"` + strings.Repeat("a", 60<<10) + `"}`, ""},
			{"s", "{\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\x00\"}]}", "start_line=x"},
			{"a..b", `null`, ""},
			{"x\x00y", `[]`, ""},
			{`q"; filename="e.sh`, `{"id":null}`, ""},
			{strings.Repeat("i", 10<<10), `{"format":"gemini"}`, ""},
			{"\xff\xfe", "\x00", "offset=99999999999999999999"},
			{"s", `{"at":1,"id":"f"}`, ""},
			{"s", `{"at":-1,"to":"x"}`, ""},
			{"s", `{"to":0}`, ""},
		} {
			f.Add(uint8(i), c.id, []byte(c.body), c.query)
		}
	}
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	f.Fuzz(func(t *testing.T, pick uint8, id string, body []byte, query string) {
		rt := routes[int(pick)%len(routes)]
		if id == "" || id == "." || id == ".." {
			// Not a path segment: the mux redirects to the cleaned path
			// before any route (net/http's, not the API's, answer).
			id = "s"
		}
		path := strings.ReplaceAll(rt.path, "{id}", url.PathEscape(id))
		path = strings.ReplaceAll(path, "{call_id}", url.PathEscape(id))
		path = strings.ReplaceAll(path, "{pin}", url.PathEscape(id))
		u := ts.URL + path
		if q, err := url.ParseQuery(query); err == nil && len(q) > 0 {
			u += "?" + q.Encode()
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var rd io.Reader
		if rt.method == "POST" {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, rt.method, u, rd)
		if err != nil {
			t.Fatal(err)
		}
		if rd != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %q: no answer: %v", rt.method, path, err)
		}
		defer resp.Body.Close()
		if resp.Header.Get("Content-Type") == "text/event-stream" {
			// The stream of a session that exists: it is served until
			// the client goes; the status is what counts.
			cancel()
		} else if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			t.Fatalf("%s %q: body: %v", rt.method, path, err)
		}
		name := rt.method + " " + rt.path
		if resp.StatusCode >= 500 {
			t.Fatalf("%s %q (id %q, %d body bytes): %d", name, path, id, len(body), resp.StatusCode)
		}
		if !slices.Contains(doc[name], resp.StatusCode) {
			t.Fatalf("%s %q answered %d, not in the document %v", name, path, resp.StatusCode, doc[name])
		}
		if rt.method == "DELETE" && resp.StatusCode == http.StatusNoContent && id == "s" {
			ts.createSession(t, "", map[string]any{"id": "s"})
		}
		if resp.StatusCode >= 400 && !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") {
			t.Fatalf("%s: %d without a problem object", name, resp.StatusCode)
		}
	})
}
