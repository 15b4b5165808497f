package agentctx_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/anthropic"
	"github.com/agentctx/agentctx/provider/openai"
	"github.com/agentctx/agentctx/provider/providertest"
	"github.com/agentctx/agentctx/reminder"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/token"
)

// scaled counts 15 % more tokens than its counter: a provider whose
// tokenizer is not ours.
type scaled struct{ token.Counter }

func (s scaled) Count(text string) int { return s.Counter.Count(text) * 115 / 100 }

// loopScript is the scripted model of TestLiveLoop: per user task, one to
// three rounds of tool calls (reads of large files, commands, searches,
// todo lists, recalls of earlier outputs), then an answer; now and then a
// server error, a rate limit or an overflow the agent must survive (an
// injected overflow answers the first request over 6,000 tokens,
// then one in fifty of them).
type loopScript struct {
	mu     sync.Mutex
	rng    *rand.Rand
	wire   providertest.Wire
	faults map[string]int
}

func (s *loopScript) reply(r providertest.Request) providertest.Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch x := s.rng.IntN(100); {
	case x < 4:
		s.faults["server error"]++
		return providertest.Reply{Failure: ptr(s.wire.ServerError())}
	case x < 6:
		s.faults["rate limit"]++
		return providertest.Reply{Failure: ptr(s.wire.RateLimited(0))}
	case (x < 8 || s.faults["overflow"] == 0) && r.PromptTokens > 6000:
		// At random, and at the first request over 6,000 tokens: every
		// run covers an overflow, whatever the prompts' sizes.
		s.faults["overflow"]++
		return providertest.Reply{Failure: ptr(s.wire.Overflow(r.PromptTokens-700, r.PromptTokens))}
	}
	// Rounds since the task.
	rounds := 0
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role == chat.RoleUser && !strings.HasPrefix(m.Text(), "<system-reminder>") && m.Text() != "" {
			break
		}
		if m.Role == chat.RoleAssistant && m.HasToolCalls() {
			rounds++
		}
	}
	if rounds >= 1+s.rng.IntN(3) {
		return providertest.Reply{Text: fmt.Sprintf("Done with this step after %d rounds.", rounds)}
	}
	var calls []chat.ToolCall
	for k := range 1 + s.rng.IntN(3) {
		id := fmt.Sprintf("call_%d_%d", r.N, k)
		var c chat.ToolCall
		switch x := s.rng.IntN(10); {
		case x < 4:
			c = chat.ToolCall{Name: "read_file", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"pkg/f%d.go"}`, s.rng.IntN(40)))}
		case x < 6:
			c = chat.ToolCall{Name: "run_command", Arguments: json.RawMessage(`{"command":"go test ./..."}`)}
		case x < 8:
			c = chat.ToolCall{Name: "search", Arguments: json.RawMessage(`{"pattern":"func Parse"}`)}
		case x < 9:
			c = chat.ToolCall{Name: "todo_write", Arguments: json.RawMessage(fmt.Sprintf(`{"todos":[{"content":"step %d","status":"in_progress"},{"content":"tests","status":"pending"}]}`, r.N))}
		default:
			// Recall a file read whose result the request holds (maybe
			// cut or masked since).
			var ids []string
			reads := map[string]bool{}
			for _, m := range r.Messages {
				for _, c := range m.ToolCalls() {
					reads[c.ID] = c.Name == "read_file"
				}
				if res, ok := m.ToolResult(); ok && m.Role == chat.RoleTool && reads[res.ToolCallID] && !res.IsError && res.Content != agentctx.InterruptedResult {
					ids = append(ids, res.ToolCallID)
				}
			}
			if len(ids) == 0 {
				continue
			}
			old := ids[s.rng.IntN(len(ids))]
			c = chat.ToolCall{Name: agentctx.RecallToolName, Arguments: json.RawMessage(fmt.Sprintf(`{"call_id":%q,"start_line":10,"end_line":30}`, old))}
		}
		c.ID = id
		calls = append(calls, c)
	}
	if len(calls) == 0 {
		return providertest.Reply{Text: "Nothing to do."}
	}
	return providertest.Reply{Text: "Let me look.", ToolCalls: calls}
}

func ptr[T any](v T) *T { return &v }

// runTool runs a scripted tool: outputs large enough to make the window
// compact and the limiter cut.
func runTool(rng *rand.Rand, c chat.ToolCall) chat.ToolResult {
	res := chat.ToolResult{ToolCallID: c.ID, ToolName: c.Name}
	var b strings.Builder
	switch c.Name {
	case "read_file":
		for i := range 80 + rng.IntN(500) {
			fmt.Fprintf(&b, "func helper%d(x int) int { return x * %d } // line %d\n", i, i, i+1)
		}
	case "run_command":
		for i := range 20 + rng.IntN(200) {
			fmt.Fprintf(&b, "=== RUN   TestCase%d\n--- PASS: TestCase%d (0.00s)\n", i, i)
		}
		if rng.IntN(3) == 0 {
			b.WriteString("--- FAIL: TestParse (0.01s)\n    parse_test.go:12: got 3, want 4\nFAIL\nexit status 1\n")
			res.IsError = true
		}
	case "search":
		for i := range 10 + rng.IntN(300) {
			fmt.Fprintf(&b, "pkg/f%d.go:%d:func Parse%d(s string) (Node, error) {\n", i%40, i+3, i)
		}
	default:
		b.WriteString("ok")
	}
	res.Content = b.String()
	return res
}

// TestLiveLoop is the live loop's acceptance test: an agent loop over
// each provider's real wire format (a loopback server with the provider's
// message-ordering rules, streaming on every other call) runs 200 user
// turns with random interrupts (some results never come), streams cut
// mid-way, server errors and rate limits (retried), overflow answers (a
// provider that counts 15 % more than we do, and injected ones) and
// restarts (the engine closed and resumed from the store alone). Every
// request the server receives passes its ordering rules; every request
// fits the budget; a retry is the request that failed, byte for byte, so
// no reminder is lost; a resumed engine's request is the one the engine
// before the restart would have sent; the session checks clean.
func TestLiveLoop(t *testing.T) {
	t.Parallel()
	turns := 200
	if !sharedtest.Long(t) {
		turns = 60 // covers every event (40 left overflow out); 200 with the long tests (CI)
	}
	for _, wire := range []providertest.Wire{providertest.WireOpenAI, providertest.WireAnthropic} {
		t.Run(string(wire), func(t *testing.T) {
			t.Parallel()
			runLoop(t, wire, turns)
		})
	}
}

func runLoop(t *testing.T, wf providertest.Wire, turns int) {
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(11, uint64(len(wf))))
	counter, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	script := &loopScript{rng: rand.New(rand.NewPCG(12, 0)), wire: wf, faults: map[string]int{}}
	srv := providertest.New(providertest.Options{Wire: wf, Script: script.reply, ContextLimit: 15_000, Counter: scaled{counter}})
	defer srv.Close()
	var llm interface {
		provider.Model
		Stream(context.Context, provider.Request, func(string) error) (*provider.Response, error)
	}
	modelName := "gpt-4o"
	if wf == providertest.WireAnthropic {
		modelName = "claude-sonnet-4-5"
		llm, err = anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.BaseURL, Model: modelName, MaxRetries: -1})
	} else {
		llm, err = openai.New(openai.Options{APIKey: "k", BaseURL: srv.BaseURL, Model: modelName, MaxRetries: -1})
	}
	if err != nil {
		t.Fatal(err)
	}
	store := newStore(t)
	tools := []chat.ToolDef{
		{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		{Name: "run_command", Description: "Run a shell command.", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
		{Name: "search", Description: "Search the code.", Parameters: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"}}}`)},
		{Name: "todo_write", Description: "Write the todo list.", Parameters: json.RawMessage(`{"type":"object"}`)},
		agentctx.RecallTool(),
	}
	e := openEngine(t, agentctx.Options{Store: store, Dir: t.TempDir(), Model: modelName, Budget: 16_000, MaxTokens: 1000,
		SystemPrompt: "You are a careful coding agent.", Tools: tools, NoWorkspace: true})
	stats := map[string]int{}
	var prev string // the last request built and not answered, on the wire
	for turn := range turns {
		if err := e.Add(ctx, chat.NewText(chat.RoleUser, fmt.Sprintf("Task %d: make the tests pass in pkg/f%d.go.", turn, turn%40))); err != nil {
			t.Fatal(err)
		}
		for step := 0; ; step++ {
			if step > 40 {
				t.Fatalf("turn %d: no answer after 40 calls", turn)
			}
			if rng.IntN(100) < 3 {
				// A restart: the engine goes away; a new process resumes
				// with the store alone.
				before, err := e.Request(ctx)
				if err != nil {
					t.Fatal(err)
				}
				id := e.ID()
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
				if e, err = agentctx.Resume(ctx, id, agentctx.Options{Store: store}); err != nil {
					t.Fatal(err)
				}
				after, err := e.Request(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if a, b := wire(t, before), wire(t, after); a != b {
					t.Fatalf("turn %d: the resumed engine's request differs from the one before the restart (compactions %v, then %v): %s", turn, before.Compactions, after.Compactions, firstDiff(a, b))
				}
				stats["restart"]++
			}
			req, err := e.Request(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if req.Over > 0 || req.Tokens > e.Budget() {
				t.Fatalf("turn %d: request of %d tokens for a %d budget", turn, req.Tokens, e.Budget())
			}
			if w := wire(t, req); prev != "" && w != prev {
				t.Fatalf("turn %d: the retried request differs from the one that failed: %s", turn, firstDiff(prev, w))
			}
			var resp *provider.Response
			if rng.IntN(2) == 0 {
				cut := rng.IntN(25) == 0
				resp, err = llm.Stream(ctx, req.Provider(), func(string) error {
					if cut {
						return errors.New("interrupted by the user")
					}
					return nil
				})
				if cut && err != nil {
					stats["stream cut"]++
				}
			} else {
				resp, err = llm.Send(ctx, req.Provider())
			}
			if errors.Is(err, provider.ErrContextOverflow) {
				stats["overflow"]++
				prev = ""
				before := req.Tail
				if req, err = e.RecoverOverflow(ctx, err); err != nil {
					t.Fatalf("turn %d: %v", turn, err)
				}
				assertRemindersKept(t, before, req)
				prev = wire(t, req)
				continue
			}
			if err != nil {
				if errors.Is(err, provider.ErrBadRequest) {
					t.Fatalf("turn %d: the provider rejected the request: %v", turn, err)
				}
				stats["retry"]++
				prev = wire(t, req)
				continue
			}
			prev = ""
			if err := e.Add(ctx, resp.Message); err != nil {
				t.Fatal(err)
			}
			calls := resp.Message.ToolCalls()
			if len(calls) == 0 {
				break
			}
			interrupt := rng.IntN(100) < 8
			for k, c := range calls {
				if interrupt && k >= len(calls)/2 {
					break
				}
				var res chat.ToolResult
				if c.Name == agentctx.RecallToolName {
					res = e.HandleRecall(ctx, c)
					if res.IsError {
						t.Fatalf("turn %d: recall failed: %s", turn, res.Content)
					}
					stats["recall"]++
				} else {
					res = runTool(rng, c)
				}
				if err := e.Add(ctx, chat.Message{Role: chat.RoleTool, Parts: []chat.Part{res}}); err != nil {
					t.Fatal(err)
				}
			}
			if vs := e.Check(); len(vs) > 0 {
				t.Fatalf("turn %d: %v", turn, vs)
			}
			if interrupt {
				stats["interrupt"]++
				break // the user types the next task before the results came
			}
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests() {
		var err error
		if wf == providertest.WireAnthropic {
			err = providertest.ValidateAnthropic(r.Body)
		} else {
			err = providertest.ValidateOpenAI(r.Body)
		}
		if err != nil {
			t.Fatalf("request %d broke the ordering rules: %v", r.N, err)
		}
	}
	tr, err := store.Load(ctx, e.ID(), session.LoadOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Problems) > 0 {
		t.Errorf("the session has problems: %v", tr.Problems)
	}
	stats["reminders recorded"] = len(session.Reminders(tr.Entries))
	t.Logf("%s: %d requests, faults %v, agent %v, budget %d (%s), engine %+v", wf, len(srv.Requests()), script.faults, stats, e.Budget(), e.BudgetSource(), e.Stats())
	for _, k := range []string{"restart", "overflow", "retry", "interrupt", "recall", "reminders recorded"} {
		if stats[k] == 0 {
			t.Errorf("no %s happened: the test does not cover it", k)
		}
	}
}

// assertRemindersKept checks that the reminders of a request the provider
// rejected are in the request that replaces it, unless dropped to fit or
// superseded by a newer one of the same kind (the context pressure).
func assertRemindersKept(t *testing.T, before []reminder.Reminder, req *agentctx.Request) {
	t.Helper()
	have := map[string]bool{}
	for _, r := range req.Tail {
		have[r.Kind] = true
	}
	for _, k := range req.Dropped {
		have[k] = true
	}
	for _, r := range before {
		if r.Kind == prompt.KindTracker || r.Kind == prompt.KindWorkingMemory || r.Kind == reminder.KindContextPressure {
			continue
		}
		if !have[r.Kind] {
			t.Fatalf("reminder %s (%s) of the rejected request is lost", r.Kind, r.Key)
		}
	}
}
