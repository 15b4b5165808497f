package server

import (
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/reminder"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/report"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/window"
)

// inspectView is the response of GET .../inspect: the context window as
// it stands between requests. Sizes in tokens.
type inspectView struct {
	Session sessionView `json:"session"`
	// Model is the model the tokens are counted for; ContextWindow its
	// context window.
	Model         string `json:"model"`
	ContextWindow int    `json:"context_window"`
	// Budget and BudgetSource: the prompt budget and where it came from.
	Budget       int    `json:"budget"`
	BudgetSource string `json:"budget_source"`
	// Window is the window's snapshot, Breakdown where its tokens go.
	Window    agentctx.WindowStats `json:"window"`
	Breakdown window.Breakdown     `json:"breakdown"`
	// Stats counts what the Engine did since this server opened it.
	Stats agentctx.Stats `json:"stats"`
	// Todos is the agent's todo list as its todo tool set it last.
	Todos []reminder.Todo `json:"todos,omitempty"`
	// Warnings are what the Engine noticed and worked around.
	Warnings []string `json:"warnings,omitempty"`
	// Cost is what sending the window as the next prompt would cost in
	// US dollars at the model's list price, uncached and from a warm
	// cache (the window's usage-anchored size when the provider reported
	// usage); absent when the model has no price in the catalog.
	Cost *model.CallCost `json:"cost,omitempty"`
}

func (s *Server) inspect(w http.ResponseWriter, r *http.Request) error {
	var out inspectView
	err := s.withSession(r, func(_ context.Context, _ *handle, eng *agentctx.Engine, sess session.Session) error {
		info := eng.Model()
		ws := eng.WindowStats()
		tokens := ws.Tokens
		if ws.Anchor.Set {
			tokens = ws.Anchor.Size(ws.Tokens)
		}
		out = inspectView{
			Session: viewOf(tenantOf(r.Context()), sess), Model: info.Name, ContextWindow: info.ContextWindow,
			Budget: eng.Budget(), BudgetSource: eng.BudgetSource(),
			Window: ws, Breakdown: eng.Breakdown(), Stats: eng.Stats(),
			Todos: eng.Todos(), Warnings: eng.Warnings(), Cost: model.NextCallCost(info, tokens),
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// recallView is the response of GET .../outputs/{call_id}.
type recallView struct {
	CallID string `json:"call_id"`
	// Content is the part asked for, after one line that says what it is
	// ("[output of call …, lines 41-80 of 1,000]").
	Content string `json:"content"`
}

func (s *Server) recall(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	args := agentctx.RecallArgs{CallID: r.PathValue("call_id")}
	for _, p := range []struct {
		name string
		dst  *int
	}{{"start_line", &args.StartLine}, {"end_line", &args.EndLine}, {"offset", &args.Offset}, {"length", &args.Length}} {
		v := q.Get(p.name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return errorf(http.StatusBadRequest, CodeBadRequest, "%s %q: want a count ≥ 0", p.name, v)
		}
		*p.dst = n
	}
	var out recallView
	err := s.withSession(r, func(ctx context.Context, _ *handle, eng *agentctx.Engine, _ session.Session) error {
		text, err := eng.Recall(ctx, args)
		if err != nil {
			if isRangeError(err) {
				return errorf(http.StatusBadRequest, CodeBadRequest, "%v", err)
			}
			return err
		}
		out = recallView{CallID: args.CallID, Content: text}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// isRangeError reports a Recall error about the range asked for (lines
// or bytes outside the output): the caller's mistake.
func isRangeError(err error) bool {
	return strings.Contains(err.Error(), "outside the output")
}

// export writes the whole session as JSONL, one entry per line, as the
// store keeps it.
func (s *Server) export(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	id := r.PathValue("id")
	key, _, err := s.lookup(ctx, id)
	if err != nil {
		return err
	}
	tr, err := s.store.Load(ctx, key, session.LoadOptions{All: true})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	for _, e := range tr.Entries {
		if e.SessionID == key {
			// The tenant's own name of the session, as every route shows.
			e.SessionID = id
		}
		line, err := session.MarshalLine(e)
		if err != nil {
			return err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	w.Header().Set("Content-Type", "application/jsonl")
	// The id may hold quotes, semicolons or any Unicode: FormatMediaType
	// quotes and escapes it (RFC 2231 for non-ASCII).
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": id + ".jsonl"}))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(buf.Bytes())
	return nil
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// reportCSP confines the report page to itself: its inline script, styles
// and canvas images; nothing is fetched.
const reportCSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; base-uri 'none'; form-action 'none'"

// report writes the session's report page (package report): its history
// replayed under the configuration it recorded.
func (s *Server) report(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	id := r.PathValue("id")
	key, _, err := s.lookup(ctx, id)
	if err != nil {
		return err
	}
	rep, err := report.FromSession(ctx, s.store, key, replay.Options{
		LimitToolResults: true, Reminders: true, WorkingMemory: true, Logger: s.log,
	})
	if err != nil {
		return err
	}
	if rep.Source == key {
		// The tenant's own name of the session, as every route shows.
		rep.Source = id
	}
	var buf bytes.Buffer
	if err := report.Write(&buf, rep); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", reportCSP)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(buf.Bytes())
	return nil
}
