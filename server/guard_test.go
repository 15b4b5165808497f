package server

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// forged is one request of a web page (or of a program that forges what
// a page sends) and the answer it must get.
type forged struct {
	name, method, path, host, origin, contentType, body string
	status                                              int
	code                                                string
}

// send makes the request f against ts (the Host forged when f.host is
// set, with the token when given), checks the answer against the OpenAPI
// document and returns it.
func (f forged) send(t *testing.T, ts *testServer, token string) result {
	t.Helper()
	var rd io.Reader
	if f.body != "" {
		rd = strings.NewReader(f.body)
	}
	req, err := http.NewRequestWithContext(t.Context(), f.method, ts.URL+f.path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if f.host != "" {
		req.Host = f.host
	}
	if f.origin != "" {
		req.Header.Set("Origin", f.origin)
	}
	if f.contentType != "" {
		req.Header.Set("Content-Type", f.contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if f.path != "/nope" { // a route the document does not have
		checkSpec(t, req, []byte(f.body), resp, data)
	}
	return result{Status: resp.StatusCode, Header: resp.Header, Body: data}
}

// check sends f and checks its status (and problem code on an error).
func (f forged) check(t *testing.T, ts *testServer, token string) {
	t.Helper()
	r := f.send(t, ts, token)
	if f.code != "" {
		r.problem(t, f.status, f.code)
		return
	}
	r.must(t, f.status)
}

// TestForgedHostOriginRefused: a server without tokens refuses what a web
// page can send it. The finding's request (Host attacker.example, a
// cross-site Origin, text/plain so that no CORS preflight runs) and a
// rebound read of the export answer 421; a cross-site Origin with the
// right Host 403; a non-JSON body 415. Agents' and curl's requests (a
// loopback Host, no Origin, application/json) and the server's own page
// (same origin) are served. Each refusal is logged as a warning.
func TestForgedHostOriginRefused(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	ts := newTestServer(t, Options{Logger: newJSONLogger(&logs)}, false)
	id := ts.createSession(t, "", map[string]any{"model": "gpt-4o"})
	u, _ := url.Parse(ts.URL)
	_, port, _ := net.SplitHostPort(u.Host)
	evil := "attacker.example:" + port
	cases := []forged{
		{name: "finding: rebound text/plain create", method: "POST", path: "/v1/sessions", host: evil, origin: "http://" + evil, contentType: "text/plain", body: `{}`, status: 421, code: CodeMisdirected},
		{name: "finding: rebound export read", method: "GET", path: "/v1/sessions/" + id + "/export", host: evil, status: 421, code: CodeMisdirected},
		{name: "rebound list with its own origin", method: "GET", path: "/v1/sessions", host: evil, origin: "http://" + evil, status: 421, code: CodeMisdirected},
		{name: "rebound report page", method: "GET", path: "/v1/sessions/" + id + "/report", host: evil, status: 421, code: CodeMisdirected},
		{name: "rebound unknown route", method: "GET", path: "/nope", host: evil, status: 421, code: CodeMisdirected},
		{name: "cross-site text/plain post", method: "POST", path: "/v1/sessions", origin: "http://evil.example", contentType: "text/plain", body: `{}`, status: 403, code: CodeForbiddenOrigin},
		{name: "cross-site form post", method: "POST", path: "/v1/sessions/" + id + "/messages", origin: "https://evil.example", contentType: "application/x-www-form-urlencoded", body: `{"messages":[{"role":"user","content":"x"}]}`, status: 403, code: CodeForbiddenOrigin},
		{name: "cross-site read", method: "GET", path: "/v1/sessions/" + id + "/export", origin: "http://evil.example", status: 403, code: CodeForbiddenOrigin},
		{name: "other loopback port's page", method: "GET", path: "/v1/sessions", origin: "http://127.0.0.1:1", status: 403, code: CodeForbiddenOrigin},
		{name: "null origin", method: "POST", path: "/v1/sessions", origin: "null", contentType: "application/json", body: `{}`, status: 403, code: CodeForbiddenOrigin},
		{name: "text/plain without origin", method: "POST", path: "/v1/sessions", contentType: "text/plain", body: `{}`, status: 415, code: CodeMediaType},
		{name: "form type (curl -d)", method: "POST", path: "/v1/sessions/" + id + "/messages", contentType: "application/x-www-form-urlencoded", body: `{"messages":[{"role":"user","content":"x"}]}`, status: 415, code: CodeMediaType},
		{name: "body without type", method: "POST", path: "/v1/sessions/" + id + "/request", body: `{}`, status: 415, code: CodeMediaType},
	}
	refused := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, ts, "")
			refused++
		})
	}
	t.Logf("forged requests refused %d/%d", refused, len(cases))
	served := []forged{
		{name: "agent by IP", method: "GET", path: "/v1/sessions", status: 200},
		{name: "agent by localhost", method: "GET", path: "/v1/sessions", host: "localhost:" + port, status: 200},
		{name: "agent by LOCALHOST", method: "GET", path: "/healthz", host: "LOCALHOST:" + port, status: 200},
		// A loopback name with another port, or none: a local reverse
		// proxy or recorder in front forwards its own Host.
		{name: "loopback name, other port", method: "GET", path: "/v1/sessions", host: "localhost:1", status: 200},
		{name: "loopback address, no port", method: "GET", path: "/v1/sessions", host: "127.0.0.1", status: 200},
		{name: "json with charset", method: "POST", path: "/v1/sessions", contentType: "application/json; charset=utf-8", body: `{}`, status: 201},
		{name: "empty create without type", method: "POST", path: "/v1/sessions", status: 201},
		{name: "same-origin page", method: "POST", path: "/v1/sessions", origin: ts.URL, contentType: "application/json", body: `{}`, status: 201},
		{name: "same-origin page by name", method: "GET", path: "/v1/sessions/" + id, host: "localhost:" + port, origin: "http://localhost:" + port, status: 200},
	}
	for _, tc := range served {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, ts, "") })
	}
	// Nothing the forged requests sent reached the store: one session
	// made by the test, three by the served requests.
	var list listBody
	ts.call(t, "GET", "/v1/sessions", "", nil).must(t, 200).decode(t, &list)
	if len(list.Sessions) != 4 {
		t.Errorf("%d sessions, want 4", len(list.Sessions))
	}
	warned := 0
	for line := range strings.Lines(logs.String()) {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["level"] == "WARN" && (m["status"] == float64(421) || m["status"] == float64(403)) {
			if m["error"] == nil {
				t.Errorf("refusal logged without its reason: %s", line)
			}
			warned++
		}
	}
	if warned != 10 {
		t.Errorf("%d refusals logged as warnings, want 10:\n%s", warned, logs.String())
	}
}

// TestAllowedHostsOrigins: --allowed-host and --allowed-origin let a
// named host and a page of another origin call the server; with tokens,
// any Host is served (a page cannot send the token) but a cross-site
// Origin still is not.
func TestAllowedHostsOrigins(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{AllowedHosts: []string{"agentctx.lan"}, AllowedOrigins: []string{"http://localhost:3000"}}, false)
	for _, tc := range []forged{
		{name: "allowed host", method: "GET", path: "/v1/sessions", host: "agentctx.lan:8080", status: 200},
		{name: "allowed origin", method: "POST", path: "/v1/sessions", origin: "http://localhost:3000", contentType: "application/json", body: `{}`, status: 201},
		{name: "other host", method: "GET", path: "/v1/sessions", host: "agentctx.lan.attacker.example:8080", status: 421, code: CodeMisdirected},
		{name: "other origin", method: "GET", path: "/v1/sessions", origin: "http://localhost:3001", status: 403, code: CodeForbiddenOrigin},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, ts, "") })
	}
	withTokens := newTestServer(t, Options{}, true)
	for _, tc := range []forged{
		{name: "tokens: any host", method: "GET", path: "/v1/sessions", host: "agentctx.example.com", status: 200},
		{name: "tokens: cross-site origin", method: "GET", path: "/v1/sessions", origin: "http://evil.example", status: 403, code: CodeForbiddenOrigin},
		{name: "tokens: text/plain", method: "POST", path: "/v1/sessions", contentType: "text/plain", body: `{}`, status: 415, code: CodeMediaType},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, withTokens, tokenA) })
	}
}

// TestCrossTenantCreate: creating a session with the id of another
// tenant's session makes the tenant's own session of that id (ids are
// per tenant: on main it answered 404, and the first tenant to take an
// id kept it from every other); the tenant's own id still answers 409,
// and the other tenant's session stays out of reach.
func TestCrossTenantCreate(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{}, true)
	id := ts.createSession(t, tokenA, map[string]any{"id": "shared-name"})
	if got := ts.createSession(t, tokenB, map[string]any{"id": id}); got != id {
		t.Errorf("globex's session %q, want %q", got, id)
	}
	ts.call(t, "POST", "/v1/sessions", tokenA, map[string]any{"id": id}).problem(t, 409, CodeExists)
	ts.call(t, "POST", "/v1/sessions", tokenB, map[string]any{"id": id}).problem(t, 409, CodeExists)
	ts.call(t, "GET", "/v1/sessions/"+id, tokenB, nil).must(t, 200)
}

// TestExportFilename: an id with quotes, a semicolon and non-ASCII runes
// reaches Content-Disposition quoted and escaped: the header parses back
// to the id's file name and carries no second parameter.
func TestExportFilename(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{}, false)
	for _, id := range []string{`a"b`, `x"; filename="evil.sh`, `naïve session`, `semi;colon`} {
		t.Run(id, func(t *testing.T) {
			got := ts.createSession(t, "", map[string]any{"id": id})
			r := ts.call(t, "GET", "/v1/sessions/"+url.PathEscape(got)+"/export", "", nil).must(t, 200)
			cd := r.Header.Get("Content-Disposition")
			mt, params, err := mime.ParseMediaType(cd)
			if err != nil || mt != "attachment" || params["filename"] != id+".jsonl" || len(params) != 1 {
				t.Errorf("Content-Disposition %q → %q %v %v", cd, mt, params, err)
			}
		})
	}
}

// TestModelNameLimit: a model name over MaxModelBytes (the finding's
// 10 MB one) is refused with 400 and nothing is stored; one of
// MaxModelBytes is taken.
func TestModelNameLimit(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{}, false)
	huge := strings.Repeat("m", 10<<20)
	body, _ := json.Marshal(map[string]any{"model": huge})
	p := ts.call(t, "POST", "/v1/sessions", "", body).problem(t, 400, CodeBadRequest)
	if !strings.Contains(p.Detail, "model") {
		t.Errorf("detail %q does not name the field", p.Detail)
	}
	ts.createSession(t, "", map[string]any{"model": strings.Repeat("m", MaxModelBytes)})
	r := ts.call(t, "GET", "/v1/sessions", "", nil).must(t, 200)
	if len(r.Body) > 4<<10 || bytes.Contains(r.Body, []byte(huge[:MaxModelBytes+1])) {
		t.Errorf("the listing holds %d bytes", len(r.Body))
	}
}
