package openai_test

import (
	stdcmp "cmp"
	"context"
	"encoding/json"
	"errors"
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
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/openai"
)

// reply is one scripted HTTP response.
type reply struct {
	status int
	header map[string]string
	body   string
}

// seen is one request the server received.
type seen struct {
	method, path, auth, host string
	body                     any
}

// server is an httptest server that speaks the chat-completions wire
// format: it records each request and answers with the next scripted
// reply (the last one repeats).
type server struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	reqs    []seen
}

func newServer(t *testing.T, replies ...reply) *server {
	t.Helper()
	s := &server{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request body is not JSON: %v: %s", err, raw)
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, seen{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Host, body})
		rep := s.replies[min(len(s.reqs), len(s.replies))-1]
		s.mu.Unlock()
		ct := "application/json"
		if strings.HasPrefix(rep.body, "data:") {
			ct = "text/event-stream"
		}
		w.Header().Set("Content-Type", ct)
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(stdcmp.Or(rep.status, http.StatusOK))
		_, _ = io.WriteString(w, rep.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.reqs...)
}

func newModel(t *testing.T, baseURL string, opts openai.Options) *openai.Model {
	t.Helper()
	opts.BaseURL = baseURL
	if opts.APIKey == "" {
		opts.APIKey = "sk-test"
	}
	if opts.Model == "" {
		opts.Model = "gpt-test"
	}
	opts.MaxRetryDelay = stdcmp.Or(opts.MaxRetryDelay, time.Millisecond)
	m, err := openai.New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m
}

func jsonValue(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON: %v: %s", err, s)
	}
	return v
}

const bashSchema = `{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}`

// Fixtures in the shape of https://platform.openai.com/docs/api-reference/chat/object.
const (
	plainReply = `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-test-2025",
	  "choices":[{"index":0,"message":{"role":"assistant","content":"Hi there.","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],
	  "usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150,
	    "prompt_tokens_details":{"cached_tokens":100,"audio_tokens":0},
	    "completion_tokens_details":{"reasoning_tokens":10,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},
	  "service_tier":"default","system_fingerprint":"fp_1"}`
	toolReply = `{"id":"chatcmpl-2","object":"chat.completion","created":1700000000,"model":"gpt-test",
	  "choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[
	    {"id":"call_2","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"go test ./...\"}"}}]},
	    "finish_reason":"tool_calls"}],
	  "usage":{"prompt_tokens":50,"completion_tokens":12,"total_tokens":62}}`
	summaryReply = `{"id":"chatcmpl-3","object":"chat.completion","created":1700000000,"model":"gpt-test",
	  "choices":[{"index":0,"message":{"role":"assistant","content":"## 1. Primary request\nFix the parser."},"finish_reason":"stop"}],
	  "usage":{"prompt_tokens":9000,"completion_tokens":400,"total_tokens":9400}}`
	deepseekReply = `{"id":"ds-1","object":"chat.completion","created":1700000000,"model":"deepseek-reasoner",
	  "choices":[{"index":0,"message":{"role":"assistant","content":"42","reasoning_content":"Six times seven."},"finish_reason":"stop"}],
	  "usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30,"prompt_tokens_details":{"cached_tokens":0},
	    "completion_tokens_details":{"reasoning_tokens":15},"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":10}}`
)

func TestSendRequestBodies(t *testing.T) {
	t.Parallel()
	temp := 0.0
	long := strings.Repeat("user: fix the parser in parse.go\nassistant: done\n", 200)
	tests := []struct {
		name     string
		req      provider.Request
		reply    string
		wantBody string
		want     provider.Response
	}{
		{
			name: "plain chat",
			req: provider.Request{Messages: []chat.Message{
				chat.NewText(chat.RoleSystem, "You are terse."),
				chat.NewText(chat.RoleUser, "Hello"),
			}},
			reply: plainReply,
			wantBody: `{"model":"gpt-test","max_tokens":4096,"messages":[
			  {"role":"system","content":"You are terse."},
			  {"role":"user","content":"Hello"}]}`,
			want: provider.Response{
				Message: chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "Hi there."}},
					ID: "chatcmpl-1", Model: "gpt-test-2025",
					Usage: &chat.Usage{InputTokens: 20, OutputTokens: 30, CacheReadTokens: 100, ReasoningTokens: 10}},
				Usage:      chat.Usage{InputTokens: 20, OutputTokens: 30, CacheReadTokens: 100, ReasoningTokens: 10},
				StopReason: "stop",
				Model:      "gpt-test-2025",
			},
		},
		{
			name: "tool calls and results",
			req: provider.Request{
				Messages: []chat.Message{
					chat.NewText(chat.RoleUser, "List the files."),
					{Role: chat.RoleAssistant, Parts: []chat.Part{
						chat.Text{Text: "Listing."},
						chat.ToolCall{ID: "call_1", Name: "bash", Arguments: json.RawMessage(`{"cmd":"ls"}`)},
					}},
					chat.NewToolResult("call_1", "bash", "a.go\nb.go", false),
					{Role: chat.RoleAssistant, Parts: []chat.Part{
						chat.ToolCall{ID: "call_x", Name: "bash", Arguments: json.RawMessage(`{"cmd":"false"}`)},
					}},
					chat.NewToolResult("call_x", "bash", "exit status 1", true),
				},
				Tools: []chat.ToolDef{{Name: "bash", Description: "Run a shell command.", Parameters: json.RawMessage(bashSchema)}, {Name: "noop"}},
			},
			reply: toolReply,
			wantBody: `{"model":"gpt-test","max_tokens":4096,
			  "messages":[
			    {"role":"user","content":"List the files."},
			    {"role":"assistant","content":"Listing.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"ls\"}"}}]},
			    {"role":"tool","content":"a.go\nb.go","tool_call_id":"call_1"},
			    {"role":"assistant","content":null,"tool_calls":[{"id":"call_x","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"false\"}"}}]},
			    {"role":"tool","content":"exit status 1","tool_call_id":"call_x"}],
			  "tools":[
			    {"type":"function","function":{"name":"bash","description":"Run a shell command.","parameters":` + bashSchema + `}},
			    {"type":"function","function":{"name":"noop","parameters":{"type":"object","properties":{}}}}]}`,
			want: provider.Response{
				Message: chat.Message{Role: chat.RoleAssistant,
					Parts: []chat.Part{chat.ToolCall{ID: "call_2", Name: "bash", Arguments: json.RawMessage(`{"cmd":"go test ./..."}`)}},
					ID:    "chatcmpl-2", Model: "gpt-test",
					Usage: &chat.Usage{InputTokens: 50, OutputTokens: 12}},
				Usage:      chat.Usage{InputTokens: 50, OutputTokens: 12},
				StopReason: "tool_calls",
				Model:      "gpt-test",
			},
		},
		{
			name: "summary call",
			req: provider.Request{
				Model: "gpt-summary",
				Messages: []chat.Message{
					chat.NewText(chat.RoleSystem, "Summarize the conversation in six sections."),
					chat.NewText(chat.RoleUser, long),
				},
				MaxTokens:   2000,
				Temperature: &temp,
			},
			reply: summaryReply,
			wantBody: `{"model":"gpt-summary","max_tokens":2000,"temperature":0,"messages":[
			  {"role":"system","content":"Summarize the conversation in six sections."},
			  {"role":"user","content":` + mustJSON(long) + `}]}`,
			want: provider.Response{
				Message: chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "## 1. Primary request\nFix the parser."}},
					ID: "chatcmpl-3", Model: "gpt-test", Usage: &chat.Usage{InputTokens: 9000, OutputTokens: 400}},
				Usage:      chat.Usage{InputTokens: 9000, OutputTokens: 400},
				StopReason: "stop",
				Model:      "gpt-test",
			},
		},
		{
			name: "reasoning content of DeepSeek is kept",
			req: provider.Request{Messages: []chat.Message{
				chat.NewText(chat.RoleUser, "6*7?"),
				{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Thinking{Text: "Easy."}, chat.Text{Text: "42"}}},
				chat.NewText(chat.RoleUser, "Again?"),
			}},
			reply: deepseekReply,
			wantBody: `{"model":"gpt-test","max_tokens":4096,"messages":[
			  {"role":"user","content":"6*7?"},
			  {"role":"assistant","content":"42","reasoning_content":"Easy."},
			  {"role":"user","content":"Again?"}]}`,
			want: provider.Response{
				Message: chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Thinking{Text: "Six times seven."}, chat.Text{Text: "42"}},
					ID: "ds-1", Model: "deepseek-reasoner", Usage: &chat.Usage{InputTokens: 10, OutputTokens: 20, ReasoningTokens: 15}},
				Usage:      chat.Usage{InputTokens: 10, OutputTokens: 20, ReasoningTokens: 15},
				StopReason: "stop",
				Model:      "deepseek-reasoner",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, reply{body: tt.reply})
			m := newModel(t, s.URL+"/v1", openai.Options{})
			got, err := m.Send(t.Context(), tt.req)
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			if diff := cmp.Diff(&tt.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
			reqs := s.requests()
			if len(reqs) != 1 {
				t.Fatalf("got %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.method != http.MethodPost || r.path != "/v1/chat/completions" || r.auth != "Bearer sk-test" {
				t.Errorf("request line = %s %s, Authorization %q; want POST /v1/chat/completions, Bearer sk-test", r.method, r.path, r.auth)
			}
			if diff := cmp.Diff(jsonValue(t, tt.wantBody), r.body); diff != "" {
				t.Errorf("request body (-want +got):\n%s", diff)
			}
		})
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// redirect sends every request to target, keeping the original Host, so
// that a test can stand in for api.openai.com without the network.
type redirect struct{ target *url.URL }

func (r redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Host = req.URL.Host
	req.URL.Scheme, req.URL.Host = r.target.Scheme, r.target.Host
	return http.DefaultTransport.RoundTrip(req)
}

func TestOfficialAPIUsesMaxCompletionTokens(t *testing.T) {
	t.Parallel()
	s := newServer(t, reply{body: plainReply})
	target, _ := url.Parse(s.URL)
	m := newModel(t, "", openai.Options{HTTPClient: &http.Client{Transport: redirect{target}}})
	_, err := m.Send(t.Context(), provider.Request{Messages: []chat.Message{
		chat.NewText(chat.RoleUser, "1+1?"),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Thinking{Text: "hm"}, chat.Text{Text: "2"}}},
		chat.NewText(chat.RoleUser, "Sure?"),
	}})
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	r := s.requests()[0]
	if r.host != "api.openai.com" || r.path != "/v1/chat/completions" {
		t.Errorf("request went to %s%s, want api.openai.com/v1/chat/completions", r.host, r.path)
	}
	want := jsonValue(t, `{"model":"gpt-test","max_completion_tokens":4096,"messages":[
	  {"role":"user","content":"1+1?"},{"role":"assistant","content":"2"},{"role":"user","content":"Sure?"}]}`)
	if diff := cmp.Diff(want, r.body); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
}

// Error bodies in the shape of https://platform.openai.com/docs/guides/error-codes.
const (
	rateLimited = `{"error":{"message":"Rate limit reached for gpt-test.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
	serverError = `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`
	badKey      = `{"error":{"message":"Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	noModel     = `{"error":{"message":"The model 'gpt-nope' does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`
	tooLong     = `{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`
)

func TestRetriesAndErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		replies      []reply
		maxRetries   int
		wantErr      error
		wantAttempts int
		wantInError  []string
	}{
		{
			name:         "429 then 500 then success",
			replies:      []reply{{status: 429, body: rateLimited}, {status: 500, body: serverError}, {body: plainReply}},
			wantAttempts: 3,
		},
		{
			name:         "429 until retries run out",
			replies:      []reply{{status: 429, body: rateLimited}},
			wantErr:      provider.ErrRateLimited,
			wantAttempts: 3,
			wantInError:  []string{"openai", "429", "rate_limit_exceeded", "Rate limit reached"},
		},
		{
			name:         "503 until retries run out",
			replies:      []reply{{status: 503, body: serverError}},
			maxRetries:   1,
			wantErr:      provider.ErrUnavailable,
			wantAttempts: 2,
			wantInError:  []string{"503"},
		},
		{
			name:         "negative MaxRetries disables retries",
			replies:      []reply{{status: 500, body: serverError}, {body: plainReply}},
			maxRetries:   -1,
			wantErr:      provider.ErrUnavailable,
			wantAttempts: 1,
		},
		{
			name:         "401 is not retried",
			replies:      []reply{{status: 401, body: badKey}},
			wantErr:      provider.ErrAuth,
			wantAttempts: 1,
			wantInError:  []string{"openai", "401", "invalid_api_key", "Incorrect API key provided", "credentials"},
		},
		{
			name:         "404 model not found",
			replies:      []reply{{status: 404, body: noModel}},
			wantErr:      provider.ErrUnknownModel,
			wantAttempts: 1,
			wantInError:  []string{"404", "gpt-nope", "does not know the model"},
		},
		{
			name:         "400 with a model-not-found message, as Ollama sends",
			replies:      []reply{{status: 400, body: `{"error":{"message":"model \"llama9\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`}},
			wantErr:      provider.ErrUnknownModel,
			wantAttempts: 1,
		},
		{
			name:         "overflow 400",
			replies:      []reply{{status: 400, body: tooLong}},
			wantErr:      provider.ErrContextOverflow,
			wantAttempts: 1,
			wantInError:  []string{"context_length_exceeded", "maximum context length"},
		},
		{
			name:         "error body that is not JSON",
			replies:      []reply{{status: 502, body: "<html>Bad Gateway</html>"}},
			maxRetries:   -1,
			wantErr:      provider.ErrUnavailable,
			wantAttempts: 1,
			wantInError:  []string{"502"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, tt.replies...)
			m := newModel(t, s.URL+"/v1", openai.Options{MaxRetries: tt.maxRetries})
			got, err := m.Send(t.Context(), provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "Hello")}})
			if n := len(s.requests()); n != tt.wantAttempts {
				t.Errorf("attempts = %d, want %d", n, tt.wantAttempts)
			}
			if tt.wantErr == nil {
				if err != nil || got.Message.Text() != "Hi there." {
					t.Fatalf("Send = %v, %v; want the reply", got, err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Send error = %v, want %v", err, tt.wantErr)
			}
			var apiErr *provider.APIError
			if !errors.As(err, &apiErr) || apiErr.Provider != "openai" {
				t.Errorf("error %v is not a *provider.APIError from openai", err)
			}
			for _, s := range tt.wantInError {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
}

// blockingServer accepts a request and answers only when the client goes
// away.
func blockingServer(t *testing.T) (*httptest.Server, <-chan struct{}) {
	t.Helper()
	arrived := make(chan struct{}, 8)
	done := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(func() { close(done); s.Close() })
	return s, arrived
}

func TestCancellation(t *testing.T) {
	t.Parallel()
	s, arrived := blockingServer(t)
	m := newModel(t, s.URL+"/v1", openai.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-arrived
		cancel()
	}()
	req := provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "Hello")}}
	if _, err := m.Send(ctx, req); !errors.Is(err, context.Canceled) {
		t.Errorf("Send after cancel = %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithCancel(t.Context())
	go func() {
		<-arrived
		cancel()
	}()
	if _, err := m.Stream(ctx, req, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Stream after cancel = %v, want context.Canceled", err)
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	s, _ := blockingServer(t)
	m := newModel(t, s.URL+"/v1", openai.Options{Timeout: 50 * time.Millisecond})
	_, err := m.Send(t.Context(), provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "Hello")}})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, provider.ErrUnavailable) {
		t.Errorf("Send = %v, want DeadlineExceeded and ErrUnavailable", err)
	}
}

// streamReply is toolReply's message streamed as
// https://platform.openai.com/docs/api-reference/chat-streaming describes.
const streamReply = `data: {"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"content":"Running "},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"content":"the tests."},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_2","type":"function","function":{"name":"bash","arguments":""}}]},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"cmd\":"}}]},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"go test ./...\"}"}}]},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":null}

data: {"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"gpt-test","choices":[],"usage":{"prompt_tokens":50,"completion_tokens":12,"total_tokens":62,"prompt_tokens_details":{"cached_tokens":20},"completion_tokens_details":{"reasoning_tokens":3}}}

data: [DONE]

`

const streamedAsOne = `{"id":"chatcmpl-2","object":"chat.completion","created":1,"model":"gpt-test",
  "choices":[{"index":0,"message":{"role":"assistant","content":"Running the tests.","tool_calls":[
    {"id":"call_2","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"go test ./...\"}"}}]},"finish_reason":"tool_calls"}],
  "usage":{"prompt_tokens":50,"completion_tokens":12,"total_tokens":62,"prompt_tokens_details":{"cached_tokens":20},"completion_tokens_details":{"reasoning_tokens":3}}}`

func TestStream(t *testing.T) {
	t.Parallel()
	req := provider.Request{
		Messages: []chat.Message{chat.NewText(chat.RoleUser, "Run the tests.")},
		Tools:    []chat.ToolDef{{Name: "bash", Parameters: json.RawMessage(bashSchema)}},
	}
	s := newServer(t, reply{body: streamReply}, reply{body: streamedAsOne})
	m := newModel(t, s.URL+"/v1", openai.Options{})
	var deltas []string
	got, err := m.Stream(t.Context(), req, func(d string) error {
		deltas = append(deltas, d)
		return nil
	})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if diff := cmp.Diff([]string{"Running ", "the tests."}, deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	whole, err := m.Send(t.Context(), req)
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	if diff := cmp.Diff(whole, got); diff != "" {
		t.Errorf("streamed response differs from the whole one (-whole +streamed):\n%s", diff)
	}
	wantUsage := chat.Usage{InputTokens: 30, OutputTokens: 12, CacheReadTokens: 20, ReasoningTokens: 3}
	if diff := cmp.Diff(wantUsage, got.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	wantBody := jsonValue(t, `{"model":"gpt-test","max_tokens":4096,"stream":true,"stream_options":{"include_usage":true},
	  "messages":[{"role":"user","content":"Run the tests."}],
	  "tools":[{"type":"function","function":{"name":"bash","parameters":`+bashSchema+`}}]}`)
	if diff := cmp.Diff(wantBody, s.requests()[0].body); diff != "" {
		t.Errorf("stream request body (-want +got):\n%s", diff)
	}
}

func TestStreamCallbackErrorStops(t *testing.T) {
	t.Parallel()
	s := newServer(t, reply{body: streamReply})
	m := newModel(t, s.URL+"/v1", openai.Options{})
	stop := errors.New("enough")
	calls := 0
	_, err := m.Stream(t.Context(), provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "Go")}}, func(string) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("Stream = %v after %d calls, want %v after 1", err, calls, stop)
	}
}

func TestStreamHTTPError(t *testing.T) {
	t.Parallel()
	s := newServer(t, reply{status: 401, body: badKey})
	m := newModel(t, s.URL+"/v1", openai.Options{})
	_, err := m.Stream(t.Context(), provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "Go")}}, nil)
	if !errors.Is(err, provider.ErrAuth) || !strings.Contains(err.Error(), "Incorrect API key") {
		t.Errorf("Stream = %v, want ErrAuth with the provider's message", err)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		opts     openai.Options
		wantErr  error
		wantText string
		wantName string
	}{
		{name: "missing key", opts: openai.Options{}, wantErr: provider.ErrNoAPIKey, wantText: "OPENAI_API_KEY"},
		{name: "blank key", opts: openai.Options{APIKey: "  "}, wantErr: provider.ErrNoAPIKey, wantText: "OPENAI_API_KEY"},
		{name: "relative base URL", opts: openai.Options{APIKey: "k", BaseURL: "localhost:11434/v1"}, wantErr: provider.ErrBadRequest},
		{name: "default model", opts: openai.Options{APIKey: "k"}, wantName: "openai/" + openai.DefaultModel},
		{name: "ollama", opts: openai.Options{APIKey: "ollama", BaseURL: "http://localhost:11434/v1", Model: "qwen3:8b"}, wantName: "openai/qwen3:8b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := openai.New(tt.opts)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantText) {
					t.Fatalf("New = %v, want %v naming %q", err, tt.wantErr, tt.wantText)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if m.Name() != tt.wantName {
				t.Errorf("Name = %q, want %q", m.Name(), tt.wantName)
			}
		})
	}
}

func TestSendRejectsBadInput(t *testing.T) {
	t.Parallel()
	s := newServer(t, reply{body: plainReply})
	m := newModel(t, s.URL+"/v1", openai.Options{})
	for _, req := range []provider.Request{
		{},
		{Messages: []chat.Message{{Role: chat.RoleUser, Parts: []chat.Part{chat.ToolCall{ID: "x", Name: "y"}}}}},
	} {
		if _, err := m.Send(t.Context(), req); err == nil {
			t.Errorf("Send(%+v) = nil error", req)
		}
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("%d requests sent for invalid input, want 0", n)
	}
}
