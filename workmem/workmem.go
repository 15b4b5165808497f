package workmem

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/jsonx"
	"github.com/agentctx/agentctx/secret"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/tooluse"
)

// Defaults of [Options].
const (
	// DefaultRecentRounds is how many of the latest rounds keep the raw
	// text of their observations (seed 002: maxRecentRounds = 3).
	DefaultRecentRounds = 3
	// DefaultMaxRawBytes is how many bytes of one observation's raw text
	// are kept while it is in the sliding window.
	DefaultMaxRawBytes = 4000
)

// Importance bounds of a [Finding] (seed 002: importance 1-10, default 5).
const (
	MinImportance     = 1
	MaxImportance     = 10
	DefaultImportance = 5
	// HighImportance is the importance from which a finding is rendered
	// before the plan in [ActiveContext.BuildContext] and returned by
	// [ActiveContext.HighPriority] when asked for min <= 0.
	HighImportance = 7
)

// Options configures an [ActiveContext]. The zero value means defaults.
type Options struct {
	// Counter counts the tokens of BuildContext's output. Optional.
	// Defaults to token.ForEncoding(token.O200kBase), exact.
	Counter token.Counter
	// RecentRounds is how many of the latest rounds keep their raw
	// observations. Optional. Defaults to [DefaultRecentRounds]; values
	// below 1 mean the default.
	RecentRounds int
	// MaxRawBytes caps the raw text kept per observation, in bytes, cut on
	// a rune boundary. Optional. Defaults to [DefaultMaxRawBytes].
	MaxRawBytes int
	// Lightweight skips the costly parts (seed 002's lightweight mode):
	// no raw observation text is kept, no key facts are derived, and the
	// scratchpad refuses findings ([ActiveContext.AddFinding] returns
	// false). Rounds, actions, metadata and the plan are still recorded.
	Lightweight bool
	// Now is the clock for round start and end times. Optional. Defaults
	// to time.Now.
	Now func() time.Time
	// Logger receives debug records (plan replaced, plan ignored).
	// Optional. Defaults to a logger that discards.
	Logger *slog.Logger
	// Classify reads an observed result's tool call. Optional. Defaults
	// to [tooluse.Classify]; a caller that reads the same calls elsewhere
	// passes a [tooluse.Recent]'s, so that each is read once. It must
	// return what tooluse.Classify returns, and its result is not
	// changed.
	Classify func(chat.ToolCall) tooluse.Use
}

// Finding is one entry of the scratchpad: something the agent marked as
// worth remembering (seed 002 noteKeyFinding). Findings are never
// compressed or dropped by the sliding window.
type Finding struct {
	// Finding is what was found, as the agent wrote it.
	Finding string `json:"finding"`
	// Evidence backs it up, typically "path:line". May be empty.
	Evidence string `json:"evidence,omitempty"`
	// Importance is 1 (trivia) to 10 (critical). AddFinding turns 0 into
	// [DefaultImportance] and clamps other values into [1, 10].
	Importance int `json:"importance"`
	// Round is the round it was noted in (1-based); AddFinding fills in
	// the current round when 0.
	Round int `json:"round"`
}

// Action is one tool call of a round.
type Action struct {
	ID        string          `json:"id,omitempty"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// ResultType classifies an observation (seed 002 buildObservationMeta).
type ResultType string

// The result types, derived from the tool's name, its error flag and the
// shape of its output.
const (
	ResultError   ResultType = "error"   // a failure: the error flag or a non-zero exit code (chat.ToolResult.FailedFor)
	ResultEmpty   ResultType = "empty"   // no output
	ResultSearch  ResultType = "search"  // grep, glob, find_file, search_dir, …
	ResultFile    ResultType = "file"    // Read, open, str_replace_editor view, …
	ResultEdit    ResultType = "edit"    // Edit, Write, apply_patch, str_replace_editor edits
	ResultCommand ResultType = "command" // Bash, shell, exec_command, execute_bash
	ResultJSON    ResultType = "json"    // other output that is a JSON object or array
	ResultText    ResultType = "text"    // anything else
)

// Observation is a tool result of a round with its derived metadata.
type Observation struct {
	ToolCallID string `json:"tool_call_id,omitempty"`
	Tool       string `json:"tool"`
	// GotNewInfo reports that the result was not an error, not empty, and
	// differed from every earlier result (compared by Digest).
	GotNewInfo bool       `json:"got_new_info"`
	ResultType ResultType `json:"result_type"`
	// KeyFacts are up to [MaxKeyFacts] short facts (paths, exit code, first
	// error line, failing tests, match counts), each at most
	// [KeyFactRunes] runes. Empty in lightweight mode.
	KeyFacts []string `json:"key_facts,omitempty"`
	// Size is the full result's length in bytes.
	Size int `json:"size"`
	// IsError reports a failure ([chat.ToolResult.FailedFor]): the tool's
	// structured failure flag or a non-zero exit, but not grep's "no
	// match" nor diff's "differ" (exit 1).
	IsError bool `json:"is_error,omitempty"`
	// Raw is the result's text, cut to [Options.MaxRawBytes]; "" once the
	// observation left the sliding window (then Compressed is true) and
	// always "" in lightweight mode.
	Raw        string `json:"raw,omitempty"`
	Compressed bool   `json:"compressed,omitempty"`
	// Digest is the 64-bit xxHash (XXH64) of the tool's name, a zero byte
	// and the full result, in hex; it is how
	// GotNewInfo recognizes a repeated result.
	Digest string `json:"digest,omitempty"`
}

// RoundSummary is the tally EndRound computes for its round.
type RoundSummary struct {
	TotalCalls   int `json:"total_calls"`
	NewInfoCount int `json:"new_info_count"`
	Errors       int `json:"errors"`
}

// Round is one ReAct round: a thought, the tool calls it made, their
// results, and the reflection after them.
type Round struct {
	// Iteration is the round's 1-based number.
	Iteration    int           `json:"iteration"`
	Thought      string        `json:"thought,omitempty"`
	Actions      []Action      `json:"actions,omitempty"`
	Observations []Observation `json:"observations,omitempty"`
	Reflection   string        `json:"reflection,omitempty"`
	// Summary is set by EndRound; nil while the round is open.
	Summary *RoundSummary `json:"summary,omitempty"`
	Start   time.Time     `json:"start"`
	// End is zero while the round is open.
	End time.Time `json:"end,omitzero"`
}

// Open reports whether the round has not been ended.
func (r Round) Open() bool { return r.Summary == nil }

// State is the whole exported state of an [ActiveContext]: what ToJSON
// writes and FromJSON restores.
type State struct {
	// Version is the state format, [StateVersion].
	Version     int       `json:"version"`
	Task        string    `json:"task,omitempty"`
	Scratchpad  []Finding `json:"scratchpad,omitempty"`
	Rounds      []Round   `json:"rounds,omitempty"`
	Plan        *Plan     `json:"plan,omitempty"`
	PlanHistory []Plan    `json:"plan_history,omitempty"`
	// ExpectingPlan is set by ExpectPlan and consumed by the next
	// SetPlanFromText.
	ExpectingPlan bool `json:"expecting_plan,omitempty"`
}

// StateVersion is the version written by ToJSON.
const StateVersion = 1

// ActiveContext is the working memory of one task. Create it with [New] or
// [FromJSON]. All methods are safe for concurrent use; the memory grows with
// the number of rounds (metadata only, outside the sliding window).
type ActiveContext struct {
	mu   sync.Mutex
	opts Options
	st   State
	// enc is the JSON of st's leading rounds that can no longer change
	// (encode), one per round.
	enc    [][]byte
	seen   map[string]struct{} // digests of earlier results
	byCall map[string]int      // tool-call id → action index in the open round
	// uses holds the calls of the open round read as given (addAction),
	// by tool-call id, when that reading is the one of the action's
	// arguments as kept (shareArgs), with the arguments as given: the
	// result's failure is decided on the same bytes the tracker decides
	// it on (chat.ToolResult.FailedFor remembers the last answer).
	uses    map[string]givenUse
	counter token.Counter
	// done caches the closed rounds' renderings, by round index, and
	// counts the texts BuildContext renders (render.go).
	done   []rendered
	counts token.Memo
	// opened is the open round's last full rendering (roundFull), which
	// its cache entry takes when the round closes unchanged.
	opened openRendering
	// paths are the paths of the actions read while their results were
	// observed, by round and action index, for Distill (not saved: a
	// restored memory reads its actions again).
	paths map[[2]int][]string
	// task is the task's line as BuildContext renders it, and the task
	// it renders.
	task struct{ of, line string }
	// shown is what the request shows verbatim besides the working
	// memory ([ActiveContext.SetShown]).
	shown struct{ task, history bool }
	// offs is fit's buffer of rune offsets, chosen and sorted
	// BuildContext's of pieces, kept from call to call.
	offs           []int32
	chosen, sorted []piece
}

// New returns an empty working memory for task (the user's request; it
// heads BuildContext's output). It never fails: if the default counter
// cannot be built, token counts fall back to token.Estimator.
func New(task string, opts Options) *ActiveContext {
	a := &ActiveContext{st: State{Version: StateVersion, Task: clean(task)}}
	a.init(opts)
	return a
}

func (a *ActiveContext) init(opts Options) {
	if opts.RecentRounds < 1 {
		opts.RecentRounds = DefaultRecentRounds
	}
	if opts.MaxRawBytes < 1 {
		opts.MaxRawBytes = DefaultMaxRawBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Classify == nil {
		opts.Classify = tooluse.Classify
	}
	a.counter = opts.Counter
	if a.counter == nil {
		if c, err := token.ForEncoding(token.O200kBase); err == nil {
			a.counter = c
		} else {
			a.counter = token.Estimator{}
		}
	}
	a.opts = opts
	a.seen = map[string]struct{}{}
	a.byCall = map[string]int{}
	a.uses = map[string]givenUse{}
	a.paths = map[[2]int][]string{}
	for _, r := range a.st.Rounds {
		for _, o := range r.Observations {
			if o.Digest != "" {
				a.seen[o.Digest] = struct{}{}
			}
		}
	}
	if r := a.open(); r != nil {
		for i, act := range r.Actions {
			if act.ID != "" {
				a.byCall[act.ID] = i
			}
		}
	}
}

func (a *ActiveContext) now() time.Time { return a.opts.Now().Round(0).UTC() }

// open returns the open round, or nil.
func (a *ActiveContext) open() *Round {
	if n := len(a.st.Rounds); n > 0 && a.st.Rounds[n-1].Open() {
		return &a.st.Rounds[n-1]
	}
	return nil
}

// SetShown tells [ActiveContext.BuildContext] what the request it is
// rendered for shows verbatim besides it: task, whether the window holds
// the user's first message (the task), and history, whether it holds
// rounds of the history. BuildContext then leaves out the task line, and
// the rounds (the recent rounds in full and one line per earlier round):
// the window shows the newest rounds and the compaction note what
// compaction removed, and a working memory that repeats them spends the
// budget twice. What it renders then is what only it holds: the findings
// and the plan. On the shared trajectories, the rounds it rendered were
// the rounds compaction had kept, and leaving them out, with the tool
// results sized against the room the working memory really takes, raised
// next-action support (agentctx eval; docs/compaction.md). The zero values
// (the default) render everything, as seed 002 does.
func (a *ActiveContext) SetShown(task, history bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.shown.task, a.shown.history = task, history
}

// Task returns the task given to New.
func (a *ActiveContext) Task() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.st.Task
}

// StartRound ends the open round, if any (with no reflection), and starts
// round n+1 with thought. It returns the new round's 1-based number.
func (a *ActiveContext) StartRound(thought string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.startRound(thought)
}

func (a *ActiveContext) startRound(thought string) int {
	if a.open() != nil {
		a.endRound("")
	}
	n := len(a.st.Rounds) + 1
	a.st.Rounds = append(a.st.Rounds, Round{Iteration: n, Thought: clean(thought), Start: a.now()})
	clear(a.byCall)
	clear(a.uses)
	a.slide()
	return n
}

// SetThought replaces the open round's thought, starting a round if none is
// open.
func (a *ActiveContext) SetThought(thought string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if r := a.open(); r != nil {
		r.Thought = clean(thought)
		return
	}
	a.startRound(thought)
}

// AddAction records a tool call in the open round, starting a round with no
// thought if none is open.
func (a *ActiveContext) AddAction(call chat.ToolCall) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.addAction(call)
}

func (a *ActiveContext) addAction(call chat.ToolCall) {
	r := a.open()
	if r == nil {
		a.startRound("")
		r = a.open()
	}
	norm := normalizeArgs(call.Arguments)
	act := Action{ID: valid(call.ID), Tool: valid(call.Name), Arguments: redactArgs(norm)}
	r.Actions = append(r.Actions, act)
	if call.ID != "" {
		a.byCall[call.ID] = len(r.Actions) - 1
		if shareArgs(call, act, norm) {
			a.uses[call.ID] = givenUse{u: a.opts.Classify(call), args: call.Arguments}
		}
	}
}

// Observe records a tool result in the open round (starting one if none is
// open) and returns its metadata. The result is matched to the round's
// action of the same tool-call id for the tool's name and arguments.
func (a *ActiveContext) Observe(res chat.ToolResult) Observation {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.open()
	if r == nil {
		a.startRound("")
		r = a.open()
	}
	var act Action
	at := -1 // the action's index in the round
	if i, ok := a.byCall[res.ToolCallID]; ok && res.ToolCallID != "" && i < len(r.Actions) {
		act, at = r.Actions[i], i
	}
	if act.Tool == "" {
		act.Tool = res.ToolName
	}
	given, ok := a.uses[res.ToolCallID]
	u := given.u
	if !ok || act.ID != res.ToolCallID {
		u = a.opts.Classify(chat.ToolCall{Name: act.Tool, Arguments: act.Arguments})
	} else {
		act.Arguments = given.args // the same call; this copy is not kept
	}
	if at >= 0 {
		a.paths[[2]int{len(a.st.Rounds) - 1, at}] = u.Paths
	}
	o := a.describe(act, res, u)
	r.Observations = append(r.Observations, o)
	return o
}

// EndRound closes the open round with reflection and computes its
// [RoundSummary]. Without an open round it does nothing and returns false.
func (a *ActiveContext) EndRound(reflection string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.endRound(reflection)
}

func (a *ActiveContext) endRound(reflection string) bool {
	r := a.open()
	if r == nil {
		return false
	}
	if reflection != "" {
		r.Reflection = clean(reflection)
	}
	s := RoundSummary{TotalCalls: len(r.Actions)}
	for _, o := range r.Observations {
		if o.GotNewInfo {
			s.NewInfoCount++
		}
		if o.IsError {
			s.Errors++
		}
	}
	if len(r.Observations) > s.TotalCalls {
		s.TotalCalls = len(r.Observations)
	}
	r.Summary = &s
	r.End = a.now()
	if r.End.Before(r.Start) {
		r.End = r.Start
	}
	clear(a.byCall)
	clear(a.uses)
	return true
}

// slide drops the raw text of observations of rounds older than the last
// RecentRounds (seed 002's sliding window).
func (a *ActiveContext) slide() {
	cut := len(a.st.Rounds) - a.opts.RecentRounds
	for i := cut - 1; i >= 0; i-- {
		r := &a.st.Rounds[i]
		done := true
		for j := range r.Observations {
			o := &r.Observations[j]
			if !o.Compressed {
				done = false
				o.Raw = ""
				o.Compressed = true
			}
		}
		if i < len(a.done) {
			// Its full rendering held the raw text.
			a.done[i].full = ""
		}
		if a.opened.round == i {
			a.opened = openRendering{}
		}
		if done {
			break // older rounds were compressed earlier
		}
	}
}

// AddFinding notes a finding in the scratchpad (seed 002 noteKeyFinding).
// Importance 0 becomes [DefaultImportance], other values are clamped to
// [1, 10]; Round 0 becomes the current round. An empty finding is ignored.
// It returns false when nothing was recorded (empty finding, lightweight
// mode).
func (a *ActiveContext) AddFinding(f Finding) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	f.Finding = strings.TrimSpace(clean(f.Finding))
	f.Evidence = clean(f.Evidence)
	if f.Finding == "" || a.opts.Lightweight {
		return false
	}
	switch {
	case f.Importance == 0:
		f.Importance = DefaultImportance
	case f.Importance < MinImportance:
		f.Importance = MinImportance
	case f.Importance > MaxImportance:
		f.Importance = MaxImportance
	}
	if f.Round <= 0 {
		f.Round = len(a.st.Rounds)
	}
	a.st.Scratchpad = append(a.st.Scratchpad, f)
	return true
}

// ObserveMessage feeds one message of a conversation, so a replay can
// drive the memory message by message: an assistant message starts a new
// round whose thought is its text (its thinking when it has no text),
// offers the text to SetPlanFromText, and records its tool calls as
// actions; a tool message is observed. System and user messages are
// ignored.
func (a *ActiveContext) ObserveMessage(m chat.Message) {
	switch m.Role {
	case chat.RoleAssistant:
		text := strings.TrimSpace(m.Text())
		thought := text
		if thought == "" {
			var b []string
			for _, p := range m.Parts {
				if t, ok := p.(chat.Thinking); ok && t.Text != "" {
					b = append(b, t.Text)
				}
			}
			thought = strings.TrimSpace(strings.Join(b, "\n"))
		}
		a.StartRound(thought)
		if text != "" {
			a.SetPlanFromText(text)
		}
		a.mu.Lock()
		for _, p := range m.Parts {
			if c, ok := p.(chat.ToolCall); ok {
				a.addAction(c)
			}
		}
		a.mu.Unlock()
	case chat.RoleTool:
		for _, p := range m.Parts {
			if r, ok := p.(chat.ToolResult); ok {
				a.Observe(r)
			}
		}
	}
}

// State returns a deep copy of the exported state.
func (a *ActiveContext) State() State {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.st.clone()
}

func (s State) clone() State {
	c := s
	c.Scratchpad = cloneSlice(s.Scratchpad)
	if s.Plan != nil {
		p := s.Plan.clone()
		c.Plan = &p
	}
	if s.PlanHistory != nil {
		c.PlanHistory = make([]Plan, len(s.PlanHistory))
		for i, p := range s.PlanHistory {
			c.PlanHistory[i] = p.clone()
		}
	}
	if s.Rounds != nil {
		c.Rounds = make([]Round, len(s.Rounds))
		for i, r := range s.Rounds {
			r.Actions = cloneSlice(r.Actions)
			for j := range r.Actions {
				if r.Actions[j].Arguments != nil {
					r.Actions[j].Arguments = append(json.RawMessage(nil), r.Actions[j].Arguments...)
				}
			}
			r.Observations = cloneSlice(r.Observations)
			for j := range r.Observations {
				r.Observations[j].KeyFacts = cloneSlice(r.Observations[j].KeyFacts)
			}
			if r.Summary != nil {
				s := *r.Summary
				r.Summary = &s
			}
			c.Rounds[i] = r
		}
	}
	return c
}

func cloneSlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}

// valid replaces invalid UTF-8 so that every stored string survives the
// JSON round trip unchanged. Valid text (utf8.ValidString checks eight
// ASCII bytes at a time) is returned as it is.
func valid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// clean is valid and redacted ([secret.Redact]): every text the memory
// keeps from messages or from the agent (task, thoughts, reflections,
// findings, plan, observations, tool-call arguments) passes through it,
// since the memory is saved in the session and rendered into requests,
// while the messages themselves are kept once, as recorded.
func clean(s string) string { return secret.Redact(valid(s)) }

// normalizeArgs returns tool-call arguments in the compact form the JSON
// encoder writes, so the round trip keeps them byte for byte: valid JSON
// compacted, anything else as a JSON string. Valid UTF-8 arguments are
// compacted and HTML-escaped, as json.Marshal writes a RawMessage, in one
// pass (compactHTML); FuzzNormalizeArgs compares with json.Compact and
// json.HTMLEscape.
func normalizeArgs(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	if !jsonx.Valid(raw) {
		out, _ := json.Marshal(valid(string(raw)))
		return out
	}
	if out, ok := compactHTML(raw); ok {
		return out
	}
	// JSON strings with invalid UTF-8 are re-encoded by Marshal.
	var b bytes.Buffer
	_ = json.Compact(&b, raw) // cannot fail: raw is valid
	var v any
	if json.Unmarshal(b.Bytes(), &v) == nil {
		if out, err := json.Marshal(v); err == nil {
			return out
		}
	}
	var e bytes.Buffer
	json.HTMLEscape(&e, b.Bytes()) // as json.Marshal writes a RawMessage
	return json.RawMessage(e.String())
}

// compactHTML returns raw, valid JSON, as json.Compact and then
// json.HTMLEscape write it: without white space outside strings, and
// with <, >, &, U+2028 and U+2029 escaped (\u003c, \u2028, …); false when
// raw is not valid UTF-8. The runs between the bytes it drops or escapes
// are copied whole; arguments that need neither are copied once.
func compactHTML(raw []byte) (json.RawMessage, bool) {
	const hex = "0123456789abcdef"
	var out []byte // nil until the first byte dropped or escaped
	from := 0      // raw[from:i] is still to be copied to out
	inString, ascii := false, true
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		var esc [6]byte // the escape that replaces raw[i:next]
		next := i + 1
		switch {
		case c >= utf8.RuneSelf:
			ascii = false
			if c != 0xE2 || i+2 >= len(raw) || raw[i+1] != 0x80 || raw[i+2]&^1 != 0xA8 {
				continue
			}
			esc = [6]byte{'\\', 'u', '2', '0', '2', hex[raw[i+2]&0xF]}
			next = i + 3
		case inString:
			switch c {
			case '\\':
				i++ // an ASCII escape: \", \\, \n, \u…
				continue
			case '"':
				inString = false
				continue
			case '<', '>', '&':
				esc = [6]byte{'\\', 'u', '0', '0', hex[c>>4], hex[c&0xF]}
			default:
				continue
			}
		case c == '"':
			inString = true
			continue
		case c == ' ', c == '\t', c == '\n', c == '\r':
		default:
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(raw)+16)
		}
		out = append(out, raw[from:i]...)
		if esc[0] != 0 {
			out = append(out, esc[:]...)
		}
		from = next
		i = next - 1
	}
	if !ascii && !utf8.Valid(raw) {
		return nil, false
	}
	if out == nil {
		return append(json.RawMessage(nil), raw...), true
	}
	return append(out, raw[from:]...), true
}

// givenUse is a call of the open round read as given, and its arguments
// as given.
type givenUse struct {
	u    tooluse.Use
	args json.RawMessage
}

// shareArgs reports whether call reads as act, the action kept of it
// with arguments norm (normalizeArgs of call's) redacted: when its name
// is valid UTF-8, its arguments are a JSON object (decoded alike, compact
// or not, escaped or not) and redaction left them unchanged. A caller
// that reads call anyway (the Engine's tracker) then shares its reading.
// normalizeArgs starts its output with '{' exactly when it was given a
// valid JSON object (anything else becomes a JSON string, or keeps its
// first byte), so that is all it checks of call's arguments.
func shareArgs(call chat.ToolCall, act Action, norm json.RawMessage) bool {
	return act.Tool == call.Name && len(norm) > 0 && norm[0] == '{' && bytes.Equal(act.Arguments, norm)
}

// redactArgs redacts normalized tool-call arguments: in their JSON text
// when the result is still valid JSON (a marker holds no quote or
// backslash), else string by string through a decode and encode.
func redactArgs(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	s := secret.Redact(string(raw))
	if s == string(raw) {
		return raw
	}
	if jsonx.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		out, _ := json.Marshal(s)
		return out
	}
	return normalizeArgs(mustMarshal(redactValue(v)))
}

// redactValue redacts every string of a decoded JSON value, keys included.
func redactValue(v any) any {
	switch v := v.(type) {
	case string:
		return secret.Redact(v)
	case []any:
		for i := range v {
			v[i] = redactValue(v[i])
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[secret.Redact(k)] = redactValue(x)
		}
		return out
	}
	return v
}

// mustMarshal encodes a decoded JSON value, which cannot fail.
func mustMarshal(v any) json.RawMessage {
	out, _ := json.Marshal(v)
	return out
}
