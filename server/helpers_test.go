package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// Test tokens: tenant "acme" and tenant "globex".
const (
	tokenA = "token-of-acme-0123456789"
	tokenB = "token-of-globex-0123456789"
)

// testServer is a Server on a loopback httptest server.
type testServer struct {
	*Server
	URL   string
	store session.Store
	http  *httptest.Server
}

// newStore returns a JSONL store in a temporary folder.
func newStore(t testing.TB) session.Store {
	t.Helper()
	st, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Version: "agentctx-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// tokens returns the test tokens file's tokens.
func tokens(t testing.TB) Tokens {
	t.Helper()
	tk, err := ParseTokens(strings.NewReader("# test tokens\n" + tokenA + " acme\n" + tokenB + " globex\n"))
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// newTestServer serves opts (with a new store when it has none, and the
// test tokens when withTokens) on a loopback httptest server.
func newTestServer(t testing.TB, opts Options, withTokens bool) *testServer {
	t.Helper()
	if opts.Store == nil {
		opts.Store = newStore(t)
	}
	if withTokens {
		opts.Tokens = tokens(t)
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		hs.Close()
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return &testServer{Server: s, URL: hs.URL, store: opts.Store, http: hs}
}

var (
	specOnce sync.Once
	specV    validator.Validator
	specErr  []error
)

// specValidator returns a validator of the checked-in OpenAPI document.
func specValidator(t testing.TB) validator.Validator {
	t.Helper()
	specOnce.Do(func() {
		doc, err := libopenapi.NewDocument(OpenAPI())
		if err != nil {
			specErr = []error{err}
			return
		}
		specV, specErr = validator.NewValidator(doc)
	})
	if len(specErr) > 0 {
		t.Fatalf("openapi.json: %v", specErr)
	}
	return specV
}

// result is a response, its body read.
type result struct {
	Status int
	Header http.Header
	Body   []byte
}

// decode decodes the body into v.
func (r result) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// problem decodes the body as a problem object and checks its status and
// code.
func (r result) problem(t testing.TB, status int, code string) Problem {
	t.Helper()
	var p Problem
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type %q, want application/problem+json; body %s", ct, r.Body)
	}
	r.decode(t, &p)
	if r.Status != status || p.Status != status || p.Code != code {
		t.Fatalf("got %d %q (%s), want %d %q", r.Status, p.Code, r.Body, status, code)
	}
	return p
}

// call makes a request with token (none when empty) and body (a string or
// bytes sent as is, anything else as JSON, nil for none), and checks the
// response against the OpenAPI document.
func (ts *testServer) call(t testing.TB, method, path, token string, body any) result {
	t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			t.Fatal(err)
		}
	}
	var rd io.Reader
	if raw != nil {
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, ts.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
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
	res := result{Status: resp.StatusCode, Header: resp.Header, Body: data}
	checkSpec(t, req, raw, resp, data)
	return res
}

// checkSpec validates a response against the OpenAPI document: its
// status, content type and body schema.
func checkSpec(t testing.TB, req *http.Request, reqBody []byte, resp *http.Response, body []byte) {
	t.Helper()
	v := specValidator(t)
	// The validator reads JSON bodies only; the export (JSON Lines) and
	// the event stream are checked by their tests. Requests the mux
	// matches no route for are not in the document by definition.
	ct := resp.Header.Get("Content-Type")
	if ct == "application/jsonl" || ct == "text/event-stream" || resp.StatusCode == http.StatusMethodNotAllowed ||
		resp.StatusCode == http.StatusNotFound && bytes.Contains(body, []byte(`"no route`)) {
		return
	}
	vreq := req.Clone(req.Context())
	vreq.Body = io.NopCloser(bytes.NewReader(reqBody))
	vresp := *resp
	vresp.Request = vreq
	vresp.Body = io.NopCloser(bytes.NewReader(body))
	if ok, errs := v.ValidateHttpResponse(vreq, &vresp); !ok {
		for _, e := range errs {
			t.Errorf("openapi: %s %s → %d: %s: %s %v", req.Method, req.URL.Path, resp.StatusCode, e.Message, e.Reason, e.SchemaValidationErrors)
		}
	}
}

// must checks that r has status want.
func (r result) must(t testing.TB, want int) result {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status %d, want %d: %s", r.Status, want, r.Body)
	}
	return r
}

// createSession creates a session for token and returns its id.
func (ts *testServer) createSession(t testing.TB, token string, body any) string {
	t.Helper()
	var s sessionView
	ts.call(t, "POST", "/v1/sessions", token, body).must(t, http.StatusCreated).decode(t, &s)
	if s.ID == "" {
		t.Fatal("no id")
	}
	return s.ID
}

// OpenAI wire replies for tests.
const (
	replyToolCall = `{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"main.go\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":120,"completion_tokens":20,"total_tokens":140}}`
	replyText     = `{"id":"chatcmpl-2","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"main.go is empty."},"finish_reason":"stop"}],"usage":{"prompt_tokens":160,"completion_tokens":8,"total_tokens":168}}`
)

// readFileTool is the tool of the test sessions.
var readFileTool = map[string]any{"name": "read_file", "description": "Read a file", "parameters": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}}

// openJSONL opens a JSONL store in dir.
func openJSONL(dir string) (session.Store, error) {
	return jsonlstore.Open(jsonlstore.Options{Root: dir, Version: "agentctx-test"})
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newJSONLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }

// subscribe opens session id's event stream on ts with token and returns
// its events as they come (the channel is closed when the stream ends),
// once the server has the subscription in place.
func subscribe(t *testing.T, ts *testServer, id, token string) <-chan Event {
	t.Helper()
	return subscribeFrom(t, ts, id, token, "")
}

// subscribeFrom is subscribe with a Last-Event-ID header of last, unless
// last is "".
func subscribeFrom(t *testing.T, ts *testServer, id, token, last string) <-chan Event {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), "GET", ts.URL+"/v1/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := make(chan Event, 16)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var ev Event
				if json.Unmarshal([]byte(data), &ev) == nil {
					events <- ev
				}
			}
		}
	}()
	waitSubscribed(t, ts.Server, id)
	return events
}

// waitSubscribed waits until s has a subscriber to session id's events.
func waitSubscribed(t *testing.T, s *Server, id string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		s.events.mu.Lock()
		n := 0
		for key, subs := range s.events.subs {
			// The store id: the id, or a tenant's prefix and the id.
			if key == id || strings.HasSuffix(key, TenantSep+id) {
				n += len(subs)
			}
		}
		s.events.mu.Unlock()
		if n > 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no subscriber")
}
