package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/agent/tools"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/provider"
)

// ErrNoEngine and ErrNoModel report a missing [Options] field: New made
// nothing. Pass the Engine and the Model.
var (
	ErrNoEngine = errors.New("agent: no Engine in Options")
	ErrNoModel  = errors.New("agent: no Model in Options")
)

// DeniedResult is the content of the result a tool call denied by the
// permission guard gets.
const DeniedResult = "denied by the user"

// InterruptedNote is the user message [Agent.Run] adds to the session when
// it is interrupted, so that the model knows its last answer or tool call
// was cut short by the user, not finished (Claude Code records the same
// kind of note).
const InterruptedNote = "[Request interrupted by the user]"

// StopReason says why [Agent.Run] stopped.
type StopReason string

// The stop reasons.
const (
	// StopDone: the model answered without tool calls.
	StopDone StopReason = "done"
	// StopMaxTurns: [Options.MaxTurns] model calls were made.
	StopMaxTurns StopReason = "max_turns"
	// StopInterrupted: ctx was cancelled.
	StopInterrupted StopReason = "interrupted"
	// StopError: a provider, tool or Engine error ended the Run.
	StopError StopReason = "error"
	// StopDenied: a call was refused by a [Refusal] with Stop set;
	// [Result.Refusal] says which.
	StopDenied StopReason = "denied"
)

// Options configures an [Agent].
type Options struct {
	// Engine manages the session's context. Required. Its Options.Tools
	// should hold the Def of each tool in Tools (and
	// agentctx.RecallTool() to offer recall_output).
	Engine *agentctx.Engine
	// Model answers. Required. When it implements [provider.Streamer]
	// the reply is streamed.
	Model provider.Model
	// Tools are the tools the model may call, by their Def().Name. A call
	// of recall_output with no such tool here is answered by the Engine
	// (agentctx.Engine.HandleRecall). Optional.
	Tools []tools.Tool
	// Permission decides each tool call. Optional. Defaults to a [Guard]
	// without Ask: reads run, writes and commands are denied.
	Permission Permission
	// MaxTurns caps the model calls of one Run (retries not counted).
	// Optional. Defaults to 50.
	MaxTurns int
	// Events receives the Run's events, synchronously, in order.
	// Optional.
	Events func(Event)
	// Retries is how many times a rate-limited or unavailable provider
	// (provider.ErrRateLimited, provider.ErrUnavailable) is retried per
	// model call, the request built again each time. Optional. Defaults
	// to 3; negative means none.
	Retries int
	// RetryDelay is the first retry's wait, doubled at each retry up to
	// 8 times it. Optional. Defaults to 500 ms.
	RetryDelay time.Duration
	// Checkpoints records, before each write_file or edit_file call
	// runs, the file's content, under the user message of the Run, so
	// that a rewind can restore it ([Checkpoints.Restore]). Optional.
	Checkpoints *Checkpoints
}

// Result is what one [Agent.Run] did.
type Result struct {
	// Text is the model's last text.
	Text string `json:"text"`
	// ModelCalls counts the model calls answered; ToolCalls the tool
	// calls run or denied.
	ModelCalls int `json:"model_calls"`
	ToolCalls  int `json:"tool_calls"`
	// StopReason is why the Run stopped.
	StopReason StopReason `json:"stop_reason"`
	// Refusal is the refusal that stopped the Run ([StopDenied]); nil
	// otherwise.
	Refusal *Refusal `json:"-"`
}

// Agent runs the loop of one session (its Engine's). Safe for concurrent
// use: Run calls are serialized, one at a time per Agent.
type Agent struct {
	opts  Options
	tools map[string]tools.Tool
	mu    sync.Mutex
	// emitMu serializes the events.
	emitMu sync.Mutex
	// nested is set on a sub-agent's: its writes belong to its
	// parent's turn in Options.Checkpoints.
	nested bool
}

// New returns an agent for opts. Errors: [ErrNoEngine], [ErrNoModel].
func New(opts Options) (*Agent, error) {
	if opts.Engine == nil {
		return nil, ErrNoEngine
	}
	if opts.Model == nil {
		return nil, ErrNoModel
	}
	if opts.Permission == nil {
		opts.Permission = &Guard{}
	}
	if opts.MaxTurns <= 0 {
		opts.MaxTurns = 50
	}
	if opts.Retries == 0 {
		opts.Retries = 3
	}
	if opts.RetryDelay <= 0 {
		opts.RetryDelay = 500 * time.Millisecond
	}
	a := &Agent{opts: opts, tools: map[string]tools.Tool{}}
	for _, t := range opts.Tools {
		a.tools[t.Def().Name] = t
	}
	return a, nil
}

// Run adds userMessage to the session and runs the loop until the model
// answers without tool calls ([StopDone]) or MaxTurns model calls were
// made ([StopMaxTurns]); see the package documentation. When ctx is
// cancelled it returns promptly with [StopInterrupted] and an error
// wrapping ctx.Err(), the session intact and [InterruptedNote] added. Other errors (a provider
// failure not retried or retries exhausted, a denied overflow recovery,
// the Engine's) come with [StopError]; the Result says what was done.
func (a *Agent) Run(ctx context.Context, userMessage string) (res Result, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	turn := 0
	e := a.opts.Engine
	added := false
	defer func() {
		if err != nil {
			res.StopReason = StopError
			if ctx.Err() != nil {
				res.StopReason = StopInterrupted
			}
		}
		if res.StopReason == StopInterrupted && added {
			// The calls left open are answered by the Engine first.
			if nerr := e.Add(context.WithoutCancel(ctx), chat.NewText(chat.RoleUser, InterruptedNote)); nerr != nil {
				err = errors.Join(err, fmt.Errorf("agent: note the interruption: %w", nerr))
			}
		}
		a.emit(Event{Kind: EventTurnEnd, Turn: turn, Text: res.Text, StopReason: res.StopReason})
	}()
	if cp := a.opts.Checkpoints; cp != nil && !a.nested {
		if err := cp.begin(userMessage); err != nil {
			return res, fmt.Errorf("agent: %w", err)
		}
	}
	if err := e.Add(ctx, chat.NewText(chat.RoleUser, userMessage)); err != nil {
		return res, fmt.Errorf("agent: add the user message: %w", err)
	}
	added = true
	for {
		if res.ModelCalls >= a.opts.MaxTurns {
			res.StopReason = StopMaxTurns
			return res, nil
		}
		turn++
		resp, err := a.call(ctx, turn)
		if err != nil {
			return res, err
		}
		res.ModelCalls++
		if err := e.Add(ctx, resp.Message); err != nil {
			return res, fmt.Errorf("agent: add the reply: %w", err)
		}
		res.Text = resp.Message.Text()
		calls := resp.Message.ToolCalls()
		if len(calls) == 0 {
			res.StopReason = StopDone
			return res, nil
		}
		for i := 0; i < len(calls); {
			c := calls[i]
			if err := ctx.Err(); err != nil {
				return res, fmt.Errorf("agent: interrupted before tool %s: %w", c.Name, err)
			}
			// A run of calls of concurrent tools (sub-agents) starts
			// together; their results are added in the reply's order.
			j := i + 1
			for a.concurrent(c.Name) && j < len(calls) && a.concurrent(calls[j].Name) {
				j++
			}
			ran := a.runTools(ctx, turn, calls[i:j])
			i = j
			for _, r := range ran {
				if err := a.addResult(ctx, &res, r); err != nil || res.StopReason == StopDenied {
					return res, err
				}
			}
		}
	}
}

// ran is one tool call's outcome, as runTool returns it.
type ran struct {
	call chat.ToolCall
	out  chat.ToolResult
	ref  *Refusal
	err  error
}

// runTools runs calls: one in this goroutine, several side by side.
func (a *Agent) runTools(ctx context.Context, turn int, calls []chat.ToolCall) []ran {
	out := make([]ran, len(calls))
	if len(calls) == 1 {
		out[0].call = calls[0]
		out[0].out, out[0].ref, out[0].err = a.runTool(ctx, turn, calls[0])
		return out
	}
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i].call = c
			out[i].out, out[i].ref, out[i].err = a.runTool(ctx, turn, c)
		}()
	}
	wg.Wait()
	return out
}

// concurrent reports whether the tool named name runs side by side with
// its like ([ConcurrentTool]).
func (a *Agent) concurrent(name string) bool {
	t, ok := a.tools[name].(ConcurrentTool)
	return ok && t.Concurrent()
}

// addResult adds one call's result to the session; a refusal with Stop
// sets res's StopReason to StopDenied.
func (a *Agent) addResult(ctx context.Context, res *Result, r ran) error {
	c, out, ref := r.call, r.out, r.ref
	if r.err != nil {
		return r.err
	}
	res.ToolCalls++
	if err := ctx.Err(); err != nil {
		// The Engine answers the call itself on the next message.
		return fmt.Errorf("agent: interrupted during tool %s: %w", c.Name, err)
	}
	if err := a.opts.Engine.Add(ctx, chat.Message{Role: chat.RoleTool, Parts: []chat.Part{out}}); err != nil {
		return fmt.Errorf("agent: add the result of %s: %w", c.Name, err)
	}
	if ref != nil && ref.Stop {
		// The calls left are answered by the Engine when the next
		// message comes.
		res.StopReason, res.Refusal = StopDenied, ref
	}
	return nil
}

// call makes one model call: builds the request, sends it, recovers an
// overflow, retries a rate limit or an unavailable provider.
func (a *Agent) call(ctx context.Context, turn int) (*provider.Response, error) {
	e := a.opts.Engine
	req, err := e.Request(ctx)
	if err != nil {
		return nil, fmt.Errorf("agent: build the request: %w", err)
	}
	var shown *agentctx.Request
	for retry := 0; ; {
		if req != shown && len(req.Compactions) > 0 {
			a.emitCompaction(turn, req)
		}
		shown = req
		var kinds []string
		for _, r := range req.Tail {
			// The tracker's and the working memory's sections ride in
			// the tail of every request; they are not reminders.
			if r.Kind != prompt.KindTracker && r.Kind != prompt.KindWorkingMemory {
				kinds = append(kinds, r.Kind)
			}
		}
		if len(kinds) > 0 {
			a.emit(Event{Kind: EventReminder, Turn: turn, Reminders: kinds})
		}
		resp, err := a.send(ctx, turn, req)
		if err == nil {
			a.emitUsage(turn, req, resp)
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("agent: interrupted during the model call: %w", ctx.Err())
		}
		if errors.Is(err, provider.ErrContextOverflow) {
			next, rerr := e.RecoverOverflow(ctx, err)
			if rerr != nil {
				a.emit(Event{Kind: EventError, Turn: turn, Error: &ErrorEvent{Message: rerr.Error(), Overflow: true}})
				return nil, fmt.Errorf("agent: recover from the overflow: %w", rerr)
			}
			a.emit(Event{Kind: EventError, Turn: turn, Error: &ErrorEvent{Message: err.Error(), Overflow: true, Recovered: true}})
			req = next
			continue
		}
		retryable := errors.Is(err, provider.ErrRateLimited) || errors.Is(err, provider.ErrUnavailable)
		if !retryable || retry >= a.opts.Retries {
			a.emit(Event{Kind: EventError, Turn: turn, Error: &ErrorEvent{Message: err.Error()}})
			return nil, fmt.Errorf("agent: model call: %w", err)
		}
		retry++
		a.emit(Event{Kind: EventError, Turn: turn, Error: &ErrorEvent{Message: err.Error(), Retry: retry}})
		if err := sleep(ctx, a.backoff(retry)); err != nil {
			return nil, fmt.Errorf("agent: interrupted while waiting to retry: %w", err)
		}
		if req, err = e.Request(ctx); err != nil {
			return nil, fmt.Errorf("agent: build the request: %w", err)
		}
	}
}

// send sends req, streaming when the model can.
func (a *Agent) send(ctx context.Context, turn int, req *agentctx.Request) (*provider.Response, error) {
	if s, ok := a.opts.Model.(provider.Streamer); ok {
		return s.Stream(ctx, req.Provider(), func(delta string) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if delta != "" {
				a.emit(Event{Kind: EventTextDelta, Turn: turn, Text: delta})
			}
			return nil
		})
	}
	resp, err := a.opts.Model.Send(ctx, req.Provider())
	if err == nil {
		if t := resp.Message.Text(); t != "" {
			a.emit(Event{Kind: EventTextDelta, Turn: turn, Text: t})
		}
	}
	return resp, err
}

// runTool asks the permission guard and runs one call; ref is the
// guard's [Refusal], if it refused with one. Its error is the guard's.
func (a *Agent) runTool(ctx context.Context, turn int, c chat.ToolCall) (_ chat.ToolResult, ref *Refusal, _ error) {
	a.emit(Event{Kind: EventToolCall, Turn: turn, Call: &ToolCallEvent{ID: c.ID, Name: c.Name, Arguments: c.Arguments}})
	out := chat.ToolResult{ToolCallID: c.ID, ToolName: c.Name}
	denied := false
	t, ok := a.tools[c.Name]
	switch {
	case !ok && c.Name == agentctx.RecallToolName:
		out = a.opts.Engine.HandleRecall(ctx, c)
	case !ok:
		out.Content = fmt.Sprintf("unknown tool %q", c.Name)
		out.IsError = true
	default:
		d, err := a.opts.Permission.Allow(ctx, c, t.Access())
		if errors.As(err, &ref) {
			ref.Call = c
			out.Content, out.IsError, denied = ref.Content(), true, true
			break
		}
		if err != nil {
			return out, nil, fmt.Errorf("agent: permission for %s: %w", c.Name, err)
		}
		if d == DecisionDeny {
			out.Content, out.IsError, denied = DeniedResult, true, true
			break
		}
		cp := a.opts.Checkpoints
		if cp != nil && t.Access() == tools.AccessWrite {
			if err := cp.before(c); err != nil {
				out.Content, out.IsError = "Error: not run: "+err.Error(), true
				break
			}
		}
		out = t.Run(context.WithValue(ctx, emitterKey{}, a.emit), c)
		if cp != nil && t.Access() == tools.AccessWrite {
			if err := cp.after(c); err != nil {
				out.Content += "\n(" + err.Error() + ")"
			}
		}
		out.ToolCallID = c.ID
		if out.ToolName == "" {
			out.ToolName = c.Name
		}
	}
	a.emit(Event{Kind: EventToolResult, Turn: turn, Result: &ToolResultEvent{ID: c.ID, Name: c.Name, Bytes: len(out.Content), IsError: out.IsError, Denied: denied, Content: out.Content}})
	return out, ref, nil
}

func (a *Agent) emitCompaction(turn int, req *agentctx.Request) {
	ev := &CompactionEvent{TokensBefore: req.Compactions[0].TokensBefore, TokensAfter: req.Compactions[len(req.Compactions)-1].TokensAfter}
	for _, r := range req.Compactions {
		ev.Levels = append(ev.Levels, r.Level.String())
	}
	a.emit(Event{Kind: EventCompaction, Turn: turn, Compaction: ev})
}

// emitUsage reports what a request that got its reply cost.
func (a *Agent) emitUsage(turn int, req *agentctx.Request, resp *provider.Response) {
	u := resp.Usage
	ev := &UsageEvent{
		PromptTokens: u.PromptTokens(), CachedTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens,
		OutputTokens: u.OutputTokens, RequestTokens: req.Tokens, Budget: req.Budget,
		Model: cmp.Or(resp.Model, a.opts.Engine.Model().Name),
	}
	if p, ok := model.PriceOf(ev.Model); ok {
		ev.CostUSD = p.Cost(u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.OutputTokens)
	}
	a.emit(Event{Kind: EventUsage, Turn: turn, Usage: ev})
}

// emit sends ev to Options.Events, one event at a time: the
// sub-agents of concurrent task calls emit from their goroutines.
func (a *Agent) emit(ev Event) {
	if a.opts.Events != nil {
		a.emitMu.Lock()
		defer a.emitMu.Unlock()
		a.opts.Events(ev)
	}
}

func (a *Agent) backoff(retry int) time.Duration {
	d := a.opts.RetryDelay
	for i := 1; i < retry && d < 8*a.opts.RetryDelay; i++ {
		d *= 2
	}
	return min(d, 8*a.opts.RetryDelay)
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
