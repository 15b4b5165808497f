package agentctx

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/session"
)

// Budget sources, as [Engine.BudgetSource] reports them and the session
// records them.
const (
	// BudgetFromOption: [Options].Budget set the budget.
	BudgetFromOption = "option"
	// BudgetFromPolicy: the model's budget under [Options].Policy.
	BudgetFromPolicy = "policy"
	// BudgetFromProvider: [Engine.RecoverOverflow] lowered the budget to
	// what the provider reported.
	BudgetFromProvider = "provider"
)

// engineConfig is the Engine's configuration as the session records it
// (under the "config" key of an agentctx_state entry), so that [Resume]
// comes back with the same model, budget, tool schemas, system prompt and
// strategy: a resumed session's next request is the one the uninterrupted
// session would have sent. Functions and clients (the summarizer's model,
// a ReadFile hook, a logger) cannot be recorded: Resume takes them from
// its Options, and says so in [Engine.Warnings] when one is missing.
type engineConfig struct {
	Model        string       `json:"model"`
	Budget       int          `json:"budget"`
	BudgetSource string       `json:"budget_source"`
	Policy       string       `json:"policy,omitempty"`
	MaxTokens    int          `json:"max_tokens,omitempty"`
	SystemPrompt string       `json:"system_prompt,omitempty"`
	Tools        []toolConfig `json:"tools,omitempty"`
	StaticRatio  float64      `json:"static_ratio,omitempty"`
	// Static is the static system prompt as built when the session was
	// opened: reused on resume (byte-identical, so the provider's prompt
	// cache still serves it) unless the workspace is gathered again.
	Static      *staticConfig  `json:"static,omitempty"`
	NoWorkspace bool           `json:"no_workspace,omitempty"`
	Strategy    strategyConfig `json:"strategy"`

	NoLimit          bool `json:"no_limit,omitempty"`
	MaxResultTokens  int  `json:"max_result_tokens,omitempty"`
	NoWorkingMemory  bool `json:"no_working_memory,omitempty"`
	NoTrackerSection bool `json:"no_tracker_section,omitempty"`
	NoReminders      bool `json:"no_reminders,omitempty"`
	ContextTokens    int  `json:"context_tokens,omitempty"`
	TrackerMaxTokens int  `json:"tracker_max_tokens,omitempty"`

	RehydrateDisabled bool `json:"rehydrate_disabled,omitempty"`
	RehydrateFiles    int  `json:"rehydrate_files,omitempty"`
	RehydrateFile     int  `json:"rehydrate_file_tokens,omitempty"`
	RehydrateTotal    int  `json:"rehydrate_total_tokens,omitempty"`

	// Overrides lists the fields a Resume changed, with the values they
	// had: what the session was, before.
	Overrides []string `json:"overrides,omitempty"`
}

// toolConfig is a recorded tool schema. Parameters is kept as a string:
// as raw JSON it would be re-encoded (compacted) on the way to the
// session, and the schema sent after a resume would differ from the one
// sent before, in bytes and in tokens.
type toolConfig struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Parameters  string `json:"parameters,omitempty"`
}

func toolsConfig(ts []chat.ToolDef) []toolConfig {
	if ts == nil {
		return nil
	}
	out := make([]toolConfig, len(ts))
	for i, t := range ts {
		out[i] = toolConfig{Name: t.Name, Description: t.Description, Parameters: string(t.Parameters)}
	}
	return out
}

func toolDefs(ts []toolConfig) []chat.ToolDef {
	if ts == nil {
		return nil
	}
	out := make([]chat.ToolDef, len(ts))
	for i, t := range ts {
		out[i] = chat.ToolDef{Name: t.Name, Description: t.Description}
		if t.Parameters != "" {
			out[i].Parameters = json.RawMessage(t.Parameters)
		}
	}
	return out
}

// staticConfig is a recorded [prompt.Static].
type staticConfig struct {
	Text    string       `json:"text"`
	Rows    []prompt.Row `json:"rows,omitempty"`
	Tokens  int          `json:"tokens"`
	Dropped []string     `json:"dropped,omitempty"`
	Cut     bool         `json:"cut,omitempty"`
}

// strategyConfig is a recorded compaction strategy: its name and, inline,
// its parameters ([compact.Configurable]; the summarizer's name for
// summarize). Absent parameters are defaults.
type strategyConfig struct {
	Name string
	// Params is the strategy's parameters, a JSON object without "name";
	// nil when it records none.
	Params json.RawMessage
}

// MarshalJSON encodes c as one object: "name" first, then the
// parameters.
func (c strategyConfig) MarshalJSON() ([]byte, error) {
	name, err := json.Marshal(c.Name)
	if err != nil {
		return nil, err
	}
	out := append([]byte(`{"name":`), name...)
	if p := bytes.TrimSpace(c.Params); len(p) > 2 && p[0] == '{' {
		out = append(append(out, ','), p[1:]...)
		return out, nil
	}
	return append(out, '}'), nil
}

// UnmarshalJSON decodes what MarshalJSON encoded.
func (c *strategyConfig) UnmarshalJSON(b []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return err
	}
	c.Name = ""
	if n, ok := fields["name"]; ok {
		if err := json.Unmarshal(n, &c.Name); err != nil {
			return fmt.Errorf("strategy name: %w", err)
		}
	}
	delete(fields, "name")
	c.Params = nil
	if len(fields) > 0 {
		p, err := json.Marshal(fields)
		if err != nil {
			return err
		}
		c.Params = p
	}
	return nil
}

// summarizer returns the summarizer's name the parameters record, "" when
// none.
func (c strategyConfig) summarizer() string {
	var p struct {
		Summarizer string `json:"summarizer"`
	}
	_ = json.Unmarshal(c.Params, &p) // nil or unreadable: none
	return p.Summarizer
}

// config returns the engine's configuration as the session records it.
func (e *Engine) config() *engineConfig {
	o := &e.opts
	c := &engineConfig{
		Model: e.info.Name, Budget: e.w.Budget(), BudgetSource: e.budgetSource,
		MaxTokens: o.MaxTokens, SystemPrompt: o.SystemPrompt, Tools: toolsConfig(o.Tools),
		StaticRatio: o.StaticRatio, NoWorkspace: o.NoWorkspace,
		Strategy: strategyOf(e.strategy),
		NoLimit:  o.NoLimit, MaxResultTokens: o.MaxResultTokens, NoWorkingMemory: o.NoWorkingMemory, NoTrackerSection: o.NoTrackerSection,
		NoReminders: o.NoReminders, ContextTokens: o.ContextTokens, TrackerMaxTokens: o.Tracker.MaxTokens,
		RehydrateDisabled: o.Rehydrate.Disabled, RehydrateFiles: o.Rehydrate.Files,
		RehydrateFile: o.Rehydrate.FileTokens, RehydrateTotal: o.Rehydrate.TotalTokens,
		Overrides: e.overrides,
	}
	if o.Policy != nil {
		c.Policy = o.Policy.Name()
	}
	s := e.static
	c.Static = &staticConfig{Text: s.Text, Rows: s.Rows, Tokens: s.Tokens, Dropped: s.Dropped, Cut: s.Cut}
	return c
}

// strategyOf records s: its name and, when it is
// [compact.Configurable], its parameters.
func strategyOf(s compact.Strategy) strategyConfig {
	c := strategyConfig{Name: s.Name()}
	if cs, ok := s.(compact.Configurable); ok {
		if p, err := cs.Config(); err == nil {
			c.Params = p
		}
	}
	return c
}

// build returns the strategy c records, with the summarizer and logger of
// opts and the file analyzer of the session's project ([fileAnalyzer]),
// and an error when c names a strategy no one registered
// ([compact.Register]; a caller's own, which the caller must pass to
// Resume again) or records parameters it cannot read.
func (c strategyConfig) build(opts Options) (compact.Strategy, error) {
	return compact.Build(c.Name, c.Params, compact.BuildOptions{Summarizer: opts.Summarizer, Logger: opts.Logger, Files: fileAnalyzer(opts.Dir, opts.Dir != "")})
}

// lastConfig returns the configuration recorded last in entries, nil when
// none was (a session written before configurations were recorded, or by
// another tool).
func lastConfig(entries []session.Entry) *engineConfig {
	for i := len(entries) - 1; i >= 0; i-- {
		en := &entries[i]
		if en.Type != session.TypeState || en.IsSidechain {
			continue
		}
		var s struct {
			Config *engineConfig `json:"config"`
		}
		if json.Unmarshal(en.State, &s) == nil && s.Config != nil {
			return s.Config
		}
	}
	return nil
}

// merge fills opts from the recorded configuration c: what opts leaves
// at its zero value takes c's value; what opts sets differently overrides
// c and is returned, described, to be recorded. Booleans can only be
// switched on by opts (their zero value means "as recorded").
func (c *engineConfig) merge(opts *Options) (overrides, warnings []string) {
	over := func(name string, was any) {
		overrides = append(overrides, fmt.Sprintf("%s (was %v)", name, was))
	}
	if opts.Model == "" {
		opts.Model = c.Model
	} else if opts.Model != c.Model {
		over("model", c.Model)
	}
	switch {
	case c.Budget <= 0 && opts.Budget == 0:
		warnings = append(warnings, fmt.Sprintf("resume: the recorded budget %d is not positive; using the model's budget under the policy", c.Budget))
	case opts.Budget == 0 && opts.Policy == nil:
		opts.Budget = c.Budget
	case opts.Budget != 0 && opts.Budget != c.Budget:
		over("budget", c.Budget)
	case opts.Policy != nil && opts.Policy.Name() != c.Policy:
		over("policy", cmp.Or(c.Policy, c.BudgetSource))
	}
	if opts.MaxTokens == 0 {
		opts.MaxTokens = c.MaxTokens
	} else if opts.MaxTokens != c.MaxTokens {
		over("max_tokens", c.MaxTokens)
	}
	if opts.SystemPrompt == "" {
		opts.SystemPrompt = c.SystemPrompt
	} else if opts.SystemPrompt != c.SystemPrompt {
		over("system_prompt", fmt.Sprintf("%d bytes", len(c.SystemPrompt)))
	}
	if opts.Tools == nil {
		opts.Tools = toolDefs(c.Tools)
	} else if !sameTools(opts.Tools, toolDefs(c.Tools)) {
		over("tools", fmt.Sprintf("%d tools", len(c.Tools)))
	}
	if opts.StaticRatio == 0 {
		opts.StaticRatio = c.StaticRatio
	}
	if opts.Strategy == nil {
		s, err := c.Strategy.build(*opts)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("resume: the session used compaction strategy %q, which is not agentctx's: pass it in Options.Strategy; using the default", c.Strategy.Name))
		} else {
			opts.Strategy = s
		}
	} else if opts.Strategy.Name() != c.Strategy.Name {
		over("strategy", c.Strategy.Name)
	}
	if sum := c.Strategy.summarizer(); opts.Summarizer == nil && sum != "" && sum != "extractive" {
		warnings = append(warnings, fmt.Sprintf("resume: the session's summaries were written by %s; without Options.Summarizer they are written by the extractive summarizer", sum))
	}
	opts.NoWorkspace = opts.NoWorkspace || c.NoWorkspace
	opts.NoLimit = opts.NoLimit || c.NoLimit
	opts.MaxResultTokens = cmp.Or(opts.MaxResultTokens, c.MaxResultTokens)
	opts.NoWorkingMemory = opts.NoWorkingMemory || c.NoWorkingMemory
	opts.NoTrackerSection = opts.NoTrackerSection || c.NoTrackerSection
	opts.NoReminders = opts.NoReminders || c.NoReminders
	opts.ContextTokens = cmp.Or(opts.ContextTokens, c.ContextTokens)
	opts.Tracker.MaxTokens = cmp.Or(opts.Tracker.MaxTokens, c.TrackerMaxTokens)
	opts.Rehydrate.Disabled = opts.Rehydrate.Disabled || c.RehydrateDisabled
	opts.Rehydrate.Files = cmp.Or(opts.Rehydrate.Files, c.RehydrateFiles)
	opts.Rehydrate.FileTokens = cmp.Or(opts.Rehydrate.FileTokens, c.RehydrateFile)
	opts.Rehydrate.TotalTokens = cmp.Or(opts.Rehydrate.TotalTokens, c.RehydrateTotal)
	return overrides, warnings
}

// sameTools reports whether a and b are the same tool schemas.
func sameTools(a, b []chat.ToolDef) bool {
	return slices.EqualFunc(a, b, func(x, y chat.ToolDef) bool {
		return x.Name == y.Name && x.Description == y.Description && string(x.Parameters) == string(y.Parameters)
	})
}

// budgetSource says where a budget of opts comes from.
func budgetSource(opts Options) string {
	if opts.Budget > 0 {
		return BudgetFromOption
	}
	p := opts.Policy
	if p == nil {
		p = model.DefaultPolicy
	}
	return BudgetFromPolicy + ":" + p.Name()
}

// static returns the recorded static prompt.
func (s *staticConfig) static() prompt.Static {
	return prompt.Static{Text: s.Text, Rows: s.Rows, Tokens: s.Tokens, Dropped: s.Dropped, Cut: s.Cut}
}
