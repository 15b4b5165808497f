package transcript

import (
	"strings"
	"time"
)

// Run metadata: where and when a trajectory ran ([Trajectory].CWD,
// GitBranch, Started, Times). Claude Code writes cwd, gitBranch and
// timestamp on every line (FORMATS.md §4); Codex writes a timestamp on
// every line and cwd, git.branch and the start time in session_meta
// (FORMATS.md §6). The other formats record no usable per-message times.

// parseTime reads a transcript timestamp: RFC 3339 with or without
// fractional seconds, or without a zone (read as UTC, as OpenHands
// writes them). Anything else is the zero time; it never fails.
func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// meta gathers a trajectory's run metadata while a reader goes through
// its lines.
type meta struct {
	t     *Trajectory
	times []time.Time
	any   bool // a message got a non-zero time
}

// line notes what one line says about the run: its working directory and
// branch (the first ones win) and its time (the earliest start).
func (m *meta) line(cwd, branch string, ts time.Time) {
	if m.t.CWD == "" {
		m.t.CWD = cwd
	}
	if m.t.GitBranch == "" {
		m.t.GitBranch = branch
	}
	if m.t.Started.IsZero() {
		m.t.Started = ts
	}
}

// stamp gives ts to the messages appended since the last call, so that
// times stays parallel to a message list of length n.
func (m *meta) stamp(n int, ts time.Time) {
	for len(m.times) < n {
		m.times = append(m.times, ts)
		if !ts.IsZero() {
			m.any = true
		}
	}
}

// finish stores the per-message times on the trajectory when any message
// has one and the list matches the messages.
func (m *meta) finish(n int) {
	m.stamp(n, time.Time{})
	if m.any && len(m.times) == n {
		m.t.Times = m.times
	}
}
