package reminder

import (
	"cmp"
	"github.com/agentctx/agentctx/tooluse"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/agentctx/agentctx/secret"
)

// Default caps of a [Manager] (Kode's numbers).
const (
	DefaultMaxPerRequest = 3
	DefaultMaxPerSession = 10
	DefaultMaxRunes      = 2000
)

// latestOnly are the kinds whose reminders describe a current state (the
// todo list, the set of changed files): the Manager keeps only the last
// key sent of each, so an unchanged state is not re-sent, a changed one
// is, and a state that comes back after a different one is sent again.
// [KeyTodoEmpty] is not a state key: it is sent once per session.
var latestOnly = map[string]bool{KindTodo: true, KindChangedFiles: true}

// slotOf reports whether r is a state reminder of a latest-only kind.
func slotOf(r Reminder) bool {
	return latestOnly[r.Kind] && r.Key != KeyTodoEmpty
}

// Options configures a [Manager]. The zero value gives the defaults.
type Options struct {
	// MaxPerRequest caps the reminders of one request. Optional. Defaults
	// to [DefaultMaxPerRequest] (3) when 0; negative means no cap.
	MaxPerRequest int
	// MaxPerSession caps the reminders of the whole session, security
	// warnings ([KindSecurity]) excepted: a secret seen late in a long
	// session is still flagged, and they do not count. Optional.
	// Defaults to [DefaultMaxPerSession] (10) when 0; negative means no
	// cap.
	MaxPerSession int
	// Generators are run in order. Optional. nil means the built-in set
	// ([Defaults], with PressureRatio); a non-nil empty slice means none.
	// They run outside the manager's lock, so a generator shared by
	// concurrent [Manager.Pending] calls must be safe for concurrent use
	// (the built-in ones are stateless).
	Generators []Generator
	// PressureRatio is the share of the compaction threshold at which the
	// context-pressure reminder fires, used for the built-in set only (a
	// custom set passes its own ratio to [PressureGenerator]). Optional.
	// Defaults to [DefaultPressureRatio] (0.85: 68 % usage at an 80 %
	// threshold) when ≤ 0; with an unknown threshold it fires at 70 %.
	PressureRatio float64
	// MaxRunes cuts each reminder's Text to this many runes, on a rune
	// boundary, the last being "…". Optional. Defaults to
	// [DefaultMaxRunes] (2000) when 0; negative means no cut.
	MaxRunes int
	// Logger receives debug records of reminders dropped by the caps.
	// Optional. Defaults to discarding.
	Logger *slog.Logger
}

// Manager decides which system reminders go with the next request of one
// session (seed 004 generateSystemReminders): it runs the generators,
// drops what was already sent, orders by priority and caps per request
// and per session. It is safe for concurrent use; one Manager serves one
// session. The zero value is not usable: call [New].
type Manager struct {
	opts Options
	log  *slog.Logger

	mu     sync.Mutex
	sent   map[string]bool   // keys sent, other than latest-only state keys
	order  []string          // sent, in the order sent
	latest map[string]string // kind → last state key sent, for latest-only kinds
	count  int               // reminders sent in the session
}

// New returns a Manager with opts, defaults filled in.
func New(opts Options) *Manager {
	if opts.MaxPerRequest == 0 {
		opts.MaxPerRequest = DefaultMaxPerRequest
	}
	if opts.MaxPerSession == 0 {
		opts.MaxPerSession = DefaultMaxPerSession
	}
	if opts.MaxRunes == 0 {
		opts.MaxRunes = DefaultMaxRunes
	}
	if opts.PressureRatio <= 0 {
		opts.PressureRatio = DefaultPressureRatio
	}
	if opts.Generators == nil {
		opts.Generators = defaults(opts.PressureRatio)
	} else {
		opts.Generators = slices.Clone(opts.Generators)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Manager{opts: opts, log: log, sent: map[string]bool{}, latest: map[string]string{}}
}

// Pending returns the reminders for a request in state s, without marking
// them sent: the caller marks the ones it actually sends with
// [Manager.MarkSent] (the engine may drop some to fit the token budget).
//
// It runs the generators in order and drops reminders whose Text is blank,
// whose Key was already sent in the session, or whose Key repeats within
// the batch (the first wins). A reminder with an empty Key is keyed by its
// Kind and a hash of its Text. Text is redacted ([secret.Redact]: a todo
// list or a file name may quote a secret) and cut to Options.MaxRunes.
// The rest is sorted by Priority, highest first (stable: generator order breaks
// ties), and cut to Options.MaxPerRequest and to what remains of
// Options.MaxPerSession. nil when there is nothing to send.
//
// Pending also observes the state for the latest-only kinds (todo,
// changed_files): when no generator yields a state reminder of such a
// kind (the list is empty, no file is stale), the manager forgets its last
// key, so the same list or file set is announced again when it returns.
func (m *Manager) Pending(s State) []Reminder {
	var cands []Reminder
	for _, g := range m.opts.Generators {
		cands = append(cands, g.Generate(s)...)
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	stateKinds := map[string]bool{}
	seen := map[string]bool{}
	var out []Reminder
	for _, r := range cands {
		if r.Key == "" {
			r.Key = r.Kind + ":" + digest(r.Text)
		}
		if slotOf(r) {
			stateKinds[r.Kind] = true
		}
		if strings.TrimSpace(r.Text) == "" || seen[r.Key] || m.sentLocked(r) {
			continue
		}
		seen[r.Key] = true
		r.Text = tooluse.CutRunes(secret.Redact(r.Text), m.opts.MaxRunes)
		out = append(out, r)
	}
	for kind := range m.latest {
		if !stateKinds[kind] {
			delete(m.latest, kind)
		}
	}
	slices.SortStableFunc(out, func(a, b Reminder) int { return cmp.Compare(b.Priority, a.Priority) })
	// Security warnings are exempt from the session cap: a secret seen
	// late in a long session must still be flagged.
	left := -1
	if m.opts.MaxPerSession >= 0 {
		left = max(0, m.opts.MaxPerSession-m.count)
	}
	var kept []Reminder
	for _, r := range out {
		full := m.opts.MaxPerRequest >= 0 && len(kept) >= m.opts.MaxPerRequest
		capped := r.Kind != KindSecurity && left == 0
		if full || capped {
			m.log.Debug("reminder: over cap", "key", r.Key, "kind", r.Kind, "priority", r.Priority, "sent", m.count)
			continue
		}
		if r.Kind != KindSecurity && left > 0 {
			left--
		}
		kept = append(kept, r)
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}

// sentLocked reports whether r counts as sent. m.mu is held.
func (m *Manager) sentLocked(r Reminder) bool {
	if slotOf(r) {
		return m.latest[r.Kind] == r.Key
	}
	return m.sent[r.Key]
}

// MarkSent records that rs were sent: their keys are not sent again (for
// latest-only kinds, until a different state of that kind was sent), and
// each counts against Options.MaxPerSession. Marking a reminder that
// already counts as sent is a no-op, so concurrent [Manager.Next] calls
// count a key once. Reminders with an empty Key are keyed as in
// [Manager.Pending]. Safe for concurrent use.
func (m *Manager) MarkSent(rs ...Reminder) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range rs {
		if r.Key == "" {
			r.Key = r.Kind + ":" + digest(r.Text)
		}
		if m.sentLocked(r) {
			continue
		}
		if r.Kind != KindSecurity {
			m.count++
		}
		if slotOf(r) {
			m.latest[r.Kind] = r.Key
			continue
		}
		m.sent[r.Key] = true
		m.order = append(m.order, r.Key)
	}
}

// Next is [Manager.Pending] followed by [Manager.MarkSent] of its result,
// for callers that send every reminder they get.
func (m *Manager) Next(s State) []Reminder {
	rs := m.Pending(s)
	m.MarkSent(rs...)
	return rs
}

// Sent returns the number of reminders sent in the session (what
// Options.MaxPerSession caps). Safe for concurrent use.
func (m *Manager) Sent() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.count
}

// ManagerState is a [Manager]'s state, for persisting it in a session so a
// resumed session neither repeats reminders nor exceeds its cap. Its JSON
// form is snake_case: {"sent":[…],"count":N,"latest":{"todo":"todo:…"}}.
type ManagerState struct {
	// Sent are the keys sent, in the order sent, other than the
	// latest-only state keys.
	Sent []string `json:"sent"`
	// Count is the number of reminders sent in the session.
	Count int `json:"count"`
	// Latest holds, per latest-only kind, the last state key sent; nil
	// when none.
	Latest map[string]string `json:"latest,omitempty"`
}

// State returns a copy of the manager's state. Sent is never nil, Latest
// is nil when empty, so the JSON form round-trips exactly. Safe for
// concurrent use.
func (m *Manager) State() ManagerState {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := ManagerState{Sent: slices.Clone(m.order), Count: m.count}
	if st.Sent == nil {
		st.Sent = []string{}
	}
	if len(m.latest) > 0 {
		st.Latest = maps.Clone(m.latest)
	}
	return st
}

// SetState replaces the manager's state with st (from [Manager.State],
// possibly through JSON). Duplicate keys in st.Sent are kept once; a
// negative Count is taken as 0. Safe for concurrent use.
func (m *Manager) SetState(st ManagerState) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = make(map[string]bool, len(st.Sent))
	m.order = make([]string, 0, len(st.Sent))
	for _, k := range st.Sent {
		if !m.sent[k] {
			m.sent[k] = true
			m.order = append(m.order, k)
		}
	}
	m.count = max(0, st.Count)
	m.latest = make(map[string]string, len(st.Latest))
	for kind, key := range st.Latest {
		m.latest[kind] = key
	}
}
