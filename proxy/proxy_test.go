package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/anthropic"
	"github.com/agentctx/agentctx/provider/openai"
	"github.com/agentctx/agentctx/provider/providertest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// The test models: both count with o200k_base locally, as providertest
// counts, so budgets compare.
const (
	openAIModel    = "gpt-4o"
	anthropicModel = "claude-sonnet-4-5"
)

// unknownField is a field the proxy does not know, written with odd
// spacing: it must reach the upstream byte for byte.
const unknownField = `"x_vendor_extension" : { "keep" : [1, 2.50, "\u00e9"] }`

// rig is an upstream, a proxy in front of it and what the proxy did.
type rig struct {
	up    *providertest.Server
	p     *Proxy
	srv   *httptest.Server
	log   *bytes.Buffer
	mu    sync.Mutex
	exchs []Exchange
	sent  atomic.Int64 // model requests posted
}

func newRig(t *testing.T, wire providertest.Wire, upOpts providertest.Options, opts Options) *rig {
	t.Helper()
	upOpts.Wire = wire
	r := &rig{up: providertest.New(upOpts), log: &bytes.Buffer{}}
	t.Cleanup(r.up.Close)
	u, err := url.Parse(r.up.URL)
	if err != nil {
		t.Fatal(err)
	}
	opts.Upstream = u
	var logMu sync.Mutex
	opts.Logger = slog.New(slog.NewTextHandler(lockedWriter{&logMu, r.log}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	opts.Observe = func(ex Exchange) {
		r.mu.Lock()
		r.exchs = append(r.exchs, ex)
		r.mu.Unlock()
	}
	if r.p, err = New(opts); err != nil {
		t.Fatal(err)
	}
	r.srv = httptest.NewServer(r.p)
	t.Cleanup(func() {
		r.srv.Close()
		_ = r.p.Close()
	})
	return r
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// exchanges returns what the proxy did, once it has reported one exchange
// per model request the upstream or the proxy answered (the proxy reports
// an exchange after the agent has its answer).
func (r *rig) exchanges() []Exchange {
	for range 500 {
		r.mu.Lock()
		n := len(r.exchs)
		r.mu.Unlock()
		if int64(n) >= r.sent.Load() {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Exchange(nil), r.exchs...)
}

// path is the model route of wire.
func path(w providertest.Wire) string {
	if w == providertest.WireAnthropic {
		return "/v1/messages"
	}
	return "/v1/chat/completions"
}

// post sends body to the proxy's model route with an API key, and returns
// the status and the answer.
func (r *rig) post(t *testing.T, wire providertest.Wire, body []byte, header http.Header) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.srv.URL+path(wire), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-test-SECRETKEY-0123456789")
	req.Header.Set("x-api-key", "sk-ant-SECRETKEY-0123456789")
	for k, vs := range header {
		req.Header[k] = vs
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.sent.Add(1)
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, data
}

const systemPrompt = "You are a careful coding agent. Work in /repo. Run the tests before you finish."

func testTools() []chat.ToolDef {
	return []chat.ToolDef{
		{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		{Name: "run_command", Description: "Run a shell command.", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
	}
}

// agentBody writes the request an agent sends: its system prompt, tools
// and history in wire w, with an unknown field, and "stream" when set.
// The last message of an Anthropic request carries a cache_control marker,
// as Claude Code sets one.
func agentBody(t *testing.T, w providertest.Wire, system string, tools []chat.ToolDef, msgs []chat.Message, stream bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	if w == providertest.WireAnthropic {
		_, wire, err := chat.ToAnthropic(msgs)
		if err != nil {
			t.Fatal(err)
		}
		elems := make([]json.RawMessage, len(wire))
		for i, m := range wire {
			m = m.ForRequest()
			if i == len(wire)-1 && len(m.Content) > 0 {
				raw, _ := json.Marshal(m)
				if k := bytes.LastIndex(raw, []byte(`}]}`)); k >= 0 {
					raw = append(raw[:k:k], `,"cache_control":{"type":"ephemeral"}}]}`...)
				}
				elems[i] = raw
				continue
			}
			elems[i], _ = json.Marshal(m)
		}
		var ts []map[string]any
		for _, d := range tools {
			ts = append(ts, map[string]any{"name": d.Name, "description": d.Description, "input_schema": d.Parameters})
		}
		sys, _ := json.Marshal([]map[string]any{{"type": "text", "text": system, "cache_control": map[string]string{"type": "ephemeral"}}})
		tj, _ := json.Marshal(ts)
		mj, _ := json.Marshal(elems)
		fmt.Fprintf(&buf, `{"model":%q,"max_tokens":1024,"system":%s,"tools":%s,"messages":%s,%s,"stream":%t}`, anthropicModel, sys, tj, mj, unknownField, stream)
		return buf.Bytes()
	}
	wire, err := chat.ToOpenAI(append([]chat.Message{chat.NewText(chat.RoleSystem, system)}, msgs...))
	if err != nil {
		t.Fatal(err)
	}
	elems := make([]json.RawMessage, len(wire))
	for i, m := range wire {
		elems[i], _ = json.Marshal(m.ForRequest())
	}
	var ts []map[string]any
	for _, d := range tools {
		ts = append(ts, map[string]any{"type": "function", "function": map[string]any{"name": d.Name, "description": d.Description, "parameters": d.Parameters}})
	}
	tj, _ := json.Marshal(ts)
	mj, _ := json.Marshal(elems)
	opts := ""
	if stream {
		opts = `,"stream_options":{"include_usage":true}`
	}
	fmt.Fprintf(&buf, `{"model":%q,"messages":%s,"tools":%s,"max_completion_tokens":1024,%s,"stream":%t%s}`, openAIModel, mj, tj, unknownField, stream, opts)
	return buf.Bytes()
}

// session builds a coding session of n rounds: a task, then per round an
// assistant tool call and a tool result of about size bytes.
func codingSession(n, size int) []chat.Message {
	msgs := []chat.Message{chat.NewText(chat.RoleUser, "Fix the failing test in pkg/parse: TestParseDate fails with an off-by-one month.")}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("call_%03d", i)
		var out strings.Builder
		for j := 0; out.Len() < size; j++ {
			fmt.Fprintf(&out, "line %d of file_%d.go: func helper%d(x int) int { return x*%d + %d }\n", j, i, j, i, j)
		}
		msgs = append(msgs,
			chat.NewAssistant(fmt.Sprintf("Reading file_%d.go.", i), chat.ToolCall{ID: id, Name: "read_file", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"pkg/parse/file_%d.go"}`, i))}),
			chat.NewToolResult(id, "read_file", out.String(), false))
	}
	return msgs
}

// rawField returns the raw bytes of a top-level field of a JSON object.
func rawField(t *testing.T, body []byte, key string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("upstream body: %v", err)
	}
	return string(m[key])
}

var wires = []providertest.Wire{providertest.WireOpenAI, providertest.WireAnthropic}

// TestFitsPassesThrough: a request that fits the budget reaches the
// upstream byte for byte, and the upstream's answer reaches the agent.
func TestFitsPassesThrough(t *testing.T) {
	for _, w := range wires {
		t.Run(string(w), func(t *testing.T) {
			r := newRig(t, w, providertest.Options{}, Options{Budget: 50000})
			msgs := codingSession(3, 800)
			for _, stream := range []bool{false, true} {
				body := agentBody(t, w, systemPrompt, testTools(), msgs, stream)
				status, answer := r.post(t, w, body, nil)
				if status != 200 {
					t.Fatalf("status %d: %s", status, answer)
				}
				reqs := r.up.Requests()
				got := reqs[len(reqs)-1]
				if !bytes.Equal(got.Body, body) {
					t.Fatalf("stream=%t: the upstream got a changed body:\n%s\nwant\n%s", stream, got.Body, body)
				}
				if got.Header.Get("Authorization") == "" || got.Header.Get("x-api-key") == "" {
					t.Errorf("the API key headers did not pass through: %v", got.Header)
				}
				if !bytes.Contains(answer, []byte("ok")) {
					t.Errorf("stream=%t: answer %s lacks the reply text", stream, answer)
				}
				if stream && !bytes.Contains(answer, []byte("data:")) {
					t.Errorf("a streamed answer came back as %s", answer)
				}
			}
			for _, ex := range r.exchanges() {
				if ex.Managed || ex.Err != "" {
					t.Errorf("exchange %+v: want forwarded unchanged", ex)
				}
			}
		})
	}
}

// TestOverBudgetManaged grows a session past the budget: every request
// the upstream gets fits the budget and passes the API's ordering rules;
// the system prompt, the tools and the unknown field arrive unchanged;
// the newest messages arrive as the agent wrote them.
func TestOverBudgetManaged(t *testing.T) {
	const budget = 6000
	for _, w := range wires {
		t.Run(string(w), func(t *testing.T) {
			r := newRig(t, w, providertest.Options{}, Options{Budget: budget})
			msgs := codingSession(30, 2400)
			var firstSystem, firstTools string
			managed := 0
			for n := 3; n <= len(msgs); n += 2 {
				stream := n%4 == 1
				body := agentBody(t, w, systemPrompt, testTools(), msgs[:n], stream)
				status, answer := r.post(t, w, body, nil)
				if status != 200 {
					t.Fatalf("request with %d messages: status %d: %s", n, status, answer)
				}
				reqs := r.up.Requests()
				got := reqs[len(reqs)-1]
				if got.PromptTokens > budget*105/100 {
					t.Errorf("request with %d messages: the upstream counted %d prompt tokens, budget %d", n, got.PromptTokens, budget)
				}
				sys, tools := rawField(t, got.Body, "system"), rawField(t, got.Body, "tools")
				if firstSystem == "" {
					firstSystem, firstTools = sys, tools
				} else if sys != firstSystem || tools != firstTools {
					t.Fatalf("request with %d messages: system or tools changed", n)
				}
				if !bytes.Contains(got.Body, []byte(unknownField)) {
					t.Fatalf("request with %d messages: the unknown field did not pass byte for byte", n)
				}
				if w == providertest.WireOpenAI && !bytes.Contains(got.Body, []byte(`{"role":"system"`)) {
					t.Fatalf("the system message was dropped")
				}
				// The newest tool result arrives, cut by the limiter at
				// most: its head is there.
				last, _ := json.Marshal(msgs[n-1].Parts[0].(chat.ToolResult).Content[:300])
				if !bytes.Contains(got.Body, last[1:len(last)-1]) {
					t.Fatalf("request with %d messages: the newest tool result is missing", n)
				}
				if w == providertest.WireAnthropic && !bytes.Contains(got.Body, []byte(`"cache_control":{"type":"ephemeral"}}]}`)) {
					t.Fatalf("request with %d messages: the agent's cache_control marker on the last message was lost", n)
				}
			}
			for _, ex := range r.exchanges() {
				if ex.Managed {
					managed++
					if ex.SentTokens > ex.Budget {
						t.Errorf("%+v: sent over the budget", ex)
					}
					if ex.AgentTokens <= ex.Budget {
						t.Errorf("%+v: managed a request that fits", ex)
					}
				}
				if ex.Err != "" {
					t.Errorf("exchange %+v failed to manage", ex)
				}
			}
			if managed == 0 {
				t.Fatal("no request was managed")
			}
		})
	}
}

// TestOverflowRecovered: an upstream whose window is smaller than the
// proxy's budget answers with its context-overflow error; the proxy lowers
// the budget, compacts and sends again, and the agent sees a reply.
func TestOverflowRecovered(t *testing.T) {
	for _, w := range wires {
		t.Run(string(w), func(t *testing.T) {
			r := newRig(t, w, providertest.Options{ContextLimit: 5000}, Options{Budget: 20000})
			msgs := codingSession(12, 2400)
			body := agentBody(t, w, systemPrompt, testTools(), msgs, false)
			status, answer := r.post(t, w, body, nil)
			if status != 200 {
				t.Fatalf("status %d: %s", status, answer)
			}
			ex := r.exchanges()[0]
			if ex.Overflows == 0 || !ex.Managed {
				t.Fatalf("exchange %+v: want an overflow recovered", ex)
			}
			reqs := r.up.Requests()
			if last := reqs[len(reqs)-1]; last.PromptTokens > 5000 {
				t.Fatalf("the last request held %d tokens, over the upstream's 5000", last.PromptTokens)
			}
		})
	}
}

// TestOtherRoutesPassThrough: a route the proxy does not manage reaches
// the upstream unchanged and its answer comes back unchanged.
func TestOtherRoutesPassThrough(t *testing.T) {
	r := newRig(t, providertest.WireAnthropic, providertest.Options{}, Options{})
	direct, err := http.Get(r.up.URL + "/v1/models?limit=5")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := io.ReadAll(direct.Body)
	direct.Body.Close()
	res, err := http.Get(r.srv.URL + "/v1/models?limit=5")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != direct.StatusCode || !bytes.Equal(got, want) {
		t.Fatalf("passed through: %d %s, want %d %s", res.StatusCode, got, direct.StatusCode, want)
	}
	// A body the proxy cannot read goes upstream as it is.
	status, answer := r.post(t, providertest.WireAnthropic, []byte(`{"model": "x", "messages": [1, 2`), nil)
	if status != 400 {
		t.Fatalf("broken body: status %d (%s), want the upstream's 400", status, answer)
	}
	reqs := r.up.Requests()
	if len(reqs) != 1 || string(reqs[0].Body) != `{"model": "x", "messages": [1, 2` {
		t.Fatalf("the upstream got %d requests", len(reqs))
	}
}

// TestKeysNeverStored: the agent's API keys reach the upstream but no
// session file and no log line.
func TestKeysNeverStored(t *testing.T) {
	dir := t.TempDir()
	st, err := jsonlstore.Open(jsonlstore.Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wires {
		r := newRig(t, w, providertest.Options{}, Options{Store: st, Budget: 4000})
		msgs := codingSession(8, 2400)
		for n := 3; n <= len(msgs); n += 2 {
			if status, answer := r.post(t, w, agentBody(t, w, systemPrompt, testTools(), msgs[:n], true), nil); status != 200 {
				t.Fatalf("status %d: %s", status, answer)
			}
		}
		_ = r.p.Close()
		if strings.Contains(r.log.String(), "SECRETKEY") {
			t.Fatalf("%s: a key reached the log", w)
		}
		if r.log.Len() == 0 {
			t.Fatalf("%s: nothing logged", w)
		}
	}
	files := 0
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte("SECRETKEY")) {
			t.Errorf("%s holds the API key", p)
		}
		return nil
	})
	if err != nil || files == 0 {
		t.Fatalf("walk: %v, %d files", err, files)
	}
	list, err := st.List(context.Background(), session.ListOptions{})
	if err != nil || len(list) != 2 {
		t.Fatalf("sessions: %v, %d (want one per wire)", err, len(list))
	}
}

// TestSDKThroughProxy drives the proxy with the SDK adapters, streaming
// and not: the agent reads the upstream's reply, and its usage anchors the
// session's next count.
func TestSDKThroughProxy(t *testing.T) {
	for _, w := range wires {
		t.Run(string(w), func(t *testing.T) {
			r := newRig(t, w, providertest.Options{Script: func(providertest.Request) providertest.Reply {
				return providertest.Reply{Text: "Done: the month is 1-based now."}
			}}, Options{Budget: 5000})
			var m provider.Streamer
			var err error
			if w == providertest.WireAnthropic {
				m, err = anthropic.New(anthropic.Options{APIKey: "sk-ant-SECRETKEY", BaseURL: r.srv.URL, Model: anthropicModel, MaxRetries: -1})
			} else {
				m, err = openai.New(openai.Options{APIKey: "sk-SECRETKEY", BaseURL: r.srv.URL + "/v1", Model: openAIModel, MaxRetries: -1})
			}
			if err != nil {
				t.Fatal(err)
			}
			msgs := append([]chat.Message{chat.NewText(chat.RoleSystem, systemPrompt)}, codingSession(10, 2400)...)
			ctx := context.Background()
			for i, stream := range []bool{false, true, true, false} {
				req := provider.Request{Messages: msgs, Tools: testTools(), MaxTokens: 512}
				var resp *provider.Response
				var deltas strings.Builder
				if stream {
					resp, err = m.Stream(ctx, req, func(d string) error { deltas.WriteString(d); return nil })
				} else {
					resp, err = m.Send(ctx, req)
				}
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if resp.Message.Text() != "Done: the month is 1-based now." || (stream && deltas.String() != resp.Message.Text()) {
					t.Fatalf("call %d: reply %q, deltas %q", i, resp.Message.Text(), deltas.String())
				}
				msgs = append(msgs, resp.Message, chat.NewText(chat.RoleUser, fmt.Sprintf("Now check case %d.", i)))
			}
			r.sent.Store(4)
			exs := r.exchanges()
			if len(exs) != 4 {
				t.Fatalf("%d exchanges, want 4", len(exs))
			}
			for i, ex := range exs {
				if !ex.Managed || ex.Usage == nil || ex.Err != "" {
					t.Errorf("exchange %d: %+v: want managed, with usage", i, ex)
				}
			}
			s, ok := r.p.sessions.Get(sessionKeyOf(t, r, exs[0].Session))
			if !ok || s.eng == nil || !s.eng.WindowStats().Anchor.Set {
				t.Fatalf("the upstream's usage did not anchor the session's count")
			}
		})
	}
}

// sessionKeyOf finds the key of the session with id.
func sessionKeyOf(t *testing.T, r *rig, id string) string {
	t.Helper()
	for _, k := range r.p.sessions.Keys() {
		if s, _ := r.p.sessions.Peek(k); s != nil && s.eng != nil && s.eng.ID() == id {
			return k
		}
	}
	t.Fatalf("no session %s", id)
	return ""
}

// TestRewrittenHistory: when the agent rewrites its history (its own
// compaction keeps the first message, an edit), the proxy starts a new
// generation of the session instead of mixing the two.
func TestRewrittenHistory(t *testing.T) {
	st, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	w := providertest.WireOpenAI
	r := newRig(t, w, providertest.Options{}, Options{Store: st, Budget: 50000})
	msgs := codingSession(4, 500)
	for _, h := range [][]chat.Message{msgs[:5], msgs[:7], append(append([]chat.Message{}, msgs[:3]...), chat.NewText(chat.RoleUser, "Summary of the work so far: file_0 read.")), msgs[:9]} {
		if status, answer := r.post(t, w, agentBody(t, w, systemPrompt, testTools(), h, false), nil); status != 200 {
			t.Fatalf("status %d: %s", status, answer)
		}
	}
	var ids []string
	for _, ex := range r.exchanges() {
		ids = append(ids, ex.Session)
	}
	if ids[0] != ids[1] || ids[2] != ids[0]+"-2" || ids[3] != ids[0]+"-3" {
		t.Fatalf("sessions %v: want the same, then -2, then -3", ids)
	}
	// A header picks the session.
	status, _ := r.post(t, w, agentBody(t, w, systemPrompt, testTools(), msgs[:3], false), http.Header{SessionHeader: {"my-agent-run-1"}})
	if exs := r.exchanges(); status != 200 || exs[len(exs)-1].Session != "my-agent-run-1" {
		t.Fatalf("the session header was not used: %d %+v", status, exs[len(exs)-1])
	}
}

// TestEvictedSessions: beyond MaxSessions the least recently used session
// is closed; its next request continues in a new generation, from the
// agent's whole history.
func TestEvictedSessions(t *testing.T) {
	st, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	w := providertest.WireAnthropic
	r := newRig(t, w, providertest.Options{}, Options{Store: st, Budget: 50000, MaxSessions: 2})
	for round := 0; round < 2; round++ {
		for agent := 0; agent < 3; agent++ {
			msgs := codingSession(2+round, 300)
			msgs[0] = chat.NewText(chat.RoleUser, fmt.Sprintf("Task of agent %d.", agent))
			if status, answer := r.post(t, w, agentBody(t, w, systemPrompt, testTools(), msgs, false), nil); status != 200 {
				t.Fatalf("agent %d: %d %s", agent, status, answer)
			}
		}
	}
	exs := r.exchanges()
	for i := 0; i < 3; i++ {
		first, second := exs[i].Session, exs[i+3].Session
		if second != first+"-2" {
			t.Errorf("agent %d: sessions %s then %s: want a new generation after eviction", i, first, second)
		}
	}
	_ = r.p.Close()
	list, err := st.List(context.Background(), session.ListOptions{})
	if err != nil || len(list) != 6 {
		t.Fatalf("%v: %d sessions, want 6", err, len(list))
	}
}
