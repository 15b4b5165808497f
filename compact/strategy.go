package compact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/agentctx/agentctx/window"
)

// The optional interfaces below let a caller (the agentctx Engine, replay)
// drive any [Strategy] without knowing its type. A strategy implements
// those that apply to it; a new strategy is one file in this package (or
// the caller's own), plus a [Register] call to make it resumable.

// Thresholder is a [Strategy] that compacts from a usage ratio on: the
// Engine's context-pressure reminder warns before it is reached.
type Thresholder interface {
	// ThresholdRatio returns the usage ratio (of the window's budget) at
	// which the strategy compacts, its default applied; in (0, +∞).
	ThresholdRatio() float64
}

// Forcer is a [Strategy] that can compact a window now, whatever its usage
// ratio (Claude Code's /compact, `agentctx compact`). A strategy that is
// not one is replaced, for a manual compaction, by a forced [Summarize].
type Forcer interface {
	// CompactNow compacts w now, with instructions for a summary
	// (optional), and returns the records as Compact does. Its errors are
	// Compact's.
	CompactNow(ctx context.Context, w *window.Window, instructions string) ([]Record, error)
}

// Escalator is a [Strategy] whose compaction can leave the window over
// budget once its caller reserves more (the rehydration block the Engine
// adds after a summary), and which knows what to run then. A caller that
// finds the window over budget after such a compaction calls Escalate;
// for a strategy that is not an Escalator it runs the zero [Tiered].
type Escalator interface {
	// Escalate compacts w further, without another summary. Its errors
	// are Compact's.
	Escalate(ctx context.Context, w *window.Window) ([]Record, error)
}

// Stateful is a [Strategy] that remembers one window between calls of
// Compact ([Summarize]'s guard). One value serves one window; its state is
// saved with the session and restored on resume.
type Stateful interface {
	Strategy
	// Fresh returns a copy of the strategy, configured alike, with the
	// state of a new window.
	Fresh() Stateful
	// MarshalState encodes the state; its JSON form is stable, for
	// sessions.
	MarshalState() (json.RawMessage, error)
	// UnmarshalState restores a state MarshalState encoded. It returns an
	// error for JSON it cannot read, and then leaves the state as it was.
	UnmarshalState(json.RawMessage) error
	// Calls returns the model calls the state counts, and SetCalls sets
	// them. Compact counts one call; a caller that may build a request
	// more than once per model call (a retry) restores the count after
	// Compact and counts the call when it is made.
	Calls() int
	SetCalls(n int)
}

// Configurable is a [Strategy] whose parameters can be recorded: the
// Engine records them with the session, and [Build] makes the strategy
// again from them on resume.
type Configurable interface {
	// Config returns the strategy's parameters as a JSON object, zero
	// values omitted (they are defaults). Its keys must not include
	// "name", which the record uses for the strategy's [Strategy.Name].
	Config() (json.RawMessage, error)
}

// BuildOptions are what a recorded configuration cannot hold: clients and
// sinks, passed to a [Builder] again.
type BuildOptions struct {
	// Summarizer writes summaries. Optional. Defaults to the extractive
	// summarizer.
	Summarizer Summarizer
	// Logger receives the strategy's records. Optional. Defaults to no
	// logging.
	Logger *slog.Logger
	// Files finds the important files of a summarized history for the
	// strategies that summarize: the directory relative paths are read
	// against (a session's project), and whether their content is read.
	// Optional. Defaults to the zero FileAnalyzer: the process's working
	// directory, no content.
	Files FileAnalyzer
}

// Builder makes a strategy from a configuration its [Configurable.Config]
// returned (nil or empty for the defaults). It returns an error for a
// configuration it cannot read.
type Builder func(config json.RawMessage, opts BuildOptions) (Strategy, error)

// ErrUnknownStrategy reports a strategy name no [Builder] is registered
// for. Pass the strategy itself (a caller's own), or [Register] it.
var ErrUnknownStrategy = errors.New("compact: unknown strategy")

var (
	registryMu sync.RWMutex
	registry   = map[string]Builder{
		"tiered":    buildTiered,
		"mask":      buildMask,
		"summarize": buildSummarize,
		"none":      func(json.RawMessage, BuildOptions) (Strategy, error) { return None{}, nil },
		// The anchors' strategies, written after other agents' documented
		// compaction (anchors.go), and the floor they must all beat.
		"claude-code": buildClaudeCode,
		"codex":       buildCodex,
		"opencode":    buildOpenCode,
		"openhands":   buildOpenHands,
		"gemini-cli":  buildGeminiCLI,
		"truncate":    func(_ json.RawMessage, o BuildOptions) (Strategy, error) { return &Truncate{Logger: o.Logger}, nil },
	}
)

// Register makes the strategy named name buildable by [Build], and so
// resumable. It replaces a builder registered under the same name
// (agentctx's own included). Safe for concurrent use.
func Register(name string, b Builder) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[name] = b
}

// Build makes the strategy named name (case-insensitive) from config, as
// its [Configurable.Config] recorded it (nil for the defaults). Errors:
// [ErrUnknownStrategy] (wrapped, naming the known strategies) and the
// builder's.
func Build(name string, config json.RawMessage, opts BuildOptions) (Strategy, error) {
	registryMu.RLock()
	b, ok := registry[strings.ToLower(name)]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownStrategy, name, strings.Join(Names(), ", "))
	}
	s, err := b(config, opts)
	if err != nil {
		return nil, fmt.Errorf("compact: build %s: %w", name, err)
	}
	return s, nil
}

// Names returns the registered strategies' names: agentctx's own first,
// in the order of [ParseStrategy]'s help, then the others sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	own := []string{"tiered", "mask", "summarize", "none"}
	var more []string
	for n := range registry {
		if !slices.Contains(own, n) {
			more = append(more, n)
		}
	}
	slices.Sort(more)
	out := own[:0:0]
	for _, n := range own {
		if _, ok := registry[n]; ok {
			out = append(out, n)
		}
	}
	return append(out, more...)
}

// decodeConfig decodes config into v; nil or empty config leaves v as it
// is.
func decodeConfig(config json.RawMessage, v any) error {
	if len(config) == 0 || string(config) == "null" {
		return nil
	}
	if err := json.Unmarshal(config, v); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// tieredConfig is the recorded form of [Tiered]'s parameters.
type tieredConfig struct {
	L1         float64 `json:"l1,omitempty"`
	L2         float64 `json:"l2,omitempty"`
	L3         float64 `json:"l3,omitempty"`
	L1MinRunes int     `json:"l1_min_runes,omitempty"`
	L1Keep     int     `json:"l1_keep_runes,omitempty"`
	L2Rounds   int     `json:"l2_keep_rounds,omitempty"`
	NamesRatio float64 `json:"names_ratio,omitempty"`
}

func (c tieredConfig) tiered(l *slog.Logger) Tiered {
	return Tiered{L1: c.L1, L2: c.L2, L3: c.L3, L1MinRunes: c.L1MinRunes, L1KeepRunes: c.L1Keep, L2KeepRounds: c.L2Rounds, NamesRatio: c.NamesRatio, Logger: l}
}

func tieredConfigOf(t *Tiered) tieredConfig {
	return tieredConfig{L1: t.L1, L2: t.L2, L3: t.L3, L1MinRunes: t.L1MinRunes, L1Keep: t.L1KeepRunes, L2Rounds: t.L2KeepRounds, NamesRatio: t.NamesRatio}
}

func buildTiered(config json.RawMessage, opts BuildOptions) (Strategy, error) {
	var c tieredConfig
	if err := decodeConfig(config, &c); err != nil {
		return nil, err
	}
	t := c.tiered(opts.Logger)
	return &t, nil
}

// maskConfig is the recorded form of [Mask]'s parameters: its
// escalation's, then its own.
type maskConfig struct {
	tieredConfig
	KeepRounds int `json:"keep_rounds,omitempty"`
	Batch      int `json:"batch,omitempty"`
}

func buildMask(config json.RawMessage, opts BuildOptions) (Strategy, error) {
	var c maskConfig
	if err := decodeConfig(config, &c); err != nil {
		return nil, err
	}
	return &Mask{KeepRounds: c.KeepRounds, Batch: c.Batch, Escalation: c.tiered(opts.Logger), Logger: opts.Logger}, nil
}

// summarizeConfig is the recorded form of [Summarize]'s parameters.
// Summarizer names the summarizer, which cannot be recorded itself.
type summarizeConfig struct {
	Summarizer string  `json:"summarizer,omitempty"`
	Threshold  float64 `json:"threshold,omitempty"`
	KeepRatio  float64 `json:"keep_ratio,omitempty"`
	Fallback   float64 `json:"fallback_keep_ratio,omitempty"`
	Summary    float64 `json:"summary_ratio,omitempty"`
	MinFreed   float64 `json:"min_freed_ratio,omitempty"`
	MinCalls   int     `json:"min_calls_between,omitempty"`
	MaxFail    int     `json:"max_failures,omitempty"`
}

func buildSummarize(config json.RawMessage, opts BuildOptions) (Strategy, error) {
	var c summarizeConfig
	if err := decodeConfig(config, &c); err != nil {
		return nil, err
	}
	return &Summarize{
		Summarizer: opts.Summarizer, Threshold: c.Threshold, KeepRatio: c.KeepRatio,
		FallbackKeepRatio: c.Fallback, SummaryRatio: c.Summary, Logger: opts.Logger,
		MinFreedRatio: c.MinFreed, MinCallsBetween: c.MinCalls, MaxFailures: c.MaxFail,
		Files: opts.Files,
	}, nil
}

// SummarizerName names a summarizer for records: "extractive" for nil
// (the default), else its [Summarizer.Name].
func SummarizerName(s Summarizer) string {
	if s == nil {
		return (Extractive{}).Name()
	}
	return s.Name()
}

// ThresholdRatio returns Threshold, 0.80 by default.
func (s *Summarize) ThresholdRatio() float64 {
	return orDefault(s.Threshold, DefaultSummaryThreshold)
}

// CompactNow summarizes w whatever its usage ratio and the guard, with
// instructions for the summarizer: Compact with Force and Instructions
// set on a copy. The guard remembers the summary, but a manual
// compaction is no model call: State.Calls does not move.
func (s *Summarize) CompactNow(ctx context.Context, w *window.Window, instructions string) ([]Record, error) {
	c := *s
	c.Instructions, c.Force = instructions, true
	recs, err := c.Compact(ctx, w)
	calls := s.State.Calls
	s.State = c.State
	s.State.Calls = calls
	return recs, err
}

// Escalate runs Escalation ([Tiered] by default) on w.
func (s *Summarize) Escalate(ctx context.Context, w *window.Window) ([]Record, error) {
	esc := s.Escalation
	if esc == nil {
		esc = &Tiered{Logger: s.Logger}
	}
	return esc.Compact(ctx, w)
}

// Fresh returns a copy of s with a zero State.
func (s *Summarize) Fresh() Stateful {
	c := *s
	c.State = SummarizeState{}
	return &c
}

// MarshalState encodes State.
func (s *Summarize) MarshalState() (json.RawMessage, error) { return json.Marshal(s.State) }

// UnmarshalState decodes a [SummarizeState] into State.
func (s *Summarize) UnmarshalState(b json.RawMessage) error {
	var st SummarizeState
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("compact: summarize state: %w", err)
	}
	s.State = st
	return nil
}

// Calls returns State.Calls.
func (s *Summarize) Calls() int { return s.State.Calls }

// SetCalls sets State.Calls.
func (s *Summarize) SetCalls(n int) { s.State.Calls = n }

// Config records s's parameters and its summarizer's name.
func (s *Summarize) Config() (json.RawMessage, error) {
	return json.Marshal(summarizeConfig{
		Summarizer: SummarizerName(s.Summarizer), Threshold: s.Threshold, KeepRatio: s.KeepRatio,
		Fallback: s.FallbackKeepRatio, Summary: s.SummaryRatio,
		MinFreed: s.MinFreedRatio, MinCalls: s.MinCallsBetween, MaxFail: s.MaxFailures,
	})
}

// ThresholdRatio returns L2, 0.70 by default: the ratio from which
// history is removed (L1 only cuts old tool results).
func (t *Tiered) ThresholdRatio() float64 {
	_, l2, _ := t.ratios()
	return l2
}

// Config records t's parameters.
func (t *Tiered) Config() (json.RawMessage, error) { return json.Marshal(tieredConfigOf(t)) }

// Config records m's parameters and its escalation's.
func (m *Mask) Config() (json.RawMessage, error) {
	return json.Marshal(maskConfig{tieredConfig: tieredConfigOf(&m.Escalation), KeepRounds: m.KeepRounds, Batch: m.Batch})
}

// Interface checks.
var (
	_ Stateful     = (*Summarize)(nil)
	_ Forcer       = (*Summarize)(nil)
	_ Escalator    = (*Summarize)(nil)
	_ Thresholder  = (*Summarize)(nil)
	_ Configurable = (*Summarize)(nil)
	_ Thresholder  = (*Tiered)(nil)
	_ Configurable = (*Tiered)(nil)
	_ Configurable = (*Mask)(nil)
	_ Thresholder  = (*ClaudeCode)(nil)
	_ Configurable = (*ClaudeCode)(nil)
	_ Thresholder  = (*Codex)(nil)
	_ Configurable = (*Codex)(nil)
	_ Thresholder  = (*OpenCode)(nil)
	_ Configurable = (*OpenCode)(nil)
	_ Thresholder  = (*OpenHands)(nil)
	_ Configurable = (*OpenHands)(nil)
	_ Thresholder  = (*GeminiCLI)(nil)
	_ Configurable = (*GeminiCLI)(nil)
	_ Thresholder  = (*Truncate)(nil)
)
