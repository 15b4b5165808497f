package proxy

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// StatusPath is the route where the proxy answers GET with its [Status] as
// JSON. It is the proxy's own: never forwarded upstream.
const StatusPath = "/agentctx/status"

// SessionStatus is what the proxy did for one agent session (all its
// generations), counted since the proxy started.
type SessionStatus struct {
	// Session is the id of its current generation in the store; Key the
	// id before generations.
	Session string `json:"session"`
	Key     string `json:"key"`
	// Wire is the API it speaks; Model the model of its last request.
	Wire  Wire   `json:"wire"`
	Model string `json:"model,omitempty"`
	// Project is the agent's working directory as its requests state it
	// (Claude Code's environment block, Codex's environment_context, Gemini
	// CLI's workspace directories); Title the user's first real prompt.
	Project string `json:"project,omitempty"`
	Title   string `json:"title,omitempty"`
	// Requests counts its model requests: Managed were sent with the
	// Engine's window, Forwarded were sent as the agent wrote them because
	// they fit, Unmanaged were sent as the agent wrote them because the
	// proxy could not manage them, counted by reason in UnmanagedReasons.
	Requests         int            `json:"requests"`
	Managed          int            `json:"managed"`
	Forwarded        int            `json:"forwarded"`
	Unmanaged        int            `json:"unmanaged"`
	UnmanagedReasons map[string]int `json:"unmanaged_reasons,omitempty"`
	// AgentTokens sums the requests as the agent sent them and SentTokens
	// as they went upstream, in tokens by the proxy's count.
	AgentTokens int64 `json:"agent_tokens"`
	SentTokens  int64 `json:"sent_tokens"`
	// CostUSD sums the cost of its model calls in US dollars: the tokens
	// the upstream reported, at the model's list price (agentctx's model
	// catalog, as `agentctx models` lists it); calls of a model without a
	// price, or whose answer reported no usage, add nothing.
	CostUSD float64 `json:"cost_usd"`
	// Budget is the token budget in force and ByteBudget the request size
	// limit in force, in bytes (both lowered by the upstream's overflow
	// and size answers).
	Budget     int `json:"budget"`
	ByteBudget int `json:"byte_budget"`
	// Compactions counts the compactions the Engine made for it;
	// Generations the Engine sessions it took (a rewrite of the history by
	// the agent starts a new one); AgentCompactions the agent's own
	// compaction requests (Claude Code's /compact, Codex's compaction).
	Compactions      int `json:"compactions"`
	Generations      int `json:"generations"`
	AgentCompactions int `json:"agent_compactions"`
	// Overflows counts the upstream's context-overflow answers and
	// TooLarge its request-too-large answers.
	Overflows int `json:"overflows"`
	TooLarge  int `json:"too_large"`
	// LastRequest is when its last request arrived.
	LastRequest time.Time `json:"last_request"`
}

// Status is the proxy's account of its work since it started.
type Status struct {
	// Sessions are the agent sessions, most recent request first.
	Sessions []SessionStatus `json:"sessions"`
	// Unread counts the model requests the proxy could not read (not JSON
	// of the API), by reason: forwarded as they were, in no session.
	Unread map[string]int `json:"unread,omitempty"`
	// Passed counts the other requests passed through (token counting,
	// model lists).
	Passed int `json:"passed"`
}

// ledger keeps the status counters, apart from the sessions' own locks:
// reading the status never waits for a request in flight.
type ledger struct {
	mu       sync.Mutex
	sessions map[string]*SessionStatus
	unread   map[string]int
	passed   int
}

// session returns the status of key, creating it. Call with l.mu held.
func (l *ledger) session(key string) *SessionStatus {
	if l.sessions == nil {
		l.sessions = map[string]*SessionStatus{}
	}
	st := l.sessions[key]
	if st == nil {
		st = &SessionStatus{Key: key}
		l.sessions[key] = st
	}
	return st
}

// update runs fn on the status of key under the ledger's lock.
func (l *ledger) update(key string, fn func(*SessionStatus)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fn(l.session(key))
}

// record counts one model request of a session.
func (l *ledger) record(key string, ex *Exchange, model string) {
	l.update(key, func(st *SessionStatus) {
		st.Requests++
		st.Wire, st.LastRequest = ex.Wire, time.Now().UTC()
		if ex.Session != "" {
			st.Session = ex.Session
		}
		if model != "" {
			st.Model = model
		}
		switch {
		case ex.Err != "":
			st.Unmanaged++
			if st.UnmanagedReasons == nil {
				st.UnmanagedReasons = map[string]int{}
			}
			st.UnmanagedReasons[reasonOf(ex.Err)]++
		case ex.Managed:
			st.Managed++
		default:
			st.Forwarded++
		}
		st.AgentTokens += int64(ex.AgentTokens)
		st.SentTokens += int64(ex.SentTokens)
		st.CostUSD += ex.cost
		if ex.Budget > 0 {
			st.Budget = ex.Budget
		}
		if ex.ByteBudget > 0 {
			st.ByteBudget = ex.ByteBudget
		}
		st.Compactions += len(ex.Compactions)
		st.Overflows += ex.Overflows
		st.TooLarge += ex.TooLarge
		if ex.AgentCompaction {
			st.AgentCompactions++
		}
	})
}

// reasonOf shortens an error to a reason to count by: indexes in brackets
// become "[…]" (so "messages[3]: …" and "messages[7]: …" count together),
// at most 120 bytes.
func reasonOf(err string) string {
	var b strings.Builder
	for i := 0; i < len(err) && b.Len() < 120; i++ {
		if err[i] == '[' {
			j := i + 1
			for j < len(err) && '0' <= err[j] && err[j] <= '9' {
				j++
			}
			if j > i+1 && j < len(err) && err[j] == ']' {
				b.WriteString("[…]")
				i = j
				continue
			}
		}
		b.WriteByte(err[i])
	}
	return b.String()
}

// Status returns a copy of the proxy's account, sessions with the most
// recent request first.
func (p *Proxy) Status() Status {
	l := &p.ledger
	l.mu.Lock()
	defer l.mu.Unlock()
	out := Status{Passed: l.passed, Unread: maps.Clone(l.unread)}
	for _, st := range l.sessions {
		c := *st
		c.UnmanagedReasons = maps.Clone(st.UnmanagedReasons)
		out.Sessions = append(out.Sessions, c)
	}
	slices.SortFunc(out.Sessions, func(a, b SessionStatus) int {
		if c := b.LastRequest.Compare(a.LastRequest); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out
}

// serveStatus answers GET StatusPath.
func (p *Proxy) serveStatus(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "agentctx proxy: "+StatusPath+" answers GET", http.StatusMethodNotAllowed)
		return
	}
	b, err := json.MarshalIndent(p.Status(), "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(append(b, '\n'))
}

// WriteSummary writes one line per session of st: its id, requests
// managed / forwarded / unmanaged, tokens the agent sent and tokens sent
// upstream, the budget in force; then the unread requests by reason.
// Errors: those of w.
func WriteSummary(w io.Writer, st Status) error {
	for _, s := range st.Sessions {
		saved := ""
		if s.AgentTokens > 0 {
			saved = fmt.Sprintf(" (%.0f %% of the agent's)", 100*float64(s.SentTokens)/float64(s.AgentTokens))
		}
		line := fmt.Sprintf("session %s: %d requests, %d managed, %d forwarded as they fit, %d unmanaged; %d tokens from the agent, %d sent upstream%s; budget %d",
			s.Session, s.Requests, s.Managed, s.Forwarded, s.Unmanaged, s.AgentTokens, s.SentTokens, saved, s.Budget)
		if s.CostUSD > 0 {
			line += fmt.Sprintf("; $%.4f at list price", s.CostUSD)
		}
		for _, k := range slices.Sorted(maps.Keys(s.UnmanagedReasons)) {
			line += fmt.Sprintf("; unmanaged %d× (%s)", s.UnmanagedReasons[k], k)
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(st.Unread)) {
		if _, err := fmt.Fprintf(w, "unread: %d request(s) forwarded as they were (%s)\n", st.Unread[k], k); err != nil {
			return err
		}
	}
	return nil
}
