package anthropic_test

import (
	stdcmp "cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/anthropic"
)

// reply is one scripted HTTP response.
type reply struct {
	status int
	body   string
}

// seen is one request the server received.
type seen struct {
	method, path, apiKey, version, auth string
	body                                any
}

// server is an httptest server that speaks the Messages API wire format:
// it records each request and answers with the next scripted reply (the
// last one repeats).
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
		s.reqs = append(s.reqs, seen{r.Method, r.URL.Path, r.Header.Get("X-Api-Key"), r.Header.Get("Anthropic-Version"), r.Header.Get("Authorization"), body})
		rep := s.replies[min(len(s.reqs), len(s.replies))-1]
		s.mu.Unlock()
		ct := "application/json"
		if strings.HasPrefix(rep.body, "event:") {
			ct = "text/event-stream"
		}
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Request-Id", "req_test")
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

func newModel(t *testing.T, baseURL string, opts anthropic.Options) *anthropic.Model {
	t.Helper()
	opts.BaseURL = baseURL
	opts.APIKey = stdcmp.Or(opts.APIKey, "sk-ant-test")
	opts.Model = stdcmp.Or(opts.Model, "claude-test")
	opts.MaxRetryDelay = stdcmp.Or(opts.MaxRetryDelay, time.Millisecond)
	m, err := anthropic.New(opts)
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

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const bashSchema = `{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}`

// Fixtures in the shape of https://docs.anthropic.com/en/api/messages
// (the response body).
const (
	plainReply = `{"id":"msg_01","type":"message","role":"assistant","model":"claude-test-2025",
	  "content":[{"type":"text","text":"Hi there."}],"stop_reason":"end_turn","stop_sequence":null,
	  "usage":{"input_tokens":20,"output_tokens":30,"cache_creation_input_tokens":50,"cache_read_input_tokens":100,
	    "cache_creation":{"ephemeral_5m_input_tokens":50,"ephemeral_1h_input_tokens":0},"service_tier":"standard"}}`
	toolReply = `{"id":"msg_02","type":"message","role":"assistant","model":"claude-test",
	  "content":[{"type":"thinking","thinking":"Run tests.","signature":"sig2"},
	    {"type":"text","text":"Running the tests."},
	    {"type":"tool_use","id":"toolu_2","name":"bash","input":{"cmd":"go test ./..."}}],
	  "stop_reason":"tool_use","stop_sequence":null,
	  "usage":{"input_tokens":25,"output_tokens":15,"cache_creation_input_tokens":null,"cache_read_input_tokens":40}}`
	summaryReply = `{"id":"msg_03","type":"message","role":"assistant","model":"claude-test",
	  "content":[{"type":"text","text":"## 1. Primary request\nFix the parser."}],"stop_reason":"end_turn","stop_sequence":null,
	  "usage":{"input_tokens":9000,"output_tokens":400}}`
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
			wantBody: `{"model":"claude-test","max_tokens":4096,
			  "system":[{"type":"text","text":"You are terse."}],
			  "messages":[{"role":"user","content":[{"type":"text","text":"Hello"}]}]}`,
			want: provider.Response{
				Message: chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "Hi there."}},
					ID: "msg_01", Model: "claude-test-2025",
					Usage: &chat.Usage{InputTokens: 20, OutputTokens: 30, CacheReadTokens: 100, CacheWriteTokens: 50}},
				Usage:      chat.Usage{InputTokens: 20, OutputTokens: 30, CacheReadTokens: 100, CacheWriteTokens: 50},
				StopReason: "end_turn",
				Model:      "claude-test-2025",
			},
		},
		{
			name: "cache breakpoints",
			req: provider.Request{
				Messages: []chat.Message{
					chat.NewText(chat.RoleSystem, "You are a coding agent."),
					chat.NewText(chat.RoleSystem, "Files read before the summary."),
					chat.NewText(chat.RoleUser, "List the files."),
					{Role: chat.RoleAssistant, Parts: []chat.Part{
						chat.ToolCall{ID: "toolu_1", Name: "bash", Arguments: json.RawMessage(`{"cmd":"ls"}`)},
					}},
					chat.NewToolResult("toolu_1", "bash", "a.go", false),
					chat.NewText(chat.RoleUser, "<system-reminder>\nTodo list changed.\n</system-reminder>\n"),
				},
				CacheAfter: []int{4, 0, 1, 0},
				CacheKey:   "ignored-by-anthropic",
			},
			reply: plainReply,
			wantBody: `{"model":"claude-test","max_tokens":4096,
			  "system":[{"type":"text","text":"You are a coding agent.","cache_control":{"type":"ephemeral"}},
			    {"type":"text","text":"Files read before the summary.","cache_control":{"type":"ephemeral"}}],
			  "messages":[
			    {"role":"user","content":[{"type":"text","text":"List the files."}]},
			    {"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"bash","input":{"cmd":"ls"}}]},
			    {"role":"user","content":[
			      {"type":"tool_result","tool_use_id":"toolu_1","content":"a.go","cache_control":{"type":"ephemeral"}},
			      {"type":"text","text":"<system-reminder>\nTodo list changed.\n</system-reminder>\n"}]}]}`,
			want: provider.Response{
				Message: chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "Hi there."}},
					ID: "msg_01", Model: "claude-test-2025",
					Usage: &chat.Usage{InputTokens: 20, OutputTokens: 30, CacheReadTokens: 100, CacheWriteTokens: 50}},
				Usage:      chat.Usage{InputTokens: 20, OutputTokens: 30, CacheReadTokens: 100, CacheWriteTokens: 50},
				StopReason: "end_turn",
				Model:      "claude-test-2025",
			},
		},
		{
			name: "tool calls, results and thinking",
			req: provider.Request{
				Messages: []chat.Message{
					chat.NewText(chat.RoleSystem, "You are a coding agent."),
					chat.NewText(chat.RoleUser, "List the files."),
					{Role: chat.RoleAssistant, Parts: []chat.Part{
						chat.Thinking{Text: "I should ls.", Signature: "sig1"},
						chat.Text{Text: "Listing."},
						chat.ToolCall{ID: "toolu_1", Name: "bash", Arguments: json.RawMessage(`{"cmd":"ls"}`)},
						chat.ToolCall{ID: "toolu_x", Name: "bash", Arguments: json.RawMessage(`{"cmd":"false"}`)},
					}},
					chat.NewToolResult("toolu_1", "bash", "a.go\nb.go", false),
					chat.NewToolResult("toolu_x", "bash", "exit status 1", true),
					chat.NewText(chat.RoleUser, "Now run the tests."),
				},
				Tools: []chat.ToolDef{{Name: "bash", Description: "Run a shell command.", Parameters: json.RawMessage(bashSchema)}, {Name: "noop"}},
			},
			reply: toolReply,
			wantBody: `{"model":"claude-test","max_tokens":4096,
			  "system":[{"type":"text","text":"You are a coding agent."}],
			  "messages":[
			    {"role":"user","content":[{"type":"text","text":"List the files."}]},
			    {"role":"assistant","content":[
			      {"type":"thinking","thinking":"I should ls.","signature":"sig1"},
			      {"type":"text","text":"Listing."},
			      {"type":"tool_use","id":"toolu_1","name":"bash","input":{"cmd":"ls"}},
			      {"type":"tool_use","id":"toolu_x","name":"bash","input":{"cmd":"false"}}]},
			    {"role":"user","content":[
			      {"type":"tool_result","tool_use_id":"toolu_1","content":"a.go\nb.go"},
			      {"type":"tool_result","tool_use_id":"toolu_x","content":"exit status 1","is_error":true},
			      {"type":"text","text":"Now run the tests."}]}],
			  "tools":[
			    {"name":"bash","description":"Run a shell command.","input_schema":` + bashSchema + `},
			    {"name":"noop","input_schema":{"type":"object","properties":{}}}]}`,
			want: provider.Response{
				Message: chat.Message{Role: chat.RoleAssistant,
					Parts: []chat.Part{
						chat.Thinking{Text: "Run tests.", Signature: "sig2"},
						chat.Text{Text: "Running the tests."},
						chat.ToolCall{ID: "toolu_2", Name: "bash", Arguments: json.RawMessage(`{"cmd":"go test ./..."}`)},
					},
					ID: "msg_02", Model: "claude-test",
					Usage: &chat.Usage{InputTokens: 25, OutputTokens: 15, CacheReadTokens: 40}},
				Usage:      chat.Usage{InputTokens: 25, OutputTokens: 15, CacheReadTokens: 40},
				StopReason: "tool_use",
				Model:      "claude-test",
			},
		},
		{
			name: "summary call",
			req: provider.Request{
				Model: "claude-summary",
				Messages: []chat.Message{
					chat.NewText(chat.RoleSystem, "Summarize the conversation in six sections."),
					chat.NewText(chat.RoleUser, long),
				},
				MaxTokens:   2000,
				Temperature: &temp,
			},
			reply: summaryReply,
			wantBody: `{"model":"claude-summary","max_tokens":2000,"temperature":0,
			  "system":[{"type":"text","text":"Summarize the conversation in six sections."}],
			  "messages":[{"role":"user","content":[{"type":"text","text":` + mustJSON(long) + `}]}]}`,
			want: provider.Response{
				Message: chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "## 1. Primary request\nFix the parser."}},
					ID: "msg_03", Model: "claude-test", Usage: &chat.Usage{InputTokens: 9000, OutputTokens: 400}},
				Usage:      chat.Usage{InputTokens: 9000, OutputTokens: 400},
				StopReason: "end_turn",
				Model:      "claude-test",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, reply{body: tt.reply})
			m := newModel(t, s.URL, anthropic.Options{})
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
			if r.method != http.MethodPost || r.path != "/v1/messages" {
				t.Errorf("request line = %s %s, want POST /v1/messages", r.method, r.path)
			}
			if r.apiKey != "sk-ant-test" || r.version != "2023-06-01" || r.auth != "" {
				t.Errorf("headers: x-api-key %q, anthropic-version %q, Authorization %q; want sk-ant-test, 2023-06-01, none", r.apiKey, r.version, r.auth)
			}
			if diff := cmp.Diff(jsonValue(t, tt.wantBody), r.body); diff != "" {
				t.Errorf("request body (-want +got):\n%s", diff)
			}
		})
	}
}

// Error bodies in the shape of https://docs.anthropic.com/en/api/errors.
func errorBody(typ, msg string) string {
	return `{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"},"request_id":"req_011"}`
}

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
			replies:      []reply{{429, errorBody("rate_limit_error", "Number of requests has exceeded your rate limit.")}, {500, errorBody("api_error", "Internal server error")}, {0, plainReply}},
			wantAttempts: 3,
		},
		{
			name:         "429 until retries run out",
			replies:      []reply{{429, errorBody("rate_limit_error", "Number of requests has exceeded your rate limit.")}},
			wantErr:      provider.ErrRateLimited,
			wantAttempts: 3,
			wantInError:  []string{"anthropic", "429", "rate_limit_error", "exceeded your rate limit"},
		},
		{
			name:         "529 overloaded until retries run out",
			replies:      []reply{{529, errorBody("overloaded_error", "Overloaded")}},
			maxRetries:   1,
			wantErr:      provider.ErrUnavailable,
			wantAttempts: 2,
			wantInError:  []string{"529", "overloaded_error"},
		},
		{
			name:         "401 is not retried",
			replies:      []reply{{401, errorBody("authentication_error", "invalid x-api-key")}},
			wantErr:      provider.ErrAuth,
			wantAttempts: 1,
			wantInError:  []string{"anthropic", "401", "authentication_error", "invalid x-api-key", "credentials"},
		},
		{
			name:         "404 model not found",
			replies:      []reply{{404, errorBody("not_found_error", "model: claude-nope")}},
			wantErr:      provider.ErrUnknownModel,
			wantAttempts: 1,
			wantInError:  []string{"404", "model: claude-nope"},
		},
		{
			name:         "overflow 400",
			replies:      []reply{{400, errorBody("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum")}},
			wantErr:      provider.ErrContextOverflow,
			wantAttempts: 1,
			wantInError:  []string{"invalid_request_error", "prompt is too long"},
		},
		{
			name:         "other 400",
			replies:      []reply{{400, errorBody("invalid_request_error", "max_tokens: Field required")}},
			wantErr:      provider.ErrBadRequest,
			wantAttempts: 1,
			wantInError:  []string{"invalid_request_error", "max_tokens"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, tt.replies...)
			m := newModel(t, s.URL, anthropic.Options{MaxRetries: tt.maxRetries})
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
			if !errors.As(err, &apiErr) || apiErr.Provider != "anthropic" {
				t.Errorf("error %v is not a *provider.APIError from anthropic", err)
			}
			for _, s := range tt.wantInError {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
}

func TestRetryWithoutCapWaitsForBackoff(t *testing.T) {
	t.Parallel()
	// Without MaxRetryDelay the SDK's backoff applies (0.5 s, less jitter);
	// a server's retry-after-ms shortens it.
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("retry-after-ms", "5")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, errorBody("rate_limit_error", "slow down"))
	}))
	t.Cleanup(s.Close)
	m, err := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: s.URL, MaxRetries: 2})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = m.Send(t.Context(), provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "Hello")}})
	if !errors.Is(err, provider.ErrRateLimited) {
		t.Errorf("Send = %v, want ErrRateLimited", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("retries took %v; the server's retry-after-ms was ignored", d)
	}
}

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
	m := newModel(t, s.URL, anthropic.Options{})
	req := provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "Hello")}}
	for _, stream := range []bool{false, true} {
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			<-arrived
			cancel()
		}()
		var err error
		if stream {
			_, err = m.Stream(ctx, req, nil)
		} else {
			_, err = m.Send(ctx, req)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("stream=%v: error after cancel = %v, want context.Canceled", stream, err)
		}
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	s, _ := blockingServer(t)
	m := newModel(t, s.URL, anthropic.Options{Timeout: 50 * time.Millisecond})
	_, err := m.Send(t.Context(), provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "Hello")}})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, provider.ErrUnavailable) {
		t.Errorf("Send = %v, want DeadlineExceeded and ErrUnavailable", err)
	}
}

// streamReply is toolReply streamed as
// https://docs.anthropic.com/en/docs/build-with-claude/streaming describes.
const streamReply = `event: message_start
data: {"type":"message_start","message":{"id":"msg_02","type":"message","role":"assistant","content":[],"model":"claude-test","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":0,"cache_read_input_tokens":40,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Run "}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"tests."}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig2"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Running "}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"the tests."}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_2","name":"bash","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"cmd\":"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\"go test ./...\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":15}}

event: message_stop
data: {"type":"message_stop"}

`

func TestStream(t *testing.T) {
	t.Parallel()
	req := provider.Request{
		Messages: []chat.Message{chat.NewText(chat.RoleUser, "Run the tests.")},
		Tools:    []chat.ToolDef{{Name: "bash", Parameters: json.RawMessage(bashSchema)}},
	}
	s := newServer(t, reply{body: streamReply}, reply{body: toolReply})
	m := newModel(t, s.URL, anthropic.Options{})
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
	wantUsage := chat.Usage{InputTokens: 25, OutputTokens: 15, CacheReadTokens: 40}
	if diff := cmp.Diff(wantUsage, got.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	wantBody := jsonValue(t, `{"model":"claude-test","max_tokens":4096,"stream":true,
	  "messages":[{"role":"user","content":[{"type":"text","text":"Run the tests."}]}],
	  "tools":[{"name":"bash","input_schema":`+bashSchema+`}]}`)
	if diff := cmp.Diff(wantBody, s.requests()[0].body); diff != "" {
		t.Errorf("stream request body (-want +got):\n%s", diff)
	}
}

func TestStreamErrorEvent(t *testing.T) {
	t.Parallel()
	body := `event: message_start
data: {"type":"message_start","message":{"id":"msg_04","type":"message","role":"assistant","content":[],"model":"claude-test","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}

event: error
data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}

`
	s := newServer(t, reply{body: body})
	m := newModel(t, s.URL, anthropic.Options{})
	_, err := m.Stream(t.Context(), provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "Go")}}, nil)
	if !errors.Is(err, provider.ErrUnavailable) || !strings.Contains(err.Error(), "Overloaded") {
		t.Errorf("Stream = %v, want ErrUnavailable naming the overload", err)
	}
}

func TestStreamCallbackErrorStops(t *testing.T) {
	t.Parallel()
	s := newServer(t, reply{body: streamReply})
	m := newModel(t, s.URL, anthropic.Options{})
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

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		opts     anthropic.Options
		wantErr  error
		wantText string
		wantName string
	}{
		{name: "missing key", opts: anthropic.Options{}, wantErr: provider.ErrNoAPIKey, wantText: "ANTHROPIC_API_KEY"},
		{name: "bad base URL", opts: anthropic.Options{APIKey: "k", BaseURL: "::"}, wantErr: provider.ErrBadRequest},
		{name: "default model", opts: anthropic.Options{APIKey: "k"}, wantName: "anthropic/" + anthropic.DefaultModel},
		{name: "named model", opts: anthropic.Options{APIKey: "k", Model: "claude-sonnet-4-5"}, wantName: "anthropic/claude-sonnet-4-5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := anthropic.New(tt.opts)
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
	m := newModel(t, s.URL, anthropic.Options{})
	for _, req := range []provider.Request{
		{},
		{Messages: []chat.Message{chat.NewText(chat.RoleSystem, "only a system prompt")}},
		{Messages: []chat.Message{{Role: chat.RoleSystem, Parts: []chat.Part{chat.Image{Source: "https://x/a.png"}}}, chat.NewText(chat.RoleUser, "hi")}},
		{Messages: []chat.Message{chat.NewText(chat.RoleUser, "hi")}, CacheAfter: []int{1}},
		{Messages: []chat.Message{chat.NewText(chat.RoleUser, "hi")}, CacheAfter: []int{-1}},
	} {
		if _, err := m.Send(t.Context(), req); err == nil {
			t.Errorf("Send(%+v) = nil error", req)
		}
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("%d requests sent for invalid input, want 0", n)
	}
}
