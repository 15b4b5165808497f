package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/secret"
	"github.com/agentctx/agentctx/session"
)

// Search limits: search_session returns at most MaxSearchResults lines
// (DefaultSearchResults unless the call asks for fewer or more), each cut
// to SearchLineRunes runes.
const (
	DefaultSearchResults = 50
	MaxSearchResults     = 200
	SearchLineRunes      = 300
)

// SearchInput are search_session's arguments.
type SearchInput struct {
	SessionID  string `json:"session_id,omitempty" jsonschema:"the agentctx session id; omit it for the current session"`
	Query      string `json:"query" jsonschema:"the text to find (case-insensitive)"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"the most lines to return (default 50, at most 200)"`
}

// Hit is one line search_session found: the message it is in (1-based,
// over the session's whole history, compacted part included), its role,
// the tool call id and tool name for a tool call or output, and the line
// (1-based within the message's text) cut to SearchLineRunes runes.
// Full is set for a line of a cut output's full text, which the window no
// longer holds whole.
type Hit struct {
	Message int       `json:"message"`
	Role    chat.Role `json:"role"`
	CallID  string    `json:"call_id,omitempty"`
	Tool    string    `json:"tool,omitempty"`
	Line    int       `json:"line"`
	Text    string    `json:"text"`
	Full    bool      `json:"full_output,omitempty"`
}

func (s *Server) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, any, error) {
	id, err := s.sessionID(ctx, in.SessionID)
	if err != nil {
		return nil, nil, err
	}
	hits, total, err := s.Search(ctx, id, in.Query, in.MaxResults)
	if err != nil {
		return nil, nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[session %s: %d lines contain %q", id, total, in.Query)
	if len(hits) < total {
		fmt.Fprintf(&b, "; the first %d shown, narrow the query or raise max_results", len(hits))
	}
	b.WriteString("]\n")
	for _, h := range hits {
		fmt.Fprintf(&b, "#%d %s", h.Message, h.Role)
		if h.Tool != "" || h.CallID != "" {
			fmt.Fprintf(&b, " (%s call_id=%s", h.Tool, h.CallID)
			if h.Full {
				b.WriteString(", full output")
			}
			b.WriteString(")")
		}
		fmt.Fprintf(&b, " line %d: %s\n", h.Line, h.Text)
	}
	return text(b.String()), nil, nil
}

// Search returns the lines of session id's whole history that hold query
// (case-insensitive), at most limit of them (DefaultSearchResults when 0,
// MaxSearchResults at most), in conversation order, and how many lines
// hold it in all. The full outputs the limiter kept are searched with the
// tool result they belong to; a line found in both is given once. Secrets
// are redacted. Errors: an empty query, the store's.
func (s *Server) Search(ctx context.Context, id, query string, limit int) ([]Hit, int, error) {
	if strings.TrimSpace(query) == "" {
		return nil, 0, errors.New("search_session: query is required")
	}
	if limit <= 0 {
		limit = DefaultSearchResults
	}
	limit = min(limit, MaxSearchResults)
	tr, err := s.opts.Store.Load(ctx, id, session.LoadOptions{All: true})
	if err != nil {
		return nil, 0, fmt.Errorf("session %s: %w", id, err)
	}
	q := strings.ToLower(query)
	var hits []Hit
	total, n := 0, 0
	seen := map[string]bool{} // call id + line text already given
	emit := func(h Hit, body string) {
		ln := 0
		for line := range strings.Lines(body) {
			ln++
			if !strings.Contains(strings.ToLower(line), q) {
				continue
			}
			line = strings.TrimRight(line, "\r\n")
			if h.CallID != "" {
				k := h.CallID + "\x00" + line
				if seen[k] {
					continue
				}
				seen[k] = true
			}
			total++
			if len(hits) < limit {
				h.Line, h.Text = ln, cutRunes(secret.Redact(line), SearchLineRunes)
				hits = append(hits, h)
			}
		}
	}
	for i := range tr.Entries {
		en := &tr.Entries[i]
		if en.Type == session.TypeToolOutput && en.ToolResult != nil {
			if r, ok := session.ToolOutput(tr.Entries[i:i+1], en.ToolResult.ID); ok {
				// Written just before the cut result's message: it gets
				// that message's number.
				emit(Hit{Message: n + 1, Role: chat.RoleTool, CallID: r.ToolCallID, Tool: r.ToolName, Full: true}, r.Content)
			}
			continue
		}
		ms, err := en.Messages()
		if err != nil {
			continue
		}
		for _, m := range ms {
			n++
			if r, ok := m.ToolResult(); ok && m.Role == chat.RoleTool {
				emit(Hit{Message: n, Role: m.Role, CallID: r.ToolCallID, Tool: r.ToolName}, r.Content)
				continue
			}
			emit(Hit{Message: n, Role: m.Role}, m.Text())
			for _, c := range m.ToolCalls() {
				emit(Hit{Message: n, Role: m.Role, CallID: c.ID, Tool: c.Name}, string(c.Arguments))
			}
		}
	}
	return hits, total, nil
}

// cutRunes returns s cut to n runes, with "…" when cut.
func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
