package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentctx/agentctx/agent"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/tooluse"
)

// sessionRecap is what a resumed session did, read from its whole
// stored transcript (compacted parts included).
type sessionRecap struct {
	// lastRequest is the user's last message ("" when none), requests
	// their count.
	lastRequest string
	requests    int
	// files are the files the agent's successful calls wrote, in the
	// order first written.
	files []string
	// compactions counts the compact boundaries; cost the model calls'
	// cost in US dollars at list price (0 when no price is known).
	compactions int
	cost        float64
}

// recapOf reads a session's entries.
func recapOf(entries []session.Entry) sessionRecap {
	var rc sessionRecap
	// After a compact boundary the engine writes again the messages
	// compaction kept (around the summary): copies of earlier entries,
	// left out here so that nothing is counted twice.
	kept := make([]session.Entry, 0, len(entries))
	seen := map[string]bool{}
	copies := false
	for i := range entries {
		e := &entries[i]
		switch {
		case e.IsBoundary():
			// A fork's or a rewind's boundary is no compaction.
			if m := e.CompactMetadata; m == nil || (m.Trigger != session.TriggerFork && m.Trigger != session.TriggerRewind) {
				rc.compactions++
			}
			copies = true
			continue
		case e.IsCompactSummary:
			continue
		case e.Message == nil && e.ToolResult == nil:
			kept = append(kept, *e)
			continue
		}
		tr, _ := json.Marshal(e.ToolResult)
		key := string(e.Message) + "\x00" + string(tr)
		if copies && seen[key] {
			continue
		}
		copies = false
		seen[key] = true
		kept = append(kept, *e)
	}
	msgs, _ := session.Messages(kept)
	failed := map[string]bool{}
	for _, m := range msgs {
		if res, ok := m.ToolResult(); ok {
			failed[res.ToolCallID] = res.IsError
		}
	}
	for _, m := range msgs {
		switch m.Role {
		case chat.RoleUser:
			if t := userText(m); t != "" {
				rc.lastRequest = t
				rc.requests++
			}
		case chat.RoleAssistant:
			if m.Usage != nil {
				if p, ok := model.PriceOf(m.Model); ok {
					u := m.Usage
					rc.cost += p.Cost(u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.OutputTokens)
				}
			}
			for _, c := range m.ToolCalls() {
				if failed[c.ID] {
					continue
				}
				for _, w := range tooluse.Classify(c).Writes {
					if !slices.Contains(rc.files, w.Path) {
						rc.files = append(rc.files, w.Path)
					}
				}
			}
		}
	}
	return rc
}

// userText is what the user typed in m: its text but system reminders
// and the note of an interruption; "" for a tool result.
func userText(m chat.Message) string {
	var parts []string
	for _, p := range m.Parts {
		t, ok := p.(chat.Text)
		if !ok {
			continue
		}
		s := strings.TrimSpace(t.Text)
		if s == "" || s == agent.InterruptedNote || strings.HasPrefix(s, "<system-reminder>") {
			continue
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "\n")
}

// recap prints where a resumed session stands: the last request, the
// todo list, the files changed; and sets the status line's counters to
// the whole session's. Nothing is printed for a session without a
// request.
func (r *repl) recap(ctx context.Context) {
	s := r.s
	tr, err := s.store.Load(ctx, s.eng.ID(), session.LoadOptions{All: true})
	if err != nil {
		return
	}
	rc := recapOf(tr.Entries)
	r.compactions, r.cost, r.priced = rc.compactions, rc.cost, rc.cost > 0
	if rc.lastRequest == "" {
		return
	}
	r.println(r.paint("1", "where the session stands") + r.paint("2", fmt.Sprintf(" · %d %s · %d %s", rc.requests, plural(rc.requests, "request", "requests"), rc.compactions, plural(rc.compactions, "compaction", "compactions"))))
	req := strings.Join(strings.Fields(rc.lastRequest), " ")
	r.println("  you asked: " + escapeTerm(cut(req, 160)))
	todos := s.eng.Todos()
	if len(todos) > 0 {
		r.println("  todo:")
		for _, td := range todos {
			r.println("    " + todoMark(td.Status) + " " + escapeTerm(td.Content))
		}
	} else if _, rep := s.eng.WorkingMemory(0); rep.Plan != nil && len(rep.Plan.Steps) > 0 {
		r.println("  plan:")
		for _, st := range rep.Plan.Steps {
			r.println("    " + stepMark(st.Status) + " " + escapeTerm(st.Description))
		}
	}
	if len(rc.files) > 0 {
		r.println("  files changed: " + escapeTerm(strings.Join(rc.files, ", ")))
	}
}

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
