package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
)

// DefaultSummaryMaxTokens is the reply limit of a summary call, in tokens,
// when neither [Summarizer].MaxTokens nor the request sets one.
const DefaultSummaryMaxTokens = 8192

// ErrEmptySummary reports that the model answered a summary request with no
// text. The compaction falls back; a retry may succeed.
var ErrEmptySummary = errors.New("provider: the model returned an empty summary")

// Summarizer is the LLM summarizer of a summarizing compaction
// ([compact.Summarize]): it sends [compact.SummaryPrompt]'s messages to
// Model and returns the reply's text with the usage the provider reported.
// Safe for concurrent use when Model is (every adapter is).
type Summarizer struct {
	// Model answers the summary request. Required.
	Model Model
	// MaxTokens caps the reply, in tokens. Optional. Defaults to the
	// request's limit (the summary's share of the budget) plus a margin,
	// else 8,192.
	MaxTokens int
	// Timeout bounds the call, retries included. Optional. Defaults to
	// the caller's context alone ([compact.Summarize] sets its own).
	Timeout time.Duration
}

// Name returns "llm:" followed by the model's name ("llm:openai/gpt-4o").
func (s *Summarizer) Name() string {
	if s.Model == nil {
		return "llm:<none>"
	}
	return "llm:" + s.Model.Name()
}

// Summarize asks the model for the summary of req. It returns the model's
// error (wrapping this package's sentinels), ctx's error, or
// [ErrEmptySummary]; the caller falls back on any of them.
func (s *Summarizer) Summarize(ctx context.Context, req compact.SummaryRequest) (compact.SummaryResult, error) {
	if s.Model == nil {
		return compact.SummaryResult{}, errors.New("provider: summarizer without a model")
	}
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	maxTokens := s.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultSummaryMaxTokens
		if req.MaxTokens > 0 {
			// Room past the limit, so that a model that overshoots is
			// measured and rejected rather than cut mid-sentence.
			maxTokens = req.MaxTokens + req.MaxTokens/4 + 256
		}
	}
	resp, err := s.Model.Send(ctx, Request{Messages: compact.SummaryPrompt(req), MaxTokens: maxTokens})
	if err != nil {
		return compact.SummaryResult{}, fmt.Errorf("provider: summarize with %s: %w", s.Model.Name(), err)
	}
	text := strings.TrimSpace(resp.Message.Text())
	var usage *chat.Usage
	if !resp.Usage.IsZero() {
		u := resp.Usage
		usage = &u
	} else if resp.Message.Usage != nil {
		u := *resp.Message.Usage
		usage = &u
	}
	if text == "" {
		return compact.SummaryResult{Usage: usage}, fmt.Errorf("provider: summarize with %s (stop reason %q): %w", s.Model.Name(), resp.StopReason, ErrEmptySummary)
	}
	return compact.SummaryResult{Text: text, Usage: usage}, nil
}
