package workmem

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/agentctx/agentctx/chat"
)

// Stats are the working memory's counters (seed 002 getStats).
type Stats struct {
	TotalRounds            int `json:"total_rounds"`
	ThoughtCount           int `json:"thought_count"`
	TotalActions           int `json:"total_actions"`
	TotalObservations      int `json:"total_observations"`
	CompressedObservations int `json:"compressed_observations"`
	NewInfoObservations    int `json:"new_info_observations"`
	ErrorObservations      int `json:"error_observations"`
	ReflectionCount        int `json:"reflection_count"`
	Findings               int `json:"findings"`
	PlanVersions           int `json:"plan_versions"`
	// DurationMS is the sum of the ended rounds' durations, in milliseconds.
	DurationMS int64 `json:"duration_ms"`
}

// Findings returns the number of findings in the scratchpad: [Stats]'s
// Findings in O(1), where Stats walks every round.
func (a *ActiveContext) Findings() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.st.Scratchpad)
}

// Stats returns the counters. O(rounds).
func (a *ActiveContext) Stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stats()
}

func (a *ActiveContext) stats() Stats {
	s := Stats{TotalRounds: len(a.st.Rounds), Findings: len(a.st.Scratchpad), PlanVersions: len(a.st.PlanHistory)}
	if a.st.Plan != nil {
		s.PlanVersions++
	}
	for _, r := range a.st.Rounds {
		if r.Thought != "" {
			s.ThoughtCount++
		}
		if r.Reflection != "" {
			s.ReflectionCount++
		}
		s.TotalActions += len(r.Actions)
		s.TotalObservations += len(r.Observations)
		for _, o := range r.Observations {
			if o.Compressed {
				s.CompressedObservations++
			}
			if o.GotNewInfo {
				s.NewInfoObservations++
			}
			if o.IsError {
				s.ErrorObservations++
			}
		}
		if !r.End.IsZero() {
			s.DurationMS += r.End.Sub(r.Start).Milliseconds()
		}
	}
	return s
}

// Recent is the compact summary of the last rounds (seed 002
// getRecentSummary).
type Recent struct {
	RoundCount int      `json:"round_count"`
	Thoughts   []string `json:"thoughts,omitempty"`
	ToolCalls  []string `json:"tool_calls,omitempty"`
	// NewInfoRatio is the share of those rounds' observations that brought
	// new information, 0 to 1 (0 when there were none).
	NewInfoRatio  float64 `json:"new_info_ratio"`
	LastIteration int     `json:"last_iteration"`
}

// String renders r as one Markdown paragraph.
func (r Recent) String() string {
	if r.RoundCount == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Last %d rounds (to round %d): %d tool calls, %.0f%% new information.", r.RoundCount, r.LastIteration, len(r.ToolCalls), r.NewInfoRatio*100)
	if len(r.ToolCalls) > 0 {
		fmt.Fprintf(&b, " Calls: %s.", strings.Join(r.ToolCalls, ", "))
	}
	for _, t := range r.Thoughts {
		fmt.Fprintf(&b, "\n- %s", t)
	}
	return b.String()
}

// RecentSummary summarizes the last n rounds (n <= 0 means
// [Options.RecentRounds]); thoughts are cut to 200 runes. Its zero value
// (RoundCount 0) means there are no rounds.
func (a *ActiveContext) RecentSummary(n int) Recent {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n <= 0 {
		n = a.opts.RecentRounds
	}
	rounds := a.st.Rounds[max(0, len(a.st.Rounds)-n):]
	if len(rounds) == 0 {
		return Recent{}
	}
	r := Recent{RoundCount: len(rounds), LastIteration: rounds[len(rounds)-1].Iteration}
	obs, fresh := 0, 0
	for _, rd := range rounds {
		if rd.Thought != "" {
			r.Thoughts = append(r.Thoughts, oneLine(rd.Thought, 200))
		}
		for _, act := range rd.Actions {
			r.ToolCalls = append(r.ToolCalls, act.Tool)
		}
		for _, o := range rd.Observations {
			obs++
			if o.GotNewInfo {
				fresh++
			}
		}
	}
	if obs > 0 {
		r.NewInfoRatio = float64(fresh) / float64(obs)
	}
	return r
}

// HighPriority returns the findings of importance >= least (least <= 0
// means [HighImportance]), most important first, ties in the order noted.
func (a *ActiveContext) HighPriority(least int) []Finding {
	a.mu.Lock()
	defer a.mu.Unlock()
	if least <= 0 {
		least = HighImportance
	}
	var out []Finding
	for _, f := range a.st.Scratchpad {
		if f.Importance >= least {
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(x, y Finding) int { return cmp.Compare(y.Importance, x.Importance) })
	return out
}

// Report is the distilled working memory (seed 002 distill): what an agent
// run leaves behind for the session store. It is plain JSON-serializable
// data.
type Report struct {
	Task string `json:"task,omitempty"`
	// Findings are all findings, most important first.
	Findings []Finding `json:"findings,omitempty"`
	Plan     *Plan     `json:"plan,omitempty"`
	// DoneSteps and OpenSteps are the current plan's step descriptions by
	// status (done or skipped; pending or in progress).
	DoneSteps []string `json:"done_steps,omitempty"`
	OpenSteps []string `json:"open_steps,omitempty"`
	// Files are the paths the tool calls named, in first-use order
	// ([tooluse.Use.Paths]), at most [MaxReportItems].
	Files []string `json:"files,omitempty"`
	// Errors are the last [MaxReportItems] failed results as "tool: fact".
	Errors []string `json:"errors,omitempty"`
	// Rounds is one line per round, the compressed form of BuildContext.
	Rounds []string `json:"rounds,omitempty"`
	Stats  Stats    `json:"stats"`
}

// MaxReportItems caps the Files and Errors lists of a [Report].
const MaxReportItems = 50

// Distill returns the structured report of the working memory.
func (a *ActiveContext) Distill() Report {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := Report{Task: a.st.Task, Stats: a.stats()}
	r.Findings = slices.Clone(a.st.Scratchpad)
	slices.SortStableFunc(r.Findings, func(x, y Finding) int { return cmp.Compare(y.Importance, x.Importance) })
	if a.st.Plan != nil {
		p := a.st.Plan.clone()
		r.Plan = &p
		for _, s := range p.Steps {
			if s.Status == StepDone || s.Status == StepSkipped {
				r.DoneSteps = append(r.DoneSteps, s.Description)
			} else {
				r.OpenSteps = append(r.OpenSteps, s.Description)
			}
		}
	}
	seen := map[string]bool{}
	for i, rd := range a.st.Rounds {
		for j, act := range rd.Actions {
			if len(r.Files) >= MaxReportItems {
				break
			}
			paths, ok := a.paths[[2]int{i, j}]
			if !ok {
				paths = a.opts.Classify(chat.ToolCall{Name: act.Tool, Arguments: act.Arguments}).Paths
			}
			for _, p := range paths {
				if !seen[p] && len(r.Files) < MaxReportItems {
					seen[p] = true
					r.Files = append(r.Files, p)
				}
			}
		}
		for _, o := range rd.Observations {
			if o.IsError {
				e := o.Tool
				if len(o.KeyFacts) > 0 {
					e += ": " + o.KeyFacts[len(o.KeyFacts)-1]
				}
				r.Errors = append(r.Errors, e)
			}
		}
		if c := a.cached(i); c != nil && c.line != "" {
			r.Rounds = append(r.Rounds, strings.TrimSuffix(c.line, "\n")) // as BuildContext rendered it
		} else {
			r.Rounds = append(r.Rounds, roundLine(rd))
		}
	}
	if len(r.Errors) > MaxReportItems {
		r.Errors = r.Errors[len(r.Errors)-MaxReportItems:]
	}
	return r
}
