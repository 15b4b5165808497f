package providertest_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/anthropic"
	"github.com/agentctx/agentctx/provider/openai"
	"github.com/agentctx/agentctx/provider/providertest"
)

// backend is one wire with its server constructor and adapter.
type backend struct {
	name  string
	wire  providertest.Wire
	start func(providertest.Options) *providertest.Server
	model func(t *testing.T, s *providertest.Server) provider.Streamer
}

var backends = []backend{
	{"openai", providertest.WireOpenAI, providertest.NewOpenAI, func(t *testing.T, s *providertest.Server) provider.Streamer {
		m, err := openai.New(openai.Options{APIKey: "sk-test", BaseURL: s.BaseURL, Model: "gpt-test", MaxRetryDelay: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}},
	{"anthropic", providertest.WireAnthropic, providertest.NewAnthropic, func(t *testing.T, s *providertest.Server) provider.Streamer {
		m, err := anthropic.New(anthropic.Options{APIKey: "sk-ant-test", BaseURL: s.BaseURL, Model: "claude-test", MaxRetryDelay: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}},
}

// call is Send or Stream.
type call struct {
	name string
	do   func(ctx context.Context, m provider.Streamer, req provider.Request) (*provider.Response, string, error)
}

var calls = []call{
	{"send", func(ctx context.Context, m provider.Streamer, req provider.Request) (*provider.Response, string, error) {
		r, err := m.Send(ctx, req)
		return r, "", err
	}},
	{"stream", func(ctx context.Context, m provider.Streamer, req provider.Request) (*provider.Response, string, error) {
		var deltas strings.Builder
		r, err := m.Stream(ctx, req, func(d string) error { deltas.WriteString(d); return nil })
		return r, deltas.String(), err
	}},
}

// each runs f for every wire and call, in parallel subtests.
func each(t *testing.T, f func(t *testing.T, b backend, c call)) {
	t.Helper()
	for _, b := range backends {
		for _, c := range calls {
			t.Run(b.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				f(t, b, c)
			})
		}
	}
}

const bashSchema = `{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}`

func TestToolRoundTrip(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend, c call) {
		s := b.start(providertest.Options{Script: func(r providertest.Request) providertest.Reply {
			last := r.Messages[len(r.Messages)-1]
			if res, ok := last.ToolResult(); ok {
				return providertest.Reply{Text: "The tests pass: " + res.Content}
			}
			return providertest.Reply{Text: "Running the tests.", ToolCalls: []chat.ToolCall{
				{Name: "bash", Arguments: json.RawMessage(`{"cmd":"go test ./..."}`)},
				{Name: "bash", Arguments: json.RawMessage(`{"cmd":"go vet ./..."}`)},
			}}
		}})
		defer s.Close()
		m := b.model(t, s)
		tools := []chat.ToolDef{{Name: "bash", Description: "Run a command.", Parameters: json.RawMessage(bashSchema)}}
		msgs := []chat.Message{chat.NewText(chat.RoleSystem, "You are terse."), chat.NewText(chat.RoleUser, "Check the repo.")}
		r, deltas, err := c.do(t.Context(), m, provider.Request{Messages: msgs, Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		got := r.Message.ToolCalls()
		if len(got) != 2 || got[0].Name != "bash" || string(got[1].Arguments) != `{"cmd":"go vet ./..."}` || got[0].ID == "" || got[0].ID == got[1].ID {
			t.Fatalf("tool calls = %+v", got)
		}
		if r.Message.Text() != "Running the tests." {
			t.Errorf("text = %q", r.Message.Text())
		}
		if c.name == "stream" && deltas != "Running the tests." {
			t.Errorf("deltas = %q", deltas)
		}
		wantStop := map[string]string{"openai": "tool_calls", "anthropic": "tool_use"}[b.name]
		if r.StopReason != wantStop {
			t.Errorf("StopReason = %q, want %q", r.StopReason, wantStop)
		}
		reqs := s.Requests()
		if r.Usage.InputTokens != reqs[0].PromptTokens || r.Usage.InputTokens == 0 || r.Usage.OutputTokens == 0 {
			t.Errorf("usage = %+v, want the server's count %d in and a count out", r.Usage, reqs[0].PromptTokens)
		}
		msgs = append(msgs, r.Message,
			chat.NewToolResult(got[0].ID, "bash", "ok", false),
			chat.NewToolResult(got[1].ID, "bash", "clean", false))
		r, _, err = c.do(t.Context(), m, provider.Request{Messages: msgs, Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		if r.Message.Text() != "The tests pass: clean" {
			t.Errorf("second reply = %q", r.Message.Text())
		}
		reqs = s.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}
		second := reqs[1]
		if diff := cmp.Diff(tools, second.Tools); diff != "" {
			t.Errorf("tools (-sent +seen):\n%s", diff)
		}
		if second.Stream != (c.name == "stream") || len(second.Body) == 0 || second.N != 2 {
			t.Errorf("request = %+v", second)
		}
		var results []string
		for _, m := range second.Messages {
			if res, ok := m.ToolResult(); ok {
				results = append(results, res.ToolCallID+"="+res.Content)
			}
		}
		if want := []string{got[0].ID + "=ok", got[1].ID + "=clean"}; !cmp.Equal(results, want) {
			t.Errorf("results seen = %v, want %v", results, want)
		}
	})
}

func TestScriptedOverflow(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend, c call) {
		f := b.wire.Overflow(200000, 208310)
		s := b.start(providertest.Options{Script: func(providertest.Request) providertest.Reply { return providertest.Reply{Failure: &f} }})
		defer s.Close()
		_, _, err := c.do(t.Context(), b.model(t, s), provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "hi")}})
		checkOverflow(t, err, 200000, 208310)
		if n := len(s.Requests()); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
}

func TestContextLimit(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend, c call) {
		s := b.start(providertest.Options{ContextLimit: 50})
		defer s.Close()
		m := b.model(t, s)
		if _, _, err := c.do(t.Context(), m, provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "hi")}}); err != nil {
			t.Fatalf("small prompt: %v", err)
		}
		long := strings.Repeat("the quick brown fox jumps over the lazy dog ", 20)
		_, _, err := c.do(t.Context(), m, provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, long)}})
		reqs := s.Requests()
		checkOverflow(t, err, 50, reqs[len(reqs)-1].PromptTokens)
	})
}

func checkOverflow(t *testing.T, err error, limit, tokens int) {
	t.Helper()
	if !errors.Is(err, provider.ErrContextOverflow) {
		t.Fatalf("err = %v, want ErrContextOverflow", err)
	}
	var apiErr *provider.APIError
	if !errors.As(err, &apiErr) || apiErr.Limit != limit || apiErr.PromptTokens != tokens || tokens <= limit {
		t.Errorf("err = %#v, want Limit %d and PromptTokens %d", apiErr, limit, tokens)
	}
}

func TestOrderingViolation(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"openai":    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1",
		"anthropic": "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: call_1.",
	}
	each(t, func(t *testing.T, b backend, c call) {
		var scripted atomic.Int32
		s := b.start(providertest.Options{Script: func(providertest.Request) providertest.Reply {
			scripted.Add(1)
			return providertest.Reply{Text: "ok"}
		}})
		defer s.Close()
		msgs := []chat.Message{
			chat.NewText(chat.RoleUser, "go"),
			{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "call_1", Name: "bash", Arguments: json.RawMessage(`{}`)}}},
			chat.NewText(chat.RoleUser, "and?"),
		}
		_, _, err := c.do(t.Context(), b.model(t, s), provider.Request{Messages: msgs})
		if !errors.Is(err, provider.ErrBadRequest) || !strings.Contains(err.Error(), want[b.name]) {
			t.Errorf("err = %v, want ErrBadRequest with %q", err, want[b.name])
		}
		if scripted.Load() != 0 {
			t.Error("the script saw an invalid request")
		}
	})
}

func TestFaults(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b backend, c call) {
		s := b.start(providertest.Options{Faults: []providertest.Fault{
			{Request: 1, Failure: b.wire.RateLimited(time.Millisecond)},
			{Request: 2, Failure: b.wire.Overloaded()},
			{Request: 4, Failure: b.wire.Unauthorized()},
			{Request: 5, Failure: b.wire.ServerError()},
			{Request: 6, Failure: b.wire.ServerError()},
			{Request: 7, Failure: b.wire.ServerError()},
		}})
		defer s.Close()
		m := b.model(t, s)
		req := provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "hi")}}
		r, _, err := c.do(t.Context(), m, req)
		if err != nil || r.Message.Text() != "ok" {
			t.Fatalf("after 429 and overload: %v, %+v", err, r)
		}
		if n := len(s.Requests()); n != 3 {
			t.Errorf("%d requests, want 3 (two retried)", n)
		}
		if _, _, err := c.do(t.Context(), m, req); !errors.Is(err, provider.ErrAuth) {
			t.Errorf("request 4: %v, want ErrAuth", err)
		}
		if _, _, err := c.do(t.Context(), m, req); !errors.Is(err, provider.ErrUnavailable) {
			t.Errorf("requests 5-7: %v, want ErrUnavailable", err)
		}
	})
}

func TestMidStreamFailure(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			f := b.wire.Overflow(1000, 1200)
			f.MidStream = true
			s := b.start(providertest.Options{Faults: []providertest.Fault{{Request: 1, Failure: f}}})
			defer s.Close()
			_, err := b.model(t, s).Stream(t.Context(), provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "hi")}}, nil)
			checkOverflow(t, err, 1000, 1200)
		})
	}
}

func TestCancellationStopsStream(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			s := b.start(providertest.Options{ChunkDelay: 50 * time.Millisecond, Script: func(providertest.Request) providertest.Reply {
				return providertest.Reply{Text: strings.Repeat("long answer ", 100)}
			}})
			ctx, cancel := context.WithCancel(t.Context())
			start := time.Now()
			_, err := b.model(t, s).Stream(ctx, provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "hi")}}, func(string) error {
				cancel()
				return nil
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
			done := make(chan struct{})
			go func() { s.Close(); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Close did not return: the stream handler did not stop")
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestStreamUsageAndText(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			usage := chat.Usage{InputTokens: 10, OutputTokens: 7, CacheReadTokens: 90}
			s := b.start(providertest.Options{Model: "served-model", Script: func(providertest.Request) providertest.Reply {
				return providertest.Reply{Text: "Grüße, wörld — ünïcode", Usage: &usage}
			}})
			defer s.Close()
			var deltas []string
			r, err := b.model(t, s).Stream(t.Context(), provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "hi")}}, func(d string) error {
				deltas = append(deltas, d)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(deltas, "") != "Grüße, wörld — ünïcode" || len(deltas) < 2 {
				t.Errorf("deltas = %q", deltas)
			}
			if r.Usage != usage || r.Model != "served-model" {
				t.Errorf("usage, model = %+v, %q", r.Usage, r.Model)
			}
		})
	}
}

func TestNotFound(t *testing.T) {
	t.Parallel()
	s := providertest.NewAnthropic(providertest.Options{})
	defer s.Close()
	m, err := openai.New(openai.Options{APIKey: "k", BaseURL: s.URL + "/v1", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Send(t.Context(), provider.Request{Messages: []chat.Message{chat.NewText(chat.RoleUser, "hi")}})
	if !errors.Is(err, provider.ErrUnknownModel) {
		t.Errorf("wrong path: %v, want the 404 error", err)
	}
}
