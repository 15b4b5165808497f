package workmem

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ToJSON encodes the whole state ([State]) as JSON: json.Marshal's
// bytes. Options are not written; pass them again to [FromJSON]. The
// rounds that can no longer change (closed, older than the sliding
// window, their observations compressed) are encoded once and their JSON
// kept: the state is saved at each compaction, and its rounds, which
// grow with the session, are most of it (issue 29). Errors: none in
// practice (the state holds only JSON-encodable values); a non-nil error
// wraps the encoder's.
func (a *ActiveContext) ToJSON() ([]byte, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, err := a.encode()
	if err != nil {
		return nil, fmt.Errorf("workmem: encode state: %w", err)
	}
	return b, nil
}

// stateHead and stateTail are [State]'s members before and after Rounds,
// in its order, for [ActiveContext.encode] (TestEncodeFields keeps them
// in step with State).
type (
	stateHead struct {
		Version    int       `json:"version"`
		Task       string    `json:"task,omitempty"`
		Scratchpad []Finding `json:"scratchpad,omitempty"`
	}
	stateTail struct {
		Plan          *Plan  `json:"plan,omitempty"`
		PlanHistory   []Plan `json:"plan_history,omitempty"`
		ExpectingPlan bool   `json:"expecting_plan,omitempty"`
	}
)

// settled reports whether round i can no longer change: closed, older
// than the last RecentRounds, every observation compressed (slide).
func (a *ActiveContext) settled(i int) bool {
	r := &a.st.Rounds[i]
	if r.Summary == nil || i >= len(a.st.Rounds)-a.opts.RecentRounds {
		return false
	}
	for j := range r.Observations {
		if !r.Observations[j].Compressed {
			return false
		}
	}
	return true
}

// encode returns json.Marshal(a.st), the JSON of its settled leading
// rounds taken from a.enc (and added to it). a.mu is held.
func (a *ActiveContext) encode() ([]byte, error) {
	st := &a.st
	if len(a.enc) > len(st.Rounds) {
		a.enc = a.enc[:len(st.Rounds)]
	}
	for len(a.enc) < len(st.Rounds) && a.settled(len(a.enc)) {
		b, err := json.Marshal(st.Rounds[len(a.enc)])
		if err != nil {
			return nil, err
		}
		a.enc = append(a.enc, b)
	}
	head, err := json.Marshal(stateHead{st.Version, st.Task, st.Scratchpad})
	if err != nil {
		return nil, err
	}
	tail, err := json.Marshal(stateTail{st.Plan, st.PlanHistory, st.ExpectingPlan})
	if err != nil {
		return nil, err
	}
	n := len(head) + len(tail) + 16
	for _, b := range a.enc {
		n += len(b) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, head[:len(head)-1]...)
	if len(st.Rounds) > 0 {
		out = append(out, `,"rounds":[`...)
		for i := range st.Rounds {
			if i > 0 {
				out = append(out, ',')
			}
			if i < len(a.enc) {
				out = append(out, a.enc[i]...)
				continue
			}
			b, err := json.Marshal(st.Rounds[i])
			if err != nil {
				return nil, err
			}
			out = append(out, b...)
		}
		out = append(out, ']')
	}
	if len(tail) > 2 {
		out = append(append(out, ','), tail[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
}

// FromJSON restores a working memory written by [ActiveContext.ToJSON]
// (seed 002 fromJSON, for resuming), with opts as for [New]; its State
// equals the one encoded, its texts redacted as the memory redacts what it
// records (a no-op for a state this version wrote; a state saved before
// redaction existed repeats no secret). Errors wrap [ErrInvalidState]: data that is not
// one JSON object (naming the byte offset of a syntax error), an unknown
// version, or out-of-range values (importance outside 1-10, an unknown step
// status or result type, round numbers not 1, 2, 3, …, an open round other
// than the last). Never panics.
func FromJSON(data []byte, opts Options) (*ActiveContext, error) {
	var st State
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&st); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("workmem: decode state at byte %d: %w: %w", se.Offset, ErrInvalidState, err)
		}
		return nil, fmt.Errorf("workmem: decode state: %w: %w", ErrInvalidState, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("workmem: decode state at byte %d: trailing data: %w", dec.InputOffset(), ErrInvalidState)
	}
	if err := st.validate(); err != nil {
		return nil, fmt.Errorf("workmem: decode state: %w: %w", ErrInvalidState, err)
	}
	st.redact()
	a := &ActiveContext{st: st}
	a.init(opts)
	return a, nil
}

var resultTypes = map[ResultType]bool{
	ResultError: true, ResultEmpty: true, ResultSearch: true, ResultFile: true,
	ResultEdit: true, ResultCommand: true, ResultJSON: true, ResultText: true,
}

func (s State) validate() error {
	if s.Version != StateVersion {
		return fmt.Errorf("version %d, want %d", s.Version, StateVersion)
	}
	for i, f := range s.Scratchpad {
		if f.Importance < MinImportance || f.Importance > MaxImportance {
			return fmt.Errorf("finding %d: importance %d", i, f.Importance)
		}
	}
	for i, r := range s.Rounds {
		if r.Iteration != i+1 {
			return fmt.Errorf("round %d: iteration %d", i, r.Iteration)
		}
		if r.Open() && i != len(s.Rounds)-1 {
			return fmt.Errorf("round %d: open but not the last", r.Iteration)
		}
		for j, o := range r.Observations {
			if !resultTypes[o.ResultType] {
				return fmt.Errorf("round %d observation %d: result type %q", r.Iteration, j, o.ResultType)
			}
		}
		for j, act := range r.Actions {
			if len(act.Arguments) > 0 && !json.Valid(act.Arguments) {
				return fmt.Errorf("round %d action %d: arguments not JSON", r.Iteration, j)
			}
		}
	}
	plans := append([]Plan(nil), s.PlanHistory...)
	if s.Plan != nil {
		plans = append(plans, *s.Plan)
	}
	for i, p := range plans {
		for j, st := range p.Steps {
			if !st.Status.Valid() {
				return fmt.Errorf("plan %d step %d: status %q", i, j, st.Status)
			}
		}
	}
	return nil
}

// redact passes every text of a decoded state through clean and
// redactArgs, in place.
func (s *State) redact() {
	s.Task = clean(s.Task)
	for i := range s.Scratchpad {
		f := &s.Scratchpad[i]
		f.Finding, f.Evidence = clean(f.Finding), clean(f.Evidence)
	}
	for i := range s.Rounds {
		r := &s.Rounds[i]
		r.Thought, r.Reflection = clean(r.Thought), clean(r.Reflection)
		for j := range r.Actions {
			r.Actions[j].Arguments = redactArgs(r.Actions[j].Arguments)
		}
		for j := range r.Observations {
			o := &r.Observations[j]
			o.Raw = clean(o.Raw)
			for k := range o.KeyFacts {
				o.KeyFacts[k] = clean(o.KeyFacts[k])
			}
		}
	}
	if s.Plan != nil {
		s.Plan.redact()
	}
	for i := range s.PlanHistory {
		s.PlanHistory[i].redact()
	}
}

func (p *Plan) redact() {
	p.Text = clean(p.Text)
	for i := range p.Steps {
		p.Steps[i].Description = clean(p.Steps[i].Description)
	}
}
