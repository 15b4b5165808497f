package compact

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
)

// DefaultModelSummaryMaxTokens is the reply limit of a summary call, in
// tokens, when neither [ModelSummarizer].MaxTokens nor the request sets one.
const DefaultModelSummaryMaxTokens = 8192

// ErrEmptySummary reports that the model answered a summary request with no
// text. The compaction falls back; a retry may succeed.
var ErrEmptySummary = errors.New("compact: the model returned an empty summary")

// ModelSummarizer is the LLM summarizer of a summarizing compaction
// ([Summarize]): it sends [SummaryPrompt]'s messages to a
// [provider.Model] and returns the reply's text with the usage the
// provider reported. Safe for concurrent use when Model is (every adapter
// is).
type ModelSummarizer struct {
	// Model answers the summary request. Required.
	Model provider.Model
	// MaxTokens caps the reply, in tokens. Optional. Defaults to the
	// request's limit (the summary's share of the budget) plus a margin,
	// else 8,192.
	MaxTokens int
	// Timeout bounds the call, retries included. Optional. Defaults to
	// the caller's context alone ([Summarize] sets its own).
	Timeout time.Duration
}

// Name returns "llm:" followed by the model's name ("llm:openai/gpt-4o").
func (s *ModelSummarizer) Name() string {
	if s.Model == nil {
		return "llm:<none>"
	}
	return "llm:" + s.Model.Name()
}

// Summarize asks the model for the summary of req. It returns the model's
// error (wrapping the provider package's sentinels), ctx's error, or
// [ErrEmptySummary]; the caller falls back on any of them.
func (s *ModelSummarizer) Summarize(ctx context.Context, req SummaryRequest) (SummaryResult, error) {
	if s.Model == nil {
		return SummaryResult{}, errors.New("compact: model summarizer without a model")
	}
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	maxTokens := s.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultModelSummaryMaxTokens
		if req.MaxTokens > 0 {
			// Room past the limit, so that a model that overshoots is
			// measured and rejected rather than cut mid-sentence.
			maxTokens = req.MaxTokens + req.MaxTokens/4 + 256
		}
	}
	resp, err := s.Model.Send(ctx, provider.Request{Messages: SummaryPrompt(req), MaxTokens: maxTokens})
	if err != nil {
		return SummaryResult{}, fmt.Errorf("compact: summarize with %s: %w", s.Model.Name(), err)
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
		return SummaryResult{Usage: usage}, fmt.Errorf("compact: summarize with %s (stop reason %q): %w", s.Model.Name(), resp.StopReason, ErrEmptySummary)
	}
	return SummaryResult{Text: text, Usage: usage}, nil
}
