package replay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/track"
	"github.com/agentctx/agentctx/transcript"
	"github.com/agentctx/agentctx/window"
	"github.com/agentctx/agentctx/workmem"
)

// DefaultModel is the model assumed when neither the caller nor the
// transcript names one: the Engine's ([agentctx.DefaultModel]).
const DefaultModel = agentctx.DefaultModel

// Options configures [Run]. The zero value replays with the transcript's
// model, its default budget policy and the tiered strategy.
type Options struct {
	// Model overrides the model the transcript records. Optional.
	// Defaults to the transcript's model, else [DefaultModel].
	Model string
	// Budget is the prompt budget in tokens. Optional. Defaults to the
	// model's budget under Policy.
	Budget int
	// Policy computes the budget from the model when Budget is 0.
	// Optional. Defaults to [model.DefaultPolicy].
	Policy model.Policy
	// Strategy compacts the window before each model call. Optional.
	// Defaults to [compact.Tiered] with seed 003's thresholds (an Engine
	// opened without a strategy summarizes instead: a replay measures
	// compaction without a model).
	Strategy compact.Strategy
	// Steps asks for one [Step] per message in [Result.Steps].
	Steps bool
	// EndTexts asks, with WorkingMemory, for [Result].TrackerSection and
	// Context: the tracker's section and the working memory rendered and
	// counted once more at the end, as a next request would carry them
	// (`agentctx replay -v` prints them). Optional.
	EndTexts bool
	// Progress, if set, is called after each message with the number of
	// messages done and the total.
	Progress func(done, total int)
	// Logger receives debug records. Optional. Defaults to no logging.
	Logger *slog.Logger

	// Store, when set, saves the replay as a session: Run creates it
	// (Origin "replay:<format>:<file>", the replayed model, the title from
	// the first user prompt), appends every message as it is added to the
	// window (the message actually added: a tool result that answers no
	// call goes in as the user text that replaced it) and, after each
	// compaction, a compact boundary followed by the window as compaction
	// left it (session.Recorder). Resuming the session then gives the
	// window as it was when the replay ended. Optional. Defaults to nil:
	// nothing is saved.
	Store session.Store
	// Project is the project path of the saved session. Optional.
	// Defaults to the current working directory. Ignored without Store.
	Project string
	// SessionID is the id of the saved session. Optional. Defaults to a
	// fresh id ([session.NewID]). Ignored without Store. A session of that
	// id must not exist: Run returns an error wrapping
	// [session.ErrExists].
	SessionID string
	// StopAfter, when positive, stops the replay after that many messages
	// of the trajectory, as if the agent had been stopped there. Optional.
	// Defaults to 0: every message.
	StopAfter int
	// LimitToolResults passes every tool result through the tool-result
	// limiter (seed 003's limitToolResult, [compact.LimitToolResult]) at
	// the window's usage ratio as it enters the window. Optional.
	// Defaults to false; `agentctx replay` turns it on.
	LimitToolResults bool
	// Reminders turns system reminders on (package reminder): todo list,
	// security, context pressure; [Result].Reminders lists those sent.
	// Optional. Defaults to false; `agentctx replay` turns it on.
	Reminders bool
	// WorkingMemory feeds every tool call and result to a runtime state
	// tracker (package track) and an ActiveContext (package workmem), and
	// reports them in [Result].Tracker, Distill, TrackerSection and
	// Context. With Store, their state is saved in the session at each
	// turn's end. Optional. Defaults to false; `agentctx replay` turns it
	// on.
	WorkingMemory bool
	// CheckEvery, when positive, checks the window's invariants by
	// walking the whole window ([agentctx.Engine.CheckFull], O(messages))
	// after every CheckEvery-th model call, the others incrementally
	// ([agentctx.Engine.Check], O(messages added)); both find the same
	// violations. Optional. Defaults to 0: always incrementally.
	CheckEvery int
	// Observe, if set, is called with the engine after each model call's
	// request is built (req set; i is the index of the assistant message
	// about to be added) and after message i was added (req nil). It must
	// only read the engine (Messages, WindowStats). Tests use it to record
	// what compaction kept (the golden replay tables). Optional.
	Observe func(i int, req *agentctx.Request, eng *agentctx.Engine)
}

// Result is what one replay found. The JSON names are part of agentctx's
// command-line contract (`agentctx replay --json`): scripts rely on them.
type Result struct {
	File   string `json:"file"`
	Index  int    `json:"index"`
	ID     string `json:"id,omitempty"`
	Format string `json:"format"`
	// Model is the model replayed; ModelSource says where it came from:
	// "flag", "transcript" or "default".
	Model        string `json:"model"`
	ModelSource  string `json:"model_source"`
	ModelWarning string `json:"model_warning,omitempty"`
	// Encoding is the tokenizer used; EncodingEstimated is true when the
	// model has no public tokenizer and the encoding is a stand-in.
	Encoding          string `json:"encoding"`
	EncodingEstimated bool   `json:"encoding_estimated"`
	ContextWindow     int    `json:"context_window"`
	// Budget is the prompt budget in tokens; BudgetSource is "flag" or the
	// policy's name.
	Budget       int    `json:"budget"`
	BudgetSource string `json:"budget_source"`
	Strategy     string `json:"strategy"`
	// ToolTokens is the size of the tool schemas the transcript records,
	// counted in every prompt.
	ToolTokens int `json:"tool_tokens"`
	Messages   int `json:"messages"`
	ModelCalls int `json:"model_calls"`
	// PeakPromptTokens is the largest prompt sent, in tokens, after
	// compaction.
	PeakPromptTokens  int `json:"peak_prompt_tokens"`
	FinalPromptTokens int `json:"final_prompt_tokens"`
	// CallsOverBudget counts model calls whose prompt exceeded the budget;
	// CallsOverBudgetPinned counts those among them where even the pinned
	// parts, cut as far as possible, did not fit.
	CallsOverBudget       int `json:"calls_over_budget"`
	CallsOverBudgetPinned int `json:"calls_over_budget_pinned"`
	InvariantViolations   int `json:"invariant_violations"`
	// Compactions counts the levels applied, by level name (L1, L2, L3,
	// cut, mask); every level is present, zero or not.
	Compactions map[string]int `json:"compactions"`
	// TokensRemoved is the sum over all compactions of tokens before minus
	// tokens after.
	TokensRemoved int `json:"tokens_removed"`
	// RecordedCompactions counts the compactions the transcript itself
	// records (the original agent's).
	RecordedCompactions int `json:"recorded_compactions"`
	// OrphanResults counts tool results that answered no call and were
	// added as user text instead: those the reader found answering no
	// earlier call ([transcript.Trajectory].Orphans: out-of-order lines,
	// a missing call) and those the window found so.
	OrphanResults int `json:"orphan_results"`
	// InterruptedCalls counts tool calls without a result before a later
	// message, answered with the Engine's synthetic result
	// (agentctx.InterruptedResult).
	InterruptedCalls int `json:"interrupted_calls"`
	// UsageDiff compares agentctx's count of the uncompacted context with
	// the provider's reported prompt sizes; nil when the transcript has no
	// usage.
	UsageDiff *UsageDiff `json:"usage_diff"`
	// Problems lists malformed input the reader skipped (a torn or
	// garbage line, a line that is not a record of the format), one
	// line each naming the line and byte offset; any fails --strict. For
	// a file of several trajectories they are on the first.
	Problems []string `json:"problems,omitempty"`
	// Dropped counts what the reader read but did not understand and
	// left out, by kind ([transcript.Trajectory].Dropped: `content block
	// "x"`, "message without role", …); DroppedOverTrace tells that it
	// is more than a trace ([transcript.Trajectory.MoreThanTrace]:
	// above [transcript.TraceShare] of the messages, or any tool call or
	// result), which fails --strict.
	Dropped          map[string]int `json:"dropped,omitempty"`
	DroppedOverTrace bool           `json:"dropped_over_trace,omitempty"`
	// NonContext counts, by kind, what the reader skipped as known
	// non-context: records the agent wrote but never sends to the model
	// ([transcript.Trajectory].NonContext, [transcript.NonContextKinds]).
	// Nothing of the conversation is missing; never a --strict failure.
	NonContext map[string]int `json:"non_context,omitempty"`
	// Notes says where the messages replayed differ from what the
	// provider was sent, or what else the file held
	// ([transcript.Trajectory].Notes).
	Notes []string `json:"notes,omitempty"`
	// DroppedUsage lists the usage records the reader dropped as
	// implausible (a count negative or above chat.MaxCallTokens), one
	// line each naming the message ([transcript.Trajectory].DroppedUsage).
	DroppedUsage []string `json:"dropped_usage,omitempty"`
	// WallMS is the replay's wall time in milliseconds, LoadMS + ParseMS
	// + EngineMS: LoadMS is building the model's counter (its vocabulary,
	// once per process) plus what the caller adds with [Result.AddTimes]
	// (`agentctx replay`: the process's start-up), ParseMS is reading the
	// transcript (added by the caller: Run gets it read), EngineMS is the
	// replay through the engine. Summed over the results of one
	// `agentctx replay`, WallMS is the process's time from its start to
	// the end of the last replay.
	WallMS   float64 `json:"wall_ms"`
	LoadMS   float64 `json:"load_ms"`
	ParseMS  float64 `json:"parse_ms"`
	EngineMS float64 `json:"engine_ms"`
	Steps    []Step  `json:"steps,omitempty"`
	// Retention is how many of the key facts of the history that
	// summarizing compactions removed are still in the window after each,
	// over all of them ([compact.Retention.Add]): per category and
	// overall. Nil when no summarizing compaction ran.
	Retention *compact.Retention `json:"retention,omitempty"`
	// LimitedResults counts the tool results the limiter cut, and
	// LimitedChars the runes it removed (with LimitToolResults).
	LimitedResults int `json:"limited_results"`
	LimitedChars   int `json:"limited_chars"`
	// Tracker is the runtime state tracker's state at the end and Distill
	// ActiveContext's report (with WorkingMemory).
	Tracker *track.State    `json:"tracker,omitempty"`
	Distill *workmem.Report `json:"distill,omitempty"`
	// TrackerSection is the tracker's prompt section as the next request
	// would carry it (the entries of calls whose results compaction
	// removed; "" while the window shows them all) and Context
	// ActiveContext's BuildContext in [ContextTokens] tokens, at the end
	// (with WorkingMemory and EndTexts).
	TrackerSection string `json:"-"`
	Context        string `json:"-"`
	// Summaries are the records of the summarizing compactions
	// ([compact.LevelSummary]), in order, each with its own retention.
	Summaries []compact.Record `json:"summaries,omitempty"`
	// SummariesPerCall is len(Summaries) over ModelCalls (0 without
	// calls): how often a model call paid for a summary. The summarizing
	// strategy's guard keeps it at most one per
	// [compact.DefaultMinCallsBetween] calls after the first.
	SummariesPerCall float64 `json:"summaries_per_call"`
	// SummaryEscalations counts the summaries the guard declined, the
	// window being compacted by the next levels instead
	// ([compact.Record].Escalated).
	SummaryEscalations int `json:"summary_escalations"`
	// PromptTokens is the sum of every request's size, in tokens, and
	// CacheReadTokens the part of it a provider's prompt cache would
	// serve: for each request, the previous request's cached prefix (up
	// to its last cache breakpoint) when this request starts with exactly
	// those messages. CacheHitRatio is their ratio. Compaction that
	// rewrites the history (an L1 cut, a summary) breaks the prefix.
	PromptTokens    int     `json:"prompt_tokens"`
	CacheReadTokens int     `json:"cache_read_tokens"`
	CacheHitRatio   float64 `json:"cache_hit_ratio"`
	// Cost is what the model calls would cost in US dollars with the
	// strategy's compaction and without any, cache writes caused by
	// compactions counted ([Cost]); nil when the model's price is not
	// known (never a cost of 0 for an unknown price).
	Cost *Cost `json:"cost,omitempty"`
	// Reminders are the system reminders sent with the model calls (with
	// [Options].Reminders), in order.
	Reminders []Reminder `json:"reminders,omitempty"`
	// SessionID is the id of the session the replay was saved as, when
	// [Options].Store was set.
	SessionID string `json:"session_id,omitempty"`
	// Window is the live window when the replay ended, owned by the
	// caller (not safe for concurrent use, like any window). It is not
	// part of the JSON form.
	Window *window.Window `json:"-"`
}

// Reminder is one system reminder sent with the model call before
// message Step (1-based).
type Reminder struct {
	Step int    `json:"step"`
	Kind string `json:"kind"`
	Key  string `json:"key"`
	Text string `json:"text"`
}

// UsageDiff compares, call by call, agentctx's own size of the prompt the
// original agent sent (the uncompacted context, following the transcript's
// own recorded compactions) with the provider's reported prompt size.
// Relative differences are (ours − provider) / provider.
//
// Mean and Max are the mean and maximum absolute relative difference of the
// plain count; Bias is the mean signed one (negative: we count less, as when
// the transcript does not record the system prompt and tool schemas).
// AnchoredMean and AnchoredMax are the same for the usage-anchored count:
// the previous call's reported size plus our count of what was added since,
// which is how the engine accounts live; AnchoredCalls is how many calls had
// a previous anchor. FirstCallGap is the provider's size of the first
// call with usage minus ours, in tokens: mostly what the transcript does not
// record (the system prompt and tool schemas Claude Code and Codex send).
type UsageDiff struct {
	Calls         int     `json:"calls"`
	Mean          float64 `json:"mean"`
	Max           float64 `json:"max"`
	Bias          float64 `json:"bias"`
	AnchoredCalls int     `json:"anchored_calls"`
	AnchoredMean  float64 `json:"anchored_mean"`
	AnchoredMax   float64 `json:"anchored_max"`
	FirstCallGap  int     `json:"first_call_gap"`
}

// Step is one message of a replay. PromptTokens is the window's size after
// the message was handled; for an assistant message it is the size of the
// prompt sent for that call (after compaction, before the reply is added).
// Usage is PromptTokens over the budget. Action says what the engine did:
// the compaction levels applied, "over budget", or "" for nothing.
type Step struct {
	Step         int     `json:"step"`
	Role         string  `json:"role"`
	TokensAdded  int     `json:"tokens_added"`
	PromptTokens int     `json:"prompt_tokens"`
	Usage        float64 `json:"usage"`
	Action       string  `json:"action,omitempty"`
	// ProviderPromptTokens is the provider's reported prompt size for this
	// call, where recorded.
	ProviderPromptTokens int `json:"provider_prompt_tokens,omitempty"`
	// UncompactedTokens is, for a model call, the size in tokens of the
	// whole history before it, never compacted (neither by agentctx nor
	// by the transcript's own recorded compactions, each tool result
	// whole), with the tool schemas and the reply priming. 0 for other
	// messages.
	UncompactedTokens int `json:"uncompacted_tokens,omitempty"`
	// CacheReadTokens is, for a model call, the part of PromptTokens a
	// provider's prompt cache would serve: the previous call's cached
	// prefix when this prompt starts with it (see [Result].CacheReadTokens),
	// else 0.
	CacheReadTokens int `json:"cache_read_tokens,omitempty"`
}

// Run replays one trajectory through an [agentctx.Engine], as the agent
// would have used it: every message is added to the engine, and before
// each assistant message the engine assembles the request for that model
// call (compacting first when needed), which is measured against the
// budget. The engine runs without workspace context (the trajectory's
// workspace is not here) and with the transcript's own system prompt in
// the window. It returns an error only when the model's counter cannot be
// built, ctx is cancelled, or saving to [Options].Store fails (an error
// wrapping the store's); everything about the trajectory itself is in the
// [Result]. Messages is the number of messages replayed (fewer than the
// trajectory's with [Options].StopAfter).
func Run(ctx context.Context, tr *transcript.Trajectory, opts Options) (*Result, error) {
	begin := time.Now()
	msgs := tr.Messages
	if opts.StopAfter > 0 && opts.StopAfter < len(msgs) {
		msgs = msgs[:opts.StopAfter]
	}
	res := newResult(tr, len(msgs), opts)
	counter, err := res.setModel(opts)
	if err != nil {
		return nil, err
	}
	strategy := opts.Strategy
	if strategy == nil {
		strategy = &compact.Tiered{Logger: opts.Logger}
	}
	if st, ok := strategy.(compact.Stateful); ok {
		// It remembers one window: this replay's, from scratch.
		strategy = st.Fresh()
	}
	res.Strategy = strategy.Name()
	// The engine's clock starts once the counter is built: building a
	// BPE vocabulary is a one-time cost per process, counted as load.
	start := time.Now()
	res.LoadMS = ms(start.Sub(begin))
	eng, err := open(ctx, tr, res, opts, strategy)
	if err != nil {
		return nil, err
	}
	res.ToolTokens = eng.ToolTokens() // tr.Tools, counted once
	usage := newUsageComparison(counter, eng.WindowStats().Overhead, res.ToolTokens, tr.Compactions)
	var cache cacheSim
	calls := 0
	costs := newCostSim(res.Model)
	for i, m := range msgs {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		usage.at(i)
		var step Step
		if m.Role == chat.RoleAssistant {
			req, err := eng.Request(ctx)
			if err != nil {
				return nil, fmt.Errorf("replay: %s: request before message %d: %w", tr.File, i, err)
			}
			if calls++; opts.CheckEvery > 0 && calls%opts.CheckEvery == 0 {
				res.InvariantViolations += len(eng.CheckFull())
			} else {
				res.InvariantViolations += len(eng.Check())
			}
			read := cache.add(req.Provider(), req.Kept, req.Tokens, req.CachedTokens)
			step = res.call(i, req)
			step.CacheReadTokens = read
			usage.call(m, &step)
			costs.call(req.Tokens, req.CachedTokens, read, len(req.Compactions) > 0, step.UncompactedTokens)
			if opts.Observe != nil {
				opts.Observe(i, req, eng)
			}
		}
		ws, err := add(ctx, eng, m, usage)
		if err != nil {
			return nil, fmt.Errorf("replay: %s: message %d: %w", tr.File, i, err)
		}
		if m.Role == chat.RoleAssistant {
			costs.reply(ws.LastTokens)
		}
		if opts.Observe != nil {
			opts.Observe(i, nil, eng)
		}
		if opts.Steps {
			res.step(i, m, step, ws)
		}
		if opts.Progress != nil {
			opts.Progress(i+1, len(msgs))
		}
	}
	if err := res.finish(eng, opts); err != nil {
		return nil, fmt.Errorf("replay: %s: %w", tr.File, err)
	}
	res.UsageDiff = usage.result()
	res.PromptTokens, res.CacheReadTokens, res.CacheHitRatio = cache.tokens, cache.read, cache.ratio()
	res.Cost = costs.result()
	if res.ModelCalls > 0 {
		res.SummariesPerCall = float64(len(res.Summaries)) / float64(res.ModelCalls)
	}
	res.EngineMS = ms(time.Since(start))
	res.AddTimes(0, 0)
	return res, nil
}

// AddTimes adds load to LoadMS and parse to ParseMS and sets WallMS to
// LoadMS + ParseMS + EngineMS: a caller that read the transcript, or
// started a process to replay it, charges that time to the result.
// Negative durations count as 0.
func (res *Result) AddTimes(load, parse time.Duration) {
	res.LoadMS += ms(max(load, 0))
	res.ParseMS += ms(max(parse, 0))
	res.WallMS = res.LoadMS + res.ParseMS + res.EngineMS
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// newResult starts the result of replaying n messages of tr: the
// trajectory's identity, the model and where it came from, every
// compaction level at zero.
func newResult(tr *transcript.Trajectory, n int, opts Options) *Result {
	res := &Result{
		File: tr.File, Index: tr.Index, ID: tr.ID, Format: string(tr.Format),
		Messages:            n,
		RecordedCompactions: len(tr.Compactions),
		Compactions:         map[string]int{},
	}
	for _, l := range compact.Levels() {
		res.Compactions[l.String()] = 0
	}
	for _, p := range tr.Problems {
		if errors.Is(p.Err, chat.ErrImplausibleUsage) {
			res.DroppedUsage = append(res.DroppedUsage, p.Err.Error())
			continue
		}
		res.Problems = append(res.Problems, fmt.Sprintf("line %d (byte %d): %v", p.Line, p.Offset, p.Err))
	}
	if len(tr.NonContext) > 0 {
		res.NonContext = maps.Clone(tr.NonContext)
	}
	if len(tr.Dropped) > 0 {
		res.Dropped = maps.Clone(tr.Dropped)
		res.DroppedOverTrace = tr.MoreThanTrace()
	}
	res.Notes = slices.Clone(tr.Notes)
	res.OrphanResults = tr.Orphans
	switch {
	case opts.Model != "":
		res.Model, res.ModelSource = opts.Model, "flag"
	case tr.Model != "":
		res.Model, res.ModelSource = tr.Model, "transcript"
	default:
		res.Model, res.ModelSource = DefaultModel, "default"
	}
	return res
}

// setModel looks the model up, sets its tokenizer, context window and
// the budget, and returns its counter. Errors: model.Counter's.
func (res *Result) setModel(opts Options) (token.Counter, error) {
	info := model.Lookup(res.Model)
	res.ModelWarning = model.Warning(info)
	res.Encoding, res.EncodingEstimated, res.ContextWindow = info.Encoding, info.EncodingEstimated, info.ContextWindow
	counter, err := model.Counter(info)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	policy := cmp.Or[model.Policy](opts.Policy, model.DefaultPolicy)
	res.Budget, res.BudgetSource = opts.Budget, "flag"
	if res.Budget <= 0 {
		res.Budget, res.BudgetSource = policy.Budget(info), policy.Name()
	}
	return counter, nil
}

// open opens the engine that replays tr, saving it as a session with
// [Options].Store.
func open(ctx context.Context, tr *transcript.Trajectory, res *Result, opts Options, strategy compact.Strategy) (*agentctx.Engine, error) {
	eopts := agentctx.Options{
		Model: res.Model, Budget: res.Budget, Strategy: strategy, Tools: tr.Tools,
		NoWorkspace: true, NoLimit: !opts.LimitToolResults, NoWorkingMemory: !opts.WorkingMemory,
		NoReminders: !opts.Reminders, Logger: opts.Logger,
		// The files the trajectory touched are not on this disk: never
		// judge them by it, never re-read them.
		Tracker:   track.Options{Stat: noStat},
		Rehydrate: agentctx.RehydrateOptions{ReadFile: noFile},
	}
	if opts.Store != nil {
		var err error
		if eopts, err = saveOptions(tr, opts, eopts); err != nil {
			return nil, err
		}
	}
	eng, err := agentctx.Open(ctx, eopts)
	if err != nil {
		return nil, fmt.Errorf("replay: %s: %w", tr.File, err)
	}
	res.SessionID = ""
	if opts.Store != nil {
		res.SessionID = eng.ID()
	}
	return eng, nil
}

// call records the request built before message i (0-based): its
// compactions, reminders and size, and returns the step's prompt size and
// action.
func (res *Result) call(i int, req *agentctx.Request) Step {
	recs := req.Compactions
	var actions []string
	for _, r := range recs {
		actions = append(actions, describe(r))
		res.compaction(r)
	}
	for _, r := range req.Tail {
		if r.Kind == prompt.KindTracker || r.Kind == prompt.KindWorkingMemory {
			continue
		}
		res.Reminders = append(res.Reminders, Reminder{Step: i + 1, Kind: r.Kind, Key: r.Key, Text: r.Text})
	}
	if len(req.Dropped) > 0 {
		actions = append(actions, "dropped "+strings.Join(req.Dropped, ", "))
	}
	res.ModelCalls++
	res.PeakPromptTokens = max(res.PeakPromptTokens, req.Tokens)
	if req.Over > 0 {
		res.CallsOverBudget++
		if len(recs) > 0 && recs[len(recs)-1].Level == compact.LevelCut {
			res.CallsOverBudgetPinned++
		}
		actions = append(actions, "OVER BUDGET")
	}
	return Step{PromptTokens: req.Tokens, Action: strings.Join(actions, "; ")}
}

// compaction counts one compaction level, and keeps a summary's record
// and retention.
func (res *Result) compaction(r compact.Record) {
	if r.Escalated {
		res.SummaryEscalations++
	}
	res.Compactions[r.Level.String()]++
	res.TokensRemoved += r.TokensRemoved()
	if r.Level != compact.LevelSummary {
		return
	}
	res.Summaries = append(res.Summaries, r)
	if r.Retention != nil {
		if res.Retention == nil {
			res.Retention = &compact.Retention{}
		}
		res.Retention.Add(*r.Retention)
	}
}

// finish takes the engine's counters, tracker and working memory, closes
// it and keeps its window.
func (res *Result) finish(eng *agentctx.Engine, opts Options) error {
	st := eng.Stats()
	res.OrphanResults += st.OrphanResults
	res.InterruptedCalls = st.Interrupted
	res.LimitedResults, res.LimitedChars = st.LimitedResults, st.LimitedChars
	if opts.WorkingMemory {
		if ts, ok := eng.TrackerState(); ok {
			res.Tracker = &ts
		}
		if opts.EndTexts {
			res.TrackerSection = eng.TrackerSection()
		}
		tokens := 0 // the report alone
		if opts.EndTexts {
			tokens = ContextTokens
		}
		text, d := eng.WorkingMemory(tokens)
		res.Context, res.Distill = text, &d
	}
	w, err := eng.CloseWindow()
	if err != nil {
		return err
	}
	// The window ends holding what the last request reserved outside it
	// (its tail); give it back the tool schemas alone, as a resumed
	// window has them before its first request.
	w.SetReserved(res.ToolTokens)
	res.InvariantViolations += len(w.Check())
	res.FinalPromptTokens = w.Size()
	res.Window = w
	return nil
}

// add adds m to the engine and grows the uncompacted context by it, as
// the original agent had it, and returns the window after it.
func add(ctx context.Context, eng *agentctx.Engine, m chat.Message, usage *usageComparison) (agentctx.WindowStats, error) {
	cut := eng.LimitedTokens()
	if err := eng.Add(ctx, m); err != nil {
		return agentctx.WindowStats{}, err
	}
	ws := eng.WindowStats()
	// The original agent had the whole result in its context: the
	// limiter counted what it kept out.
	usage.add(ws.LastTokens + eng.LimitedTokens() - cut)
	return ws, nil
}

// step appends the step of message i (0-based), m, to Steps: step as the
// call before it left it, completed from the window after it (ws).
func (res *Result) step(i int, m chat.Message, step Step, ws agentctx.WindowStats) {
	step.Step, step.Role, step.TokensAdded = i+1, string(ws.LastRole), ws.LastTokens
	if m.Role != chat.RoleAssistant {
		step.PromptTokens = ws.Size
	}
	if res.Budget > 0 {
		step.Usage = float64(step.PromptTokens) / float64(res.Budget)
	}
	res.Steps = append(res.Steps, step)
}

// usageComparison follows the uncompacted context as the original agent
// had it (following the transcript's own recorded compactions) and
// compares its size with the provider's reported one at each call
// ([UsageDiff]).
type usageComparison struct {
	counter  token.Counter
	ov       token.Overhead
	tools    int
	recorded map[int]transcript.Compaction
	shadow   int // the uncompacted context's size, in tokens
	full     int // the whole history's size, never compacted, in tokens
	anchor   token.Anchor
	plain    diffAcc
	anchored diffAcc
	firstGap int
}

func newUsageComparison(c token.Counter, ov token.Overhead, toolTokens int, recorded []transcript.Compaction) *usageComparison {
	u := &usageComparison{counter: c, ov: ov, tools: toolTokens, recorded: map[int]transcript.Compaction{}, shadow: toolTokens + ov.ReplyPriming}
	u.full = u.shadow
	for _, rc := range recorded {
		u.recorded[rc.At] = rc
	}
	return u
}

// at starts message i: where the transcript recorded a compaction, the
// context is what it left.
func (u *usageComparison) at(i int) {
	if c, ok := u.recorded[i]; ok {
		u.shadow = u.tools + token.Messages(u.counter, u.ov, c.Replacement)
		u.anchor = token.Anchor{}
	}
}

// call compares the context before assistant message m with the prompt
// size its usage reports, and notes that size in step.
func (u *usageComparison) call(m chat.Message, step *Step) {
	step.UncompactedTokens = u.full
	if m.Usage == nil || m.Usage.PromptTokens() <= 0 {
		return
	}
	reported := m.Usage.PromptTokens()
	step.ProviderPromptTokens = reported
	if u.plain.n == 0 {
		u.firstGap = reported - u.shadow
	}
	u.plain.add(u.shadow, reported)
	if u.anchor.Set {
		u.anchored.add(u.anchor.Size(u.shadow), reported)
	}
	u.anchor = token.Anchor{Reported: reported, Counted: u.shadow, Set: true}
}

// add grows the context by a message of tokens tokens.
func (u *usageComparison) add(tokens int) {
	u.shadow += tokens
	u.full += tokens
}

// result returns the comparison; nil without a reported usage.
func (u *usageComparison) result() *UsageDiff {
	if u.plain.n == 0 {
		return nil
	}
	return &UsageDiff{
		Calls: u.plain.n, Mean: u.plain.mean(), Max: u.plain.max, Bias: u.plain.bias(),
		AnchoredCalls: u.anchored.n, AnchoredMean: u.anchored.mean(), AnchoredMax: u.anchored.max,
		FirstCallGap: u.firstGap,
	}
}

// cacheSim simulates a provider's prompt cache over the requests: each
// request is served the previous request's cached prefix when it starts
// with exactly those messages.
type cacheSim struct {
	// prev is the previous request's cached prefix, prevCached its size.
	// It shares the request's memory: the Engine's next request may write
	// over its last message only (prompt.Buffer), kept in last.
	prev       []chat.Message
	last       chat.Message
	prevCached int
	// tokens sums the requests' sizes and read the tokens served from
	// the cache.
	tokens, read int
}

// add sends a request of size tokens, whose first kept messages are the
// previous request's, in the same memory (prompt.Request.Kept), and whose
// prefix up to its last cache breakpoint is cached tokens, and returns
// the tokens of it the cache served. O(1) when the previous prefix is
// within the kept messages, as it is from one call to the next without a
// compaction; O(prefix) otherwise.
func (c *cacheSim) add(req provider.Request, kept, size, cached int) int {
	c.tokens += size
	read := 0
	if c.prefix(req.Messages, kept) {
		read = c.prevCached
	}
	c.read += read
	c.prev, c.prevCached = cachedPrefix(req), cached
	if len(c.prev) > 0 {
		c.last = c.prev[len(c.prev)-1]
	}
	return read
}

// prefix reports whether msgs starts with the previous request's cached
// prefix, given that its first kept messages are the previous request's.
func (c *cacheSim) prefix(msgs []chat.Message, kept int) bool {
	n := len(c.prev)
	if n == 0 || n > len(msgs) {
		return false
	}
	from := 0
	if &c.prev[0] == &msgs[0] { // the same memory: the first kept not written since
		if kept >= n {
			return true
		}
		from = kept
	}
	for i := from; i < n-1; i++ {
		if !sameMessage(c.prev[i], msgs[i]) {
			return false
		}
	}
	return sameMessage(c.last, msgs[n-1])
}

// ratio returns read over tokens (0 without requests).
func (c *cacheSim) ratio() float64 {
	if c.tokens == 0 {
		return 0
	}
	return float64(c.read) / float64(c.tokens)
}

// cachedPrefix returns the messages of req up to its last cache
// breakpoint.
func cachedPrefix(req provider.Request) []chat.Message {
	if len(req.CacheAfter) == 0 {
		return nil
	}
	return req.Messages[:req.CacheAfter[len(req.CacheAfter)-1]+1]
}

// sameMessage reports whether m and n are the same message. Messages
// that share their parts (the window hands out the same ones until
// compaction replaces them) compare in O(1).
func sameMessage(m, n chat.Message) bool {
	if len(m.Parts) > 0 && len(m.Parts) == len(n.Parts) && &m.Parts[0] == &n.Parts[0] && m.Role == n.Role {
		return true
	}
	return reflect.DeepEqual(m, n)
}

// errNotHere is what the tracker and rehydration get for the replayed
// trajectory's files, which are not on this disk.
var errNotHere = errors.New("replay: the trajectory's files are not on this disk")

func noStat(string) (time.Time, int64, error) { return time.Time{}, 0, errNotHere }
func noFile(string) ([]byte, error)           { return nil, errNotHere }

func describe(r compact.Record) string {
	var parts []string
	if r.MessagesRemoved > 0 {
		parts = append(parts, fmt.Sprintf("-%d msgs", r.MessagesRemoved))
	}
	if r.ResultsCut > 0 {
		parts = append(parts, fmt.Sprintf("%d results cut", r.ResultsCut))
	}
	if r.MessagesCut > 0 {
		parts = append(parts, fmt.Sprintf("%d msgs cut", r.MessagesCut))
	}
	parts = append(parts, fmt.Sprintf("-%d tok", r.TokensRemoved()))
	if r.Fallback {
		parts = append(parts, "FALLBACK to "+r.Summarizer)
	}
	if r.Escalated {
		parts = append(parts, "instead of a summary: "+r.EscalationReason)
	}
	if r.Retention != nil {
		parts = append(parts, fmt.Sprintf("retained %.0f%%", 100*r.Retention.Overall))
	}
	return r.Level.String() + " " + strings.Join(parts, " ")
}

// diffAcc accumulates relative differences (ours − provider) / provider.
type diffAcc struct {
	n             int
	sumAbs, sumSg float64
	max           float64
}

func (d *diffAcc) add(ours, provider int) {
	rel := float64(ours-provider) / float64(provider)
	d.n++
	d.sumSg += rel
	d.sumAbs += math.Abs(rel)
	d.max = max(d.max, math.Abs(rel))
}

func (d *diffAcc) mean() float64 {
	if d.n == 0 {
		return 0
	}
	return d.sumAbs / float64(d.n)
}

func (d *diffAcc) bias() float64 {
	if d.n == 0 {
		return 0
	}
	return d.sumSg / float64(d.n)
}
