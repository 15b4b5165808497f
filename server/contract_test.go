package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/session"
)

// documented returns, for each route ("METHOD /path" as in routes), the
// statuses the served OpenAPI document gives it.
func documented(t testing.TB, doc []byte) map[string][]int {
	t.Helper()
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	out := map[string][]int{}
	for path, ops := range d.Paths {
		for m, raw := range ops {
			if m == "parameters" {
				continue
			}
			var op struct {
				Responses map[string]json.RawMessage `json:"responses"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			for code := range op.Responses {
				n, err := strconv.Atoi(code)
				if err != nil {
					t.Fatalf("%s %s: response %q is not a status", m, path, code)
				}
				out[strings.ToUpper(m)+" "+path] = append(out[strings.ToUpper(m)+" "+path], n)
			}
		}
	}
	return out
}

// servedDoc fetches /openapi.json from ts.
func servedDoc(t testing.TB, ts *testServer) []byte {
	t.Helper()
	r := ts.call(t, "GET", "/openapi.json", "", nil).must(t, 200)
	return r.Body
}

// TestServedOpenAPIIsTheFile: GET /openapi.json serves server/openapi.json
// byte for byte (the file redocly lints in CI is the one clients read).
func TestServedOpenAPIIsTheFile(t *testing.T) {
	t.Parallel()
	file, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, Options{}, false)
	if got := servedDoc(t, ts); !bytes.Equal(got, file) {
		t.Errorf("served %d bytes, the file holds %d", len(got), len(file))
	}
}

// faultStore is a session.Store whose methods fail with err once armed:
// writes (Create, Append, Update, Delete, Sync) with err, reads too when
// reads is set.
type faultStore struct {
	session.Store
	err   error
	reads bool
}

func (f *faultStore) read() error {
	if f.reads {
		return f.err
	}
	return nil
}

func (f *faultStore) Create(ctx context.Context, s session.Session) (session.Session, error) {
	if f.err != nil {
		return session.Session{}, f.err
	}
	return f.Store.Create(ctx, s)
}

func (f *faultStore) Append(ctx context.Context, id string, es ...session.Entry) ([]session.Entry, error) {
	if f.err != nil {
		return nil, f.err
	}
	return f.Store.Append(ctx, id, es...)
}

func (f *faultStore) Update(ctx context.Context, id string, fn func(*session.Session) error) (session.Session, error) {
	if f.err != nil {
		return session.Session{}, f.err
	}
	return f.Store.Update(ctx, id, fn)
}

func (f *faultStore) Delete(ctx context.Context, id string) error {
	if f.err != nil {
		return f.err
	}
	return f.Store.Delete(ctx, id)
}

func (f *faultStore) Sync(ctx context.Context, id string) error {
	if f.err != nil {
		return f.err
	}
	return f.Store.Sync(ctx, id)
}

func (f *faultStore) Get(ctx context.Context, id string) (session.Session, error) {
	if err := f.read(); err != nil {
		return session.Session{}, err
	}
	return f.Store.Get(ctx, id)
}

func (f *faultStore) List(ctx context.Context, o session.ListOptions) ([]session.Session, error) {
	if err := f.read(); err != nil {
		return nil, err
	}
	return f.Store.List(ctx, o)
}

func (f *faultStore) Load(ctx context.Context, id string, o session.LoadOptions) (*session.Transcript, error) {
	if err := f.read(); err != nil {
		return nil, err
	}
	return f.Store.Load(ctx, id, o)
}

// probe is one request of the contract walk.
type probe struct {
	method, path, token string
	header              map[string]string
	body                []byte
}

// send makes p on ts and returns its status and body, without the
// document check of call (a status the document lacks is what the caller
// looks for).
func send(t testing.TB, ts *testServer, p probe) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if p.body != nil {
		rd = bytes.NewReader(p.body)
	}
	req, err := http.NewRequestWithContext(t.Context(), p.method, ts.URL+p.path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if p.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if p.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	for k, v := range p.header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") == "text/event-stream" {
		// A stream that started: its status is what counts.
		return resp.StatusCode, nil
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data
}

// routePath is rt's path with {id} set to id and {call_id} to a call.
func routePath(rt route, id string) string {
	p := strings.ReplaceAll(rt.path, "{id}", id)
	p = strings.ReplaceAll(p, "{pin}", "p1")
	return strings.ReplaceAll(p, "{call_id}", "call_1")
}

// want is the status and problem code a failure kind answers on every
// route it applies to.
type want struct {
	status int
	code   string
}

// TestContractStatuses walks every route with every failure kind that
// applies to it (a forged Host, a foreign Origin, no token, an invalid id,
// a missing session, another tenant's session, a wrong media type, a body
// over the limit, bad JSON, a null field, and the store failing: busy,
// closed, not answering, broken) and checks that each kind answers one
// status and one problem code on every route, and that every status
// answered is documented for the route in the served OpenAPI document.
func TestContractStatuses(t *testing.T) {
	t.Parallel()
	fs := &faultStore{Store: newStore(t)}
	// AllowedHosts: with tokens any Host is served unless a list is set.
	var logs syncBuffer
	ts := newTestServer(t, Options{Store: fs, MaxBodyBytes: 1 << 16, AllowedHosts: []string{"agentctx.test"}, Logger: newJSONLogger(&logs)}, true)
	doc := documented(t, servedDoc(t, ts))
	own := ts.createSession(t, tokenA, map[string]any{"id": "own"})
	ts.createSession(t, tokenB, map[string]any{"id": "theirs"})
	ts.call(t, "POST", "/v1/sessions/own/messages", tokenA, `{"messages":[{"role":"user","content":"hi"}]}`).must(t, 200)
	// A session without messages has no request to build: 400, not 500
	// (on main: 500 internal).
	empty := ts.createSession(t, tokenA, nil)
	ts.call(t, "POST", "/v1/sessions/"+empty+"/request", tokenA, `{}`).problem(t, 400, CodeBadRequest)
	big := append([]byte(`{"x":"`), bytes.Repeat([]byte("x"), 1<<17)...)
	big = append(big, `"}`...)
	kinds := []struct {
		name  string
		want  want
		fault error
		reads bool
		// applies tells the routes the kind applies to.
		applies func(rt route) bool
		probe   func(rt route) probe
	}{
		{"forged host", want{421, CodeMisdirected}, nil, false, all, func(rt route) probe {
			return probe{method: rt.method, path: routePath(rt, own), token: tokenA, header: map[string]string{"Host": "attacker.example"}}
		}},
		{"foreign origin", want{403, CodeForbiddenOrigin}, nil, false, all, func(rt route) probe {
			return probe{method: rt.method, path: routePath(rt, own), token: tokenA, header: map[string]string{"Origin": "http://evil.example"}}
		}},
		{"no token", want{401, CodeUnauthorized}, nil, false, private, func(rt route) probe {
			return probe{method: rt.method, path: routePath(rt, own)}
		}},
		{"invalid id", want{400, CodeInvalidID}, nil, false, withID, func(rt route) probe {
			return probe{method: rt.method, path: routePath(rt, "a..b"), token: tokenA}
		}},
		{"long id", want{400, CodeInvalidID}, nil, false, withID, func(rt route) probe {
			return probe{method: rt.method, path: routePath(rt, strings.Repeat("i", 200)), token: tokenA}
		}},
		{"no session", want{404, CodeNotFound}, nil, false, withID, func(rt route) probe {
			return writeProbe(rt, "none")
		}},
		{"another tenant's session", want{404, CodeNotFound}, nil, false, withID, func(rt route) probe {
			return writeProbe(rt, "theirs")
		}},
		{"text/plain body", want{415, CodeMediaType}, nil, false, posts, func(rt route) probe {
			return probe{method: rt.method, path: routePath(rt, own), token: tokenA, body: []byte(`{}`), header: map[string]string{"Content-Type": "text/plain"}}
		}},
		{"body over the limit", want{413, CodeTooLarge}, nil, false, posts, func(rt route) probe {
			return probe{method: rt.method, path: routePath(rt, own), token: tokenA, body: big}
		}},
		{"bad JSON", want{400, CodeBadRequest}, nil, false, posts, func(rt route) probe {
			return probe{method: rt.method, path: routePath(rt, own), token: tokenA, body: []byte(`{"x":`)}
		}},
		{"store busy", want{409, CodeBusy}, session.ErrSessionBusy, false, writes, func(rt route) probe {
			return writeProbe(rt, own)
		}},
		{"store closed", want{503, CodeUnavailable}, session.ErrClosed, true, notHealth, func(rt route) probe {
			return writeProbe(rt, own)
		}},
		{"store broken", want{500, CodeInternal}, errors.New("disk on fire"), true, private, func(rt route) probe {
			return writeProbe(rt, own)
		}},
	}
	answered := map[string]map[int]bool{}
	n := 0
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			fs.err, fs.reads = k.fault, k.reads
			defer func() { fs.err, fs.reads = nil, false }()
			for _, rt := range routes {
				if !k.applies(rt) {
					continue
				}
				name := rt.method + " " + rt.path
				p := k.probe(rt)
				status, body := send(t, ts, p)
				n++
				if answered[name] == nil {
					answered[name] = map[int]bool{}
				}
				answered[name][status] = true
				if !slices.Contains(doc[name], status) {
					t.Errorf("%s answers %d, not in the document (%v)", name, status, doc[name])
				}
				if k.fault != nil && status < 300 {
					// The route did not reach the failing part of the
					// store (nothing to write): no failure to answer.
					continue
				}
				var pr Problem
				_ = json.Unmarshal(body, &pr)
				if status != k.want.status || pr.Code != k.want.code {
					t.Errorf("%s: %d %q, want %d %q: %s\nlog: %s", name, status, pr.Code, k.want.status, k.want.code, body, lastLine(logs.String()))
				}
				for _, leak := range []string{"jsonlstore", "sqlitestore", "pgstore", os.TempDir(), "disk on fire"} {
					if bytes.Contains(body, []byte(leak)) {
						t.Errorf("%s: the problem names %q: %s", name, leak, body)
					}
				}
			}
		})
	}
	// Shutting down: every route answers 503.
	_ = ts.Close()
	for _, rt := range routes {
		name := rt.method + " " + rt.path
		status, _ := send(t, ts, probe{method: rt.method, path: routePath(rt, own), token: tokenA})
		n++
		if status != 503 || !slices.Contains(doc[name], status) {
			t.Errorf("after Close %s answers %d, documented %v", name, status, doc[name])
		}
	}
	documentedTotal := 0
	for _, rt := range routes {
		documentedTotal += len(doc[rt.method+" "+rt.path])
	}
	t.Logf("%d probes on %d routes; %d statuses documented", n, len(routes), documentedTotal)
}

// writeProbe is a request of rt that reaches the store (a valid body).
func writeProbe(rt route, id string) probe {
	p := probe{method: rt.method, path: routePath(rt, id), token: tokenA}
	switch {
	case rt.path == "/v1/sessions" && rt.method == "POST":
		p.body = []byte(`{}`)
	case strings.HasSuffix(rt.path, "/messages"):
		p.body = []byte(`{"messages":[{"role":"user","content":"hi"}]}`)
	case strings.HasSuffix(rt.path, "/reply"):
		p.body = []byte(replyText)
	case strings.HasSuffix(rt.path, "/pins") && rt.method == "POST":
		p.body = []byte(`{"text":"Never edit the generated files."}`)
	case strings.HasSuffix(rt.path, "/rewind"):
		p.body = []byte(`{"to":0}`)
	case rt.method == "POST":
		p.body = []byte(`{}`)
	}
	return p
}

func all(route) bool        { return true }
func private(rt route) bool { return !public[rt.path] }
func withID(rt route) bool  { return strings.Contains(rt.path, "{id}") }
func posts(rt route) bool   { return rt.method == "POST" }
func notHealth(rt route) bool {
	return !public[rt.path] || rt.path == "/readyz"
}

// writes are the routes that write the session: a busy store answers
// 409 there. Unpinning a pin the session does not have answers 404
// before anything is written.
func writes(rt route) bool {
	if rt.path == "/v1/sessions/{id}/pins/{pin}" {
		return false
	}
	return rt.method == "POST" && rt.path != "/v1/sessions" || rt.method == "DELETE"
}

// TestNullRefused: null for a typed field of the API's own bodies is a
// bad request naming the field, in the 13 places the review found
// accepted (encoding/json read them as the default); the messages of the
// provider shapes keep their own rules (OpenAI's content may be null).
func TestNullRefused(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{}, false)
	id := ts.createSession(t, "", nil)
	base := "/v1/sessions/" + id
	cases := []struct{ path, body, field string }{
		{"/v1/sessions", `{"id":null}`, "id"},
		{"/v1/sessions", `{"model":null}`, "model"},
		{"/v1/sessions", `{"budget":null}`, "budget"},
		{"/v1/sessions", `{"max_tokens":null}`, "max_tokens"},
		{"/v1/sessions", `{"system_prompt":null}`, "system_prompt"},
		{"/v1/sessions", `{"tools":null}`, "tools"},
		{"/v1/sessions", `{"recall_tool":null}`, "recall_tool"},
		{"/v1/sessions", `{"project":null}`, "project"},
		{"/v1/sessions", `{"metadata":null}`, "metadata"},
		{base + "/messages", `{"format":null,"messages":[{"role":"user","content":"x"}]}`, "format"},
		{base + "/messages", `{"system":null,"messages":[{"role":"user","content":"x"}]}`, "system"},
		{base + "/request", `{"format":null}`, "format"},
		{base + "/request", `{"add":null}`, "add"},
		{base + "/request", `{"add":{"system":null,"messages":[{"role":"user","content":"x"}]}}`, "add.system"},
		{base + "/compact", `{"instructions":null}`, "instructions"},
		{"/v1/sessions", `{"metadata":{"k":null}}`, "metadata.k"},
		{"/v1/sessions", `{"tools":[{"name":"t","description":null}]}`, "tools[0].description"},
		{"/v1/sessions", `{"tools":[null]}`, "tools[0]"},
	}
	for _, c := range cases {
		p := ts.call(t, "POST", c.path, "", c.body).problem(t, 400, CodeBadRequest)
		if !strings.HasPrefix(p.Detail, c.field+": null") {
			t.Errorf("%s %s: detail %q does not name %s", c.path, c.body, p.Detail, c.field)
		}
	}
	// A null inside a provider-shaped message is the format's business.
	ts.call(t, "POST", base+"/messages", "", `{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"ok"}]}`).must(t, 200)
}

// lastLine is the last line of s.
func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}
