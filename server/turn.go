package server

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/agent"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/jsonx"
	"github.com/agentctx/agentctx/internal/telemetry"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/provider/anthropic"
	"github.com/agentctx/agentctx/provider/openai"
	"github.com/agentctx/agentctx/session"
)

// addedBody is the response of POST .../messages and .../reply.
type addedBody struct {
	// Added counts the messages added; Format is the format read.
	Added  int    `json:"added"`
	Format Format `json:"format"`
	// Entries is the session's entry count afterwards.
	Entries int `json:"entries"`
	// Limited counts the tool results the limiter cut in this call.
	Limited int `json:"limited,omitempty"`
	// ToolCalls are the reply's tool calls (.../reply only): run them and
	// add their results.
	ToolCalls []toolCallView `json:"tool_calls,omitempty"`
	// Text is the reply's text (.../reply only).
	Text string `json:"text,omitempty"`
	// Usage is the reply's usage as read (.../reply only).
	Usage *chat.Usage `json:"usage,omitempty"`
}

type toolCallView struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func (s *Server) addMessages(w http.ResponseWriter, r *http.Request) error {
	var b messagesBody
	if err := readJSON(r, &b, false); err != nil {
		return err
	}
	msgs, f, err := decodeMessages(b)
	if err != nil {
		return err
	}
	var out addedBody
	err = s.withSession(r, func(ctx context.Context, h *handle, eng *agentctx.Engine, _ session.Session) error {
		limited, err := addTo(ctx, eng, msgs, f, len(b.System) > 0)
		if err != nil {
			return err
		}
		out = addedBody{Added: len(msgs), Format: f, Limited: limited, Entries: h.entries}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// addTo adds msgs, read in format f, to eng as POST .../messages does:
// an Anthropic body's top-level system (system) is not added again when
// the window's latest system message says the same, and tool results
// get their call's tool name. It returns how many tool results the
// limiter cut; errors are eng.Add's.
func addTo(ctx context.Context, eng *agentctx.Engine, msgs []chat.Message, f Format, system bool) (int, error) {
	if f == FormatAnthropic && system {
		msgs = dropRepeatedSystem(eng.Messages(), msgs)
	}
	nameResults(eng, msgs)
	before, _ := eng.Limited()
	if err := eng.Add(ctx, msgs...); err != nil {
		return 0, err
	}
	after, _ := eng.Limited()
	return after - before, nil
}

// dropRepeatedSystem returns msgs without its first message when that is
// the system message the top-level "system" of an Anthropic-shape body
// became and the window's latest system message says the same: a client
// sends its system prompt with every request (Anthropic's Messages API
// has it top-level, not in the conversation), and appending it each time
// would put one more copy of it in mid-conversation per post. A
// different system is kept, in its place (a change of instructions, as
// Claude Code's mid-conversation system messages).
func dropRepeatedSystem(window, msgs []chat.Message) []chat.Message {
	if len(msgs) == 0 || msgs[0].Role != chat.RoleSystem {
		return msgs
	}
	for i := len(window) - 1; i >= 0; i-- {
		if window[i].Role != chat.RoleSystem {
			continue
		}
		a, aerr := json.Marshal(window[i].Parts)
		b, berr := json.Marshal(msgs[0].Parts)
		if aerr == nil && berr == nil && bytes.Equal(a, b) {
			return msgs[1:]
		}
		return msgs
	}
	return msgs
}

// nameResults fills the tool name of tool results that lack one (the
// OpenAI shape has no name on a tool message) from their call, in msgs or
// in the Engine's window: the limiter and the tracker go by tool name.
func nameResults(eng *agentctx.Engine, msgs []chat.Message) {
	names := map[string]string{}
	var window []chat.Message
	for i := range msgs {
		m := &msgs[i]
		for _, c := range m.ToolCalls() {
			names[c.ID] = c.Name
		}
		r, ok := m.ToolResult()
		if !ok || m.Role != chat.RoleTool || r.ToolName != "" {
			continue
		}
		name, ok := names[r.ToolCallID]
		if !ok {
			if window == nil {
				window = eng.Messages()
			}
			name = callName(window, r.ToolCallID)
		}
		if name == "" {
			continue
		}
		r.ToolName = name
		m.Parts = []chat.Part{r}
	}
}

// callName is the tool name of call id in msgs, newest first; "" when
// absent.
func callName(msgs []chat.Message, id string) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, c := range msgs[i].ToolCalls() {
			if c.ID == id {
				return c.Name
			}
		}
	}
	return ""
}

// requestBody is the body of POST .../request.
type requestBody struct {
	// Format is the shape of the body to send: openai (default),
	// anthropic or chat.
	Format string `json:"format,omitempty"`
	// Add, when present, is a POST .../messages body whose messages are
	// added before the request is built, under the same hold of the
	// session: the tool results of the last reply and the request for
	// the next model call in one round trip instead of two (issue 29).
	Add *messagesBody `json:"add,omitempty"`
}

// requestView is the response of POST .../request: the next model call,
// ready to send, and its accounting.
type requestView struct {
	Format Format `json:"format"`
	// Body is the request body to post to the provider (OpenAI's
	// /v1/chat/completions or Anthropic's /v1/messages), or the chat
	// form: {"model", "messages", "tools", "max_tokens", "cache_after"}.
	Body json.RawMessage `json:"body"`
	// Tokens is the prompt's size in tokens, Budget the budget, Over how
	// much it exceeds it (0 when it fits), CachedTokens the prefix a warm
	// provider cache can serve.
	Tokens       int `json:"tokens"`
	Budget       int `json:"budget"`
	Over         int `json:"over"`
	CachedTokens int `json:"cached_tokens"`
	// Rows is the token table, part by part; they sum to Tokens.
	Rows []prompt.Row `json:"rows"`
	// Compactions are the compaction levels applied before assembly.
	Compactions []compact.Record `json:"compactions,omitempty"`
	// Dropped names the tail parts left out to fit the budget; Reminders
	// the kinds of the system reminders the request carries.
	Dropped   []string `json:"dropped,omitempty"`
	Reminders []string `json:"reminders,omitempty"`
	// Interrupted are the ids of tool calls answered with a synthetic
	// result because they had none.
	Interrupted []string `json:"interrupted,omitempty"`
	// Entries is the session's entry count afterwards (the request's
	// reminders and compactions are recorded before it is handed out),
	// as the messages and reply routes give it: a client that tracks it
	// to tell whether a retried write landed needs no read of the
	// session after each request.
	Entries int `json:"entries"`
	// Added counts the messages of the body's "add", added before the
	// request was built; Limited the tool results among them the limiter
	// cut (as POST .../messages answers them).
	Added   int `json:"added,omitempty"`
	Limited int `json:"limited,omitempty"`
}

// chatBody is the body of a request in the chat format.
type chatBody struct {
	Model      string         `json:"model"`
	Messages   []chat.Message `json:"messages"`
	Tools      []chat.ToolDef `json:"tools,omitempty"`
	MaxTokens  int            `json:"max_tokens,omitempty"`
	CacheAfter []int          `json:"cache_after,omitempty"`
}

func (s *Server) nextRequest(w http.ResponseWriter, r *http.Request) error {
	var b requestBody
	if err := readJSON(r, &b, true); err != nil {
		return err
	}
	f, err := parseFormat(b.Format)
	if err != nil {
		return err
	}
	f = cmp.Or(f, FormatOpenAI)
	var add []chat.Message
	var addFormat Format
	if b.Add != nil {
		if add, addFormat, err = decodeMessages(*b.Add); err != nil {
			return within("add", err)
		}
	}
	var out requestView
	var evs []Event
	var key, name string
	// The chat form's body is written into a pooled buffer, then copied
	// into the response's: neither is garbage (issue 29: the two were a
	// fifth of the server's allocations under load).
	var bodyBuf *[]byte
	defer func() {
		if bodyBuf != nil {
			respBuffers.put(bodyBuf)
		}
	}()
	err = s.withSession(r, func(ctx context.Context, h *handle, eng *agentctx.Engine, _ session.Session) error {
		key, name = h.id, h.name
		if b.Add != nil {
			limited, err := addTo(ctx, eng, add, addFormat, len(b.Add.System) > 0)
			if err != nil {
				return err
			}
			out.Added, out.Limited = len(add), limited
		}
		start := time.Now()
		req, err := eng.Request(ctx)
		// The encodings kept are those of the request before this one
		// (req.Kept counts against it): forgotten unless this one's
		// replace them.
		prev := h.encoded
		h.encoded = nil
		if err != nil {
			return err
		}
		telemetry.Compaction(ctx, s.tracer, start, req.Compactions)
		if len(req.Compactions) > 0 {
			spent(ctx, phaseCompact, start)
		}
		pr := req.Provider()
		var body []byte
		var enc [][]byte
		switch f {
		case FormatOpenAI:
			body, err = openai.Body(pr)
		case FormatAnthropic:
			body, err = anthropic.Body(pr)
		default:
			kept := prev[:min(req.Kept, len(prev))]
			if s.noEncodingReuse {
				kept = nil
			}
			bodyBuf = respBuffers.get()
			body, enc, err = chatBodyJSON((*bodyBuf)[:0], chatBody{Model: pr.Model, Messages: pr.Messages, Tools: pr.Tools, MaxTokens: pr.MaxTokens, CacheAfter: pr.CacheAfter}, kept)
			*bodyBuf = body
		}
		if err != nil {
			return err
		}
		// Record the request's reminders now, as handed out: its reply may
		// come to another server of a fleet, or to this one restarted,
		// which did not build it; the reminders are then in the store
		// either way, and not sent again.
		if err := req.Sent(ctx); err != nil {
			return err
		}
		h.pending, h.lastTokens, h.lastBudget = req, req.Tokens, req.Budget
		out = requestView{
			Format: f, Body: body, Tokens: req.Tokens, Budget: req.Budget, Over: req.Over,
			CachedTokens: req.CachedTokens, Rows: req.Rows, Compactions: req.Compactions, Dropped: req.Dropped,
			Entries: h.entries, // the Engine's appends are counted into it (countingStore)
			Added:   out.Added, Limited: out.Limited,
		}
		for _, c := range req.Interrupted {
			out.Interrupted = append(out.Interrupted, c.ID)
		}
		for _, t := range req.Tail {
			if t.Kind != prompt.KindTracker && t.Kind != prompt.KindWorkingMemory {
				out.Reminders = append(out.Reminders, t.Kind)
			}
		}
		s.metrics.Compacted(req.Compactions)
		if len(req.Compactions) > 0 {
			evs = append(evs, compactionEvent(req.Compactions))
		}
		if len(out.Reminders) > 0 {
			evs = append(evs, Event{Event: agent.Event{Kind: agent.EventReminder, Reminders: out.Reminders}})
		}
		h.encoded = enc
		return nil
	})
	if err != nil {
		return err
	}
	s.publish(r.Context(), key, name, evs...)
	resp := respBuffers.get()
	defer respBuffers.put(resp)
	enc, err := out.encode((*resp)[:0])
	*resp = enc
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, enc)
	return nil
}

// bufferPool keeps byte buffers between requests: a response's bytes are
// not used after they are written, and a large one built fresh each time
// is garbage at once.
type bufferPool struct{ p sync.Pool }

// maxPooledBuffer is the largest capacity, in bytes, a buffer may have
// to go back to the pool: a session's rare huge request does not keep its
// memory for every later one.
const maxPooledBuffer = 4 << 20

// get returns an empty buffer, pooled or new.
func (bp *bufferPool) get() *[]byte {
	if b, ok := bp.p.Get().(*[]byte); ok {
		*b = (*b)[:0]
		return b
	}
	return new([]byte)
}

// put gives b back to the pool when it is not too large.
func (bp *bufferPool) put(b *[]byte) {
	if cap(*b) <= maxPooledBuffer {
		bp.p.Put(b)
	}
}

// respBuffers are the request route's response buffers.
var respBuffers bufferPool

// encode appends v to dst as JSON, as writeJSON writes it, with the
// body placed as it is: the request body is the response's bulk, already
// JSON written by encoding/json (the providers' Body functions,
// chatBodyJSON), which would check and copy it again (issue 29: 15 % of
// the server's CPU under load was that second pass).
func (v requestView) encode(dst []byte) ([]byte, error) {
	body := v.Body
	v.Body = nil
	meta, err := jsonx.MarshalNoEscape(v)
	if err != nil {
		return nil, err
	}
	prefix := []byte(`{"format":"` + string(v.Format) + `","body":null`)
	if !bytes.HasPrefix(meta, prefix) || len(body) == 0 {
		v.Body = body
		b, err := jsonx.MarshalNoEscape(v)
		if err != nil {
			return nil, err
		}
		return append(append(dst, b...), '\n'), nil
	}
	out := slices.Grow(dst, len(meta)+len(body)+1)
	out = append(out, prefix[:len(prefix)-len("null")]...)
	out = append(out, body...)
	out = append(out, meta[len(prefix):]...)
	return append(out, '\n'), nil
}

// chatBodyJSON is b as JSON: each message as its MarshalJSON writes it,
// not checked and copied again by encoding/json (see requestView.encode).
// kept are the encodings of b's first len(kept) messages, from an earlier
// request that held them unchanged (prompt.Request.Kept): used as they
// are. The body is appended to dst (a pooled buffer: respBuffers). It
// returns the encoding of every message too, for the next request.
func chatBodyJSON(dst []byte, b chatBody, kept [][]byte) ([]byte, [][]byte, error) {
	msgs := b.Messages
	b.Messages = nil
	meta, err := jsonx.MarshalNoEscape(b)
	if err != nil {
		return nil, nil, err
	}
	const empty = `,"messages":null`
	i := bytes.Index(meta, []byte(empty))
	if i < 0 {
		return nil, nil, fmt.Errorf("server: chat body: no messages field in %.100s", meta)
	}
	size := len(meta)
	parts := make([][]byte, len(msgs))
	for j, m := range msgs {
		if j < len(kept) {
			parts[j] = kept[j]
		} else if parts[j], err = m.MarshalJSON(); err != nil {
			return nil, nil, fmt.Errorf("server: chat body: message %d: %w", j, err)
		}
		size += len(parts[j]) + 1
	}
	out := slices.Grow(dst, size+len(`[]`))
	out = append(out, meta[:i]...)
	out = append(out, `,"messages":[`...)
	for j, p := range parts {
		if j > 0 {
			out = append(out, ',')
		}
		out = append(out, p...)
	}
	out = append(out, ']')
	return append(out, meta[i+len(empty):]...), parts, nil
}

// compactionEvent is the event of compaction levels applied.
func compactionEvent(recs []compact.Record) Event {
	ev := &agent.CompactionEvent{TokensBefore: recs[0].TokensBefore, TokensAfter: recs[len(recs)-1].TokensAfter}
	for _, r := range recs {
		ev.Levels = append(ev.Levels, r.Level.String())
	}
	return Event{Event: agent.Event{Kind: agent.EventCompaction, Compaction: ev}}
}

func (s *Server) addReply(w http.ResponseWriter, r *http.Request) error {
	f, err := parseFormat(r.URL.Query().Get("format"))
	if err != nil {
		return err
	}
	data, err := readBody(r)
	if err != nil {
		return err
	}
	msg, f, err := decodeReply(data, f)
	if err != nil {
		return err
	}
	out := addedBody{Added: 1, Format: f, Text: msg.Text(), Usage: msg.Usage}
	for _, c := range msg.ToolCalls() {
		out.ToolCalls = append(out.ToolCalls, toolCallView{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	var evs []Event
	var key, name string
	err = s.withSession(r, func(ctx context.Context, h *handle, eng *agentctx.Engine, _ session.Session) error {
		key, name = h.id, h.name
		if err := eng.Add(ctx, msg); err != nil {
			return err
		}
		s.metrics.Usage(msg.Usage)
		if msg.Usage != nil {
			u := *msg.Usage
			ev := &agent.UsageEvent{
				PromptTokens: u.PromptTokens(), CachedTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens,
				OutputTokens: u.OutputTokens, RequestTokens: h.lastTokens, Budget: cmp.Or(h.lastBudget, eng.Budget()),
				Model: cmp.Or(msg.Model, eng.Model().Name),
			}
			if usd, ok := model.CostOf(ev.Model, u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.OutputTokens); ok {
				ev.CostUSD = usd
				s.metrics.Cost(usd)
			}
			evs = append(evs, Event{Event: agent.Event{Kind: agent.EventUsage, Usage: ev}})
		}
		h.pending = nil
		out.Entries = h.entries // the Engine's appends are counted into it (countingStore)
		return nil
	})
	if err != nil {
		return err
	}
	s.publish(r.Context(), key, name, evs...)
	return writeJSON(w, http.StatusOK, out)
}

// compactBody is the body of POST .../compact.
type compactBody struct {
	// Instructions tell the summarizer what to keep. Optional.
	Instructions string `json:"instructions,omitempty"`
}

// compactView is the response of POST .../compact.
type compactView struct {
	// Compactions are the levels applied; none when there was nothing to
	// summarize.
	Compactions []compact.Record `json:"compactions"`
	// Tokens is the window's size afterwards, in tokens.
	Tokens int `json:"tokens"`
	// Entries is the session's entry count afterwards (see
	// requestView.Entries).
	Entries int `json:"entries"`
}

func (s *Server) compactNow(w http.ResponseWriter, r *http.Request) error {
	var b compactBody
	if err := readJSON(r, &b, true); err != nil {
		return err
	}
	out := compactView{Compactions: []compact.Record{}}
	var key, name string
	err := s.withSession(r, func(ctx context.Context, h *handle, eng *agentctx.Engine, _ session.Session) error {
		key, name = h.id, h.name
		start := time.Now()
		recs, err := eng.Compact(ctx, b.Instructions)
		if err != nil {
			return err
		}
		telemetry.Compaction(ctx, s.tracer, start, recs)
		spent(ctx, phaseCompact, start)
		s.metrics.Compacted(recs)
		if recs != nil {
			out.Compactions = recs
		}
		out.Tokens, out.Entries = eng.WindowStats().Tokens, h.entries
		return nil
	})
	if err != nil {
		return err
	}
	if len(out.Compactions) > 0 {
		s.publish(r.Context(), key, name, compactionEvent(out.Compactions))
	}
	return writeJSON(w, http.StatusOK, out)
}
