package agentctx

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/token"
)

// Overflow recovery constants.
const (
	// OverflowMargin is the share of the provider's limit left free after
	// [Engine.RecoverOverflow] converts it into the engine's own count:
	// the conversion is a ratio measured on one request, and tokenizers
	// do not scale exactly.
	OverflowMargin = 0.03
	// OverflowShrink is the share a budget loses when the provider said
	// neither its limit nor the prompt's size: the last request, counted
	// our way, was too large by an unknown amount.
	OverflowShrink = 0.15
	// MaxOverflowRecoveries is how many overflows in a row, with no reply
	// in between, RecoverOverflow handles before it gives up: the pinned
	// parts (system prompt, tool schemas, first user message, last round)
	// cannot fit then.
	MaxOverflowRecoveries = 3
	// defaultReplyTokens is the reply size assumed when the agent did not
	// set Options.MaxTokens (the adapters' default).
	defaultReplyTokens = 4096
)

// ErrOverflowUnrecoverable reports that [Engine.RecoverOverflow] could not
// make the request fit: the provider rejected MaxOverflowRecoveries
// requests in a row, each smaller than the one before. It wraps the
// provider's last error. The pinned parts alone are too large for the
// model: use a model with a larger context window, fewer tool schemas or
// a shorter system prompt.
var ErrOverflowUnrecoverable = errors.New("agentctx: the request cannot be made to fit the provider's context window")

// RecoverOverflow recovers from a provider's context-overflow error (an
// error wrapping provider.ErrContextOverflow: "prompt is too long",
// context_length_exceeded, …) for the last request the engine built. It
//
//  1. lowers the budget to what the provider can take, counted our way:
//     when the provider stated its limit and the prompt's size
//     (provider.APIError Limit and PromptTokens), the new budget is the
//     limit (less the reply's max_tokens when the provider counts them)
//     scaled by the ratio of our count of the request to the provider's,
//     less [OverflowMargin]; otherwise the last request's size less
//     [OverflowShrink];
//  2. corrects the usage anchor with the provider's count of that request;
//  3. records the new budget (its source becomes [BudgetFromProvider]) in
//     the session, so a resumed session keeps it;
//  4. compacts and returns the next request, as [Engine.Request] does.
//
// Any other error is returned as it is, with a nil request: the agent
// handles it as before. After [MaxOverflowRecoveries] overflows without a
// reply in between it returns [ErrOverflowUnrecoverable] wrapping err.
// Errors: also [ErrClosed] and those of Request.
func (e *Engine) RecoverOverflow(ctx context.Context, err error) (*Request, error) {
	if !errors.Is(err, provider.ErrContextOverflow) {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, ErrClosed
	}
	e.overflows++
	if e.overflows > MaxOverflowRecoveries {
		return nil, fmt.Errorf("%w: %d overflows in a row, budget %d tokens: %w", ErrOverflowUnrecoverable, e.overflows-1, e.w.Budget(), err)
	}
	var limit, size int
	var ae *provider.APIError
	if errors.As(err, &ae) {
		limit, size = ae.Limit, ae.PromptTokens
	}
	sent := e.lastTokens // the rejected request, counted our way
	if sent <= 0 {
		sent = e.w.Budget()
	}
	budget := e.w.Budget()
	nb := overflowBudget(limit, size, sent, max(e.opts.MaxTokens, 0))
	if nb >= budget || nb <= 0 {
		// The provider's numbers allow more than we sent (another
		// tokenizer, a limit on bytes): shrink anyway, or the same
		// request goes out again.
		nb = int(float64(min(sent, budget)) * (1 - OverflowShrink))
	}
	e.w.SetBudget(nb)
	e.budgetSource = BudgetFromProvider
	e.stats.Overflows++
	if size > 0 {
		// The provider's count of what the window held when the request
		// was built: its count less ours of the parts outside the window.
		outside := max(sent-e.w.Tokens(), 0)
		e.w.SetAnchor(token.Anchor{Reported: max(size-outside, 1), Counted: e.w.Tokens(), Set: true})
	}
	e.log.Debug("context overflow: budget lowered", "session", e.id, "from", budget, "to", nb, "limit", limit, "provider_tokens", size, "sent", sent)
	if err := e.saveConfig(ctx); err != nil {
		return nil, err
	}
	return e.request(ctx)
}

// overflowBudget converts the provider's limit into the engine's count of
// tokens: limit, less the reply's tokens when the provider counts prompt
// and reply together, times sent/size (our count over the provider's),
// less OverflowMargin. It returns 0 when the provider's numbers do not
// allow the computation.
func overflowBudget(limit, size, sent, maxTokens int) int {
	if limit <= 0 {
		return 0
	}
	allowed := limit
	reply := maxTokens
	if reply <= 0 {
		reply = defaultReplyTokens
	}
	if size > 0 && size <= limit {
		// The prompt alone fitted: the provider counts the reply's
		// max_tokens against the window too (Anthropic's "input length
		// and max_tokens exceed context limit", OpenAI's "you requested
		// … in the messages, … in the completion").
		allowed = limit - reply
	}
	if allowed <= 0 {
		return 0
	}
	ratio := 1.0
	if size > 0 && sent > 0 {
		ratio = float64(sent) / float64(size)
	}
	return int(float64(allowed) * ratio * (1 - OverflowMargin))
}
