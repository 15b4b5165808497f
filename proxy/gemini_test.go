package proxy

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/token"
)

// geminiTestModel is the model of the test requests; the catalog knows
// its family (gemini-3), whose prompts the proxy counts with o200k_base.
const geminiTestModel = "gemini-3.1-pro-preview"

// geminiUpstream is a loopback provider of the Gemini API. It records
// every request and refuses, as the API does, a request that breaks the
// function-calling rules (a function response turn that does not come
// right after a function call turn, or holds another number of responses
// or other ids than the calls), a model turn whose first function call
// lacks the thought signature the model gave it, or carries it on
// another part, and a prompt over its limit (with Gemini's overflow
// message). It answers "ok" with its own count as usageMetadata, as
// server-sent events for streamGenerateContent?alt=sse.
type geminiUpstream struct {
	srv     *httptest.Server
	limit   int
	counter token.Counter
	mu      sync.Mutex
	// issued maps the id of each call the "model" made to the signature
	// it gave with it ("" for the second and later of parallel calls).
	issued  map[string]string
	bodies  [][]byte
	queries []string
	keys    []string
	tokens  []int
}

func newGeminiUpstream(t *testing.T, limit int) *geminiUpstream {
	t.Helper()
	c, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	u := &geminiUpstream{limit: limit, counter: c, issued: map[string]string{}}
	u.srv = httptest.NewServer(http.HandlerFunc(u.handle))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *geminiUpstream) fail(w http.ResponseWriter, status int, msg string) {
	writeGeminiError(w, status, msg)
}

// check returns the API's complaint about the contents, or "".
func (u *geminiUpstream) check(contents []chat.GeminiContent) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	for i, c := range contents {
		var calls []string
		responses := map[string]bool{}
		for j, p := range c.Parts {
			if fc := p.FunctionCall; fc != nil {
				sig, ok := u.issued[fc.ID]
				if !ok {
					return fmt.Sprintf("contents[%d].parts[%d]: unknown function call %q", i, j, fc.ID)
				}
				if p.ThoughtSignature != sig {
					return fmt.Sprintf("Corrupted thought signature in contents[%d].parts[%d].", i, j)
				}
				calls = append(calls, fc.ID)
			}
			if fr := p.FunctionResponse; fr != nil {
				responses[fr.ID] = true
			}
		}
		if len(responses) > 0 {
			var prev []string
			if i > 0 {
				for _, p := range contents[i-1].Parts {
					if p.FunctionCall != nil {
						prev = append(prev, p.FunctionCall.ID)
					}
				}
			}
			if len(prev) == 0 {
				return "Please ensure that function response turn comes immediately after a function call turn."
			}
		}
		if len(calls) > 0 {
			if i+1 >= len(contents) {
				return "Requests ending with a model turn are not supported."
			}
			got := 0
			for _, p := range contents[i+1].Parts {
				if p.FunctionResponse != nil {
					got++
					if !contains(calls, p.FunctionResponse.ID) {
						return fmt.Sprintf("contents[%d]: a function response answers no call of the turn before", i+1)
					}
				}
			}
			if got != len(calls) {
				return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
			}
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (u *geminiUpstream) handle(w http.ResponseWriter, r *http.Request) {
	model := geminiModel(r.URL.Path)
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") || model == "" {
		u.fail(w, http.StatusNotFound, "not found")
		return
	}
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.bodies = append(u.bodies, body)
	u.queries = append(u.queries, r.URL.RawQuery)
	u.keys = append(u.keys, r.Header.Get("x-goog-api-key"))
	u.mu.Unlock()
	var req struct {
		System   *chat.GeminiContent  `json:"systemInstruction"`
		Contents []chat.GeminiContent `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		u.fail(w, http.StatusBadRequest, "Invalid JSON payload received. "+err.Error())
		return
	}
	if msg := u.check(req.Contents); msg != "" {
		u.fail(w, http.StatusBadRequest, msg)
		return
	}
	n := 0
	count := func(c chat.GeminiContent) {
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				n += u.counter.Count(p.FunctionCall.Name) + u.counter.Count(string(p.FunctionCall.Args))
			case p.FunctionResponse != nil:
				n += u.counter.Count(string(p.FunctionResponse.Response))
			default:
				n += u.counter.Count(p.Text)
			}
		}
	}
	if req.System != nil {
		count(*req.System)
	}
	for _, c := range req.Contents {
		count(c)
	}
	u.mu.Lock()
	u.tokens = append(u.tokens, n)
	u.mu.Unlock()
	if u.limit > 0 && n > u.limit {
		u.fail(w, http.StatusBadRequest, fmt.Sprintf("The input token count (%d) exceeds the maximum number of tokens allowed (%d).", n, u.limit))
		return
	}
	usage := map[string]any{"promptTokenCount": n, "cachedContentTokenCount": n / 4, "candidatesTokenCount": 1, "thoughtsTokenCount": 3, "totalTokenCount": n + 4}
	chunk := func(text string, usage map[string]any, last bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}}, "index": 0}
		if last {
			cand["finishReason"] = "STOP"
		}
		return map[string]any{"candidates": []any{cand}, "usageMetadata": usage, "modelVersion": model, "responseId": "r1"}
	}
	if !strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(chunk("ok", usage, true))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for i, c := range []map[string]any{chunk("o", map[string]any{"promptTokenCount": n, "totalTokenCount": n}, false), chunk("k", usage, true)} {
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		if i == 0 {
			w.(http.Flusher).Flush()
		}
	}
}

// geminiSignature is the thought signature the test model gives call id.
func geminiSignature(id string) string {
	return base64.StdEncoding.EncodeToString([]byte("signed:" + id))
}

// geminiBody writes a Gemini CLI-like request of n rounds: the session
// context and the task, then for each round a model turn of function
// calls (every fourth two parallel read_file calls, only the first
// signed; else one signed run_shell_command call) and the user turn of
// their responses, each about size bytes. The calls are registered with
// up as the model's.
func geminiBody(t *testing.T, up *geminiUpstream, n, size int) []byte {
	t.Helper()
	contents := []any{
		map[string]any{"role": "user", "parts": []any{
			map[string]any{"text": "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n</session_context>"},
			map[string]any{"text": "The test in this repository fails (run `sh test.sh`). Find the bug and fix it."},
		}},
	}
	output := func(i, k int) string {
		var out strings.Builder
		for j := 0; out.Len() < size; j++ {
			fmt.Fprintf(&out, "line %d of file_%d_%d.go: func helper%d(x int) int { return x*%d + %d }\n", j, i, k, j, i, j)
		}
		return out.String()
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	for i := 0; i < n; i++ {
		var calls, responses []any
		if i%4 == 3 {
			for k := range 2 {
				id := fmt.Sprintf("read_file_%013d_%d", 1795782706000+i, k)
				part := map[string]any{"functionCall": map[string]any{"id": id, "args": map[string]any{"file_path": fmt.Sprintf("/repo/file_%d_%d.go", i, k)}, "name": "read_file"}}
				up.issued[id] = ""
				if k == 0 {
					part["thoughtSignature"] = geminiSignature(id)
					up.issued[id] = geminiSignature(id)
				}
				calls = append(calls, part)
				responses = append(responses, map[string]any{"functionResponse": map[string]any{"id": id, "name": "read_file", "response": map[string]any{"output": output(i, k)}}})
			}
		} else {
			id := fmt.Sprintf("run_shell_command_%013d_0", 1795782706000+i)
			up.issued[id] = geminiSignature(id)
			calls = append(calls, map[string]any{"functionCall": map[string]any{"id": id, "args": map[string]any{"command": fmt.Sprintf("cat file_%d.go", i), "description": "Read a file."}, "name": "run_shell_command"}, "thoughtSignature": geminiSignature(id)})
			responses = append(responses, map[string]any{"functionResponse": map[string]any{"id": id, "name": "run_shell_command", "response": map[string]any{"output": output(i, 0)}}})
		}
		contents = append(contents, map[string]any{"role": "model", "parts": calls}, map[string]any{"role": "user", "parts": responses})
	}
	c, err := json.Marshal(contents)
	if err != nil {
		t.Fatal(err)
	}
	tools := `[{"functionDeclarations":[{"name":"read_file","description":"Reads a file.","parametersJsonSchema":{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}},{"name":"run_shell_command","description":"Runs a shell command.","parametersJsonSchema":{"type":"object","properties":{"command":{"type":"string"},"description":{"type":"string"}},"required":["command"]}}]}]`
	return fmt.Appendf(nil, `{"contents":%s,"systemInstruction":{"parts":[{"text":"You are Gemini CLI, an interactive CLI agent."}],"role":"user"},"tools":%s,"generationConfig":{"temperature":1,"topP":0.95,"topK":64,"maxOutputTokens":8192,"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"HIGH"}},%s}`, c, tools, unknownField)
}

// geminiRig is a Gemini upstream and a proxy in front of it.
type geminiRig struct {
	up  *geminiUpstream
	srv *httptest.Server
	mu  sync.Mutex
	exs []Exchange
}

func newGeminiRig(t *testing.T, limit int, opts Options) *geminiRig {
	t.Helper()
	g := &geminiRig{up: newGeminiUpstream(t, limit)}
	u, _ := url.Parse(g.up.srv.URL)
	opts.Upstream = u
	opts.Observe = func(ex Exchange) { g.mu.Lock(); g.exs = append(g.exs, ex); g.mu.Unlock() }
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	g.srv = httptest.NewServer(p)
	t.Cleanup(func() { g.srv.Close(); _ = p.Close() })
	return g
}

// post sends a request as Gemini CLI does (streamed or not) and returns
// the answer, once the proxy has reported the exchange.
func (g *geminiRig) post(t *testing.T, body []byte, stream bool) (int, []byte, Exchange) {
	t.Helper()
	g.mu.Lock()
	before := len(g.exs)
	g.mu.Unlock()
	route := "/v1beta/models/" + geminiTestModel + ":generateContent"
	if stream {
		route = "/v1beta/models/" + geminiTestModel + ":streamGenerateContent?alt=sse"
	}
	req, _ := http.NewRequest(http.MethodPost, g.srv.URL+route, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-goog-api-key", "test-key")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for range 500 {
		g.mu.Lock()
		n := len(g.exs)
		g.mu.Unlock()
		if n > before {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.exs) <= before {
		t.Fatal("the proxy reported no exchange")
	}
	return res.StatusCode, answer, g.exs[len(g.exs)-1]
}

// last returns the last body the upstream got, its query, key and count.
func (u *geminiUpstream) last() ([]byte, string, string, int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	n := len(u.bodies) - 1
	return u.bodies[n], u.queries[n], u.keys[n], u.tokens[n]
}

// TestGeminiFitsForwardedUnchanged: a request within the budget reaches
// the upstream byte for byte, on its route with its query and key, and
// the answer's usage is read from the stream and from the JSON reply.
func TestGeminiFitsForwardedUnchanged(t *testing.T) {
	g := newGeminiRig(t, 0, Options{Budget: 100_000})
	for _, stream := range []bool{true, false} {
		body := geminiBody(t, g.up, 2, 400)
		status, answer, ex := g.post(t, body, stream)
		if status != 200 {
			t.Fatalf("%d %s", status, answer)
		}
		got, query, key, n := g.up.last()
		if !bytes.Equal(got, body) {
			t.Fatalf("stream %t: the body changed:\n%s\n%s", stream, got, body)
		}
		if want := map[bool]string{true: "alt=sse", false: ""}[stream]; query != want || key != "test-key" {
			t.Errorf("stream %t: query %q, key %q", stream, query, key)
		}
		if ex.Err != "" || ex.Managed || ex.Wire != WireGemini {
			t.Errorf("stream %t: exchange %+v", stream, ex)
		}
		want := chat.Usage{InputTokens: n - n/4, CacheReadTokens: n / 4, OutputTokens: 4, ReasoningTokens: 3}
		if ex.Usage == nil || *ex.Usage != want {
			t.Errorf("stream %t: usage %+v, want %+v", stream, ex.Usage, want)
		}
	}
}

// TestGeminiAPI drives the proxy with Gemini CLI-like requests that
// outgrow the budget: every request the upstream gets is within the budget
// by its count and accepted (calls and responses paired turn by turn,
// thought signatures unchanged and on their parts); the system
// instruction, tools, generation config and unknown fields arrive
// unchanged; the elements sent as the agent wrote them are its bytes; the
// newest model turn is among them; the answers' usage anchors the count.
func TestGeminiAPI(t *testing.T) {
	const budget = 6000
	g := newGeminiRig(t, 0, Options{Budget: budget})
	managed, anchored := 0, 0
	for n := 1; n <= 24; n++ {
		body := geminiBody(t, g.up, n, 2400)
		status, answer, ex := g.post(t, body, n%2 == 0)
		if status != 200 || !bytes.Contains(answer, []byte(`"ok"`)) && !bytes.Contains(answer, []byte(`"k"`)) {
			t.Fatalf("%d rounds: %d %s", n, status, answer)
		}
		if ex.Err != "" {
			t.Fatalf("%d rounds: not managed: %s", n, ex.Err)
		}
		got, _, _, tokens := g.up.last()
		if tokens > budget*105/100 {
			t.Errorf("%d rounds: the upstream counted %d tokens, budget %d", n, tokens, budget)
		}
		for _, field := range []string{"systemInstruction", "tools", "generationConfig"} {
			if rawField(t, got, field) != rawField(t, body, field) {
				t.Fatalf("%d rounds: %q changed", n, field)
			}
		}
		if !bytes.Contains(got, []byte(unknownField)) {
			t.Fatalf("%d rounds: the unknown field was lost", n)
		}
		agent := map[string]bool{}
		for _, e := range geminiContents(t, body) {
			agent[string(e)] = true
		}
		sent := geminiContents(t, got)
		same := 0
		for _, e := range sent {
			if agent[string(e)] {
				same++
			}
		}
		if same < ex.Kept || len(sent) != ex.Elements {
			t.Errorf("%d rounds: %d of %d elements sent as the agent wrote them, the proxy reports %d of %d", n, same, len(sent), ex.Kept, ex.Elements)
		}
		agentElems := geminiContents(t, body)
		newest := agentElems[len(agentElems)-2] // the newest model turn
		if !bytes.Contains(got, newest) {
			t.Fatalf("%d rounds: the newest model turn was not sent as the agent wrote it", n)
		}
		if !ex.Managed && !bytes.Equal(got, body) {
			t.Fatalf("%d rounds: forwarded, but not byte for byte", n)
		}
		t.Logf("%d rounds: managed %t agent %d sent %d upstream %d kept %d/%d compactions %d usage %v", n, ex.Managed, ex.AgentTokens, ex.SentTokens, tokens, ex.Kept, ex.Elements, len(ex.Compactions), ex.Usage != nil)
		if ex.Managed {
			managed++
		}
		if ex.Usage != nil {
			anchored++
			want := chat.Usage{InputTokens: tokens - tokens/4, CacheReadTokens: tokens / 4, OutputTokens: 4, ReasoningTokens: 3}
			if diff := cmp.Diff(want, *ex.Usage); diff != "" {
				t.Errorf("%d rounds: usage (-want +got):\n%s", n, diff)
			}
		}
	}
	if managed == 0 || anchored == 0 {
		t.Fatalf("%d managed, %d with usage", managed, anchored)
	}
}

// geminiContents returns the elements of a body's "contents" as written.
func geminiContents(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var v struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	return v.Contents
}

// TestGeminiOverflow: Gemini's 400 "The input token count (…) exceeds the
// maximum number of tokens allowed (…)" makes the proxy compact and send
// again; the agent sees the answer that succeeded.
func TestGeminiOverflow(t *testing.T) {
	g := newGeminiRig(t, 4000, Options{Budget: 30000})
	status, answer, ex := g.post(t, geminiBody(t, g.up, 12, 2400), false)
	if status != 200 {
		t.Fatalf("%d %s", status, answer)
	}
	if ex.Overflows == 0 {
		t.Errorf("exchange %+v: no overflow recovered", ex)
	}
	if _, _, _, n := g.up.last(); n > 4000 {
		t.Errorf("the last request counted %d tokens, limit 4000", n)
	}
}

// TestGeminiRoutes: the model routes and their models; everything else
// passes through.
func TestGeminiRoutes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		method, target string
		wire           Wire
		model          string
	}{
		{"POST", "/v1beta/models/gemini-2.5-pro:generateContent", WireGemini, "gemini-2.5-pro"},
		{"POST", "/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse", WireGemini, "gemini-3.1-pro-preview"},
		{"POST", "/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent", WireGemini, "gemini-2.5-flash"},
		{"POST", "/v1beta/models/gemini-2.5-pro:countTokens", "", ""},
		{"POST", "/v1beta/models/:generateContent", "", ""},
		{"GET", "/v1beta/models/gemini-2.5-pro:generateContent", "", "gemini-2.5-pro"},
		{"GET", "/v1beta/models", "", ""},
	} {
		r := httptest.NewRequest(tt.method, tt.target, nil)
		if got := wireOf(r); got != tt.wire {
			t.Errorf("wireOf(%s %s) = %q, want %q", tt.method, tt.target, got, tt.wire)
		}
		if got := geminiModel(r.URL.Path); got != tt.model {
			t.Errorf("geminiModel(%s) = %q, want %q", r.URL.Path, got, tt.model)
		}
	}
}

// TestGeminiBody: the fields the proxy reads from a Gemini request.
func TestGeminiBody(t *testing.T) {
	t.Parallel()
	raw := []byte(`{"contents":[{"parts":[{"text":"hi"}],"role":"user"}],"system_instruction":{"parts":[{"text":"a"},{"text":"b"}]},"tools":[{"functionDeclarations":[{"name":"f","description":"d","parametersJsonSchema":{"type":"object"}},{"name":"g","parameters":{"type":"object"}}]},{"googleSearch":{}}],"generationConfig":{"maxOutputTokens":512}}`)
	b, err := parseBody(raw, WireGemini)
	if err != nil {
		t.Fatal(err)
	}
	c, err := b.read(nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.maxTokens != 512 || c.system != "a\n\nb" || len(c.msgs) != 1 || len(b.elems) != 1 {
		t.Errorf("maxTokens %d, system %q, %d messages", b.maxTokens, c.system, len(c.msgs))
	}
	want := []chat.ToolDef{
		{Name: "f", Description: "d", Parameters: json.RawMessage(`{"type":"object"}`)},
		{Name: "g", Parameters: json.RawMessage(`{"type":"object"}`)},
		{Name: "googleSearch", Parameters: json.RawMessage(`{}`)},
	}
	if diff := cmp.Diff(want, c.tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	// Another wire's body keeps its own reading of these names.
	if b, err := parseBody([]byte(`{"messages":[],"generationConfig":{"maxOutputTokens":9}}`), WireOpenAI); err != nil || b.maxTokens != 0 {
		t.Errorf("an OpenAI body read generationConfig: %v, %d", err, b.maxTokens)
	}
	// An element the chat package refuses is named.
	b, err = parseBody([]byte(`{"contents":[{"parts":[{"text":"a"}]},{"parts":[{"functionCall":{"name":"f"}}],"role":"user"}]}`), WireGemini)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.read(nil); err == nil || !strings.Contains(err.Error(), "contents[1].parts[0]") {
		t.Errorf("read = %v, want an error naming contents[1].parts[0]", err)
	}
}

// TestGeminiUsage: usageMetadata is read from a JSON reply, the last
// server-sent event that has it, and a JSON array of responses.
func TestGeminiUsage(t *testing.T) {
	t.Parallel()
	full := `{"promptTokenCount":100,"cachedContentTokenCount":60,"candidatesTokenCount":5,"thoughtsTokenCount":7,"totalTokenCount":112}`
	want := &chat.Usage{InputTokens: 40, CacheReadTokens: 60, OutputTokens: 12, ReasoningTokens: 7}
	for _, tt := range []struct {
		name, body string
		want       *chat.Usage
	}{
		{"json", `{"candidates":[],"usageMetadata":` + full + `}`, want},
		{"sse", "data: {\"usageMetadata\":{\"promptTokenCount\":100}}\r\n\r\ndata: {\"candidates\":[]}\r\n\r\ndata: {\"usageMetadata\":" + full + "}\r\n\r\n", want},
		{"array", `[{"usageMetadata":{"promptTokenCount":100}},{"usageMetadata":` + full + `}]`, want},
		{"none", `{"candidates":[]}`, nil},
		{"implausible", `{"usageMetadata":{"promptTokenCount":-3}}`, nil},
	} {
		if diff := cmp.Diff(tt.want, readUsage(WireGemini, []byte(tt.body), "")); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestGeminiError: the proxy's own errors come in Google's shape, which
// Gemini CLI reads.
func TestGeminiError(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	writeError(w, WireGemini, http.StatusRequestEntityTooLarge, "agentctx proxy: request body over 1 bytes")
	var v struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Status  string `json:"status"`
		} `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if w.Code != 413 || v.Error.Code != 413 || v.Error.Status != "INVALID_ARGUMENT" || !strings.Contains(v.Error.Message, "over 1 bytes") {
		t.Errorf("%d %s", w.Code, w.Body.Bytes())
	}
}

// TestGeminiRerender: contents the proxy writes from the message model
// rather than from the agent's bytes (a model turn or responses the Engine
// changed) keep each thought signature on the part that carried it, the
// calls' ids, and Gemini CLI's own bytes where nothing changed.
func TestGeminiRerender(t *testing.T) {
	t.Parallel()
	raw := []byte(`{"contents":[{"parts":[{"text":"fix it"}],"role":"user"},` +
		`{"parts":[{"text":"Reading both files.","thoughtSignature":"c2lnLXRleHQ="},{"functionCall":{"id":"read_file_1_0","args":{"file_path":"a.go"},"name":"read_file"}},{"functionCall":{"id":"read_file_1_1","args":{"file_path":"b.go"},"name":"read_file"}}],"role":"model"},` +
		`{"parts":[{"functionResponse":{"name":"read_file","response":{"output":"package a"},"id":"read_file_1_0"}},{"functionResponse":{"name":"read_file","response":{"error":"no such file"},"id":"read_file_1_1"}}],"role":"user"},` +
		`{"parts":[{"functionCall":{"args":{"command":"go test ./..."},"name":"run_shell_command"},"thoughtSignature":"c2lnLWNhbGw="}],"role":"model"},` +
		`{"parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"ok"}}}],"role":"user"}]}`)
	b, err := parseBody(raw, WireGemini)
	if err != nil {
		t.Fatal(err)
	}
	c, err := b.read(nil)
	if err != nil {
		t.Fatal(err)
	}
	elems, err := convert(WireGemini, c, c.msgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(elems) != len(b.elems) {
		t.Fatalf("%d elements, want %d", len(elems), len(b.elems))
	}
	for i, e := range elems {
		if !bytes.Equal(e, b.elem(i)) {
			t.Errorf("contents[%d]:\n got %s\nwant %s", i, e, b.elem(i))
		}
	}
}
