package compact

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/secret"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/agentctx/agentctx/window"
)

// Defaults of [Summarize], from seed 001's CompactionService unless said
// otherwise. Every ratio is of the window's budget.
const (
	// DefaultSummaryThreshold is the usage ratio that triggers a summary
	// (seed 001's THRESHOLD_PERCENT).
	DefaultSummaryThreshold = 0.80
	// DefaultKeepRatio is the share of the budget, in tokens, that the
	// most recent history kept verbatim may fill (seed 001 keeps 20 % of
	// the messages; counting tokens keeps one huge message from leaving
	// the window over budget).
	DefaultKeepRatio = 0.20
	// DefaultFallbackKeepRatio is the share kept when the summary fails
	// (seed 001's FALLBACK_RETAIN_PERCENT), in tokens.
	DefaultFallbackKeepRatio = 0.30
	// DefaultSummaryRatio is the largest summary, as a share of the
	// budget in tokens. agentctx's choice: with the kept 20 % it leaves
	// the window at most 35 % full plus its pinned parts.
	DefaultSummaryRatio = 0.15
	// DefaultSummaryTimeout bounds one summarizer call.
	DefaultSummaryTimeout = 3 * time.Minute
	// DefaultMinFreedRatio is the share of the window's tokens a summary
	// must be able to free: agentctx's choice, so that a window whose
	// pinned parts and last round fill it is not summarized at every
	// model call (a loop measured on SWE-agent trajectories at a
	// 2,500-token budget: 10 summaries in 12 model calls).
	DefaultMinFreedRatio = 0.20
	// DefaultMinCallsBetween is the fewest model calls from one automatic
	// summary to the next. Claude Code calls it thrashing when the context
	// refills "within 3 turns" of a compaction; agentctx never summarizes
	// that soon again.
	DefaultMinCallsBetween = 3
	// DefaultMaxFailures is how many times in a row the summarizer may fail
	// before the guard stops calling it: Claude Code's auto-compact circuit
	// breaker stops after 3 consecutive failures (v2.1.76).
	DefaultMaxFailures = 3
)

// TruncationSummarizer is the [Record].Summarizer of a compaction where
// every summarizer failed and seed 001's fallback wrote the note (the most
// recent FallbackKeepRatio of the budget is kept).
const TruncationSummarizer = "truncation"

// fallbackMark starts the note a failed summary leaves.
const fallbackMark = "[agentctx compaction note] The summary of the earlier conversation failed"

// Summarize is seed 001's CompactionService done right: when the window
// reaches Threshold of its budget, the older history is replaced by a
// summary and the most recent history, up to KeepRatio of the budget in
// tokens, is kept verbatim in whole units (a round is never split, a tool
// result never left without its call). The pinned messages (system
// prompt, first user message) stay; the summary becomes the window's
// compaction note, and a previous summary is rolled into the new one
// rather than nested in it. When the summarizer fails, times out or
// returns a summary no smaller than what it replaces (or over its limit),
// the extractive summarizer writes it instead, and if that fails too,
// Summarize falls back to keeping FallbackKeepRatio of the budget with a
// note that says so (seed 001); the [Record] says who wrote the note and
// why. If the window is still over budget afterwards, Escalation runs.
//
// # Guard
//
// An automatic summary (not Force) is not made, and Escalation compacts
// the window instead, with a record that says why ([Record].Escalated),
// when it could free less than MinFreedRatio of the window's tokens (the
// history it would replace is that small), or when the previous summary
// was fewer than MinCallsBetween calls of Compact ago. The Engine calls
// Compact once per model call, so automatic summaries are at most one per
// MinCallsBetween model calls after the first. A Summarizer that failed
// MaxFailures times in a row is skipped (the extractive summarizer writes
// the summary) but for every MaxFailures-th summary, which tries it again
// (one success closes the breaker): Claude Code's auto-compact circuit
// breaker, with a way back.
//
// Every field's zero value means its default. The guard's memory is
// State: one Summarize serves one window (the Engine keeps one strategy
// per session), and is not safe for concurrent use.
type Summarize struct {
	// Summarizer writes the summary. Optional. Defaults to the extractive
	// summarizer ([Extractive]), which needs no model.
	Summarizer Summarizer
	// FallbackSummarizer writes the summary when Summarizer fails.
	// Optional. Defaults to [Extractive]. Unused when Summarizer is nil
	// (the extractive summarizer is then the first).
	FallbackSummarizer Summarizer
	// Threshold is the usage ratio at which a summary is made. Optional.
	// Defaults to 0.80 (seed 001); any positive value works, lower or
	// higher. A window over its budget is compacted whatever the ratio.
	Threshold float64
	// KeepRatio is the share of the budget, in tokens, that the recent
	// history kept verbatim may fill. Optional. Defaults to 0.20.
	KeepRatio float64
	// FallbackKeepRatio is the share kept when the summary fails.
	// Optional. Defaults to 0.30.
	FallbackKeepRatio float64
	// SummaryRatio is the largest summary as a share of the budget, in
	// tokens; a longer one makes Summarize fall back. Optional. Defaults
	// to 0.15.
	SummaryRatio float64
	// Files finds the important files of the summarized history (seed
	// 001's FileAnalyzer). Optional. The zero value finds the top 5 and
	// does not read them.
	Files FileAnalyzer
	// Instructions are the user's own instructions for the summary
	// (Claude Code's `/compact <instructions>`). Optional.
	Instructions string
	// Timeout bounds one summarizer call. Optional. Defaults to 3
	// minutes.
	Timeout time.Duration
	// Escalation runs after the summary when the window is still over
	// budget (pinned parts or a huge last round). Optional. Defaults to
	// [Tiered].
	Escalation Strategy
	// Logger receives one record per compaction, and the reason of each
	// fallback. Optional. Defaults to no logging.
	Logger *slog.Logger
	// Force makes Compact summarize whatever the usage ratio and the
	// guard (`agentctx compact`, Claude Code's /compact), and summarize
	// all the history but its last unit when the KeepRatio share would
	// keep it whole. Optional.
	Force bool
	// MinFreedRatio is the share of the window's tokens, before the
	// compaction, that the history a summary replaces must hold (a
	// previous summary, rolled into the new one, not counted); with less,
	// Escalation runs instead. Optional. Defaults to 0.20.
	MinFreedRatio float64
	// MinCallsBetween is the fewest calls of Compact from one automatic
	// summary to the next; sooner, Escalation runs instead. Optional.
	// Defaults to 3.
	MinCallsBetween int
	// MaxFailures is how many failures in a row of Summarizer open the
	// circuit breaker (see Guard above). Optional. Defaults to 3.
	MaxFailures int
	// State is the guard's memory of the window this Summarize compacts.
	// It changes at every Compact; persist it with the session to keep
	// the guard across a resume. The zero value is a fresh window.
	State SummarizeState
}

// SummarizeState is what [Summarize]'s guard remembers between calls of
// Compact on one window. Its JSON form is stable, for sessions.
type SummarizeState struct {
	// Calls counts the calls of Compact (model calls, for the Engine).
	Calls int `json:"calls"`
	// LastSummary is the value of Calls at the last summary (forced or
	// not, fallen back or not); 0 before the first.
	LastSummary int `json:"last_summary,omitempty"`
	// Summaries counts the summaries made.
	Summaries int `json:"summaries,omitempty"`
	// Escalations counts the automatic summaries the guard did not make.
	Escalations int `json:"escalations,omitempty"`
	// Failures counts the failures in a row of the Summarizer; Skipped,
	// the summaries made without it since the breaker opened.
	Failures int `json:"failures,omitempty"`
	Skipped  int `json:"skipped,omitempty"`
	// LastFailure says why the Summarizer failed last ("" once it
	// succeeds).
	LastFailure string `json:"last_failure,omitempty"`
}

// Name returns "summarize".
func (s *Summarize) Name() string { return "summarize" }

func orDefault(v, d float64) float64 {
	if v <= 0 {
		return d
	}
	return v
}

// Compact summarizes w when its usage ratio reaches the threshold, it is
// over budget, or Force is set; see [Summarize], and its guard. A window
// without a budget, or with nothing that could be summarized, is left to
// Escalation (which does nothing while it fits). It returns the summary's
// [Record] (Level [LevelSummary]) followed by Escalation's, or, when the
// guard declined to summarize, Escalation's records, the first marked
// Escalated (none when Escalation found nothing to do). It returns an
// error only when ctx is cancelled (not a summarizer's own timeout, which
// falls back); w is then unchanged. It updates State.
func (s *Summarize) Compact(ctx context.Context, w *window.Window) ([]Record, error) {
	s.State.Calls++
	budget := w.Budget()
	if budget <= 0 {
		return nil, nil
	}
	if !s.Force && w.Ratio() < orDefault(s.Threshold, DefaultSummaryThreshold) && w.Fits() {
		return nil, nil
	}
	units := w.Units()
	k := KeepFrom(w, units, orDefault(s.KeepRatio, DefaultKeepRatio))
	if s.Force {
		// Asked for (Claude Code's /compact): when the recent share
		// would keep the whole history, all but its last unit is
		// summarized.
		if !slices.ContainsFunc(units[:min(k, len(units))], func(u window.Unit) bool { return !u.Pinned }) {
			k = lastUnpinned(units)
		}
	}
	var removed, kept []chat.Message
	removedTokens := 0
	for i, u := range units {
		if u.Pinned {
			continue
		}
		for j := u.Start; j < u.End; j++ {
			if i < k {
				removed = append(removed, w.At(j))
				removedTokens += w.TokensAt(j)
			} else {
				kept = append(kept, w.At(j))
			}
		}
	}
	if len(removed) == 0 {
		return s.escalate(ctx, w, nil, nil)
	}
	if !s.Force {
		if why := s.guard(w, removedTokens); why != "" {
			return s.escalateGuarded(ctx, w, why)
		}
	}
	prev := ""
	prevTokens := 0
	if n := w.Note(); n >= 0 {
		prev = w.At(n).Text()
		prevTokens = w.TokensAt(n)
	}
	rec := Record{Strategy: s.Name(), Level: LevelSummary, TokensBefore: w.Size(), Budget: budget}
	// The scans of the removed part (files, summary, retention) read each
	// tool call once, through the Engine's reading when it has one.
	classify := classifyOnce(w.Classify)
	files := s.Files.analyze(removed, classify)
	for _, f := range files {
		rec.FilesIncluded = append(rec.FilesIncluded, f.Path)
	}
	req := SummaryRequest{
		Messages: removed, Kept: kept, Previous: prev, Files: files,
		Instructions: s.Instructions,
		MaxTokens:    max(int(orDefault(s.SummaryRatio, DefaultSummaryRatio)*float64(budget)), 1),
	}
	// Every summary, whoever writes it, carries the user's instructions
	// (this span's and the previous summary's) and names the spans it
	// covers, this one last (withCarried).
	req.Carried = CarriedInstructions(req, w.Counter())
	span := NextSpanID(prev, s.State.Summaries)
	req.Spans = append(SummarySpans(prev), span)
	replaced := prevTokens + removedTokens
	var reasons []string
	text := ""
	for i, sum := range s.chain(w, classify) {
		if i == 0 && s.breakerOpen() {
			s.State.Skipped++
			reasons = append(reasons, fmt.Sprintf("the summarizer %s is skipped after %d failures in a row (the last: %s)", sum.Name(), s.State.Failures, s.State.LastFailure))
			continue
		}
		t, reason, err := s.attempt(ctx, w, sum, req, replaced, &rec)
		if err != nil {
			return nil, err
		}
		if i == 0 && s.Summarizer != nil {
			if reason != "" {
				s.State.Failures++
			} else {
				s.State.Failures = 0
			}
			s.State.LastFailure = reason
			s.State.Skipped = 0
		}
		if reason == "" {
			text = t
			rec.Summarizer = sum.Name()
			break
		}
		reasons = append(reasons, reason)
	}
	if len(reasons) > 0 {
		rec.Fallback, rec.FallbackReason = true, strings.Join(reasons, "; ")
	}
	if text == "" {
		rec.Summarizer = TruncationSummarizer
		s.fallback(w, &rec, rec.FallbackReason, prev)
	} else {
		if rec.Fallback && s.Logger != nil {
			s.Logger.Warn("summary fell back", "summarizer", rec.Summarizer, "reason", rec.FallbackReason)
		}
		rec.MessagesRemoved, rec.RoundsRemoved = removeUnits(w, units[:k])
		w.SetNote(text)
		rec.Summary = text
		rec.Span, rec.SpanMessages = span, removed
		rec.SummaryTokens = w.Count(chat.NewText(chat.RoleUser, text))
	}
	s.State.LastSummary = s.State.Calls
	s.State.Summaries++
	rec.TokensAfter = w.Size()
	rec.OverBudget = !w.Fits()
	return s.escalate(ctx, w, &rec, classify, removed...)
}

// chain returns the summarizers to try, in order: Summarizer, then
// FallbackSummarizer (the extractive one by default, reading tool calls
// by classify: nil for [tooluse.Classify]).
func (s *Summarize) chain(w *window.Window, classify func(chat.ToolCall) tooluse.Use) []Summarizer {
	ext := &Extractive{Counter: w.Counter(), classify: classify}
	if s.Summarizer == nil {
		return []Summarizer{ext}
	}
	if s.FallbackSummarizer != nil {
		return []Summarizer{s.Summarizer, s.FallbackSummarizer}
	}
	return []Summarizer{s.Summarizer, ext}
}

// breakerOpen reports whether Summarizer is to be skipped this time: it
// failed MaxFailures times in a row, and this is not the MaxFailures-th
// summary since it was last tried, which tries it again.
func (s *Summarize) breakerOpen() bool {
	n := s.MaxFailures
	if n <= 0 {
		n = DefaultMaxFailures
	}
	return s.Summarizer != nil && s.State.Failures >= n && s.State.Skipped < max(n-1, 1)
}

// guard returns why an automatic summary is not to be made now, or "".
// removed is the size in tokens of the history the summary would replace.
func (s *Summarize) guard(w *window.Window, removed int) string {
	ratio := orDefault(s.MinFreedRatio, DefaultMinFreedRatio)
	if size := w.Size(); float64(removed) < ratio*float64(size) {
		return fmt.Sprintf("a summary could free at most %d of %d tokens (%.0f%%), under the %.0f%% minimum", removed, size, 100*float64(removed)/float64(max(size, 1)), 100*ratio)
	}
	between := s.MinCallsBetween
	if between <= 0 {
		between = DefaultMinCallsBetween
	}
	if s.State.LastSummary > 0 {
		if since := s.State.Calls - s.State.LastSummary; since < between {
			return fmt.Sprintf("the last summary was %d model calls ago, under the minimum of %d", since, between)
		}
	}
	return ""
}

// escalateGuarded runs Escalation on w in place of a summary the guard
// declined, and marks its first record with why. Escalation applies its
// own thresholds (the tiered levels from 60 % of the budget) whether w
// fits or not.
func (s *Summarize) escalateGuarded(ctx context.Context, w *window.Window, why string) ([]Record, error) {
	s.State.Escalations++
	esc := s.Escalation
	if esc == nil {
		esc = &Tiered{Logger: s.Logger}
	}
	// At its own thresholds, over budget or not: the window is past
	// Threshold, and the next level is what it gets instead of a summary.
	recs, err := esc.Compact(ctx, w)
	if len(recs) > 0 {
		recs[0].Escalated, recs[0].EscalationReason = true, why
	}
	if s.Logger != nil {
		s.Logger.Info("summary declined; escalating", "reason", why, "levels", len(recs))
	}
	return recs, err
}

// attempt asks sum for the summary of req and checks it. It returns the
// summary text (with [SummaryHeader]) or, when sum failed, why; the
// error is ctx's when the caller gave up. It adds to rec's duration and
// keeps the first usage a model reported.
func (s *Summarize) attempt(ctx context.Context, w *window.Window, sum Summarizer, req SummaryRequest, replaced int, rec *Record) (string, string, error) {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultSummaryTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	start := time.Now()
	res, err := sum.Summarize(cctx, req)
	res.Text = secret.Redact(res.Text) // whatever the summarizer: no secret in a summary
	timedOut := errors.Is(cctx.Err(), context.DeadlineExceeded)
	cancel()
	rec.DurationMS += float64(time.Since(start).Microseconds()) / 1000
	if ctx.Err() != nil {
		// The caller gave up: not the summarizer's failure.
		return "", "", fmt.Errorf("compact: summarize: %w", ctx.Err())
	}
	if rec.Usage == nil {
		rec.Usage = res.Usage
	}
	text := strings.TrimSpace(res.Text)
	if err == nil && text != "" && !strings.HasPrefix(text, SummaryHeader) {
		text = SummaryHeader + "\n\n" + text
	}
	if err == nil && text != "" {
		// Whatever the summarizer wrote, the instructions and the span
		// ids are there verbatim: a model that paraphrased or dropped
		// them gets the section added.
		text = withCarried(text, req.Carried, req.Spans)
	}
	summaryTokens := w.Count(chat.NewText(chat.RoleUser, text))
	// The limit applies to the summarizer's own text with the carried
	// sections, without the header added here and the message overhead.
	textTokens := w.Counter().Count(strings.TrimSpace(strings.TrimPrefix(text, SummaryHeader)))
	switch {
	case err != nil && (timedOut || errors.Is(err, context.DeadlineExceeded)):
		// A summary that came back whole, even late, is used.
		return "", fmt.Sprintf("the summarizer %s timed out after %s", sum.Name(), timeout), nil
	case err != nil:
		return "", fmt.Sprintf("the summarizer %s failed: %v", sum.Name(), err), nil
	case strings.TrimSpace(res.Text) == "":
		return "", fmt.Sprintf("the summarizer %s returned an empty summary", sum.Name()), nil
	case summaryTokens >= replaced:
		return "", fmt.Sprintf("the summary of %s (%d tokens) is not smaller than what it replaces (%d tokens)", sum.Name(), summaryTokens, replaced), nil
	case textTokens > req.MaxTokens:
		return "", fmt.Sprintf("the summary of %s (%d tokens) is over its limit of %d tokens", sum.Name(), textTokens, req.MaxTokens), nil
	}
	return text, "", nil
}

// escalate runs Escalation when w is over budget, measures the summary's
// retention on the window as it is left (the removed part's tool calls
// read by classify, nil for [tooluse.Classify]), logs and returns the
// records.
func (s *Summarize) escalate(ctx context.Context, w *window.Window, rec *Record, classify func(chat.ToolCall) tooluse.Use, removed ...chat.Message) ([]Record, error) {
	var recs []Record
	if rec != nil {
		recs = append(recs, *rec)
	}
	if !w.Fits() {
		esc := s.Escalation
		if esc == nil {
			esc = &Tiered{Logger: s.Logger}
		}
		more, err := esc.Compact(ctx, w)
		if err != nil {
			return recs, err
		}
		recs = append(recs, more...)
	}
	if rec != nil {
		r := MeasureRetention(extractFacts(removed, classify), w.Messages())
		recs[0].Retention = &r
		s.log(recs[0])
	}
	return recs, nil
}

func (s *Summarize) log(r Record) {
	if s.Logger == nil {
		return
	}
	attrs := []any{"strategy", r.Strategy, "level", r.Level.String(), "summarizer", r.Summarizer,
		"messages_removed", r.MessagesRemoved, "rounds_removed", r.RoundsRemoved,
		"tokens_before", r.TokensBefore, "tokens_after", r.TokensAfter, "budget", r.Budget,
		"summary_tokens", r.SummaryTokens, "files", len(r.FilesIncluded), "duration_ms", r.DurationMS}
	if r.Retention != nil {
		attrs = append(attrs, "retention", r.Retention.Overall)
	}
	if r.Fallback {
		attrs = append(attrs, "fallback", r.FallbackReason)
		s.Logger.Warn("compaction fell back", attrs...)
		return
	}
	s.Logger.Info("compaction", attrs...)
}

// fallback is seed 001's fallback: keep the most recent FallbackKeepRatio
// of the budget and write a note that says the summary failed, why, and
// what was removed (with the previous summary, when there was one, kept
// under it).
func (s *Summarize) fallback(w *window.Window, rec *Record, reason, prev string) {
	rec.Fallback, rec.FallbackReason = true, reason
	rec.FilesIncluded = nil
	units := w.Units()
	k := KeepFrom(w, units, orDefault(s.FallbackKeepRatio, DefaultFallbackKeepRatio))
	rec.MessagesRemoved, rec.RoundsRemoved = removeUnits(w, units[:k])
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s), so older messages were dropped instead and only the most recent %.0f%% of the context budget was kept.\n", fallbackMark, reason, 100*orDefault(s.FallbackKeepRatio, DefaultFallbackKeepRatio))
	b.WriteString(note(w.Dropped()))
	text := withEarlierSummary(b.String(), prev)
	w.SetNote(text)
	rec.Summary = text
	rec.SummaryTokens = w.Count(chat.NewText(chat.RoleUser, text))
	if s.Logger != nil {
		s.Logger.Warn("summary failed; falling back", "reason", reason)
	}
}

// earlierIntro introduces, in a note that replaced a summary without
// summarizing (a fallback, a tiered level), the summary it keeps.
const earlierIntro = "\n\nThe summary of an earlier compaction, still valid:\n"

// withEarlierSummary returns text followed by the summary prev holds:
// prev itself when it is a summary, or the summary a note kept under
// [earlierIntro]. Otherwise it returns text. Summaries are always last in
// a note, so one is carried over whole and never nested.
func withEarlierSummary(text, prev string) string {
	i := strings.Index(prev, SummaryHeader)
	if i < 0 || (i > 0 && !strings.HasSuffix(prev[:i], earlierIntro)) {
		return text
	}
	return text + earlierIntro + prev[i:]
}

// KeepFrom returns the index in units (w's [window.Window.Units]) from which
// the recent history is kept verbatim: the longest run of whole units at
// the end whose messages fit share of w's budget in tokens, pinned units
// not counted (they stay wherever they are). The last unpinned unit is
// kept even when it alone exceeds the share, as long as it fits the whole
// budget. Units before the index that are not pinned are the ones a
// summary replaces. It returns len(units) when nothing is kept. O(n).
func KeepFrom(w *window.Window, units []window.Unit, share float64) int {
	limit := int(share * float64(w.Budget()))
	k, sum, some := len(units), 0, false
	for i := len(units) - 1; i >= 0; i-- {
		u := units[i]
		if u.Pinned {
			continue
		}
		t := 0
		for j := u.Start; j < u.End; j++ {
			t += w.TokensAt(j)
		}
		if sum+t > limit && (some || t > w.Budget()) {
			break
		}
		sum += t
		some = true
		k = i
	}
	return k
}

// lastUnpinned returns the index of the last unit of units that is not
// pinned, len(units) when every unit is.
func lastUnpinned(units []window.Unit) int {
	for i := len(units) - 1; i >= 0; i-- {
		if !units[i].Pinned {
			return i
		}
	}
	return len(units)
}

// removeUnits removes every unpinned unit of us from w (us are w's units,
// in order, from its first), merging neighbours into one removal, and
// returns the messages and rounds removed. Removal runs from the end so
// that earlier indexes stay valid.
func removeUnits(w *window.Window, us []window.Unit) (msgs, rounds int) {
	end := -1
	start := 0
	flush := func() {
		if end > start {
			if err := w.Remove(start, end); err == nil {
				msgs += end - start
			}
		}
		end = -1
	}
	for i := len(us) - 1; i >= 0; i-- {
		u := us[i]
		if u.Pinned {
			flush()
			continue
		}
		if end < 0 {
			end = u.End
		}
		start = u.Start
		if u.Round {
			rounds++
		}
	}
	flush()
	return msgs, rounds
}

// classifyOnce returns classify remembered for the scans of one
// compaction: each tool call (its id, name and arguments) is read once,
// whichever scan reads it first ([FileAnalyzer], the extractive summary,
// the retention's facts). A window's classify is the Engine's cached
// reading while the call is in the window; after the compaction removed
// it, this remembers it.
func classifyOnce(classify func(chat.ToolCall) tooluse.Use) func(chat.ToolCall) tooluse.Use {
	seen := map[string]tooluse.Use{}
	return func(c chat.ToolCall) tooluse.Use {
		k := c.ID + "\x00" + c.Name + "\x00" + string(c.Arguments)
		if u, ok := seen[k]; ok {
			return u
		}
		u := classify(c)
		seen[k] = u
		return u
	}
}
