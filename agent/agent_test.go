package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/agent"
	"github.com/agentctx/agentctx/agent/tools"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/anthropic"
	"github.com/agentctx/agentctx/provider/openai"
	"github.com/agentctx/agentctx/provider/providertest"
	"github.com/google/go-cmp/cmp"
)

// fileTool is a test tool: it "reads" or "writes" the path it is given
// and remembers the calls it ran.
type fileTool struct {
	name   string
	access tools.Access
	mu     sync.Mutex
	ran    []string
}

func (f *fileTool) Def() chat.ToolDef {
	return chat.ToolDef{Name: f.name, Description: "A test tool.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"command":{"type":"string"}}}`)}
}

func (f *fileTool) Access() tools.Access { return f.access }

func (f *fileTool) Run(ctx context.Context, call chat.ToolCall) chat.ToolResult {
	f.mu.Lock()
	f.ran = append(f.ran, string(call.Arguments))
	f.mu.Unlock()
	return chat.ToolResult{ToolCallID: call.ID, ToolName: f.name, Content: f.name + " ran with " + string(call.Arguments)}
}

func (f *fileTool) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ran...)
}

// slowTool blocks until ctx is done, and says when it started.
type slowTool struct{ started chan struct{} }

func (s *slowTool) Def() chat.ToolDef {
	return chat.ToolDef{Name: "slow", Description: "Waits.", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (s *slowTool) Access() tools.Access { return tools.AccessRead }
func (s *slowTool) Run(ctx context.Context, call chat.ToolCall) chat.ToolResult {
	close(s.started)
	<-ctx.Done()
	return chat.ToolResult{ToolCallID: call.ID, Content: "cancelled", IsError: true}
}

// sendOnly hides a model's Stream method.
type sendOnly struct{ provider.Model }

type fixture struct {
	srv    *providertest.Server
	engine *agentctx.Engine
	model  provider.Model
}

// setup starts a fake provider of wire with opts and an Engine offering
// tls; the model streams when stream is set.
func setup(t *testing.T, wire providertest.Wire, stream bool, opts providertest.Options, tls ...tools.Tool) fixture {
	t.Helper()
	srv := providertest.New(providertest.Options{Wire: wire, Script: opts.Script, Faults: opts.Faults, ChunkDelay: opts.ChunkDelay})
	t.Cleanup(srv.Close)
	var m provider.Model
	var err error
	name := "gpt-4o"
	if wire == providertest.WireAnthropic {
		name = "claude-sonnet-4-5"
		m, err = anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.BaseURL, Model: name, MaxRetries: -1})
	} else {
		m, err = openai.New(openai.Options{APIKey: "k", BaseURL: srv.BaseURL, Model: name, MaxRetries: -1})
	}
	if err != nil {
		t.Fatal(err)
	}
	if !stream {
		m = sendOnly{m}
	}
	defs := []chat.ToolDef{agentctx.RecallTool()}
	for _, tl := range tls {
		defs = append(defs, tl.Def())
	}
	e, err := agentctx.Open(context.Background(), agentctx.Options{Dir: t.TempDir(), Model: name, Budget: 20_000, MaxTokens: 1000,
		SystemPrompt: "You are a test agent.", Tools: defs, NoWorkspace: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return fixture{srv: srv, engine: e, model: m}
}

// readThenWrite is a script: read a file, then write it, then answer;
// it reads the last tool result to know where it is.
func readThenWrite(r providertest.Request) providertest.Reply {
	var res chat.ToolResult
	for _, m := range r.Messages[max(0, len(r.Messages)-3):] {
		if out, ok := m.ToolResult(); ok && m.Role == chat.RoleTool {
			res = out
		}
	}
	switch {
	case strings.HasPrefix(res.Content, "read ran"):
		return providertest.Reply{Text: "Now the fix.", ToolCalls: []chat.ToolCall{{Name: "write", Arguments: json.RawMessage(`{"path":"a.go"}`)}}}
	case strings.HasPrefix(res.Content, "write ran"), strings.HasPrefix(res.Content, "denied by"):
		return providertest.Reply{Text: "All done."}
	}
	return providertest.Reply{Text: "Let me look.", ToolCalls: []chat.ToolCall{{Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)}}}
}

var wires = []providertest.Wire{providertest.WireOpenAI, providertest.WireAnthropic}

func TestRunToolsThenAnswer(t *testing.T) {
	t.Parallel()
	for _, wire := range wires {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", wire, stream), func(t *testing.T) {
				t.Parallel()
				read := &fileTool{name: "read", access: tools.AccessRead}
				write := &fileTool{name: "write", access: tools.AccessWrite}
				f := setup(t, wire, stream, providertest.Options{Script: readThenWrite}, read, write)
				var events []agent.Event
				a, err := agent.New(agent.Options{Engine: f.engine, Model: f.model, Tools: []tools.Tool{read, write},
					Permission: &agent.Guard{Yes: true}, Events: func(e agent.Event) { events = append(events, e) }})
				if err != nil {
					t.Fatal(err)
				}
				res, err := a.Run(t.Context(), "Fix a.go.")
				if err != nil {
					t.Fatal(err)
				}
				want := agent.Result{Text: "All done.", ModelCalls: 3, ToolCalls: 2, StopReason: agent.StopDone}
				if diff := cmp.Diff(want, res); diff != "" {
					t.Errorf("Result (-want +got):\n%s", diff)
				}
				if got := write.calls(); len(got) != 1 || read.calls()[0] != `{"path":"a.go"}` {
					t.Errorf("tools ran read %v, write %v", read.calls(), got)
				}
				var kinds []agent.EventKind
				var text strings.Builder
				deltas := 0
				for _, ev := range events {
					if _, err := json.Marshal(ev); err != nil {
						t.Fatal(err)
					}
					switch ev.Kind {
					case agent.EventTextDelta:
						text.WriteString(ev.Text)
						deltas++
						continue
					case agent.EventReminder:
						continue
					}
					kinds = append(kinds, ev.Kind)
				}
				wantKinds := []agent.EventKind{agent.EventUsage, agent.EventToolCall, agent.EventToolResult,
					agent.EventUsage, agent.EventToolCall, agent.EventToolResult, agent.EventUsage, agent.EventTurnEnd}
				if diff := cmp.Diff(wantKinds, kinds); diff != "" {
					t.Errorf("event kinds (-want +got):\n%s", diff)
				}
				if got := text.String(); got != "Let me look.Now the fix.All done." {
					t.Errorf("text deltas = %q", got)
				}
				if stream && deltas <= 3 || !stream && deltas != 3 {
					t.Errorf("%d text deltas (stream %v)", deltas, stream)
				}
				last := events[len(events)-1]
				if last.Turn != 3 || last.StopReason != agent.StopDone || last.Text != "All done." {
					t.Errorf("turn end = %+v", last)
				}
				for _, ev := range events {
					if ev.Kind == agent.EventUsage && (ev.Usage.PromptTokens == 0 || ev.Usage.RequestTokens == 0 || ev.Usage.Budget != 20_000) {
						t.Errorf("usage = %+v", *ev.Usage)
					}
					if ev.Kind == agent.EventUsage {
						// Both models are priced: the cost is the usage at list price.
						u := ev.Usage
						p, _ := model.PriceOf(u.Model)
						want := p.Cost(u.PromptTokens-u.CachedTokens-u.CacheWriteTokens, u.CachedTokens, u.CacheWriteTokens, u.OutputTokens)
						if u.CostUSD <= 0 || math.Abs(u.CostUSD-want) > 1e-12 {
							t.Errorf("usage cost %v for %+v, want %v", u.CostUSD, *u, want)
						}
					}
					if ev.Kind == agent.EventToolResult && ev.Result.Bytes != len("read ran with {\"path\":\"a.go\"}") && ev.Result.Name == "read" {
						t.Errorf("result = %+v", *ev.Result)
					}
				}
			})
		}
	}
}

// lastResults returns the tool results of the last request the server
// received.
func lastResults(t *testing.T, srv *providertest.Server) []chat.ToolResult {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	var out []chat.ToolResult
	for _, m := range reqs[len(reqs)-1].Messages {
		if res, ok := m.ToolResult(); ok && m.Role == chat.RoleTool {
			out = append(out, res)
		}
	}
	return out
}

func TestRunFailures(t *testing.T) {
	t.Parallel()
	for _, wire := range wires {
		for _, tc := range []struct {
			name    string
			fault   func(providertest.Request) providertest.Failure
			overflw bool
		}{
			{"server error", func(providertest.Request) providertest.Failure { return wire.ServerError() }, false},
			{"rate limit", func(providertest.Request) providertest.Failure { return wire.RateLimited(0) }, false},
			{"overloaded", func(providertest.Request) providertest.Failure { return wire.Overloaded() }, false},
			{"overflow", func(r providertest.Request) providertest.Failure {
				return wire.Overflow(r.PromptTokens-40, r.PromptTokens)
			}, true},
		} {
			t.Run(string(wire)+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				read := &fileTool{name: "read", access: tools.AccessRead}
				script := func(r providertest.Request) providertest.Reply {
					if r.N == 2 {
						return providertest.Reply{Failure: ptr(tc.fault(r))}
					}
					return readThenWrite(r)
				}
				write := &fileTool{name: "write", access: tools.AccessWrite}
				f := setup(t, wire, true, providertest.Options{Script: script}, read, write)
				var errs []agent.ErrorEvent
				a, err := agent.New(agent.Options{Engine: f.engine, Model: f.model, Tools: []tools.Tool{read, write}, RetryDelay: time.Millisecond,
					Events: func(e agent.Event) {
						if e.Kind == agent.EventError {
							errs = append(errs, *e.Error)
						}
					}})
				if err != nil {
					t.Fatal(err)
				}
				res, err := a.Run(t.Context(), "Fix a.go.")
				if err != nil {
					t.Fatal(err)
				}
				// The write is denied by the default guard; the model answers.
				if res.StopReason != agent.StopDone || res.ModelCalls != 3 || res.Text != "All done." {
					t.Errorf("Result = %+v", res)
				}
				if len(errs) != 1 || errs[0].Overflow != tc.overflw || errs[0].Recovered != tc.overflw || (errs[0].Retry == 1) == tc.overflw {
					t.Errorf("error events = %+v", errs)
				}
				if n := len(f.srv.Requests()); n != 4 {
					t.Errorf("%d requests, want 4 (one failed)", n)
				}
				if got := f.engine.Stats().Overflows; got != map[bool]int{true: 1}[tc.overflw] {
					t.Errorf("engine recovered %d overflows", got)
				}
			})
		}
	}
}

func TestRunRetriesExhausted(t *testing.T) {
	t.Parallel()
	wire := providertest.WireOpenAI
	fail := wire.ServerError()
	f := setup(t, wire, false, providertest.Options{Faults: []providertest.Fault{{Request: 1, Failure: fail}, {Request: 2, Failure: fail}, {Request: 3, Failure: fail}}})
	a, err := agent.New(agent.Options{Engine: f.engine, Model: f.model, Retries: 2, RetryDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(t.Context(), "Hi.")
	if !errors.Is(err, provider.ErrUnavailable) || res.StopReason != agent.StopError {
		t.Fatalf("Run = %+v, %v; want ErrUnavailable", res, err)
	}
	// The session is intact: the next Run succeeds.
	if res, err := a.Run(t.Context(), "Again."); err != nil || res.Text != "ok" {
		t.Fatalf("next Run = %+v, %v", res, err)
	}
}

func TestRunDenied(t *testing.T) {
	t.Parallel()
	for _, wire := range wires {
		t.Run(string(wire), func(t *testing.T) {
			t.Parallel()
			read := &fileTool{name: "read", access: tools.AccessRead}
			write := &fileTool{name: "write", access: tools.AccessWrite}
			f := setup(t, wire, false, providertest.Options{Script: readThenWrite}, read, write)
			var asked []string
			guard := &agent.Guard{Ask: func(_ context.Context, c chat.ToolCall, access tools.Access, _ string) (agent.Decision, error) {
				asked = append(asked, c.Name)
				return agent.DecisionDeny, nil
			}}
			var denied []agent.ToolResultEvent
			a, err := agent.New(agent.Options{Engine: f.engine, Model: f.model, Tools: []tools.Tool{read, write}, Permission: guard,
				Events: func(e agent.Event) {
					if e.Kind == agent.EventToolResult && e.Result.Denied {
						denied = append(denied, *e.Result)
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := a.Run(t.Context(), "Fix a.go.")
			if err != nil {
				t.Fatal(err)
			}
			if res.StopReason != agent.StopDone || res.ToolCalls != 2 {
				t.Errorf("Result = %+v", res)
			}
			if len(write.calls()) != 0 || len(read.calls()) != 1 {
				t.Errorf("ran read %v, write %v; the write was denied", read.calls(), write.calls())
			}
			if diff := cmp.Diff([]string{"write"}, asked); diff != "" {
				t.Errorf("asked (-want +got):\n%s", diff)
			}
			if len(denied) != 1 || !denied[0].IsError || denied[0].Name != "write" {
				t.Errorf("denied events = %+v", denied)
			}
			got := lastResults(t, f.srv)
			// OpenAI's wire has no error flag.
			if len(got) != 2 || got[1].Content != agent.DeniedResult || wire == providertest.WireAnthropic && !got[1].IsError {
				t.Errorf("results sent = %+v", got)
			}
		})
	}
}

func TestRunInterruptedStream(t *testing.T) {
	t.Parallel()
	for _, wire := range wires {
		t.Run(string(wire), func(t *testing.T) {
			t.Parallel()
			script := func(r providertest.Request) providertest.Reply {
				if strings.Contains(r.Messages[len(r.Messages)-1].Text(), "Continue.") {
					return providertest.Reply{Text: "Continuing."}
				}
				return providertest.Reply{Text: strings.Repeat("A long answer. ", 200)}
			}
			f := setup(t, wire, true, providertest.Options{Script: script, ChunkDelay: 20 * time.Millisecond})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var cancelled time.Time
			var once sync.Once
			var last agent.Event
			a, err := agent.New(agent.Options{Engine: f.engine, Model: f.model, Events: func(e agent.Event) {
				last = e
				if e.Kind == agent.EventTextDelta {
					once.Do(func() {
						cancelled = time.Now()
						cancel()
					})
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := a.Run(ctx, "Explain.")
			if took := time.Since(cancelled); took > time.Second {
				t.Errorf("Run returned %v after the cancel", took)
			}
			if !errors.Is(err, context.Canceled) || res.StopReason != agent.StopInterrupted {
				t.Fatalf("Run = %+v, %v; want interrupted", res, err)
			}
			if last.Kind != agent.EventTurnEnd || last.StopReason != agent.StopInterrupted {
				t.Errorf("last event = %+v, want the interrupted turn's end", last)
			}
			res, err = a.Run(t.Context(), "Continue.")
			if err != nil || res.Text != "Continuing." {
				t.Fatalf("next Run = %+v, %v", res, err)
			}
			// The model learns of the interruption: the note follows
			// the interrupted request, before the next one.
			reqs := f.srv.Requests()
			text := ""
			for _, m := range reqs[len(reqs)-1].Messages {
				if m.Role == chat.RoleUser {
					text += m.Text() + "\n"
				}
			}
			if i, j := strings.Index(text, agent.InterruptedNote), strings.Index(text, "Continue."); i < 0 || j < i || strings.Index(text, "Explain.") > i {
				t.Errorf("the last request's user text does not hold the note between the two messages:\n%s", text)
			}
		})
	}
}

func TestRunInterruptedTool(t *testing.T) {
	t.Parallel()
	for _, wire := range wires {
		t.Run(string(wire), func(t *testing.T) {
			t.Parallel()
			script := func(r providertest.Request) providertest.Reply {
				if strings.Contains(r.Messages[len(r.Messages)-1].Text(), "Continue.") {
					return providertest.Reply{Text: "Continuing."}
				}
				return providertest.Reply{ToolCalls: []chat.ToolCall{{Name: "slow"}, {Name: "slow"}}}
			}
			slow := &slowTool{started: make(chan struct{})}
			f := setup(t, wire, false, providertest.Options{Script: script}, slow)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			go func() {
				<-slow.started
				cancel()
			}()
			a, err := agent.New(agent.Options{Engine: f.engine, Model: f.model, Tools: []tools.Tool{slow}})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := a.Run(ctx, "Wait.")
			if !errors.Is(err, context.Canceled) || res.StopReason != agent.StopInterrupted || time.Since(start) > time.Second {
				t.Fatalf("Run = %+v, %v after %v; want interrupted", res, err, time.Since(start))
			}
			res, err = a.Run(t.Context(), "Continue.")
			if err != nil || res.Text != "Continuing." {
				t.Fatalf("next Run = %+v, %v", res, err)
			}
			got := lastResults(t, f.srv)
			if len(got) != 2 || got[0].Content != agentctx.InterruptedResult || got[1].Content != agentctx.InterruptedResult {
				t.Errorf("results sent = %+v; want the Engine's interrupted results", got)
			}
		})
	}
}

func TestRunMaxTurns(t *testing.T) {
	t.Parallel()
	read := &fileTool{name: "read", access: tools.AccessRead}
	script := func(r providertest.Request) providertest.Reply {
		return providertest.Reply{ToolCalls: []chat.ToolCall{{Name: "read", Arguments: json.RawMessage(`{"path":"x.go"}`)}}}
	}
	f := setup(t, providertest.WireAnthropic, true, providertest.Options{Script: script}, read)
	a, err := agent.New(agent.Options{Engine: f.engine, Model: f.model, Tools: []tools.Tool{read}, MaxTurns: 3})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(t.Context(), "Loop.")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(agent.Result{ModelCalls: 3, ToolCalls: 3, StopReason: agent.StopMaxTurns}, res); diff != "" {
		t.Errorf("Result (-want +got):\n%s", diff)
	}
	if n := len(f.srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	if _, err := agent.New(agent.Options{}); !errors.Is(err, agent.ErrNoEngine) {
		t.Errorf("New without an Engine = %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestEventJSON(t *testing.T) {
	t.Parallel()
	ev := agent.Event{Kind: agent.EventToolResult, Turn: 2, Result: &agent.ToolResultEvent{ID: "call_1", Name: "write", Bytes: 18, IsError: true, Denied: true}}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"tool_result","turn":2,"result":{"id":"call_1","name":"write","bytes":18,"is_error":true,"denied":true}}`
	if string(b) != want {
		t.Errorf("JSON = %s, want %s", b, want)
	}
	var back agent.Event
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ev, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestRunRecallAndUnknownTool(t *testing.T) {
	t.Parallel()
	for _, wire := range wires {
		t.Run(string(wire), func(t *testing.T) {
			t.Parallel()
			read := &fileTool{name: "read", access: tools.AccessRead}
			script := func(r providertest.Request) providertest.Reply {
				var first string
				for _, m := range r.Messages {
					for _, c := range m.ToolCalls() {
						if first == "" {
							first = c.ID
						}
					}
				}
				switch len(r.Messages) {
				case 2: // the system prompt and the task
					return providertest.Reply{ToolCalls: []chat.ToolCall{{Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)}}}
				case 4:
					return providertest.Reply{ToolCalls: []chat.ToolCall{
						{Name: agentctx.RecallToolName, Arguments: json.RawMessage(fmt.Sprintf(`{"call_id":%q}`, first))},
						{Name: "teleport"},
					}}
				}
				return providertest.Reply{Text: "Done."}
			}
			f := setup(t, wire, false, providertest.Options{Script: script}, read)
			var results []agent.ToolResultEvent
			a, err := agent.New(agent.Options{Engine: f.engine, Model: f.model, Tools: []tools.Tool{read}, Events: func(e agent.Event) {
				if e.Kind == agent.EventToolResult {
					results = append(results, *e.Result)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			if res, err := a.Run(t.Context(), "Read a.go."); err != nil || res.Text != "Done." {
				t.Fatalf("Run = %+v, %v", res, err)
			}
			got := lastResults(t, f.srv)
			if len(got) != 3 || !strings.Contains(got[1].Content, `read ran with {"path":"a.go"}`) || !strings.Contains(got[2].Content, `unknown tool "teleport"`) {
				t.Fatalf("results sent = %+v", got)
			}
			if len(results) != 3 || results[1].IsError || !results[2].IsError {
				t.Errorf("result events = %+v", results)
			}
		})
	}
}

// bigTool returns a large output: lines of code.
type bigTool struct{}

func (bigTool) Def() chat.ToolDef {
	return chat.ToolDef{Name: "read_file", Description: "Reads a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
}
func (bigTool) Access() tools.Access { return tools.AccessRead }
func (bigTool) Run(_ context.Context, call chat.ToolCall) chat.ToolResult {
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "func helper%d(x int) int { return x * %d } // line %d\n", i, i, i+1)
	}
	return chat.ToolResult{ToolCallID: call.ID, Content: b.String()}
}

func TestRunCompactionEvents(t *testing.T) {
	t.Parallel()
	script := func(r providertest.Request) providertest.Reply {
		rounds := 0
		for _, m := range r.Messages {
			if m.HasToolCalls() {
				rounds++
			}
		}
		if rounds >= 12 || r.N >= 12 {
			return providertest.Reply{Text: "Read them all."}
		}
		return providertest.Reply{ToolCalls: []chat.ToolCall{{Name: "read_file", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"f%d.go"}`, r.N))}}}
	}
	srv := providertest.NewOpenAI(providertest.Options{Script: script})
	t.Cleanup(srv.Close)
	m, err := openai.New(openai.Options{APIKey: "k", BaseURL: srv.BaseURL, Model: "gpt-4o", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	e, err := agentctx.Open(t.Context(), agentctx.Options{Model: "gpt-4o", Budget: 8000, MaxTokens: 500, NoWorkspace: true,
		Tools: []chat.ToolDef{bigTool{}.Def()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	var comps []agent.CompactionEvent
	var usage []agent.UsageEvent
	reminders := 0
	a, err := agent.New(agent.Options{Engine: e, Model: m, Tools: []tools.Tool{bigTool{}}, Events: func(ev agent.Event) {
		switch ev.Kind {
		case agent.EventReminder:
			reminders += len(ev.Reminders)
		case agent.EventCompaction:
			comps = append(comps, *ev.Compaction)
		case agent.EventUsage:
			usage = append(usage, *ev.Usage)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(t.Context(), "Read every file.")
	if err != nil || res.StopReason != agent.StopDone {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if len(comps) == 0 {
		t.Fatalf("no compaction event; engine stats %+v", e.Stats())
	}
	for _, c := range comps {
		if len(c.Levels) == 0 || c.TokensAfter >= c.TokensBefore {
			t.Errorf("compaction event %+v", c)
		}
	}
	for _, u := range usage {
		if u.RequestTokens > u.Budget {
			t.Errorf("usage %+v: request over the budget", u)
		}
	}
	if got := e.Stats().Reminders; reminders != got || got == 0 {
		t.Errorf("%d reminders in events, the engine sent %d", reminders, got)
	}
	t.Logf("%d compactions, %d calls, engine %+v", len(comps), res.ModelCalls, e.Stats())
}

func TestRunPermissionError(t *testing.T) {
	t.Parallel()
	write := &fileTool{name: "write", access: tools.AccessWrite}
	script := func(r providertest.Request) providertest.Reply {
		return providertest.Reply{ToolCalls: []chat.ToolCall{{Name: "write", Arguments: json.RawMessage(`{"path":"a.go"}`)}}}
	}
	f := setup(t, providertest.WireOpenAI, false, providertest.Options{Script: script}, write)
	errTTY := errors.New("no terminal to ask on")
	guard := &agent.Guard{Ask: func(context.Context, chat.ToolCall, tools.Access, string) (agent.Decision, error) {
		return agent.DecisionDeny, errTTY
	}}
	a, err := agent.New(agent.Options{Engine: f.engine, Model: f.model, Tools: []tools.Tool{write}, Permission: guard})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Run(t.Context(), "Write.")
	if !errors.Is(err, errTTY) || res.StopReason != agent.StopError || len(write.calls()) != 0 {
		t.Fatalf("Run = %+v, %v; want the guard's error, nothing written", res, err)
	}
}
