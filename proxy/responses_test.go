package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/token"
)

// responsesUpstream is a loopback provider of the OpenAI Responses API:
// it records every body, refuses, as the API does, a tool output without a
// call of its kind earlier in "input" (when no previous_response_id
// carries the conversation) and an input over its context window, and
// answers "ok" with its own count as usage, streamed when asked.
type responsesUpstream struct {
	srv     *httptest.Server
	limit   int
	counter token.Counter
	mu      sync.Mutex
	bodies  [][]byte
	tokens  []int
}

func newResponsesUpstream(t *testing.T, limit int) *responsesUpstream {
	t.Helper()
	c, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	u := &responsesUpstream{limit: limit, counter: c}
	u.srv = httptest.NewServer(http.HandlerFunc(u.handle))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *responsesUpstream) fail(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": "input", "code": code}})
	_, _ = w.Write(b)
}

func (u *responsesUpstream) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Instructions string               `json:"instructions"`
		Input        []chat.ResponsesItem `json:"input"`
		Stream       bool                 `json:"stream"`
		Previous     string               `json:"previous_response_id"`
	}
	u.mu.Lock()
	u.bodies = append(u.bodies, body)
	u.mu.Unlock()
	if err := json.Unmarshal(body, &req); err != nil {
		u.fail(w, 400, "", "We could not parse the JSON body of your request.")
		return
	}
	n := u.counter.Count(req.Instructions)
	calls := map[string]string{}
	for _, it := range req.Input {
		switch it.Type {
		case "function_call", "custom_tool_call":
			calls[it.CallID] = it.Type
			n += u.counter.Count(it.Name) + u.counter.Count(it.Arguments) + u.counter.Count(it.Input)
		case "function_call_output", "custom_tool_call_output":
			if req.Previous == "" && calls[it.CallID]+"_output" != it.Type {
				u.fail(w, 400, "", fmt.Sprintf("No tool call found for %s with call_id %s.", strings.ReplaceAll(it.Type, "_", " "), it.CallID))
				return
			}
			var s string
			_ = json.Unmarshal(it.Output, &s)
			n += u.counter.Count(s)
		default:
			n += u.counter.Count(string(it.Content))
		}
	}
	u.mu.Lock()
	u.tokens = append(u.tokens, n)
	u.mu.Unlock()
	if u.limit > 0 && n > u.limit {
		u.fail(w, 400, "context_length_exceeded", "Your input exceeds the context window of this model. Please adjust your input and try again.")
		return
	}
	resp := map[string]any{"id": "resp_1", "object": "response", "status": "completed",
		"output": []any{map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "ok"}}}},
		"usage":  map[string]any{"input_tokens": n, "input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens": 1, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": n + 1}}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	ev := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		w.(http.Flusher).Flush()
	}
	ev("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_1", "status": "in_progress"}})
	ev("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "delta": "ok"})
	ev("response.completed", map[string]any{"type": "response.completed", "response": resp})
}

// responsesBody writes a Codex-like Responses API request: instructions,
// tools, and n rounds of reasoning + a tool call (every third a custom
// apply_patch call) and its output of about size bytes.
func responsesBody(t *testing.T, n, size int, stream bool) []byte {
	t.Helper()
	items := []any{
		map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "<permissions instructions>sandbox: workspace-write</permissions instructions>"}}},
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "Fix the failing test in pkg/parse."}}},
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("call_%03d", i)
		var out strings.Builder
		for j := 0; out.Len() < size; j++ {
			fmt.Fprintf(&out, "line %d of file_%d.go: func helper%d(x int) int { return x*%d + %d }\n", j, i, j, i, j)
		}
		items = append(items, map[string]any{"type": "reasoning", "id": fmt.Sprintf("rs_%03d", i), "summary": []any{}, "encrypted_content": fmt.Sprintf("gAAAAB-ENCRYPTED-%03d", i)})
		if i%3 == 2 {
			items = append(items,
				map[string]any{"type": "custom_tool_call", "id": "ctc_" + id, "call_id": id, "name": "apply_patch", "input": fmt.Sprintf("*** Begin Patch\n*** Update File: file_%d.go\n@@\n-old\n+new\n*** End Patch", i)},
				map[string]any{"type": "custom_tool_call_output", "call_id": id, "output": out.String()})
			continue
		}
		items = append(items,
			map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": id, "name": "shell", "arguments": fmt.Sprintf(`{"command":["cat","file_%d.go"]}`, i)},
			map[string]any{"type": "function_call_output", "call_id": id, "output": out.String()})
	}
	in, _ := json.Marshal(items)
	tools := `[{"type":"function","name":"shell","description":"Runs a shell command.","strict":false,"parameters":{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}}},"required":["command"]}},{"type":"custom","name":"apply_patch","description":"Apply a patch.","format":{"type":"grammar","syntax":"lark","definition":"start: /.+/"}}]`
	return fmt.Appendf(nil, `{"model":"gpt-5.1-codex","instructions":%q,"input":%s,"tools":%s,"tool_choice":"auto","parallel_tool_calls":false,"reasoning":{"effort":"medium","summary":"auto"},"store":false,"stream":%t,"include":["reasoning.encrypted_content"],"prompt_cache_key":"019c8a53",%s}`,
		"You are Codex, a coding agent.", in, tools, stream, unknownField)
}

// TestResponsesAPI drives the proxy with Codex-like Responses API
// requests that outgrow the budget: every request the upstream gets is
// within the budget by its count and accepted (custom tool outputs keep
// their kind), instructions, tools and unknown fields arrive unchanged,
// the reasoning items of kept responses arrive as the agent sent them, and
// streamed usage anchors the count.
func TestResponsesAPI(t *testing.T) {
	const budget = 6000
	up := newResponsesUpstream(t, 0)
	u, _ := url.Parse(up.srv.URL)
	var mu sync.Mutex
	var exs []Exchange
	p, err := New(Options{Upstream: u, Budget: budget, Observe: func(ex Exchange) { mu.Lock(); exs = append(exs, ex); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	for n := 1; n <= 24; n++ {
		body := responsesBody(t, n, 2400, n%2 == 0)
		res, err := http.Post(srv.URL+"/v1/responses", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !bytes.Contains(answer, []byte(`"ok"`)) {
			t.Fatalf("%d rounds: %d %s", n, res.StatusCode, answer)
		}
		up.mu.Lock()
		got, tokens := up.bodies[len(up.bodies)-1], up.tokens[len(up.tokens)-1]
		up.mu.Unlock()
		if tokens > budget*105/100 {
			t.Errorf("%d rounds: the upstream counted %d tokens, budget %d", n, tokens, budget)
		}
		for _, field := range []string{"instructions", "tools", "reasoning", "include"} {
			if rawField(t, got, field) != rawField(t, body, field) {
				t.Fatalf("%d rounds: %q changed", n, field)
			}
		}
		if !bytes.Contains(got, []byte(unknownField)) || !bytes.Contains(got, []byte(`"role":"developer"`)) {
			t.Fatalf("%d rounds: the unknown field or the developer message was lost", n)
		}
		// The newest response's reasoning item is sent as the agent sent it.
		if want := fmt.Sprintf(`"encrypted_content":"gAAAAB-ENCRYPTED-%03d"`, n-1); !bytes.Contains(got, []byte(want)) {
			t.Fatalf("%d rounds: the newest reasoning item is missing", n)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	managed, anchored := 0, 0
	for _, ex := range exs {
		if ex.Err != "" {
			t.Errorf("%+v: not managed", ex)
		}
		if ex.Managed {
			managed++
		}
		if ex.Usage != nil {
			anchored++
		}
	}
	if managed == 0 || anchored == 0 {
		t.Fatalf("%d managed, %d with usage, of %d", managed, anchored, len(exs))
	}
}

// TestResponsesPreviousID: a request that continues a conversation kept by
// the provider (previous_response_id) goes upstream unchanged.
func TestResponsesPreviousID(t *testing.T) {
	up := newResponsesUpstream(t, 0)
	u, _ := url.Parse(up.srv.URL)
	p, err := New(Options{Upstream: u, Budget: 1000, Always: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	body := []byte(`{"model":"gpt-5.1","previous_response_id":"resp_0","input":[{"type":"function_call_output","call_id":"call_9","output":"done"}]}`)
	res, err := http.Post(srv.URL+"/v1/responses", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	up.mu.Lock()
	defer up.mu.Unlock()
	if len(up.bodies) != 1 || !bytes.Equal(up.bodies[0], body) {
		t.Fatalf("the upstream got %q", up.bodies)
	}
}

// TestResponsesOverflow: the upstream's context_length_exceeded makes the
// proxy compact and send again.
func TestResponsesOverflow(t *testing.T) {
	up := newResponsesUpstream(t, 4000)
	u, _ := url.Parse(up.srv.URL)
	p, err := New(Options{Upstream: u, Budget: 30000})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	res, err := http.Post(srv.URL+"/v1/responses", "application/json", bytes.NewReader(responsesBody(t, 12, 2400, false)))
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, answer)
	}
}
