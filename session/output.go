package session

import (
	"context"
	"fmt"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/jsonx"
)

// NewToolOutputEntry returns a [TypeToolOutput] entry holding r whole: the
// full output of a tool result that the tool-result limiter cut. The
// fields a [Store] fills are left empty. It returns an error wrapping
// [ErrInvalidEntry] when r has no tool call id.
func NewToolOutputEntry(r chat.ToolResult) (Entry, error) {
	if r.ToolCallID == "" {
		return Entry{}, fmt.Errorf("session: tool output entry: %w: no tool call id", ErrInvalidEntry)
	}
	tr, err := toolResultField(r)
	if err != nil {
		return Entry{}, fmt.Errorf("session: tool output entry: %w: tool result %q: %w", ErrInvalidEntry, r.ToolCallID, err)
	}
	return Entry{Type: TypeToolOutput, ToolResult: tr}, nil
}

// toolResultField is the "toolResult" object of r: Output alone (a JSON
// string) for a success, Error alone for a failure (see [ToolResult]).
func toolResultField(r chat.ToolResult) (*ToolResult, error) {
	tr := &ToolResult{ID: r.ToolCallID, Name: r.ToolName}
	if r.IsError {
		content := r.Content
		tr.Error = &content
		return tr, nil
	}
	out, err := jsonx.MarshalNoEscape(r.Content)
	if err != nil {
		return nil, err
	}
	tr.Output = out
	return tr, nil
}

// ToolOutput returns the full output kept for the tool call toolCallID
// (the last [TypeToolOutput] entry with that id) and true, or false when
// none is kept: the result entered the window whole, or its output was
// written before the entries given (load with LoadOptions.All to search
// the whole session). O(n).
func ToolOutput(entries []Entry, toolCallID string) (chat.ToolResult, bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		e := &entries[i]
		if e.Type != TypeToolOutput || e.ToolResult == nil || e.ToolResult.ID != toolCallID {
			continue
		}
		m, err := e.toolResultMessage()
		if err != nil {
			continue
		}
		if r, ok := m.ToolResult(); ok {
			return r, true
		}
	}
	return chat.ToolResult{}, false
}

// AddToolOutput records the full output of a tool result that the
// tool-result limiter cut ([NewToolOutputEntry]), in one [Store.Append].
// Call it before adding the cut result with [Recorder.Add]. Errors are
// NewToolOutputEntry's and the store's, wrapped.
func (r *Recorder) AddToolOutput(ctx context.Context, full chat.ToolResult) error {
	e, err := NewToolOutputEntry(full)
	if err != nil {
		return fmt.Errorf("session: record %s: %w", r.id, err)
	}
	if _, err := r.store.Append(ctx, r.id, e); err != nil {
		return fmt.Errorf("session: record %s: tool output: %w", r.id, err)
	}
	r.appended(e)
	return nil
}
