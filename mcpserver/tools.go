package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/session"
)

// The tools' names, as the server lists them. An agent presents them to
// its model under its own prefix (proxy.MCPToolName).
const (
	ToolRecallOutput = agentctx.RecallToolName // "recall_output"
	ToolRecallSpan   = "recall_span"
	ToolContext      = "context"
	ToolPin          = "pin"
	ToolUnpin        = "unpin"
	ToolSearch       = "search_session"
)

// RecallOutputInput are recall_output's arguments: [agentctx.RecallArgs]
// and the session. Lines are 1-based and inclusive; offset and length are
// in bytes.
type RecallOutputInput struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"the agentctx session id; omit it to search the current and recent sessions for call_id"`
	CallID    string `json:"call_id,omitempty" jsonschema:"the id of the tool call whose output was cut, as the cut note gives it"`
	SpanID    string `json:"span_id,omitempty" jsonschema:"the id of a summarized span (s1, s2…) to read instead of a tool output"`
	Query     string `json:"query,omitempty" jsonschema:"return only the lines containing this text (case-insensitive), numbered"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"first line to return, 1-based"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"last line to return, inclusive"`
	Offset    int    `json:"offset,omitempty" jsonschema:"first byte to return, 0-based (instead of lines)"`
	Length    int    `json:"length,omitempty" jsonschema:"number of bytes to return (instead of lines)"`
}

// RecallSpanInput are recall_span's arguments.
type RecallSpanInput struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"the agentctx session id; omit it for the current session"`
	SpanID    string `json:"span_id" jsonschema:"the id of the summarized span, as the summary lists it (s1, s2…)"`
	Query     string `json:"query,omitempty" jsonschema:"return only the lines containing this text (case-insensitive), numbered"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"first line to return, 1-based"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"last line to return, inclusive"`
}

// SessionInput is the argument of context: the session.
type SessionInput struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"the agentctx session id; omit it for the current session"`
}

// PinInput are pin's arguments.
type PinInput struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"the agentctx session id; omit it for the current session"`
	Text      string `json:"text" jsonschema:"the instruction to keep verbatim in every later request"`
}

// UnpinInput are unpin's arguments.
type UnpinInput struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"the agentctx session id; omit it for the current session"`
	ID        string `json:"id" jsonschema:"the pin's id (p1, p2…), as pin and context give it"`
}

// PinOutput is what pin and unpin return: the session's pins after the
// call.
type PinOutput struct {
	SessionID string         `json:"session_id"`
	Pinned    *agentctx.Pin  `json:"pinned,omitempty"`
	Pins      []agentctx.Pin `json:"pins"`
}

func (s *Server) addTools() {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: ToolRecallOutput, Title: "Read back a cut tool output", Annotations: ro,
		Description: "Read back the full output of an earlier tool call that agentctx cut or hid to save context " +
			"(the cut note names its call_id), or the messages of a summarized span (span_id). Give a query to get only " +
			"the lines containing it, numbered, or start_line/end_line (1-based, inclusive) or offset/length (bytes). " +
			"At most 400 lines or 32 KiB come back per call; the first line says which part you got.",
	}, s.recallOutput)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: ToolRecallSpan, Title: "Read back a summarized span", Annotations: ro,
		Description: "Read back the messages of an earlier part of the conversation that a summary replaced, " +
			"by the span id the summary lists (s1, s2…). Give a query or start_line/end_line for part of it.",
	}, s.recallSpan)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: ToolContext, Title: "What fills the context window", Annotations: ro,
		Description: "Break the context window down by category (system prompt, user text, tool calls, tool results, " +
			"summary…) in tokens, with the budget, the free space, the pinned instructions, and the cut outputs and " +
			"summarized spans that recall_output and recall_span can read back.",
	}, s.context)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: ToolPin, Title: "Pin an instruction", Annotations: &mcp.ToolAnnotations{IdempotentHint: true},
		Description: "Keep an instruction verbatim in every later request, whatever compaction summarizes or drops. " +
			"Returns the pin's id (p1, p2…) for unpin.",
	}, s.pin)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: ToolUnpin, Title: "Unpin an instruction", Annotations: &mcp.ToolAnnotations{IdempotentHint: true},
		Description: "Stop carrying a pinned instruction, by its id (p1, p2…).",
	}, s.unpin)
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: ToolSearch, Title: "Search the whole conversation", Annotations: ro,
		Description: "Find the lines holding a text (case-insensitive) anywhere in this session's history, " +
			"including messages compaction summarized or dropped and the full text of cut tool outputs. " +
			"Each hit names its message and, for a tool output, the call_id to read more with recall_output.",
	}, s.search)
}

// text is a tool result of one text block.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func (s *Server) recallOutput(ctx context.Context, _ *mcp.CallToolRequest, in RecallOutputInput) (*mcp.CallToolResult, any, error) {
	args := agentctx.RecallArgs{CallID: in.CallID, SpanID: in.SpanID, Query: in.Query,
		StartLine: in.StartLine, EndLine: in.EndLine, Offset: in.Offset, Length: in.Length}
	out, err := s.recall(ctx, in.SessionID, args)
	if err != nil {
		return nil, nil, err
	}
	return text(out), nil, nil
}

func (s *Server) recallSpan(ctx context.Context, _ *mcp.CallToolRequest, in RecallSpanInput) (*mcp.CallToolResult, any, error) {
	if in.SpanID == "" {
		return nil, nil, errors.New("recall_span: span_id is required (s1, s2…, as the summary lists them)")
	}
	out, err := s.recall(ctx, in.SessionID, agentctx.RecallArgs{SpanID: in.SpanID, Query: in.Query, StartLine: in.StartLine, EndLine: in.EndLine})
	if err != nil {
		return nil, nil, err
	}
	return text(out), nil, nil
}

// recall answers args from session id, or without one from the first
// candidate session that has what args names.
func (s *Server) recall(ctx context.Context, id string, args agentctx.RecallArgs) (string, error) {
	if args.CallID == "" && args.SpanID == "" {
		return "", errors.New("recall_output: call_id or span_id is required")
	}
	if id != "" {
		if err := session.ValidateID(id); err != nil {
			return "", err
		}
		return agentctx.RecallStored(ctx, s.opts.Store, id, args)
	}
	ids, err := s.candidates(ctx)
	if err != nil {
		return "", err
	}
	var first error
	for _, id := range ids {
		out, err := agentctx.RecallStored(ctx, s.opts.Store, id, args)
		if err == nil {
			return out, nil
		}
		if !errors.Is(err, agentctx.ErrNoOutput) && !errors.Is(err, agentctx.ErrNoSpan) && !errors.Is(err, session.ErrNotFound) {
			return "", err
		}
		if first == nil {
			first = err
		}
	}
	return "", fmt.Errorf("%w (searched the %d most recent sessions; give session_id if it is older)", first, len(ids))
}

func (s *Server) pin(ctx context.Context, _ *mcp.CallToolRequest, in PinInput) (*mcp.CallToolResult, PinOutput, error) {
	var out PinOutput
	err := s.withEngine(ctx, in.SessionID, &out, func(eng *agentctx.Engine) error {
		p, err := eng.Pin(ctx, in.Text)
		if err != nil {
			return err
		}
		out.Pinned = &p
		return nil
	})
	return nil, out, err
}

func (s *Server) unpin(ctx context.Context, _ *mcp.CallToolRequest, in UnpinInput) (*mcp.CallToolResult, PinOutput, error) {
	var out PinOutput
	err := s.withEngine(ctx, in.SessionID, &out, func(eng *agentctx.Engine) error {
		return eng.Unpin(ctx, in.ID)
	})
	return nil, out, err
}

// withEngine resumes session id for writing, runs fn, records the pins
// in out and closes the engine. Errors: fn's, and the Resume's: a session
// another process writes is busy.
func (s *Server) withEngine(ctx context.Context, id string, out *PinOutput, fn func(*agentctx.Engine) error) (err error) {
	id, err = s.sessionID(ctx, id)
	if err != nil {
		return err
	}
	st := s.opts.Store
	if s.opts.OpenWriter != nil {
		w, err := s.opts.OpenWriter()
		if err != nil {
			return err
		}
		defer func() {
			if cerr := w.Close(); cerr != nil && err == nil {
				err = cerr
			}
		}()
		st = w
	}
	eng, err := agentctx.Resume(ctx, id, agentctx.Options{Store: st})
	if errors.Is(err, session.ErrSessionBusy) {
		return fmt.Errorf("session %s is being written by another process (a running agentctx proxy, chat or serve keeps its sessions open): pins can be changed only while it is not; %w", id, err)
	}
	if err != nil {
		return fmt.Errorf("session %s: %w", id, err)
	}
	defer func() {
		if cerr := eng.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if err := fn(eng); err != nil {
		return err
	}
	out.SessionID = id
	out.Pins = eng.Pins()
	if out.Pins == nil {
		out.Pins = []agentctx.Pin{}
	}
	return nil
}
