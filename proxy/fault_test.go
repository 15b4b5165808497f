package proxy

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// faultRig is a proxy in front of an upstream handler of the test's, and
// the proxy's log.
type faultRig struct {
	p     *Proxy
	srv   *httptest.Server
	log   *syncBuf
	exchs chan Exchange
}

// syncBuf is a bytes.Buffer safe for concurrent use.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func newFaultRig(t *testing.T, upstream http.HandlerFunc, opts Options) *faultRig {
	t.Helper()
	up := httptest.NewServer(upstream)
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	r := &faultRig{log: &syncBuf{}, exchs: make(chan Exchange, 64)}
	opts.Upstream = u
	opts.Logger = slog.New(slog.NewJSONHandler(r.log, nil))
	opts.Observe = func(ex Exchange) { r.exchs <- ex }
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	r.p = p
	r.srv = httptest.NewServer(p)
	t.Cleanup(func() {
		r.srv.Close()
		_ = p.Close()
	})
	return r
}

// smallBody is a small model request of wire, streamed or not.
func smallBody(wire Wire, stream bool) []byte {
	switch wire {
	case WireResponses:
		return fmt.Appendf(nil, `{"model":"gpt-4o","stream":%t,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the test"}]}]}`, stream)
	case WireOpenAI:
		return fmt.Appendf(nil, `{"model":"gpt-4o","stream":%t,"messages":[{"role":"user","content":"fix the test"}]}`, stream)
	}
	return fmt.Appendf(nil, `{"model":"claude-sonnet-4-5","max_tokens":100,"stream":%t,"messages":[{"role":"user","content":"fix the test"}]}`, stream)
}

// routeOf is the model route of wire.
func routeOf(wire Wire) string {
	switch wire {
	case WireResponses:
		return "/v1/responses"
	case WireOpenAI:
		return "/v1/chat/completions"
	}
	return "/v1/messages"
}

// do sends an agent's request (a loopback Host, JSON, an API key) with
// the changes of edit, and returns the answer read whole.
func (r *faultRig) do(t *testing.T, wire Wire, body []byte, edit func(*http.Request)) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, r.srv.URL+routeOf(wire), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", "sk-ant-test")
	if edit != nil {
		edit(req)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading the proxy's answer: %v", err)
	}
	return res.StatusCode, res.Header, data
}

// okUpstream answers every request with a small Anthropic message and
// counts them.
func okUpstream(n *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}`)
	}
}

// TestProxyForgedRequestsRefused: what a web page can send the proxy is
// refused before anything reaches the upstream or the sessions: a rebound
// Host (421) on model, status and pass-through routes, a cross-site
// Origin (403), a model request not sent as application/json (415). What
// agents send (Host 127.0.0.1:PORT or localhost:PORT, no Origin, Claude
// Code's anthropic-dangerous-direct-browser-access header) is served.
func TestProxyForgedRequestsRefused(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	r := newFaultRig(t, okUpstream(&calls), Options{})
	u, _ := url.Parse(r.srv.URL)
	_, port, _ := net.SplitHostPort(u.Host)
	evil := "attacker.example:" + port
	body := smallBody(WireAnthropic, false)
	cases := []struct {
		name, method, path, host, origin, ctype string
		status                                  int
	}{
		{"rebound model request", "POST", "/v1/messages", evil, "http://" + evil, "text/plain", 421},
		{"rebound status read", "GET", StatusPath, evil, "", "", 421},
		{"rebound pass-through", "GET", "/v1/models", evil, "", "", 421},
		{"cross-site text/plain", "POST", "/v1/messages", "", "http://evil.example", "text/plain", 403},
		{"cross-site json", "POST", "/v1/chat/completions", "", "https://evil.example", "application/json", 403},
		{"cross-site status read", "GET", StatusPath, "", "http://evil.example", "", 403},
		{"null origin", "POST", "/v1/messages", "", "null", "application/json", 403},
		{"text/plain", "POST", "/v1/messages", "", "", "text/plain", 415},
		{"form type", "POST", "/v1/responses", "", "", "application/x-www-form-urlencoded", 415},
		{"no type", "POST", "/v1/messages", "", "", "", 415},
	}
	refused := 0
	for _, tc := range cases {
		req, _ := http.NewRequestWithContext(t.Context(), tc.method, r.srv.URL+tc.path, bytes.NewReader(body))
		if tc.method == "GET" {
			req.Body, req.ContentLength = http.NoBody, 0
		}
		if tc.host != "" {
			req.Host = tc.host
		}
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		if tc.ctype != "" {
			req.Header.Set("Content-Type", tc.ctype)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var e struct {
			Type  string `json:"type"`
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		switch {
		case res.StatusCode != tc.status:
			t.Errorf("%s: %d %s, want %d", tc.name, res.StatusCode, data, tc.status)
		case json.Unmarshal(data, &e) != nil || e.Error.Message == "":
			t.Errorf("%s: not a provider error: %s", tc.name, data)
		case tc.path == "/v1/messages" && e.Type != "error":
			t.Errorf("%s: not Anthropic's error shape: %s", tc.name, data)
		default:
			refused++
		}
	}
	t.Logf("forged requests refused %d/%d", refused, len(cases))
	if n := calls.Load(); n != 0 {
		t.Errorf("%d forged requests reached the upstream", n)
	}
	if n := len(r.p.Status().Sessions); n != 0 {
		t.Errorf("%d sessions opened by forged requests", n)
	}
	if got := strings.Count(r.log.String(), `"msg":"refused"`); got != len(cases) {
		t.Errorf("%d refusals logged, want %d", got, len(cases))
	}
	// A loopback Host with another port is an agent behind a local
	// recorder or reverse proxy: served.
	for _, host := range []string{"", "localhost:" + port, "127.0.0.1:1"} {
		status, _, data := r.do(t, WireAnthropic, body, func(req *http.Request) {
			if host != "" {
				req.Host = host
			}
			req.Header.Set("anthropic-dangerous-direct-browser-access", "true")
			req.Header.Set("X-Claude-Code-Session-Id", "agent-1")
		})
		if status != 200 {
			t.Errorf("agent's request (Host %q): %d %s", host, status, data)
		}
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d agent requests reached the upstream, want 3", n)
	}
}

// cutAfter writes header and part as an answer, flushes, and closes the
// connection without ending the body.
func cutAfter(w http.ResponseWriter, header http.Header, part string) {
	for k, vs := range header {
		w.Header()[k] = vs
	}
	w.WriteHeader(200)
	_, _ = io.WriteString(w, part)
	w.(http.Flusher).Flush()
	c, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		_ = c.Close()
	}
}

// TestUpstreamFaultsReachAgent: an upstream stream cut mid-way reaches
// the agent with a last error event in its wire's shape (not a clean end
// that reads as a complete answer); a non-streamed answer cut short, and
// a gzip answer that does not decode, are answered 502 in the wire's
// error shape (not an empty or truncated 200). None is committed to the
// session as an answer. A sound gzip answer passes through as it came.
func TestUpstreamFaultsReachAgent(t *testing.T) {
	t.Parallel()
	sse := http.Header{"Content-Type": {"text/event-stream"}}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = io.WriteString(zw, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}`)
	_ = zw.Close()
	corrupt := append([]byte(nil), gz.Bytes()...)
	for i := 12; i < len(corrupt)-8; i++ {
		corrupt[i] ^= 0x5a
	}
	cases := []struct {
		name     string
		wire     Wire
		stream   bool
		upstream http.HandlerFunc
		status   int
		want     string // in the answer's last bytes
	}{
		{"anthropic stream cut", WireAnthropic, true, func(w http.ResponseWriter, _ *http.Request) {
			cutAfter(w, sse, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":5,\"output_tokens\":0}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"half an ans")
		}, 200, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"agentctx proxy: the upstream's answer was cut mid-stream"},
		{"openai stream cut", WireOpenAI, true, func(w http.ResponseWriter, _ *http.Request) {
			cutAfter(w, sse, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"half\"}}]}\n\n")
		}, 200, "data: {\"error\":{\"message\":\"agentctx proxy: the upstream's answer was cut mid-stream"},
		{"responses stream cut", WireResponses, true, func(w http.ResponseWriter, _ *http.Request) {
			cutAfter(w, sse, "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r\",\"status\":\"in_progress\"}}\n\n")
		}, 200, "event: response.failed\ndata: {\"type\":\"response.failed\""},
		{"anthropic answer cut", WireAnthropic, false, func(w http.ResponseWriter, _ *http.Request) {
			cutAfter(w, http.Header{"Content-Type": {"application/json"}, "Content-Length": {"400"}}, `{"id":"msg_1","type":"message","content":[{"type":"text","text":"half`)
		}, 502, `{"type":"error","error":{"type":"api_error","message":"agentctx proxy: upstream answer cut`},
		{"openai answer cut", WireOpenAI, false, func(w http.ResponseWriter, _ *http.Request) {
			cutAfter(w, http.Header{"Content-Type": {"application/json"}, "Content-Length": {"400"}}, `{"id":"c","choices":[`)
		}, 502, `{"error":{"message":"agentctx proxy: upstream answer cut`},
		{"corrupt gzip", WireAnthropic, false, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(corrupt)
		}, 502, `Content-Encoding gzip does not decode`},
		{"sound gzip", WireAnthropic, false, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(gz.Bytes())
		}, 200, string(gz.Bytes()[len(gz.Bytes())-8:])},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newFaultRig(t, tc.upstream, Options{})
			status, _, data := r.do(t, tc.wire, smallBody(tc.wire, tc.stream), func(req *http.Request) {
				req.Header.Set("Accept-Encoding", "gzip") // bytes pass through encoded
			})
			if status != tc.status || !strings.Contains(string(data), tc.want) {
				t.Fatalf("%d %q, want %d and %q", status, data, tc.status, tc.want)
			}
			if tc.stream && !bytes.HasSuffix(data, []byte("\n\n")) {
				t.Errorf("the error event does not end the stream: %q", data)
			}
			select {
			case ex := <-r.exchs:
				if wantStatus := map[bool]int{true: 200, false: 502}[tc.name == "sound gzip"]; ex.Status != wantStatus {
					t.Errorf("exchange status %d, want %d", ex.Status, wantStatus)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("no exchange")
			}
			if tc.name != "sound gzip" {
				for _, s := range r.p.Status().Sessions {
					if s.Requests != 1 {
						t.Errorf("status %+v", s)
					}
				}
			}
		})
	}
}

// TestProxyClientBodyFaults: an agent that cuts its body mid-way gets 400,
// one that trickles it past ReadTimeout 408, both in the wire's error
// shape, neither logged as an error; nothing reaches the upstream.
func TestProxyClientBodyFaults(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	r := newFaultRig(t, okUpstream(&calls), Options{ReadTimeout: 400 * time.Millisecond})
	addr := strings.TrimPrefix(r.srv.URL, "http://")
	body := smallBody(WireAnthropic, false)
	open := func(part []byte) *net.TCPConn {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		fmt.Fprintf(c, "POST /v1/messages HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), part)
		return c.(*net.TCPConn)
	}
	answer := func(c net.Conn) (int, string) {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("no answer: %v\n%s", err, r.log.String())
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	c := open(body[:30])
	_ = c.CloseWrite()
	if status, b := answer(c); status != 400 || !strings.Contains(b, `"type":"error"`) || !strings.Contains(b, "cut short") {
		t.Errorf("cut body: %d %s", status, b)
	}
	c = open(body[:10])
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := 10; i < len(body); i++ {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := c.Write(body[i : i+1]); err != nil {
				return
			}
		}
	}()
	start := time.Now()
	if status, b := answer(c); status != 408 || !strings.Contains(b, `"type":"error"`) {
		t.Errorf("trickled body: %d %s", status, b)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("408 after %v", d)
	}
	if strings.Contains(r.log.String(), `"level":"ERROR"`) {
		t.Errorf("an agent's fault logged as an error:\n%s", r.log.String())
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d requests reached the upstream", n)
	}
}

// TestDifferentAgentSessionsConcurrent: two agents with the same system
// prompt and first prompt but their own session ids (Claude Code's
// X-Claude-Code-Session-Id) are separate sessions whose requests run at
// the same time: the upstream answers neither until it holds both. Two
// requests of one agent session are serialized.
func TestDifferentAgentSessionsConcurrent(t *testing.T) {
	t.Parallel()
	var (
		mu      sync.Mutex
		inside  int
		maxSeen int
		both    = make(chan struct{}) // closed when two requests are in
		wait    = 3 * time.Second     // how long one waits for the other
	)
	upstream := func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		inside++
		maxSeen = max(maxSeen, inside)
		if inside == 2 {
			close(both)
		}
		ch, d := both, wait
		mu.Unlock()
		select {
		case <-ch:
		case <-time.After(d):
		}
		mu.Lock()
		inside--
		mu.Unlock()
		okUpstream(new(atomic.Int64))(w, r)
	}
	r := newFaultRig(t, upstream, Options{})
	body := smallBody(WireAnthropic, false)
	run := func(ids ...string) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		for _, id := range ids {
			wg.Go(func() {
				if status, _, data := r.do(t, WireAnthropic, body, func(req *http.Request) { req.Header.Set("X-Claude-Code-Session-Id", id) }); status != 200 {
					t.Errorf("%s: %d %s", id, status, data)
				}
			})
		}
		wg.Wait()
		return time.Since(start)
	}
	if d := run("agent-a", "agent-b"); d > 2500*time.Millisecond {
		t.Errorf("two agent sessions took %v: run one at a time", d)
	}
	mu.Lock()
	if maxSeen != 2 {
		t.Errorf("at most %d requests at the upstream at once, want 2", maxSeen)
	}
	maxSeen, both, wait = 0, make(chan struct{}), 200*time.Millisecond
	mu.Unlock()
	if n := len(r.p.Status().Sessions); n != 2 {
		t.Errorf("%d sessions, want 2", n)
	}
	// One session's requests wait for each other (its Engine is one
	// history): the upstream never holds two.
	run("agent-c", "agent-c")
	mu.Lock()
	defer mu.Unlock()
	if maxSeen != 1 {
		t.Errorf("one session's requests: %d at once at the upstream, want 1", maxSeen)
	}
}
