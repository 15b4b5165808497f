package agentctx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
)

// RecallToolName is the name of the tool that reads back a tool output the
// tool-result limiter cut, or compaction masked ([RecallTool]).
const RecallToolName = "recall_output"

// DefaultRecallCacheBytes is the default of [Options].RecallCacheBytes: 8
// MiB of full tool outputs kept in memory by an engine without a store.
const DefaultRecallCacheBytes = 8 << 20

// Recall limits: one answer holds at most RecallMaxLines lines and
// RecallMaxBytes bytes; a longer range is cut, and the answer says which
// lines to ask for next.
const (
	RecallMaxLines = 400
	RecallMaxBytes = 32 << 10
)

// ErrNoOutput reports a [Engine.Recall] of a tool call whose output the
// engine does not have: an unknown call id, or, without a store, an output
// forgotten under [Options].RecallCacheBytes.
var ErrNoOutput = errors.New("agentctx: no output kept for this tool call")

// RecallTool returns the definition of the recall_output tool, for an
// agent to add to [Options].Tools. With it registered, the limiter's note
// on a cut tool result names the call id and tells the model to call
// recall_output for the lines it left out; the agent answers each call
// with [Engine.HandleRecall]. Arguments: call_id (required), and either
// start_line/end_line (1-based, inclusive) or offset/length (bytes).
func RecallTool() chat.ToolDef {
	return chat.ToolDef{
		Name: RecallToolName,
		Description: "Read back the full output of an earlier tool call that was cut or hidden to save context. " +
			"Give the call_id named in the cut output's note, and the lines (start_line, end_line; 1-based, inclusive) " +
			"or bytes (offset, length) you need. Ask only for the part you need: at most 400 lines come back per call.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"call_id":{"type":"string","description":"The id of the tool call whose output to read."},` +
			`"start_line":{"type":"integer","minimum":1,"description":"First line to return, 1-based."},` +
			`"end_line":{"type":"integer","minimum":1,"description":"Last line to return, inclusive."},` +
			`"offset":{"type":"integer","minimum":0,"description":"First byte to return, 0-based (instead of lines)."},` +
			`"length":{"type":"integer","minimum":1,"description":"Number of bytes to return (instead of lines)."}},` +
			`"required":["call_id"]}`),
	}
}

// RecallArgs are the arguments of a recall_output call. Lines are 1-based
// and inclusive; zero StartLine and EndLine with a zero Length mean the
// whole output (cut to the recall limits). Offset and Length are in bytes
// and, when Length is set, take the place of the lines.
type RecallArgs struct {
	CallID    string `json:"call_id"`
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	Offset    int    `json:"offset,omitempty"`
	Length    int    `json:"length,omitempty"`
}

// Recall returns the part of the full output of tool call args.CallID
// that args asks for, prefixed by one line that says what it is (for
// example "[output of call toolu_1, lines 41-80 of 1,000]"). The output is
// the one the tool returned before the limiter cut it or compaction masked
// it: the latest outputs are kept in memory ([Options].RecallCacheBytes);
// an older one is read from the session when the engine has a store. Errors: [ErrClosed],
// [ErrNoOutput] (naming the id), a range outside the output (naming its
// size), and the store's.
func (e *Engine) Recall(ctx context.Context, args RecallArgs) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return "", ErrClosed
	}
	full, err := e.fullOutput(ctx, args.CallID)
	if err != nil {
		return "", err
	}
	return recallRange(args, full)
}

// HandleRecall answers a recall_output call: the tool result to add with
// [Engine.Add]. A bad call (invalid arguments, unknown id, a range outside
// the output) gets a result with IsError set that says what was wrong, so
// the model can correct itself; it never returns an error.
func (e *Engine) HandleRecall(ctx context.Context, call chat.ToolCall) chat.ToolResult {
	res := chat.ToolResult{ToolCallID: call.ID, ToolName: call.Name}
	var args RecallArgs
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		res.Content, res.IsError = "recall_output: invalid arguments: "+err.Error(), true
		return res
	}
	out, err := e.Recall(ctx, args)
	if err != nil {
		res.Content, res.IsError = err.Error(), true
		return res
	}
	res.Content = out
	return res
}

// fullOutput returns the full output of call id.
func (e *Engine) fullOutput(ctx context.Context, id string) (string, error) {
	if id == "" {
		return "", fmt.Errorf("recall_output: call_id is required")
	}
	if s, ok := e.outputs.get(id); ok {
		return s, nil
	}
	if e.store == nil {
		return "", fmt.Errorf("%w: %q", ErrNoOutput, id)
	}
	tr, err := e.store.Load(ctx, e.id, session.LoadOptions{All: true})
	if err != nil {
		return "", fmt.Errorf("agentctx: recall from %s: %w", e.id, err)
	}
	if r, ok := session.ToolOutput(tr.Entries, id); ok {
		e.outputs.put(id, r.Content)
		return r.Content, nil
	}
	// Not cut by the limiter: the result as it was added (compaction may
	// have masked or cut it since).
	for i := len(tr.Entries) - 1; i >= 0; i-- {
		ms, err := tr.Entries[i].Messages()
		if err != nil {
			continue
		}
		for _, m := range ms {
			if r, ok := m.ToolResult(); ok && m.Role == chat.RoleTool && r.ToolCallID == id {
				e.outputs.put(id, r.Content)
				return r.Content, nil
			}
		}
	}
	return "", fmt.Errorf("%w: %q", ErrNoOutput, id)
}

// recallRange cuts the range args asks for out of full.
func recallRange(args RecallArgs, full string) (string, error) {
	if args.Length > 0 || args.Offset > 0 {
		if args.Offset < 0 || args.Offset >= len(full) {
			return "", fmt.Errorf("recall_output: offset %d is outside the output of call %s (%d bytes)", args.Offset, args.CallID, len(full))
		}
		n := args.Length
		if n <= 0 {
			n = len(full) - args.Offset
		}
		end := min(len(full), args.Offset+min(n, RecallMaxBytes))
		part := full[args.Offset:end]
		note := ""
		if end < args.Offset+n && end < len(full) {
			note = fmt.Sprintf("; cut at %d bytes, ask again from offset %d", RecallMaxBytes, end)
		}
		return fmt.Sprintf("[output of call %s, bytes %d-%d of %d%s]\n%s", args.CallID, args.Offset, end, len(full), note, part), nil
	}
	lines := strings.SplitAfter(full, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	start, end := max(args.StartLine, 1), args.EndLine
	if end <= 0 || end > total {
		end = total
	}
	if start > total || start > end {
		return "", fmt.Errorf("recall_output: lines %d-%d are outside the output of call %s (%d lines)", args.StartLine, args.EndLine, args.CallID, total)
	}
	var b strings.Builder
	stop := end
	for i := start; i <= end; i++ {
		if i-start >= RecallMaxLines || b.Len()+len(lines[i-1]) > RecallMaxBytes {
			stop = i - 1
			break
		}
		b.WriteString(lines[i-1])
	}
	note := ""
	if stop < end {
		if stop < start { // one line longer than the byte cap
			return recallRange(RecallArgs{CallID: args.CallID, Offset: lineOffset(lines, start), Length: RecallMaxBytes}, full)
		}
		note = fmt.Sprintf("; cut at %d lines or %d bytes, ask again from line %d", RecallMaxLines, RecallMaxBytes, stop+1)
	}
	return fmt.Sprintf("[output of call %s, lines %d-%d of %d%s]\n%s", args.CallID, start, stop, total, note, b.String()), nil
}

// lineOffset is the byte offset of line n (1-based) of lines.
func lineOffset(lines []string, n int) int {
	off := 0
	for _, l := range lines[:n-1] {
		off += len(l)
	}
	return off
}

// outputCache keeps full tool outputs by call id in memory, up to a cap in
// bytes, forgetting the oldest first.
type outputCache struct {
	max, size int
	order     []string
	byID      map[string]string
}

func newOutputCache(maxBytes int) *outputCache {
	if maxBytes <= 0 {
		maxBytes = DefaultRecallCacheBytes
	}
	return &outputCache{max: maxBytes, byID: map[string]string{}}
}

// put keeps s as the output of call id; an output larger than the cap is
// not kept.
func (c *outputCache) put(id, s string) {
	if id == "" || len(s) > c.max {
		return
	}
	if old, ok := c.byID[id]; ok {
		c.size -= len(old)
	} else {
		c.order = append(c.order, id)
	}
	c.byID[id] = s
	c.size += len(s)
	for c.size > c.max && len(c.order) > 0 {
		old := c.order[0]
		c.order = c.order[1:]
		c.size -= len(c.byID[old])
		delete(c.byID, old)
	}
}

func (c *outputCache) get(id string) (string, bool) {
	s, ok := c.byID[id]
	return s, ok
}
