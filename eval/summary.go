package eval

import (
	"math/rand/v2"
	"slices"

	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/tooluse"
)

// Summary is one strategy's figures at one budget over a set of
// trajectories: one row of `agentctx eval`'s table, one object of its
// --json. Shares are fractions (0 to 1), null where no measured call
// defines them; each is the mean over trajectories of the trajectory's
// mean per call. The JSON names are part of agentctx's command-line
// contract: scripts rely on them.
type Summary struct {
	// FileSet names the files measured (the command's arguments).
	FileSet string `json:"file_set,omitempty"`
	// Budget is the prompt budget in tokens.
	Budget int `json:"budget"`
	// Strategy is the strategy's registered name; Default is true for
	// the strategy an Engine uses when none is given.
	Strategy string `json:"strategy"`
	Default  bool   `json:"default"`
	// Trajectories counts the trajectories replayed, Measured those with
	// at least one measured call (the bootstrap's sample size), and
	// MeasuredCalls the calls measured over all of them.
	Trajectories  int `json:"trajectories"`
	Measured      int `json:"measured_trajectories"`
	MeasuredCalls int `json:"measured_calls"`
	// NextActionSupport is the mean support, NextActionCI its bootstrap
	// 95 % confidence interval over trajectories ([Bootstrap]).
	NextActionSupport *float64    `json:"next_action_support"`
	NextActionCI      *[2]float64 `json:"next_action_support_ci"`
	// LatestSupport and OlderSupport split it by where the reference's
	// newest evidence is: the latest round or older history.
	LatestSupport *float64 `json:"latest_round_support"`
	OlderSupport  *float64 `json:"older_history_support"`
	// EditSupport is the share of edits whose replaced text the request
	// held verbatim.
	EditSupport *float64 `json:"edit_support"`
	// Recoverable is the share of references absent from the request
	// that a recall could bring back.
	Recoverable *float64 `json:"recoverable"`
	// InstructionSurvival is the share of the user's instruction
	// sentences present in each later request.
	InstructionSurvival *float64 `json:"instruction_survival"`
	// KindSupport is the support per reference kind ("path", "edit",
	// "error", "line", "symbol", "arg").
	KindSupport map[string]*float64 `json:"support_by_kind"`
	// Retention is replay's retention over all summarizing compactions
	// (compact.Retention.Overall); null when none ran.
	Retention *float64 `json:"retention"`
	// TokensSent is the mean request size, in tokens, over every model
	// call; CacheReuse the share of the requests' tokens a provider's
	// prompt cache would serve (replay's cache simulation).
	TokensSent float64 `json:"tokens_sent"`
	CacheReuse float64 `json:"cache_reuse"`
	// CacheAdjustedTokens is TokensSent priced with cache reads at
	// [CacheReadPrice] of an uncached input token: the spend a provider
	// bills, in uncached-token equivalents.
	CacheAdjustedTokens float64 `json:"cache_adjusted_tokens"`
	// CostUSD and UncompactedCostUSD sum, over the trajectories whose
	// model has a list price (Priced of them), what their model calls
	// would cost with the strategy's compaction and without any
	// ([replay.Cost], cache writes caused by compactions counted); null
	// when none has a price.
	CostUSD            *float64 `json:"cost_usd"`
	UncompactedCostUSD *float64 `json:"uncompacted_cost_usd"`
	Priced             int      `json:"priced_trajectories"`
	// ModelCalls, Compactions (every level applied), SummaryCalls and
	// SummaryTokens (the summaries' sizes, in tokens) and CallsOverBudget
	// are sums over the trajectories.
	ModelCalls      int `json:"model_calls"`
	Compactions     int `json:"compactions"`
	SummaryCalls    int `json:"summary_calls"`
	SummaryTokens   int `json:"summary_tokens"`
	CallsOverBudget int `json:"calls_over_budget"`
}

// CacheReadPrice is the price of a cached input token as a share of an
// uncached one: Anthropic bills cache reads at 0.1× the base input price
// (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching);
// cache writes' surcharge is left out.
const CacheReadPrice = 0.1

// BootstrapResamples and BootstrapSeed fix [Summarize]'s confidence
// interval: the same trajectories give the same interval.
const (
	BootstrapResamples = 2000
	BootstrapSeed      = 27
)

// Summarize returns the figures of one strategy at one budget over ts
// (nil entries are skipped). Errors: none; an empty ts gives a summary
// whose shares are null.
func Summarize(budget int, strategy string, ts []*Trajectory) Summary {
	s := Summary{Budget: budget, Strategy: strategy, KindSupport: map[string]*float64{}}
	var ret *compact.Retention
	prompt, cached := 0, 0
	for _, t := range ts {
		if t == nil {
			continue
		}
		s.Trajectories++
		s.MeasuredCalls += len(t.Calls)
		if len(t.Calls) > 0 {
			s.Measured++
		}
		r := t.Result
		if c := r.Cost; c != nil {
			if s.Priced == 0 {
				s.CostUSD, s.UncompactedCostUSD = new(float64), new(float64)
			}
			s.Priced++
			*s.CostUSD += c.USD
			*s.UncompactedCostUSD += c.UncompactedUSD
		}
		s.ModelCalls += r.ModelCalls
		prompt += r.PromptTokens
		cached += r.CacheReadTokens
		s.CallsOverBudget += r.CallsOverBudget
		for _, n := range r.Compactions {
			s.Compactions += n
		}
		for _, sum := range r.Summaries {
			s.SummaryCalls++
			s.SummaryTokens += sum.SummaryTokens
		}
		if r.Retention != nil {
			if ret == nil {
				ret = &compact.Retention{}
			}
			ret.Add(*r.Retention)
		}
	}
	if s.ModelCalls > 0 {
		s.TokensSent = float64(prompt) / float64(s.ModelCalls)
	}
	if prompt > 0 {
		s.CacheReuse = float64(cached) / float64(prompt)
	}
	s.CacheAdjustedTokens = s.TokensSent * (1 - s.CacheReuse*(1-CacheReadPrice))
	if ret != nil {
		s.Retention = &ret.Overall
	}
	support := means(ts, Support)
	s.NextActionSupport = mean(support)
	if len(support) > 0 {
		lo, hi := Bootstrap(support, BootstrapResamples, BootstrapSeed)
		s.NextActionCI = &[2]float64{lo, hi}
	}
	s.LatestSupport = mean(means(ts, LatestSupport))
	s.OlderSupport = mean(means(ts, OlderSupport))
	s.EditSupport = mean(means(ts, EditSupport))
	s.Recoverable = mean(means(ts, Recoverable))
	s.InstructionSurvival = mean(means(ts, InstructionSurvival))
	for _, k := range tooluse.RefKinds() {
		s.KindSupport[k.String()] = mean(means(ts, KindSupport(k)))
	}
	return s
}

// means returns the trajectories' means of s, where defined.
func means(ts []*Trajectory, s Share) []float64 {
	var out []float64
	for _, t := range ts {
		if t == nil {
			continue
		}
		if m, ok := t.Mean(s); ok {
			out = append(out, m)
		}
	}
	return out
}

// mean returns the mean of xs, nil for none.
func mean(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	m := sum / float64(len(xs))
	return &m
}

// Bootstrap returns the percentile bootstrap 95 % confidence interval of
// the mean of xs (Efron and Tibshirani, An Introduction to the Bootstrap,
// 1993, ch. 13): the 2.5th and 97.5th percentiles of the means of n
// resamples of xs with replacement, drawn from a PCG generator seeded
// with seed, so the interval is a pure function of its arguments. One
// value gives [x, x]; none gives [0, 0].
func Bootstrap(xs []float64, n int, seed uint64) (lo, hi float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	if len(xs) == 1 || n <= 0 {
		m := *mean(xs)
		return m, m
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	ms := make([]float64, n)
	for i := range ms {
		sum := 0.0
		for range xs {
			sum += xs[rng.IntN(len(xs))]
		}
		ms[i] = sum / float64(len(xs))
	}
	slices.Sort(ms)
	at := func(q float64) float64 {
		k := int(q * float64(n-1))
		return ms[k]
	}
	return at(0.025), at(0.975)
}
