package agentctx_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/anthropic"
	"github.com/agentctx/agentctx/provider/openai"
	"github.com/agentctx/agentctx/token"
)

// overflowServer is a provider that counts prompts with a tokenizer 12 %
// larger than ours and rejects those over limit tokens with the
// provider's real overflow body; it answers the others with a short text
// reply.
type overflowServer struct {
	wire     string // "openai" or "anthropic"
	limit    int
	mu       sync.Mutex
	rejected int
	counter  token.Counter
}

func (s *overflowServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	// The provider's count: ours of the body's text, plus 12 %.
	size := s.counter.Count(string(body)) * 112 / 100
	w.Header().Set("Content-Type", "application/json")
	if size > s.limit {
		s.mu.Lock()
		s.rejected++
		s.mu.Unlock()
		w.WriteHeader(http.StatusBadRequest)
		if s.wire == "anthropic" {
			fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: %d tokens > %d maximum"},"request_id":"req_011"}`, size, s.limit)
		} else {
			fmt.Fprintf(w, `{"error":{"message":"This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, s.limit, size)
		}
		return
	}
	if s.wire == "anthropic" {
		fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":1}}`, size)
		return
	}
	fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}],"usage":{"prompt_tokens":%d,"completion_tokens":1,"total_tokens":%d}}`, size, size+1)
}

// TestRecoverOverflow: a session whose request the provider rejects as too
// long is compacted to what the provider can take, through the real
// adapters and the providers' real error bodies, and the lowered budget
// survives a resume.
func TestRecoverOverflow(t *testing.T) {
	t.Parallel()
	counter, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, wire := range []string{"openai", "anthropic"} {
		t.Run(wire, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			srv := &overflowServer{wire: wire, limit: 9000, counter: counter}
			hs := httptest.NewServer(srv)
			defer hs.Close()
			var m provider.Model
			if wire == "anthropic" {
				m, err = anthropic.New(anthropic.Options{APIKey: "k", BaseURL: hs.URL, Model: "claude-sonnet-4-5", MaxRetries: -1})
			} else {
				m, err = openai.New(openai.Options{APIKey: "k", BaseURL: hs.URL + "/v1", Model: "gpt-4o", MaxRetries: -1})
			}
			if err != nil {
				t.Fatal(err)
			}
			store := newStore(t)
			// The agent believes the model takes 20,000 tokens.
			e := openEngine(t, agentctx.Options{Store: store, Dir: t.TempDir(), Budget: 20_000, NoWorkspace: true, MaxTokens: 1000})
			msgs := []chat.Message{chat.NewText(chat.RoleUser, "read the sources")}
			for i := range 12 {
				id := fmt.Sprint("c", i)
				msgs = append(msgs, call(id, "Read", fmt.Sprintf(`{"file_path":"f%d.go"}`, i)),
					chat.NewToolResult(id, "Read", strings.Repeat(fmt.Sprintf("func f%d() { return parse(x) }\n", i), 120), false))
			}
			if err := e.Add(ctx, msgs...); err != nil {
				t.Fatal(err)
			}
			req, err := e.Request(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var resp *provider.Response
			for attempt := 0; ; attempt++ {
				resp, err = m.Send(ctx, req.Provider())
				if err == nil {
					break
				}
				if !errors.Is(err, provider.ErrContextOverflow) {
					t.Fatalf("attempt %d: %v, want an overflow", attempt, err)
				}
				var ae *provider.APIError
				if !errors.As(err, &ae) || ae.Limit != 9000 || ae.PromptTokens == 0 {
					t.Fatalf("the adapter lost the provider's numbers: %+v", ae)
				}
				if attempt == 2 {
					t.Fatalf("still rejected after %d recoveries", attempt+1)
				}
				req, err = e.RecoverOverflow(ctx, err)
				if err != nil {
					t.Fatal(err)
				}
				if req.Tokens > e.Budget() || len(req.Compactions) == 0 {
					t.Fatalf("after recovery: %d tokens for a %d budget, compactions %v", req.Tokens, e.Budget(), req.Compactions)
				}
			}
			if srv.rejected == 0 {
				t.Fatal("the provider never rejected the request: the test proves nothing")
			}
			if e.Budget() >= 20_000 || e.BudgetSource() != agentctx.BudgetFromProvider || e.Stats().Overflows != srv.rejected {
				t.Fatalf("budget %d (%s), overflows %d of %d", e.Budget(), e.BudgetSource(), e.Stats().Overflows, srv.rejected)
			}
			if err := e.Add(ctx, resp.Message); err != nil {
				t.Fatal(err)
			}
			budget, id := e.Budget(), e.ID()
			e.Close()
			r, err := agentctx.Resume(ctx, id, agentctx.Options{Store: store})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.Budget() != budget || r.BudgetSource() != agentctx.BudgetFromProvider {
				t.Fatalf("resumed with budget %d (%s), want %d from the provider", r.Budget(), r.BudgetSource(), budget)
			}
		})
	}
}

// TestRecoverOverflowOther: an error that is not an overflow is returned
// as it is; endless overflows end in ErrOverflowUnrecoverable.
func TestRecoverOverflowOther(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := openEngine(t, agentctx.Options{Dir: t.TempDir(), Budget: 20_000, NoWorkspace: true})
	if err := e.Add(ctx, chat.NewText(chat.RoleUser, strings.Repeat("the whole task ", 400))); err != nil {
		t.Fatal(err)
	}
	other := fmt.Errorf("send: %w", provider.ErrRateLimited)
	if req, err := e.RecoverOverflow(ctx, other); req != nil || err != other { //nolint:errorlint // the very error, not one wrapping it
		t.Fatalf("RecoverOverflow(rate limit) = %v, %v; want nil and the error itself", req, err)
	}
	overflow := &provider.APIError{Provider: "anthropic", Status: 400, Kind: provider.ErrContextOverflow, Message: "prompt is too long"}
	var err error
	for range agentctx.MaxOverflowRecoveries {
		if _, err = e.RecoverOverflow(ctx, overflow); err != nil {
			t.Fatal(err)
		}
	}
	_, err = e.RecoverOverflow(ctx, overflow)
	if !errors.Is(err, agentctx.ErrOverflowUnrecoverable) || !errors.Is(err, provider.ErrContextOverflow) {
		t.Fatalf("after %d overflows: %v, want ErrOverflowUnrecoverable wrapping the overflow", agentctx.MaxOverflowRecoveries, err)
	}
	// A reply resets the count.
	if err := e.Add(ctx, chat.NewText(chat.RoleAssistant, "ok")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.RecoverOverflow(ctx, overflow); err != nil {
		t.Fatalf("after a reply: %v", err)
	}
}
