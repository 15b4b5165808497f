package compact

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/secret"
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
)

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
// Summarize falls back to keeping FallbackKeepRatio of the budget with a
// note that says so, and records the fallback. If the window is still
// over budget afterwards, Escalation runs.
//
// Every field's zero value means its default. A Summarize is safe for
// concurrent use on different windows when its Summarizer is.
type Summarize struct {
	// Summarizer writes the summary. Optional. Defaults to the extractive
	// summarizer ([Extractive]), which needs no model.
	Summarizer Summarizer
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
	// Force makes Compact summarize whatever the usage ratio
	// (`agentctx compact`). Optional.
	Force bool
}

// Name returns "summarize".
func (s *Summarize) Name() string { return "summarize" }

func (s *Summarize) summarizer(w *window.Window) Summarizer {
	if s.Summarizer != nil {
		return s.Summarizer
	}
	return &Extractive{Counter: w.Counter()}
}

func orDefault(v, d float64) float64 {
	if v <= 0 {
		return d
	}
	return v
}

// Compact summarizes w when its usage ratio reaches the threshold, it is
// over budget, or Force is set; see [Summarize]. A window without a
// budget, or with nothing that could be summarized, is left to
// Escalation (which does nothing while it fits). It returns the summary's
// [Record] (Level [LevelSummary]) followed by Escalation's. It returns an
// error only when ctx is cancelled (not the summarizer's own timeout,
// which falls back); w is then unchanged.
func (s *Summarize) Compact(ctx context.Context, w *window.Window) ([]Record, error) {
	budget := w.Budget()
	if budget <= 0 {
		return nil, nil
	}
	if !s.Force && w.Ratio() < orDefault(s.Threshold, DefaultSummaryThreshold) && w.Fits() {
		return nil, nil
	}
	units := w.Units()
	k := KeepFrom(w, units, orDefault(s.KeepRatio, DefaultKeepRatio))
	var removed, kept []chat.Message
	for i, u := range units {
		if u.Pinned {
			continue
		}
		for j := u.Start; j < u.End; j++ {
			if i < k {
				removed = append(removed, w.At(j))
			} else {
				kept = append(kept, w.At(j))
			}
		}
	}
	if len(removed) == 0 {
		return s.escalate(ctx, w, nil)
	}
	prev := ""
	prevTokens := 0
	if n := w.Note(); n >= 0 {
		prev = w.At(n).Text()
		prevTokens = w.TokensAt(n)
	}
	replaced := prevTokens
	for i := 0; i < k; i++ {
		if !units[i].Pinned {
			for j := units[i].Start; j < units[i].End; j++ {
				replaced += w.TokensAt(j)
			}
		}
	}
	sum := s.summarizer(w)
	rec := Record{
		Strategy: s.Name(), Level: LevelSummary, TokensBefore: w.Size(), Budget: budget,
		Summarizer: sum.Name(),
	}
	files := s.Files.Analyze(removed)
	for _, f := range files {
		rec.FilesIncluded = append(rec.FilesIncluded, f.Path)
	}
	maxTokens := max(int(orDefault(s.SummaryRatio, DefaultSummaryRatio)*float64(budget)), 1)
	req := SummaryRequest{
		Messages: removed, Kept: kept, Previous: prev, Files: files,
		Instructions: s.Instructions, MaxTokens: maxTokens,
	}
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
	rec.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	if ctx.Err() != nil {
		// The caller gave up: not the summarizer's failure.
		return nil, fmt.Errorf("compact: summarize: %w", ctx.Err())
	}
	rec.Usage = res.Usage
	text := strings.TrimSpace(res.Text)
	if err == nil && text != "" && !strings.HasPrefix(text, SummaryHeader) {
		text = SummaryHeader + "\n\n" + text
	}
	summaryTokens := w.Count(chat.NewText(chat.RoleUser, text))
	// The limit applies to the summarizer's own text, without the header
	// added here and the message overhead.
	textTokens := w.Counter().Count(strings.TrimSpace(res.Text))
	var reason string
	switch {
	case timedOut || errors.Is(err, context.DeadlineExceeded):
		reason = fmt.Sprintf("the summarizer %s timed out after %s", sum.Name(), timeout)
	case err != nil:
		reason = fmt.Sprintf("the summarizer %s failed: %v", sum.Name(), err)
	case strings.TrimSpace(res.Text) == "":
		reason = fmt.Sprintf("the summarizer %s returned an empty summary", sum.Name())
	case summaryTokens >= replaced:
		reason = fmt.Sprintf("the summary (%d tokens) is not smaller than what it replaces (%d tokens)", summaryTokens, replaced)
	case textTokens > maxTokens:
		reason = fmt.Sprintf("the summary (%d tokens) is over its limit of %d tokens", textTokens, maxTokens)
	}
	if reason != "" {
		s.fallback(w, &rec, reason, prev)
	} else {
		rec.MessagesRemoved, rec.RoundsRemoved = removeUnits(w, units[:k])
		w.SetNote(text)
		rec.Summary = text
		rec.SummaryTokens = summaryTokens
	}
	rec.TokensAfter = w.Size()
	rec.OverBudget = !w.Fits()
	return s.escalate(ctx, w, &rec, removed...)
}

// escalate runs Escalation when w is over budget, measures the summary's
// retention on the window as it is left, logs and returns the records.
func (s *Summarize) escalate(ctx context.Context, w *window.Window, rec *Record, removed ...chat.Message) ([]Record, error) {
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
		r := MeasureRetention(ExtractFacts(removed), w.Messages())
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
	if strings.HasPrefix(prev, SummaryHeader) {
		b.WriteString("\n\nThe summary of an earlier compaction, still valid:\n")
		b.WriteString(prev)
	}
	text := b.String()
	w.SetNote(text)
	rec.Summary = text
	rec.SummaryTokens = w.Count(chat.NewText(chat.RoleUser, text))
	if s.Logger != nil {
		s.Logger.Warn("summary failed; falling back", "reason", reason)
	}
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
