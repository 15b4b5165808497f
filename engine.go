package agentctx

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/reminder"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/agentctx/agentctx/track"
	"github.com/agentctx/agentctx/window"
	"github.com/agentctx/agentctx/workmem"
	"github.com/agentctx/agentctx/workspace"
)

// ErrClosed reports a call on an [Engine] after [Engine.Close]. Nothing
// was done; open or resume the session again.
var ErrClosed = errors.New("agentctx: engine closed")

// ErrNoStore reports a [Resume] without [Options].Store: there is nothing
// to resume from. Pass the store the session was saved in.
var ErrNoStore = errors.New("agentctx: no session store")

// Engine manages the context of one agent session (seed 001's
// ContextManager): the context window, its compaction, the session file,
// the runtime state tracker, the working memory, the static workspace
// context, system reminders and prompt assembly. An agent adds every
// message as it happens ([Engine.Add]) and asks for each model call's
// request ([Engine.Request]), which always fits the budget.
//
// An Engine is safe for concurrent use: its methods are serialized.
// Different Engines (sessions) share nothing but the store, and work in
// parallel.
type Engine struct {
	mu     sync.Mutex
	closed bool

	opts    Options
	log     *slog.Logger
	id      string
	store   session.Store
	rec     *session.Recorder
	info    model.Info
	counter token.Counter
	// files is the file analyzer of the summaries the engine's own
	// strategy writes (fileAnalyzer).
	files compact.FileAnalyzer
	// memo counts the texts rebuilt for every request (tail, working
	// memory) once while they stay the same.
	memo *token.Cache
	// lines, with the limiter or the working memory on, is the counter
	// of the window and under memo: a line of a tool result counted
	// into the window is not counted again in the limiter's cut of it
	// or in the working memory's excerpt (token.LineMemo); it turns at
	// every request. Nil without those extras.
	lines *token.LineMemo
	// lastMem and lastTracker are the working memory's last context and
	// the tracker's last section with their sizes in tokens
	// (BuildContextTokens, SectionTokens), so that the blocks holding
	// them are not counted again.
	lastMem, lastTracker counted
	// shownCalls holds the ids of the tool calls whose results the
	// window shows, for the tracker's section (Tracker.SetShown): built
	// from shownWin at its edit count shownEdits, and kept up to date as
	// results are added; nil until first needed.
	shownCalls map[string]struct{}
	shownWin   *window.Window
	shownEdits uint64
	// reqBuf keeps the requests' messages between requests: a request
	// copies only the messages added since the last one.
	reqBuf prompt.Buffer
	// memReuse is set while a request prepares its tail again after a
	// compaction: the working memory did not change since the first
	// time, and its context is reused (memText).
	memReuse bool
	w        *window.Window
	strategy compact.Strategy
	warnings []string

	ws         *workspace.Context
	static     prompt.Static
	toolTokens int

	tracker *track.Tracker
	active  *workmem.ActiveContext
	// uses reads each tool call once for the limiter, the tracker, the
	// working memory and compaction's tally (the window's Classify).
	uses tooluse.Recent
	// open pairs the tracker's tool results with their calls.
	open tooluse.Pairer[chat.ToolCall]

	reminders *reminder.Manager
	todos     []reminder.Todo
	todoTool  bool
	results   []chat.ToolResult

	rehydration string
	compactions int
	// pins are the pinned instructions (Pin), nextPin the number of the
	// last one made.
	pins    []Pin
	nextPin int
	// spans keeps the rendered messages of the summarized spans by id
	// (compact.RenderSpan), for recall_output span_id; refill is the
	// window's state after the last compaction, for Record.Refill.
	spans  *outputCache
	refill refillState
	// modelCalls counts the model calls since the engine was opened or
	// resumed (countCall).
	modelCalls int
	stats      Stats

	// budgetSource says where the budget came from (BudgetFrom…), and
	// overrides what a Resume changed in the recorded configuration.
	budgetSource string
	overrides    []string
	// pending is the last request built and not yet committed (sent or
	// answered); gen numbers the requests built.
	pending *Request
	// callCounted is set when a request was committed (Request.Sent)
	// before its reply came: the reply then counts no model call again.
	callCounted bool
	gen         uint64
	// lastTokens is the size of the last request built, in tokens;
	// overflows counts RecoverOverflow calls since the last reply.
	lastTokens int
	overflows  int
	// recallTool is RecallToolName when the agent registered the tool,
	// or Options.RecallToolName: the limiter's notes then say how to read
	// a cut output back.
	recallTool string
	// outputs keeps the latest full tool outputs in memory (see Recall):
	// all there is without a store, a cache in front of the session with
	// one.
	outputs *outputCache
}

// counted is a text and its size in tokens, and the size of its
// reminder block once counted (blockTokens; 0 until then). For the
// working memory's context, built and budget are the memory and the size
// it was built from.
type counted struct {
	text   string
	tokens int
	block  int
	built  *workmem.ActiveContext
	budget int
	shown  memShown // the working memory's SetShown for text
}

// Stats counts what an Engine did, since it was opened or resumed.
type Stats struct {
	// Requests counts the requests assembled, and RequestsOverBudget
	// those that still exceeded the budget (the pinned parts alone were
	// too large).
	Requests           int `json:"requests"`
	RequestsOverBudget int `json:"requests_over_budget"`
	// Compactions counts compaction levels applied, by level name.
	Compactions map[string]int `json:"compactions"`
	// LimitedResults counts the tool results the limiter cut,
	// LimitedChars the runes it removed, and LimitedTokens the tokens
	// (each cut result's message counted whole less counted cut).
	LimitedResults int `json:"limited_results"`
	LimitedChars   int `json:"limited_chars"`
	LimitedTokens  int `json:"limited_tokens"`
	// OrphanResults counts tool results that answered no call in the
	// window and were added as user text instead.
	OrphanResults int `json:"orphan_results"`
	// Reminders counts the system reminders sent, and TailDropped the
	// tail parts left out of a request to fit the budget.
	Reminders   int `json:"reminders"`
	TailDropped int `json:"tail_dropped"`
	// Rehydrations counts the rehydration blocks built after summaries.
	Rehydrations int `json:"rehydrations"`
	// Interrupted counts the tool calls answered with a synthetic
	// result because a later message came before their result
	// ([InterruptedResult]).
	Interrupted int `json:"interrupted"`
	// Overflows counts the provider overflow errors recovered
	// ([Engine.RecoverOverflow]).
	Overflows int `json:"overflows"`
}

// Open starts a session: a new one, or the one [Options].SessionID names
// when it exists in the store (then as [Resume] does). It gathers the
// workspace context once, for the whole session. Errors: from the store
// (session.ErrInvalidID, session.ErrSessionBusy…), from workspace.Gather
// (Dir missing), and a cancelled ctx.
func Open(ctx context.Context, opts Options) (*Engine, error) {
	if opts.Store != nil && opts.SessionID != "" {
		if _, err := opts.Store.Get(ctx, opts.SessionID); err == nil {
			return Resume(ctx, opts.SessionID, opts)
		} else if !errors.Is(err, session.ErrNotFound) {
			return nil, fmt.Errorf("agentctx: open %s: %w", opts.SessionID, err)
		}
	}
	e, err := newEngine(ctx, opts, nil, !opts.NoDiskReads)
	if err != nil {
		return nil, err
	}
	e.id = opts.SessionID
	if e.id == "" {
		e.id = session.NewID()
	} else if err := session.ValidateID(e.id); err != nil {
		return nil, fmt.Errorf("agentctx: open: %w", err)
	}
	if e.store != nil {
		s, err := e.store.Create(ctx, session.Session{
			ID: e.id, Project: e.opts.Dir, Model: e.info.Name, Origin: opts.Origin, Metadata: opts.Metadata,
		})
		if err != nil {
			return nil, fmt.Errorf("agentctx: open: %w", err)
		}
		e.id = s.ID
		e.rec = session.NewRecorder(e.store, e.id)
		// A new session: every output it will hold goes through Add.
		e.outputs.complete = true
		// The configuration goes first, so that Resume comes back with it.
		if err := e.saveConfig(ctx); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// Resume reopens session id from [Options].Store: the engine's
// configuration as the session recorded it (model, budget and its source,
// policy, strategy and its thresholds, tool schemas, system prompt and the
// static prompt built from the workspace, limiter, working-memory,
// reminder and rehydration switches), the window as it was when the
// session was last written (session.Restore, from the last complete
// compact boundary), and the tracker, working memory, reminder history and
// rehydration block from its last saved state. Messages written after
// that state are fed to the tracker and working memory again, so nothing
// acknowledged is lost.
//
// Options override the recorded configuration where they are set (a
// non-zero field; a boolean switch can only be turned on): the override
// is recorded in the session and listed in [Engine.Warnings]. What cannot
// be recorded (Summarizer, Logger, Rehydrate.ReadFile, reminder
// generators, a caller's own Strategy) comes from opts; a missing
// summarizer model or strategy is named in Warnings. The static system
// prompt is the recorded one, byte for byte, unless
// [Options].RefreshWorkspace asks to gather the workspace again.
//
// Resume writes a configuration entry when the session recorded none or
// options override it, unless [Options].ReadOnly, which writes nothing at
// all. Unless ReadOnly, the session's write lock is taken first when the
// store has one ([session.Locker]): a session another process writes
// fails here with session.ErrSessionBusy (open it ReadOnly to look at
// it). The project directory is [Options].Dir, else the session's when it
// still exists, else the process's working directory; the summaries of
// the engine's own strategy read the files their history names from it,
// their content only in the first two cases. Errors: [ErrNoStore],
// session.ErrNotFound, session.ErrSessionBusy and the store's.
func Resume(ctx context.Context, id string, opts Options) (*Engine, error) {
	if opts.Store == nil {
		return nil, fmt.Errorf("agentctx: resume %s: %w", id, ErrNoStore)
	}
	// A writer takes the session's lock before reading it: a session
	// another process writes is reported here (session.ErrSessionBusy),
	// not at the first Add, and nobody appends between Load and our
	// first write.
	if l, ok := opts.Store.(session.Locker); ok && !opts.ReadOnly {
		if err := l.Lock(ctx, id); err != nil {
			return nil, fmt.Errorf("agentctx: resume %s: %w", id, err)
		}
	}
	tr, err := opts.Store.Load(ctx, id, session.LoadOptions{})
	if err != nil {
		return nil, fmt.Errorf("agentctx: resume %s: %w", id, err)
	}
	if opts.Dir == "" && tr.Session.Project != "" && !opts.NoDiskReads {
		if fi, err := os.Stat(tr.Session.Project); err == nil && fi.IsDir() {
			opts.Dir = tr.Session.Project
		}
	}
	// The project's files are read for summaries only from the session's
	// project directory (or the caller's): not from the process's working
	// directory, where the session's relative paths mean something else.
	readFiles := opts.Dir != "" && !opts.NoDiskReads
	var overrides, warnings []string
	saved := lastConfig(tr.Entries)
	if saved != nil {
		overrides, warnings = saved.merge(&opts)
	}
	if opts.Model == "" {
		opts.Model = tr.Session.Model
	}
	e, err := newEngine(ctx, opts, saved, readFiles)
	if err != nil {
		return nil, err
	}
	e.warnings = append(e.warnings, warnings...)
	if saved != nil {
		e.overrides = append(slices.Clone(saved.Overrides), overrides...)
		for _, o := range overrides {
			e.warnings = append(e.warnings, "resume: option overrides the session's "+o)
		}
	}
	e.id = tr.Session.ID
	e.rec = session.NewRecorder(e.store, e.id)
	if err := e.restore(tr); err != nil {
		return nil, fmt.Errorf("agentctx: resume %s: %w", id, err)
	}
	if opts.ReadOnly {
		e.rec = nil
		return e, nil
	}
	if saved == nil || len(overrides) > 0 {
		if err := e.saveConfig(ctx); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// newEngine builds an engine without a session. saved, when not nil, is
// the configuration the session recorded (opts already merged with it):
// its budget source and static prompt are reused. readFiles says whether
// the summaries the engine's own strategy writes include the content of
// the files in opts.Dir (the session's project).
func newEngine(ctx context.Context, opts Options, saved *engineConfig, readFiles bool) (*Engine, error) {
	if opts.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("agentctx: %w", err)
		}
		opts.Dir = wd
	}
	if abs, err := filepath.Abs(opts.Dir); err == nil {
		opts.Dir = abs
	}
	opts.Model = cmp.Or(opts.Model, DefaultModel)
	if opts.NoDiskReads {
		opts.NoWorkspace = true
		opts.Rehydrate.ReadFile = noDiskRead
		opts.Tracker.Stat = noDiskStat
	}
	e := &Engine{
		opts:  opts,
		log:   opts.Logger,
		store: opts.Store,
		stats: Stats{Compactions: map[string]int{}},

		budgetSource: budgetSource(opts),
		files:        fileAnalyzer(opts.Dir, readFiles),
	}
	if saved != nil && opts.Budget == saved.Budget && opts.Policy == nil {
		e.budgetSource = saved.BudgetSource
	}
	if e.log == nil {
		e.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e.info = model.Lookup(opts.Model)
	if w := model.Warning(e.info); w != "" {
		e.warnings = append(e.warnings, w)
	}
	counter, err := model.Counter(e.info)
	if err != nil {
		return nil, fmt.Errorf("agentctx: %w", err)
	}
	e.counter = counter
	if !opts.NoWorkingMemory || !opts.NoLimit {
		e.lines = token.NewLineMemo(counter)
	}
	e.memo = token.NewCache(e.windowCounter(), 1024)
	budget := opts.Budget
	if budget <= 0 {
		policy := opts.Policy
		if policy == nil {
			policy = model.DefaultPolicy
		}
		budget = policy.Budget(e.info)
	}
	e.toolTokens = token.Tools(counter, opts.Tools)
	if e.w, err = window.New(window.Options{Budget: budget, Counter: e.windowCounter(), Reserved: e.toolTokens, Classify: e.uses.Take, Peek: e.uses.Classify}); err != nil {
		return nil, fmt.Errorf("agentctx: %w", err)
	}
	e.strategy = opts.Strategy
	if e.strategy == nil {
		e.strategy = &compact.Summarize{Summarizer: opts.Summarizer, Logger: opts.Logger, Files: e.files}
	} else if st, ok := e.strategy.(compact.Stateful); ok {
		// A stateful strategy remembers its window (the summarizing loop
		// guard): each session gets its own copy, starting fresh.
		e.strategy = st.Fresh()
	}
	reuse := saved != nil && saved.Static != nil && !opts.RefreshWorkspace && opts.SystemPrompt == saved.SystemPrompt
	if !opts.NoWorkspace && !reuse {
		wopts := opts.Workspace
		if wopts.Dir == "" {
			wopts.Dir = opts.Dir
		}
		if wopts.Counter == nil {
			wopts.Counter = counter
		}
		if e.ws, err = workspace.Gather(ctx, wopts); err != nil {
			return nil, fmt.Errorf("agentctx: %w", err)
		}
	}
	ratio := opts.StaticRatio
	if ratio <= 0 {
		ratio = 0.25
	}
	if reuse {
		e.static = saved.Static.static()
	} else {
		e.static = prompt.BuildStatic(opts.SystemPrompt, e.ws, counter, prompt.StaticOptions{MaxTokens: int(ratio * float64(budget))})
	}
	for _, d := range e.static.Dropped {
		e.warnings = append(e.warnings, fmt.Sprintf("context block %s left out: the static prompt is capped at %.0f%% of the %d-token budget", d, 100*ratio, budget))
	}
	if e.static.Cut {
		e.warnings = append(e.warnings, "instruction files cut to fit the static prompt's share of the budget")
	}
	if !opts.NoWorkingMemory {
		if e.opts.Tracker.MaxTokens == 0 {
			// At most 1,500 tokens (track.DefaultMaxTokens), and no more
			// than a tenth of a small budget. Recorded as set: a resume
			// after the budget changed (an overflow) keeps the tracker's
			// size.
			e.opts.Tracker.MaxTokens = max(200, min(track.DefaultMaxTokens, budget/10))
		}
		e.tracker = e.newTracker()
		// The working memory starts with the first user message, its
		// task (Add).
	}
	if !opts.NoReminders {
		e.reminders = reminder.New(opts.Reminders)
	}
	for _, t := range opts.Tools {
		if isTodoTool(t.Name) {
			e.todoTool = true
		}
		if t.Name == RecallToolName {
			e.recallTool = RecallToolName
		}
	}
	if opts.RecallToolName != "" {
		e.recallTool = opts.RecallToolName
	}
	e.outputs = newOutputCache(opts.RecallCacheBytes)
	e.spans = newOutputCache(opts.RecallCacheBytes)
	return e, nil
}

// newTracker returns an empty runtime state tracker with the engine's
// tracker options, counting through the count cache.
func (e *Engine) newTracker() *track.Tracker {
	topts := e.opts.Tracker
	if topts.Counter == nil {
		topts.Counter = e.memo
	}
	if topts.Classify == nil {
		topts.Classify = e.uses.Classify
	}
	return track.New(topts)
}

// memOptions returns the options of the working memory: it counts
// through the count cache and reads tool calls with the tracker.
func (e *Engine) memOptions() workmem.Options {
	return workmem.Options{Counter: e.memo, Classify: e.uses.Classify}
}

// ID returns the session's id.
func (e *Engine) ID() string { return e.id }

// Model returns the model the engine counts tokens for.
func (e *Engine) Model() model.Info { return e.info }

// BudgetSource says where the budget came from: [BudgetFromOption],
// [BudgetFromPolicy] followed by ":" and the policy's name, or
// [BudgetFromProvider] after [Engine.RecoverOverflow] lowered it.
func (e *Engine) BudgetSource() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.budgetSource
}

// Budget returns the prompt budget in tokens.
func (e *Engine) Budget() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.w.Budget()
}

// Warnings returns what the engine noticed and worked around: an unknown
// model, context blocks left out of the static prompt.
func (e *Engine) Warnings() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.warnings...)
}

// Workspace returns the static project context gathered when the session
// was opened; nil with [Options].NoWorkspace, and on a resumed session that
// reuses the recorded static prompt (see [Resume]). Read it only.
func (e *Engine) Workspace() *workspace.Context { return e.ws }

// Static returns the static system prompt: the same bytes on every
// request of the session.
func (e *Engine) Static() prompt.Static { return e.static }

// Stats returns the engine's counters.
func (e *Engine) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.stats
	s.Compactions = make(map[string]int, len(e.stats.Compactions))
	for k, v := range e.stats.Compactions {
		s.Compactions[k] = v
	}
	return s
}

// Messages returns the window's messages as they stand: the history the
// next request will carry, without the static prompt and the tail. The
// messages share their parts with the window: do not modify them.
func (e *Engine) Messages() []chat.Message {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.w.Messages()
}

// WindowStats is a snapshot of an Engine's context window between
// requests: what [Engine.WindowStats] reports. Sizes are in tokens, and
// count the reserve (tool schemas, static prompt, rehydration block) the
// window holds between requests.
type WindowStats struct {
	// Tokens is the locally counted size ([window.Window.Tokens]); Size
	// is the size checked against the budget (the usage-anchored one when
	// the window is anchored); Budget is the budget (0: none); Reserved
	// is the part of Tokens held outside the messages.
	Tokens   int `json:"tokens"`
	Size     int `json:"size"`
	Budget   int `json:"budget"`
	Reserved int `json:"reserved"`
	// Messages counts the window's messages. LastRole and LastTokens are
	// the role and size of the last one (zero when there is none): the
	// message [Engine.Add] added last, as it entered (cut, or turned into
	// user text).
	Messages   int       `json:"messages"`
	LastRole   chat.Role `json:"last_role,omitempty"`
	LastTokens int       `json:"last_tokens,omitempty"`
	// Anchor is the usage anchor: the provider's last reported prompt
	// size and the local count then (zero before the first usage).
	Anchor token.Anchor `json:"anchor"`
	// Overhead is the counter's per-message framing.
	Overhead token.Overhead `json:"overhead"`
	// Note is the index in [Engine.Messages] of the compaction note (a
	// summary or a note of what was removed); -1 when there is none.
	Note int `json:"note"`
}

// WindowStats returns a snapshot of the context window. Safe for
// concurrent use.
func (e *Engine) WindowStats() WindowStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	w := e.w
	s := WindowStats{
		Tokens: w.Tokens(), Size: w.Size(), Budget: w.Budget(), Reserved: w.Reserved(), Note: w.Note(),
		Messages: w.Len(), Anchor: w.Anchor(), Overhead: w.Overhead(),
	}
	if n := w.Len(); n > 0 {
		s.LastRole, s.LastTokens = w.At(n-1).Role, w.TokensAt(n-1)
	}
	return s
}

// Check returns the context window's broken invariants
// ([window.Window.Check]); none when it is sound. Safe for concurrent use.
func (e *Engine) Check() []window.Violation {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.w.Check()
}

// CheckFull is [Engine.Check] walking the whole window with fresh state
// ([window.Window.CheckFull]): O(messages) time and allocations, the
// oracle the incremental Check is tested against. Safe for concurrent
// use.
func (e *Engine) CheckFull() []window.Violation {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.w.CheckFull()
}

// Breakdown returns where the context window's tokens go, by kind
// ([window.Window.Breakdown]). Safe for concurrent use.
func (e *Engine) Breakdown() window.Breakdown {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.w.Breakdown()
}

// Counter returns the token counter the engine counts with (the model's
// tokenizer). Counters are safe for concurrent use.
func (e *Engine) Counter() token.Counter { return e.counter }

// ToolTokens returns the size of the tool schemas ([Options].Tools) in
// tokens ([token.Tools]), counted once when the engine was opened. It
// never changes; safe for concurrent use.
func (e *Engine) ToolTokens() int { return e.toolTokens }

// windowCounter is the counter of the context window: the model's
// tokenizer, through the line memo when there is one.
func (e *Engine) windowCounter() token.Counter {
	if e.lines != nil {
		return e.lines
	}
	return e.counter
}

// Limited returns how many tool results the limiter cut since the engine
// was opened, and the runes it removed: [Stats].LimitedResults and
// LimitedChars, without copying the rest. Compare it before and after an
// [Engine.Add] to learn whether the limiter cut what was added. Safe for
// concurrent use.
func (e *Engine) Limited() (results, runes int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats.LimitedResults, e.stats.LimitedChars
}

// LimitedTokens returns the tokens the limiter kept out of the window
// since the engine was opened ([Stats].LimitedTokens): the size a tool
// message added last would have had uncut is its size in the window plus
// the growth of this figure over that [Engine.Add]. Safe for concurrent
// use.
func (e *Engine) LimitedTokens() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats.LimitedTokens
}

// CloseWindow closes the engine ([Engine.Close]) and hands its context
// window to the caller, who owns it from then on (a replay's final
// state). The closed engine's read methods ([Engine.Messages],
// [Engine.Check], [Engine.WindowStats]…) still read it: do not change it
// while calling them. Errors: Close's; the window is returned with them.
func (e *Engine) CloseWindow() (*window.Window, error) {
	err := e.Close()
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.w, err
}

// TrackerSection returns the runtime state tracker's section as the next
// request will carry it ("" without working memory, with nothing tracked
// yet, or while the window shows everything the section would list: its
// entries are those of tool calls whose results compaction removed).
func (e *Engine) TrackerSection() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tracker == nil {
		return ""
	}
	e.syncShown()
	return e.tracker.Section()
}

// WorkingMemory returns the working memory's context in tokens tokens
// (workmem.ActiveContext.BuildContext; "" for tokens <= 0, when only the
// report is wanted), and its report; "" and a zero report without working
// memory.
func (e *Engine) WorkingMemory(tokens int) (string, workmem.Report) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.active == nil {
		return "", workmem.Report{}
	}
	return e.active.BuildContext(tokens), e.active.Distill()
}

// TrackerState returns the tracker's state; false without working
// memory.
func (e *Engine) TrackerState() (track.State, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tracker == nil {
		return track.State{}, false
	}
	return e.tracker.State(), true
}

// Todos returns the agent's todo list as its last todo tool call set it
// (Claude Code's TodoWrite, Codex's update_plan, todo_write…), secrets
// redacted; none before the first such call. The slice is a copy. Safe
// for concurrent use.
func (e *Engine) Todos() []reminder.Todo {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.todos)
}

// Rehydration returns the rehydration block the requests carry since the
// last summarizing compaction ("" when none).
func (e *Engine) Rehydration() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.rehydration
}

// Close saves the working-memory state and syncs the session to stable
// storage. Later calls return [ErrClosed]; Close itself may be called
// again. It does not close the store, which may serve other sessions.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	if e.rec == nil {
		return nil
	}
	ctx := context.Background()
	if err := e.saveState(ctx); err != nil {
		return err
	}
	if err := e.store.Sync(ctx, e.id); err != nil {
		return fmt.Errorf("agentctx: close %s: %w", e.id, err)
	}
	return nil
}

// AddFinding notes a finding in the working memory's scratchpad (seed
// 002's noteKeyFinding): never compressed, carried in every request's
// working-memory context, most important first. It returns false when
// nothing was recorded (empty finding, working memory off). Errors:
// [ErrClosed].
func (e *Engine) AddFinding(f workmem.Finding) (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return false, ErrClosed
	}
	if e.opts.NoWorkingMemory {
		return false, nil
	}
	if e.active == nil {
		e.active = workmem.New("", e.memOptions())
	}
	return e.active.AddFinding(f), nil
}

// ExpectPlan tells the working memory that the next assistant message
// answers a request for a plan, so a list in it replaces the current plan
// (seed 002: a plan is only overwritten when one was asked for). Errors:
// [ErrClosed].
func (e *Engine) ExpectPlan() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return ErrClosed
	}
	if e.opts.NoWorkingMemory {
		return nil
	}
	if e.active == nil {
		e.active = workmem.New("", e.memOptions())
	}
	e.active.ExpectPlan()
	return nil
}

// fileAnalyzer returns the file analyzer of the summaries an engine's own
// strategy writes: relative paths resolved against dir, the session's
// project directory, and the files' content read from disk when
// readContent (the directory is the session's, not a stand-in).
func fileAnalyzer(dir string, readContent bool) compact.FileAnalyzer {
	return compact.FileAnalyzer{Root: dir, ReadContent: readContent}
}

// noDiskRead and noDiskStat stand for the file system under
// [Options].NoDiskReads: every file is unknown.
func noDiskRead(string) ([]byte, error) { return nil, fs.ErrNotExist }

func noDiskStat(string) (time.Time, int64, error) { return time.Time{}, 0, fs.ErrNotExist }
