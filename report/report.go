package report

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/transcript"
)

// The categories of a call's prompt, in the order [Report].Categories
// lists them and the page stacks them. Their tokens sum to the prompt's
// size ([Call].Prompt).
const (
	// CategorySystem is the system prompt: the static prompt the engine
	// sends first and the system messages of the window.
	CategorySystem = "system"
	// CategoryTools is the tool schemas.
	CategoryTools = "tools"
	// CategoryInstructions is the project's instruction files and the
	// workspace context of the static prompt.
	CategoryInstructions = "instruction files"
	// CategorySummary is the compaction note or summary in the window.
	CategorySummary = "summary"
	// CategoryMessages is the rest of the conversation: user and
	// assistant text, thinking, tool calls, images and the chat format's
	// framing.
	CategoryMessages = "messages"
	// CategoryToolResults is the content of the tool results.
	CategoryToolResults = "tool results"
	// CategoryWorkingMemory is the tail the engine rebuilds per request
	// from its state: the tracker's section, the working memory's context
	// and the rehydration block after a summary.
	CategoryWorkingMemory = "working memory"
	// CategoryReminders is the system reminders sent with the call.
	CategoryReminders = "reminders"
)

// Categories returns the category names in stacking order.
func Categories() []string {
	return []string{
		CategorySystem, CategoryTools, CategoryInstructions, CategorySummary,
		CategoryMessages, CategoryToolResults, CategoryWorkingMemory, CategoryReminders,
	}
}

// Report is what the page shows: one replayed trajectory (or stored
// session), call by call. Sizes are in tokens. Its JSON form is embedded
// in the page; the names are the page script's contract.
type Report struct {
	// Title says what was replayed: the file (and trajectory index) or
	// the session and its title.
	Title string `json:"title"`
	// Source is the file or the session id; Format the transcript format
	// ("session" for a stored session).
	Source string `json:"source"`
	Format string `json:"format"`
	// Note says how the data was obtained (a stored session is replayed).
	Note string `json:"note,omitempty"`
	// Model is the model replayed, ContextWindow its context window,
	// Budget the prompt budget and BudgetSource where it came from.
	Model         string `json:"model"`
	ContextWindow int    `json:"context_window"`
	Budget        int    `json:"budget"`
	BudgetSource  string `json:"budget_source"`
	Strategy      string `json:"strategy"`
	// Messages is the number of messages replayed.
	Messages int `json:"messages"`
	// Categories names the entries of each [Call].Window, in order
	// ([Categories]).
	Categories []string `json:"categories"`
	// Calls holds one entry per model call, in order.
	Calls []Call `json:"calls"`
	// Compactions holds every compaction level applied, in order
	// ([compact.Record]); [Call].Compactions points into it.
	Compactions []Compaction `json:"compactions"`
	// Totals sums up the run (the replay's own figures).
	Totals Totals `json:"totals"`
	// Task is the first user request and Outcome the last assistant
	// message's text, redacted, each cut to [MaxStoryRunes] runes; ""
	// when the trajectory has none.
	Task    string `json:"task,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	// Files lists the files the calls read or wrote, in the order of
	// their first use.
	Files []*File `json:"files,omitempty"`
	// Recorded holds the calls (numbers from 1) before which the
	// transcript itself recorded a compaction (the agent's own, not
	// agentctx's).
	Recorded []int `json:"recorded_compactions,omitempty"`
}

// Call is one model call. Sizes in tokens.
type Call struct {
	// N is the call's number, from 1; Step is the 1-based index of the
	// assistant message it produced in the trajectory.
	N    int `json:"n"`
	Step int `json:"step"`
	// Prompt is the size of the prompt sent, after compaction.
	Prompt int `json:"prompt"`
	// Uncompacted is the size the prompt would have had without
	// agentctx's compaction ([replay.Step].UncompactedTokens).
	Uncompacted int `json:"uncompacted"`
	// CacheRead is the part of Prompt a provider's prompt cache would
	// serve ([replay.Step].CacheReadTokens).
	CacheRead int `json:"cache_read"`
	// Provider is the provider's reported prompt size, 0 when the
	// transcript did not record it.
	Provider int `json:"provider,omitempty"`
	// Over is how far Prompt exceeds the budget (0: it fits).
	Over int `json:"over,omitempty"`
	// Window is Prompt by category, parallel to [Report].Categories; it
	// sums to Prompt.
	Window []int `json:"window"`
	// Compactions are the indexes in [Report].Compactions of the levels
	// applied before this call.
	Compactions []int `json:"compactions,omitempty"`
	// Actions are the tool calls the call's reply made, in order.
	Actions []Action `json:"actions,omitempty"`
}

// Compaction is one compaction level applied before a call
// ([compact.Record], sizes in tokens).
type Compaction struct {
	// Call is the number of the call it preceded ([Call].N).
	Call  int    `json:"call"`
	Level string `json:"level"`
	// Before and After are the window's size before and after the level;
	// Removed is their difference.
	Before  int `json:"before"`
	After   int `json:"after"`
	Removed int `json:"removed"`
	// MessagesRemoved, ResultsCut and MessagesCut count what the level did.
	MessagesRemoved int `json:"messages_removed,omitempty"`
	ResultsCut      int `json:"results_cut,omitempty"`
	MessagesCut     int `json:"messages_cut,omitempty"`
	// Summarizer, Fallback and FallbackReason: who wrote a summary and
	// whether the configured summarizer failed.
	Summarizer     string `json:"summarizer,omitempty"`
	Fallback       bool   `json:"fallback,omitempty"`
	FallbackReason string `json:"fallback_reason,omitempty"`
	SummaryTokens  int    `json:"summary_tokens,omitempty"`
	// Escalated is set when these levels ran instead of a summary, and
	// Reason says why.
	Escalated bool   `json:"escalated,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// OverBudget is true when the window was still over budget after it.
	OverBudget bool `json:"over_budget,omitempty"`
	// Retention is a summary's retention of the removed part's key facts,
	// with the facts lost ([compact.Retention].Missing).
	Retention *compact.Retention `json:"retention,omitempty"`
	// Refill says what regrew since the previous compaction when this one
	// came within agentctx.RefillCalls model calls of it (the window
	// refilled: [compact.Refill]); nil otherwise.
	Refill *compact.Refill `json:"refill,omitempty"`
}

// Totals are the run's figures, from the [replay.Result].
type Totals struct {
	ModelCalls      int            `json:"model_calls"`
	PeakPrompt      int            `json:"peak_prompt"`
	PeakUncompacted int            `json:"peak_uncompacted"`
	CallsOverBudget int            `json:"calls_over_budget"`
	TokensRemoved   int            `json:"tokens_removed"`
	Levels          map[string]int `json:"levels"`
	PromptTokens    int            `json:"prompt_tokens"`
	// UncompactedTokens sums [Call].Uncompacted: what the calls would have
	// sent without compaction.
	UncompactedTokens int     `json:"uncompacted_tokens"`
	CacheReadTokens   int     `json:"cache_read_tokens"`
	CacheHitRatio     float64 `json:"cache_hit_ratio"`
	// Cost is what the calls would cost in US dollars with compaction and
	// without ([replay.Cost]); nil when the model's price is not known.
	Cost *replay.Cost `json:"cost,omitempty"`
	// Retention is the retention over all summaries; nil without one.
	Retention *compact.Retention `json:"retention,omitempty"`
}

// FromTrajectory replays tr with opts ([replay.Run], with Steps and an
// Observe of its own, chained before opts.Observe) and returns its report.
// A trajectory without a model call (no assistant message) has a report
// without calls. Errors: replay.Run's.
func FromTrajectory(ctx context.Context, tr *transcript.Trajectory, opts replay.Options) (*Report, error) {
	var obs []observed
	user := opts.Observe
	opts.Steps = true
	opts.Observe = func(i int, req *agentctx.Request, eng *agentctx.Engine) {
		if req != nil {
			obs = append(obs, observe(req, eng))
		}
		if user != nil {
			user(i, req, eng)
		}
	}
	res, err := replay.Run(ctx, tr, opts)
	if err != nil {
		return nil, err
	}
	rep, err := build(res, obs)
	if err != nil {
		return nil, err
	}
	tell(rep, tr)
	rep.Title = tr.File
	if tr.Index > 0 {
		rep.Title += fmt.Sprintf(" #%d", tr.Index)
	}
	return rep, nil
}

// observed is what one call's request showed: its prompt by category and
// the compactions before it.
type observed struct {
	window      []int
	compactions []compact.Record
}

// observe reads the request built for a call and the engine's window
// then.
func observe(req *agentctx.Request, eng *agentctx.Engine) observed {
	idx := map[string]int{}
	for i, c := range Categories() {
		idx[c] = i
	}
	win := make([]int, len(idx))
	for _, r := range req.Rows {
		switch {
		case r.Name == prompt.PartSystem:
			win[idx[CategorySystem]] += r.Tokens
		case r.Name == prompt.PartTools:
			win[idx[CategoryTools]] += r.Tokens
		case r.Name == prompt.PartInstructions || strings.HasPrefix(r.Name, prompt.PartContextPrefix):
			win[idx[CategoryInstructions]] += r.Tokens
		case r.Name == prompt.PartTracker || r.Name == prompt.PartWorkingMemory || r.Name == prompt.PartRehydration:
			win[idx[CategoryWorkingMemory]] += r.Tokens
		case r.Name == prompt.PartReminders:
			win[idx[CategoryReminders]] += r.Tokens
		case r.Name == prompt.PartMessages:
			// The window's messages: split by what they hold.
			b := eng.Breakdown()
			sys, sum := min(b.System, r.Tokens), min(b.Summary, r.Tokens-min(b.System, r.Tokens))
			res := min(b.ToolResults, r.Tokens-sys-sum)
			win[idx[CategorySystem]] += sys
			win[idx[CategorySummary]] += sum
			win[idx[CategoryToolResults]] += res
			win[idx[CategoryMessages]] += r.Tokens - sys - sum - res
		default: // the framing
			win[idx[CategoryMessages]] += r.Tokens
		}
	}
	return observed{window: win, compactions: req.Compactions}
}

// build joins the replay's steps with what was observed at each call.
func build(res *replay.Result, obs []observed) (*Report, error) {
	if len(obs) != res.ModelCalls {
		return nil, fmt.Errorf("report: %s: observed %d requests for %d model calls", res.File, len(obs), res.ModelCalls)
	}
	rep := &Report{
		Source: res.File, Format: res.Format, Model: res.Model, ContextWindow: res.ContextWindow,
		Budget: res.Budget, BudgetSource: res.BudgetSource, Strategy: res.Strategy,
		Messages: res.Messages, Categories: Categories(),
		Calls:       make([]Call, 0, res.ModelCalls),
		Compactions: []Compaction{},
		Totals: Totals{
			ModelCalls: res.ModelCalls, PeakPrompt: res.PeakPromptTokens, CallsOverBudget: res.CallsOverBudget,
			TokensRemoved: res.TokensRemoved, Levels: res.Compactions, PromptTokens: res.PromptTokens,
			CacheReadTokens: res.CacheReadTokens, CacheHitRatio: res.CacheHitRatio, Retention: res.Retention,
			Cost: res.Cost,
		},
	}
	for _, s := range res.Steps {
		if s.Role != "assistant" {
			continue
		}
		n := len(rep.Calls)
		if n >= len(obs) {
			return nil, fmt.Errorf("report: %s: more assistant steps than model calls (%d)", res.File, len(obs))
		}
		o := obs[n]
		c := Call{
			N: n + 1, Step: s.Step, Prompt: s.PromptTokens, Uncompacted: s.UncompactedTokens,
			CacheRead: s.CacheReadTokens, Provider: s.ProviderPromptTokens,
			Over: max(s.PromptTokens-res.Budget, 0), Window: o.window,
		}
		if res.Budget <= 0 {
			c.Over = 0
		}
		for _, r := range o.compactions {
			c.Compactions = append(c.Compactions, len(rep.Compactions))
			rep.Compactions = append(rep.Compactions, compactionOf(c.N, r))
		}
		rep.Totals.PeakUncompacted = max(rep.Totals.PeakUncompacted, c.Uncompacted)
		rep.Totals.UncompactedTokens += c.Uncompacted
		rep.Calls = append(rep.Calls, c)
	}
	if len(rep.Calls) != len(obs) {
		return nil, fmt.Errorf("report: %s: %d assistant steps for %d model calls", res.File, len(rep.Calls), len(obs))
	}
	return rep, nil
}

func compactionOf(call int, r compact.Record) Compaction {
	return Compaction{
		Call: call, Level: r.Level.String(), Before: r.TokensBefore, After: r.TokensAfter, Removed: r.TokensRemoved(),
		MessagesRemoved: r.MessagesRemoved, ResultsCut: r.ResultsCut, MessagesCut: r.MessagesCut,
		Summarizer: r.Summarizer, Fallback: r.Fallback, FallbackReason: r.FallbackReason, SummaryTokens: r.SummaryTokens,
		Escalated: r.Escalated, Reason: r.EscalationReason, OverBudget: r.OverBudget, Retention: r.Retention,
		Refill: r.Refill,
	}
}
