package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider/providertest"
	"github.com/agentctx/agentctx/session"
)

// slowStore holds every Append of a message until release is closed, and
// says when one started.
type slowStore struct {
	session.Store
	started chan struct{}
	release chan struct{}
	once    atomic.Bool
}

func (s *slowStore) Append(ctx context.Context, id string, entries ...session.Entry) ([]session.Entry, error) {
	for _, e := range entries {
		if e.Message != nil {
			if s.once.CompareAndSwap(false, true) {
				close(s.started)
			}
			<-s.release
			break
		}
	}
	return s.Store.Append(ctx, id, entries...)
}

// TestGracefulShutdown cancels Serve's context (what SIGINT and SIGTERM do
// in the serve command) while an append is in flight: the append finishes,
// is stored and answered 200; new connections are refused; Serve returns
// nil.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	inner := newStore(t)
	st := &slowStore{Store: inner, started: make(chan struct{}), release: make(chan struct{})}
	s, err := New(Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, s) }()
	ts := &testServer{Server: s, URL: "http://" + ln.Addr().String(), store: inner}
	id := ts.createSession(t, "", nil)

	type answer struct {
		status int
		body   string
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := http.Post(ts.URL+"/v1/sessions/"+id+"/messages", "application/json",
			strings.NewReader(`{"messages":[{"role":"user","content":"in flight"}]}`))
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answered <- answer{status: resp.StatusCode, body: string(b)}
	}()
	select {
	case <-st.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the append did not start")
	}
	cancel() // SIGTERM
	// The listener closes at once: no new requests.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("still accepting connections after shutdown began")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v before the append finished", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(st.release)
	a := <-answered
	if a.err != nil || a.status != 200 {
		t.Fatalf("in-flight append: %d %s %v", a.status, a.body, a.err)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	tr, err := inner.Load(t.Context(), id, session.LoadOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range tr.Entries {
		ms, _ := e.Messages()
		for _, m := range ms {
			found = found || m.Text() == "in flight"
		}
	}
	if !found {
		t.Error("the in-flight message is not in the store")
	}
}

// TestPythonAgentLoop runs examples/python/agent_loop.py, the README's
// agent loop in Python's standard library, against a real server on
// loopback and a fake OpenAI provider (the real wire format): the model
// asks to read a file, the loop runs the tool, the model answers.
func TestPythonAgentLoop(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 is not installed")
		}
		t.Skip("python3 is not installed")
	}
	file := filepath.Join(t.TempDir(), "NOTES.md")
	if err := os.WriteFile(file, []byte("The build uses Go 1.26.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	llm := providertest.NewOpenAI(providertest.Options{Script: func(r providertest.Request) providertest.Reply {
		// The tool's result, once added, is followed by the tail (a
		// system reminder in a user message).
		for _, m := range r.Messages {
			if res, ok := m.ToolResult(); ok && m.Role == chat.RoleTool {
				return providertest.Reply{Text: "The notes say: " + strings.TrimSpace(res.Content)}
			}
		}
		return providertest.Reply{ToolCalls: []chat.ToolCall{{ID: "call_a", Name: "read_file", Arguments: []byte(`{"path":"` + file + `"}`)}}}
	}})
	t.Cleanup(llm.Close)
	ts := newTestServer(t, Options{}, true)
	cmd := exec.CommandContext(t.Context(), python, filepath.Join("..", "examples", "python", "agent_loop.py"), "What do the notes say?")
	cmd.Env = append(os.Environ(), "AGENTCTX_URL="+ts.URL, "AGENTCTX_TOKEN="+tokenA, "OPENAI_BASE_URL="+llm.BaseURL, "OPENAI_API_KEY=test")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("agent_loop.py: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "The notes say: The build uses Go 1.26.") {
		t.Errorf("output:\n%s", out)
	}
	reqs := llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d provider requests, want 2", len(reqs))
	}
	if err := providertest.ValidateOpenAI(reqs[1].Body); err != nil {
		t.Errorf("second request: %v", err)
	}
	// The session holds the turn: user, tool call, result, answer.
	var list listBody
	ts.call(t, "GET", "/v1/sessions", tokenA, nil).must(t, 200).decode(t, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].Messages != 4 {
		t.Fatalf("sessions: %+v", list.Sessions)
	}
	if !strings.Contains(string(out), "entries") {
		t.Errorf("no export line in:\n%s", out)
	}
}
