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
// tool-result limiter cut, or compaction masked, and the messages of a
// span of history a summary replaced ([RecallTool]).
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

// ErrNoSpan reports a [Engine.Recall] of a summarized span the engine does
// not have: an unknown span id, or, without a store, a span forgotten
// under [Options].RecallCacheBytes. The ids a summary covers are listed
// under its compact.SecSpans heading.
var ErrNoSpan = errors.New("agentctx: no summarized span with this id")

// RecallTool returns the definition of the recall_output tool, for an
// agent to add to [Options].Tools. With it registered, the limiter's note
// on a cut tool result names the call id and tells the model to call
// recall_output for the lines it left out; the agent answers each call
// with [Engine.HandleRecall]. Arguments: call_id or span_id (one is
// required: a tool call's id, or a summarized span's, "s1"…, as the
// summary lists them), and either query (the lines holding it), or
// start_line/end_line (1-based, inclusive), or offset/length (bytes).
func RecallTool() chat.ToolDef {
	return chat.ToolDef{
		Name: RecallToolName,
		Description: "Read back the full output of an earlier tool call that was cut or hidden to save context, " +
			"or the messages of an earlier part of the conversation that a summary replaced. " +
			"Give the call_id named in the cut output's note, or the span_id a summary lists (s1, s2…), and either a query " +
			"(the lines containing it come back, numbered) or the lines (start_line, end_line; 1-based, inclusive) " +
			"or bytes (offset, length) you need. Ask only for the part you need: at most 400 lines come back per call.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"call_id":{"type":"string","description":"The id of the tool call whose output to read."},` +
			`"span_id":{"type":"string","description":"The id of a summarized span to read instead (s1, s2…)."},` +
			`"query":{"type":"string","description":"Return only the lines containing this text (case-insensitive)."},` +
			`"start_line":{"type":"integer","minimum":1,"description":"First line to return, 1-based."},` +
			`"end_line":{"type":"integer","minimum":1,"description":"Last line to return, inclusive."},` +
			`"offset":{"type":"integer","minimum":0,"description":"First byte to return, 0-based (instead of lines)."},` +
			`"length":{"type":"integer","minimum":1,"description":"Number of bytes to return (instead of lines)."}}}`),
	}
}

// RecallArgs are the arguments of a recall_output call: CallID names a
// tool call's output, or SpanID a summarized span (its messages rendered
// by compact.RenderSpan). Query, when set, selects the lines holding it
// (case-insensitive), numbered, instead of a range. Lines are 1-based
// and inclusive; zero StartLine and EndLine with a zero Length mean the
// whole text (cut to the recall limits). Offset and Length are in bytes
// and, when Length is set, take the place of the lines.
type RecallArgs struct {
	CallID    string `json:"call_id,omitempty"`
	SpanID    string `json:"span_id,omitempty"`
	Query     string `json:"query,omitempty"`
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
	var full string
	var err error
	if args.SpanID != "" && args.CallID == "" {
		full, err = e.spanText(ctx, args.SpanID)
	} else {
		full, err = e.fullOutput(ctx, args.CallID)
	}
	if err != nil {
		return "", err
	}
	if args.Query != "" {
		return recallQuery(args, full), nil
	}
	return recallRange(args, full)
}

// spanText returns the rendered messages of summarized span id: from
// memory, else from the session's compact boundaries.
func (e *Engine) spanText(ctx context.Context, id string) (string, error) {
	if s, ok := e.spans.get(id); ok {
		return s, nil
	}
	if e.store == nil {
		return "", fmt.Errorf("%w: %q", ErrNoSpan, id)
	}
	tr, err := e.store.Load(ctx, e.id, session.LoadOptions{All: true})
	if err != nil {
		return "", fmt.Errorf("agentctx: recall from %s: %w", e.id, err)
	}
	text, ok := session.SpanText(tr.Entries, id)
	if !ok {
		return "", fmt.Errorf("%w: %q", ErrNoSpan, id)
	}
	e.spans.put(id, text)
	return text, nil
}

// label names what args recalls: "output of call X" or "messages of span
// sN".
func (args RecallArgs) label() string {
	if args.SpanID != "" && args.CallID == "" {
		return "messages of span " + args.SpanID
	}
	return "output of call " + args.CallID
}

// recallQuery returns the lines of full that hold args.Query
// (case-insensitive), each prefixed with its line number, within the
// recall limits.
func recallQuery(args RecallArgs, full string) string {
	q := strings.ToLower(args.Query)
	var b strings.Builder
	n, total, shown := 0, 0, 0
	for line := range strings.Lines(full) {
		n++
		if !strings.Contains(strings.ToLower(line), q) {
			continue
		}
		total++
		row := fmt.Sprintf("%6d: %s", n, strings.TrimRight(line, "\r\n"))
		if shown >= RecallMaxLines || b.Len()+len(row)+1 > RecallMaxBytes {
			continue
		}
		b.WriteString(row)
		b.WriteByte('\n')
		shown++
	}
	note := ""
	if shown < total {
		note = fmt.Sprintf("; the first %d shown, narrow the query", shown)
	}
	return fmt.Sprintf("[%s, %d of %d lines contain %q%s]\n%s", args.label(), total, n, args.Query, note, b.String())
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
		return "", fmt.Errorf("recall_output: call_id or span_id is required")
	}
	if s, ok := e.outputs.get(id); ok {
		return s, nil
	}
	if e.store == nil || (e.outputs.complete && !e.outputs.knows(id)) {
		// No result of call id was ever added to the session: the
		// session need not be read to say so (issue 29: each such
		// recall read the whole session back).
		return "", fmt.Errorf("%w: %q", ErrNoOutput, id)
	}
	tr, err := e.store.Load(ctx, e.id, session.LoadOptions{All: true})
	if err != nil {
		return "", fmt.Errorf("agentctx: recall from %s: %w", e.id, err)
	}
	if !e.opts.ReadOnly {
		// This engine writes the session (it holds its lock): with the
		// calls answered so far, every later result goes through Add.
		for _, en := range tr.Entries {
			for _, rid := range resultIDs(&en) {
				e.outputs.know(rid)
			}
		}
		e.outputs.complete = true
	}
	if s, ok := storedOutput(tr.Entries, id); ok {
		e.outputs.put(id, s)
		return s, nil
	}
	return "", fmt.Errorf("%w: %q", ErrNoOutput, id)
}

// storedOutput returns the full output of call id among a session's
// entries: the one the limiter kept whole when it cut the result, else the
// result as it was added (compaction may have masked or cut it since).
func storedOutput(entries []session.Entry, id string) (string, bool) {
	if r, ok := session.ToolOutput(entries, id); ok {
		return r.Content, true
	}
	for i := len(entries) - 1; i >= 0; i-- {
		ms, err := entries[i].Messages()
		if err != nil {
			continue
		}
		for _, m := range ms {
			if r, ok := m.ToolResult(); ok && m.Role == chat.RoleTool && r.ToolCallID == id {
				return r.Content, true
			}
		}
	}
	return "", false
}

// RecallStored is [Engine.Recall] for a session that no engine of this
// process holds: it reads session id from st (reads take no lock, so the
// process that writes the session, an agent or the proxy, goes on) and
// answers args as Recall does, in the same shape. `agentctx mcp` answers
// its recall tools with it. A tool output is found by args.CallID among
// the session's kept outputs and tool results, a span by args.SpanID among
// its compact boundaries. Errors: [ErrNoOutput] and [ErrNoSpan] (naming
// the id), a range outside the text (naming its size), and the store's
// (session.ErrNotFound, session.ErrInvalidID). Safe for concurrent use
// when st is.
func RecallStored(ctx context.Context, st session.Store, id string, args RecallArgs) (string, error) {
	if args.CallID == "" && args.SpanID == "" {
		return "", fmt.Errorf("recall_output: call_id or span_id is required")
	}
	tr, err := st.Load(ctx, id, session.LoadOptions{All: true})
	if err != nil {
		return "", fmt.Errorf("agentctx: recall from %s: %w", id, err)
	}
	return RecallIn(tr.Entries, args)
}

// RecallIn answers args from a session's entries, loaded whole
// (session.LoadOptions.All), as [RecallStored] does. Errors: [ErrNoOutput]
// and [ErrNoSpan] (naming the id), a range outside the text (naming its
// size).
func RecallIn(entries []session.Entry, args RecallArgs) (string, error) {
	var full string
	if args.SpanID != "" && args.CallID == "" {
		s, ok := session.SpanText(entries, args.SpanID)
		if !ok {
			return "", fmt.Errorf("%w: %q", ErrNoSpan, args.SpanID)
		}
		full = s
	} else {
		if args.CallID == "" {
			return "", fmt.Errorf("recall_output: call_id or span_id is required")
		}
		s, ok := storedOutput(entries, args.CallID)
		if !ok {
			return "", fmt.Errorf("%w: %q", ErrNoOutput, args.CallID)
		}
		full = s
	}
	if args.Query != "" {
		return recallQuery(args, full), nil
	}
	return recallRange(args, full)
}

// Recoverable returns the texts the agent can read back with
// recall_output although the window no longer holds them whole: the full
// outputs of the tool calls the limiter cut or compaction masked, and the
// messages of every summarized span (rendered by compact.RenderSpan,
// secrets redacted), one
// string each, tool outputs first, each once. With a store it reads the
// whole session (its [session.TypeToolOutput] entries and the spans its
// compact boundaries keep); without one, what memory holds
// ([Options].RecallCacheBytes, per kind). `agentctx eval` counts a
// reference as recoverable when one of these texts holds it. Errors:
// [ErrClosed] and the store's.
func (e *Engine) Recoverable(ctx context.Context) ([]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, ErrClosed
	}
	var outs, spans []string
	seen := map[string]bool{}
	add := func(list *[]string, s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			*list = append(*list, s)
		}
	}
	if e.store != nil {
		tr, err := e.store.Load(ctx, e.id, session.LoadOptions{All: true})
		if err != nil {
			return nil, fmt.Errorf("agentctx: recoverable %s: %w", e.id, err)
		}
		for i := range tr.Entries {
			en := &tr.Entries[i]
			if en.Type == session.TypeToolOutput && en.ToolResult != nil {
				if r, ok := session.ToolOutput(tr.Entries[i:i+1], en.ToolResult.ID); ok {
					add(&outs, r.Content)
				}
			}
		}
		for _, sp := range session.Spans(tr.Entries) {
			add(&spans, sp.Text)
		}
	}
	for _, id := range e.outputs.order {
		add(&outs, e.outputs.byID[id])
	}
	for _, id := range e.spans.order {
		add(&spans, e.spans.byID[id])
	}
	return append(outs, spans...), nil
}

// recallRange cuts the range args asks for out of full.
func recallRange(args RecallArgs, full string) (string, error) {
	if args.Length > 0 || args.Offset > 0 {
		if args.Offset < 0 || args.Offset >= len(full) {
			return "", fmt.Errorf("recall_output: offset %d is outside the %s (%d bytes)", args.Offset, args.label(), len(full))
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
		return fmt.Sprintf("[%s, bytes %d-%d of %d%s]\n%s", args.label(), args.Offset, end, len(full), note, part), nil
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
		return "", fmt.Errorf("recall_output: lines %d-%d are outside the %s (%d lines)", args.StartLine, args.EndLine, args.label(), total)
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
			return recallRange(RecallArgs{CallID: args.CallID, SpanID: args.SpanID, Offset: lineOffset(lines, start), Length: RecallMaxBytes}, full)
		}
		note = fmt.Sprintf("; cut at %d lines or %d bytes, ask again from line %d", RecallMaxLines, RecallMaxBytes, stop+1)
	}
	return fmt.Sprintf("[%s, lines %d-%d of %d%s]\n%s", args.label(), start, stop, total, note, b.String()), nil
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
// bytes, forgetting the oldest first. It also remembers the id of every
// output put (ids only, never forgotten): when complete is set, those are
// all the session's outputs, and an id outside them has none.
type outputCache struct {
	max, size int
	order     []string
	byID      map[string]string
	known     map[string]struct{}
	complete  bool
}

func newOutputCache(maxBytes int) *outputCache {
	if maxBytes <= 0 {
		maxBytes = DefaultRecallCacheBytes
	}
	return &outputCache{max: maxBytes, byID: map[string]string{}, known: map[string]struct{}{}}
}

// know records that the session holds an output of call id.
func (c *outputCache) know(id string) { c.known[id] = struct{}{} }

// knows reports whether the session holds an output of call id, as far
// as the cache was told.
func (c *outputCache) knows(id string) bool {
	_, ok := c.known[id]
	return ok
}

// resultIDs returns the tool call ids whose results entry en holds: a
// kept full output or tool messages.
func resultIDs(en *session.Entry) []string {
	if en.Type == session.TypeToolOutput && en.ToolResult != nil {
		return []string{en.ToolResult.ID}
	}
	ms, err := en.Messages()
	if err != nil {
		return nil
	}
	var ids []string
	for _, m := range ms {
		if r, ok := m.ToolResult(); ok && m.Role == chat.RoleTool {
			ids = append(ids, r.ToolCallID)
		}
	}
	return ids
}

// put keeps s as the output of call id; an output larger than the cap is
// not kept, but its id is known.
func (c *outputCache) put(id, s string) {
	if id == "" {
		return
	}
	c.know(id)
	if len(s) > c.max {
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
