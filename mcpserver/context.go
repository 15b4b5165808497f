package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/window"
)

// ContextReport is what the context tool returns: the session's live
// context window as the library restores it (agentctx.Resume, read-only,
// as `agentctx inspect` does), sizes in tokens.
type ContextReport struct {
	SessionID string `json:"session_id"`
	Project   string `json:"project,omitempty"`
	Model     string `json:"model"`
	// ContextWindow is the model's context window; Budget the prompt
	// budget the session manages the window to.
	ContextWindow int `json:"context_window"`
	Budget        int `json:"budget"`
	// Tokens is the window's size, the sum of Categories; FreeTokens the
	// budget left (0 when over); Percent Tokens in percent of Budget.
	Tokens     int               `json:"tokens"`
	FreeTokens int               `json:"free_tokens"`
	Percent    float64           `json:"percent"`
	Categories []window.Category `json:"categories"`
	Messages   int               `json:"messages"`
	// Compactions counts the session's compact boundaries.
	Compactions int            `json:"compactions"`
	Pins        []agentctx.Pin `json:"pins"`
	// CutOutputs are the tool outputs kept whole because the window holds
	// them cut (recall_output reads them), oldest first; Spans the ids of
	// the summarized spans (recall_span reads them).
	CutOutputs []CutOutput `json:"cut_outputs"`
	Spans      []string    `json:"spans"`
}

// CutOutput is a tool output the window holds cut: its call id, tool, and
// full size in lines and bytes.
type CutOutput struct {
	CallID string `json:"call_id"`
	Tool   string `json:"tool,omitempty"`
	Lines  int    `json:"lines"`
	Bytes  int    `json:"bytes"`
}

func (s *Server) context(ctx context.Context, _ *mcp.CallToolRequest, in SessionInput) (*mcp.CallToolResult, ContextReport, error) {
	rep, err := s.Context(ctx, in.SessionID)
	return nil, rep, err
}

// Context returns the report of session id ("" for the default session).
// Errors: [ErrNoSession], the store's and Resume's.
func (s *Server) Context(ctx context.Context, id string) (ContextReport, error) {
	id, err := s.sessionID(ctx, id)
	if err != nil {
		return ContextReport{}, err
	}
	eng, err := agentctx.Resume(ctx, id, agentctx.Options{Store: s.opts.Store, ReadOnly: true})
	if err != nil {
		return ContextReport{}, fmt.Errorf("session %s: %w", id, err)
	}
	b := eng.Breakdown()
	info, budget, pins := eng.Model(), eng.Budget(), eng.Pins()
	if err := eng.Close(); err != nil {
		return ContextReport{}, err
	}
	tr, err := s.opts.Store.Load(ctx, id, session.LoadOptions{All: true})
	if err != nil {
		return ContextReport{}, fmt.Errorf("session %s: %w", id, err)
	}
	rep := ContextReport{
		SessionID: id, Project: tr.Session.Project, Model: info.Name,
		ContextWindow: info.ContextWindow, Budget: budget,
		Tokens: b.Total, FreeTokens: max(budget-b.Total, 0),
		Categories: b.Categories(), Messages: b.Messages, Compactions: tr.Session.Compactions,
		Pins: pins, CutOutputs: []CutOutput{}, Spans: []string{},
	}
	if rep.Pins == nil {
		rep.Pins = []agentctx.Pin{}
	}
	if budget > 0 {
		rep.Percent = float64(int(1000*float64(b.Total)/float64(budget)+0.5)) / 10
	}
	seen := map[string]int{}
	for i := range tr.Entries {
		en := &tr.Entries[i]
		if en.Type != session.TypeToolOutput || en.ToolResult == nil {
			continue
		}
		r, ok := session.ToolOutput(tr.Entries[i:i+1], en.ToolResult.ID)
		if !ok {
			continue
		}
		c := CutOutput{CallID: r.ToolCallID, Tool: r.ToolName, Lines: lines(r.Content), Bytes: len(r.Content)}
		if j, ok := seen[c.CallID]; ok {
			rep.CutOutputs[j] = c
			continue
		}
		seen[c.CallID] = len(rep.CutOutputs)
		rep.CutOutputs = append(rep.CutOutputs, c)
	}
	for _, sp := range session.Spans(tr.Entries) {
		rep.Spans = append(rep.Spans, sp.ID)
	}
	return rep, nil
}

// lines counts s's lines (a last line without a line break counts).
func lines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
