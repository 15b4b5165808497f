package proxy

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/telemetry"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/token"
)

// maxOverflowRetries is how many times one agent request is compacted and
// sent again after the upstream answered with a context overflow.
const maxOverflowRetries = 2

// model handles one model request.
func (p *Proxy) model(w http.ResponseWriter, r *http.Request, wire Wire, raw []byte) {
	start := time.Now()
	ex := Exchange{Wire: wire}
	b, err := parseBody(raw, wire)
	if err == nil && wire == WireGemini {
		b.model = geminiModel(r.URL.Path) // the body has no "model"
	}
	if err == nil {
		ex.model = b.model
	}
	var c *conversation
	if err == nil {
		c, err = b.read(p.reads)
	}
	if err != nil {
		// Not a request the proxy can read: the upstream says what it
		// thinks of it.
		ex.Err, ex.reason = err.Error(), telemetry.ReasonUnreadable
		p.log.Warn("forwarded unchanged", "path", r.URL.Path, "reason", err.Error())
		p.ledger.mu.Lock()
		if p.ledger.unread == nil {
			p.ledger.unread = map[string]int{}
		}
		p.ledger.unread[reasonOf(ex.Err)]++
		p.ledger.mu.Unlock()
		p.relay(w, r, wire, raw, nil, &ex, nil)
		p.observe(ex)
		return
	}
	key := sessionKey(r, wire, c)
	s := p.session(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() { p.ledger.record(key, &ex, b.model) }()
	// The Engine's work outlives an agent that hangs up: what it added
	// is in the session.
	ctx := context.WithoutCancel(r.Context())
	if s.fleet {
		if err := p.claim(ctx, s, b, c); err != nil {
			ex.Err, ex.reason = err.Error(), telemetry.ReasonSession
			if errors.Is(err, errBusy) {
				ex.reason = ReasonBusy
			}
			p.release(ctx, s)
			p.log.Warn("forwarded unchanged", "session", key, "reason", err.Error())
			p.relay(w, r, wire, raw, nil, &ex, nil)
			p.observe(ex)
			return
		}
		defer func() {
			p.save(ctx, s, c)
			p.release(ctx, s)
		}()
	}
	if s.byteBudget == 0 {
		s.byteBudget = maxRequestBytes(wire)
	}
	ex.ByteBudget = s.byteBudget
	prepared := time.Now()
	req, err := p.prepare(ctx, s, b, c)
	if err == nil {
		telemetry.Compaction(ctx, p.tracer, prepared, req.Compactions)
	}
	if err != nil {
		ex.Err, ex.reason = err.Error(), telemetry.ReasonSession
		p.log.Warn("forwarded unchanged", "session", key, "reason", err.Error())
		s.reset()
		p.relay(w, r, wire, raw, nil, &ex, nil)
		p.observe(ex)
		return
	}
	ex.Session = s.eng.ID()
	out, err := p.build(s, b, c, req, &ex)
	if err != nil {
		ex.Err, ex.reason = err.Error(), telemetry.ReasonRender
		p.log.Warn("forwarded unchanged", "session", ex.Session, "reason", err.Error())
		out = raw
		ex.Managed = false
	}
	ex.Bytes = len(out)
	p.relay(w, r, wire, out, s, &ex, func(status int, errBody []byte) []byte {
		if ex.Overflows+ex.TooLarge >= maxOverflowRetries {
			return nil
		}
		if provider.ParseTooLargeBody(status, errBody) {
			// Too many bytes (images, documents): the token budget
			// stays; the byte budget drops below what was sent, and
			// the oldest media go.
			s.byteBudget = min(s.byteBudget, ex.Bytes*3/4)
			ex.ByteBudget = s.byteBudget
			ex.TooLarge++
			ex.Managed = true
			next, err := p.render(b, c, req, s, &ex)
			if err != nil || len(next) >= ex.Bytes {
				p.log.Warn("request too large, not recovered", "session", ex.Session, "bytes", ex.Bytes, "byte_budget", s.byteBudget, "err", fmt.Sprint(err), "now", len(next))
				return nil
			}
			p.log.Info("request too large: media shed", "session", ex.Session, "bytes", ex.Bytes, "now", len(next), "byte_budget", s.byteBudget, "budget", req.Budget)
			ex.Bytes = len(next)
			return next
		}
		// A context overflow: lower the budget, compact, send again.
		lim, tok, ok := provider.ParseOverflowBody(status, errBody)
		if !ok {
			return nil
		}
		perr := &provider.APIError{Provider: string(wire), Status: status, Message: string(errBody), Kind: provider.ErrContextOverflow, Limit: lim, PromptTokens: tok}
		recovering := time.Now()
		nreq, err := s.eng.RecoverOverflow(ctx, perr)
		if err == nil {
			telemetry.Compaction(ctx, p.tracer, recovering, nreq.Compactions)
		}
		if err != nil {
			p.log.Warn("overflow not recovered", "session", ex.Session, "err", err.Error())
			return nil
		}
		ex.Overflows++
		ex.Compactions = append(ex.Compactions, nreq.Compactions...)
		req = nreq
		ex.Budget = nreq.Budget
		ex.Managed = true // the agent's request does not fit
		next, err := p.render(b, c, nreq, s, &ex)
		if err != nil {
			p.log.Warn("overflow not recovered", "session", ex.Session, "err", err.Error())
			return nil
		}
		p.log.Info("context overflow: compacted", "session", ex.Session, "budget", nreq.Budget, "sent_tokens", ex.SentTokens)
		ex.Bytes = len(next)
		return next
	})
	if ex.Status >= 200 && ex.Status < 300 {
		if err := req.Sent(ctx); err != nil && !errors.Is(err, agentctx.ErrStaleRequest) {
			p.log.Warn("session not committed", "session", ex.Session, "err", err.Error())
		}
	}
	p.log.Info("model request", "session", ex.Session, "wire", wire, "managed", ex.Managed,
		"agent_tokens", ex.AgentTokens, "sent_tokens", ex.SentTokens, "budget", ex.Budget,
		"bytes", ex.Bytes, "byte_budget", ex.ByteBudget,
		"compactions", len(ex.Compactions), "status", ex.Status, "ms", since(start))
	p.observe(ex)
}

// maxRequestBytes is the documented request size limit of a wire, in
// bytes: Anthropic's 32 MB for the Messages API
// (https://docs.anthropic.com/en/api/overview, "Request size limits"),
// OpenAI's 50 MB payload for a request with images and files
// (https://platform.openai.com/docs/guides/images-vision), the Gemini API's
// 20 MB for a request with inline data
// (https://ai.google.dev/gemini-api/docs/image-understanding).
func maxRequestBytes(w Wire) int {
	switch w {
	case WireAnthropic:
		return 32 << 20
	case WireOpenAI, WireResponses:
		return 50 << 20
	}
	return 20 << 20
}

// observe hands ex to Options.Observe when set.
func (p *Proxy) observe(ex Exchange) {
	p.count(&ex)
	if p.opts.Observe != nil {
		p.opts.Observe(ex)
	}
}

// reset drops the session's Engine after a failure, so that the next
// request starts a new generation from the agent's whole history.
func (s *state) reset() {
	if s.eng != nil && !s.fleet {
		_ = s.eng.Close()
	}
	s.drop()
}

// prepare brings the agent's history into the session's Engine and builds
// the Engine's next request.
func (p *Proxy) prepare(ctx context.Context, s *state, b *body, c *conversation) (*agentctx.Request, error) {
	s.restoreSeen(c)
	fps := c.fingerprints()
	if s.eng == nil || s.sys != sha256.Sum256([]byte(c.system)) || s.tools != sha256.Sum256(b.tools) || !prefixOf(s.seen, fps) {
		if err := p.open(ctx, s, b, c); err != nil {
			return nil, err
		}
	}
	added := make([]chat.Message, 0, len(c.msgs)-len(s.seen))
	for _, m := range c.msgs[len(s.seen):] {
		added = append(added, m.Clone())
	}
	if s.usage != nil && s.usageAt == len(s.seen) && len(added) > 0 && added[0].Role == chat.RoleAssistant && added[0].Usage == nil {
		u := *s.usage
		added[0].Usage = &u
	}
	s.usage = nil
	if len(added) > 0 {
		s.answer = nil // the agent sent its own copy of it
	}
	ov := s.eng.WindowStats().Overhead
	counter := s.eng.Counter()
	for _, m := range added {
		s.agentTokens += token.Message(counter, ov, m)
	}
	if err := s.eng.Add(ctx, added...); err != nil {
		return nil, err
	}
	s.seen = fps
	return s.eng.Request(ctx)
}

// build decides what to send for the Engine's request: the agent's own
// body when it fits, else the body with the Engine's window.
func (p *Proxy) build(s *state, b *body, c *conversation, req *agentctx.Request, ex *Exchange) ([]byte, error) {
	ws := s.eng.WindowStats()
	ex.Budget = req.Budget
	ex.Compactions = req.Compactions
	ex.AgentTokens = req.Tokens - (ws.Tokens - ws.Reserved) + s.agentTokens
	// A request the provider would refuse is repaired whatever its size.
	broken := unpaired(c.msgs) || len(req.Interrupted) > 0 || len(b.raw) > s.byteBudget
	ex.Managed = p.opts.Always || broken || ex.AgentTokens > req.Budget
	ex.AgentCompaction = agentCompaction(c)
	s.agentCompacted = s.agentCompacted || ex.AgentCompaction
	if ex.AgentCompaction && ex.Managed && !broken && !p.opts.Always {
		// The agent's own compaction: its summary is written from the
		// whole history where that fits the model, whatever the budget.
		info := model.Lookup(b.model)
		ex.Managed = ex.AgentTokens+b.maxTokens > info.InputLimit()
	}
	if !ex.Managed {
		ex.SentTokens, ex.Kept, ex.Elements = ex.AgentTokens, len(b.elems), len(b.elems)
		return b.raw, nil
	}
	return p.render(b, c, req, s, ex)
}

// render writes the body with the Engine's window. When the body is over
// the session's byte budget, the oldest media (images, documents, audio,
// files) become a short text naming what was there, until it fits or none
// is left.
func (p *Proxy) render(b *body, c *conversation, req *agentctx.Request, s *state, ex *Exchange) ([]byte, error) {
	// The Engine's system messages lead its request; the history never
	// starts with one (the agent's leading ones are c.lead).
	msgs := req.Provider().Messages
	for len(msgs) > 0 && msgs[0].Role == chat.RoleSystem {
		msgs = msgs[1:]
	}
	elems, kept, err := renderMessages(b, c, c.fingerprints(), msgs)
	if err != nil {
		return nil, err
	}
	out := b.splice(elems)
	if s != nil && s.byteBudget > 0 && len(out) > s.byteBudget {
		msgs = slices.Clone(msgs)
		for k := 0; k < len(msgs) && len(out) > s.byteBudget; k++ {
			m, shed := shedMedia(msgs[k])
			if !shed {
				continue
			}
			msgs[k] = m
			if elems, kept, err = renderMessages(b, c, c.fingerprints(), msgs); err != nil {
				return nil, err
			}
			out = b.splice(elems)
		}
	}
	ex.SentTokens, ex.Kept, ex.Elements = req.Tokens, kept, len(elems)
	return out, nil
}

// shedMedia returns m with its media opaque parts replaced by a text that
// names each (in a tool message, appended to the result's content), and
// whether it had any.
func shedMedia(m chat.Message) (chat.Message, bool) {
	out := m
	out.Parts = make([]chat.Part, 0, len(m.Parts))
	var notes []string
	for _, p := range m.Parts {
		o, ok := p.(chat.Opaque)
		if !ok || !o.Media {
			out.Parts = append(out.Parts, p)
			continue
		}
		notes = append(notes, fmt.Sprintf("[agentctx: %s of %d bytes removed: the request was over the provider's size limit]", o.Kind, len(o.Raw)))
	}
	if len(notes) == 0 {
		return m, false
	}
	note := strings.Join(notes, "\n")
	if r, ok := out.ToolResult(); ok && out.Role == chat.RoleTool {
		r.Content = strings.TrimSpace(r.Content + "\n" + note)
		out.Parts[0] = r
	} else {
		out.Parts = append(out.Parts, chat.Text{Text: note})
	}
	return out, true
}

// relay sends body upstream and streams the answer back to the agent. On
// an error answer, retry (when set) may return a new body to send
// instead; the agent then sees only the last answer. s, when set, gets
// the answer's usage for its next assistant message.
func (p *Proxy) relay(w http.ResponseWriter, r *http.Request, wire Wire, body []byte, s *state, ex *Exchange, retry func(status int, errBody []byte) []byte) {
	for {
		_, call := telemetry.StartModelCall(r.Context(), p.tracer, string(wire), ex.model)
		res, err := p.send(r, body)
		if err != nil {
			telemetry.EndModelCall(call, 0, nil)
			if r.Context().Err() != nil {
				return // the agent went away
			}
			ex.Status = http.StatusBadGateway
			writeError(w, wire, http.StatusBadGateway, "agentctx proxy: upstream: "+err.Error())
			return
		}
		if res.StatusCode >= 400 && retry != nil {
			errBody, _ := io.ReadAll(io.LimitReader(res.Body, provider.MaxErrorBody))
			_ = res.Body.Close()
			telemetry.EndModelCall(call, res.StatusCode, nil)
			if next := retry(res.StatusCode, decoded(errBody, res.Header.Get("Content-Encoding"))); next != nil {
				body = next
				continue
			}
			res.Body = io.NopCloser(bytes.NewReader(errBody))
			res.ContentLength = int64(len(errBody))
		}
		ex.Status = res.StatusCode
		tee, written, cerr := p.copyResponse(w, res, wire)
		if cerr != nil && r.Context().Err() != nil && res.StatusCode < 300 &&
			readUsage(wire, tee, res.Header.Get("Content-Encoding")) != nil {
			// The agent hung up as the stream ended: an SDK closes the
			// connection at the stream's last event ("data: [DONE]"),
			// and the proxy's next read of the upstream, which would
			// have met its end, met the cancelled request instead. A
			// stream whose usage was read (sent last, or next to last)
			// is whole: its usage and answer are the session's.
			cerr = nil
		}
		if res.StatusCode < 300 && cerr == nil {
			ex.usage = readUsage(wire, tee, res.Header.Get("Content-Encoding"))
			if u := ex.usage; u != nil {
				ex.cost, _ = model.CostOf(ex.model, u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.OutputTokens)
			}
		}
		if res.StatusCode < 400 || retry == nil {
			// (with retry, an error answer's span ended when it was read)
			callStatus := res.StatusCode
			if cerr != nil {
				callStatus = http.StatusBadGateway
			}
			telemetry.EndModelCall(call, callStatus, ex.usage)
		}
		if cerr != nil {
			if r.Context().Err() != nil {
				return // the agent went away: its request was cancelled upstream
			}
			// The answer is not whole: nothing of it is the session's,
			// and the agent is told (502, or the stream's error event).
			ex.Status = http.StatusBadGateway
			p.log.Warn("upstream answer failed", "path", r.URL.Path, "session", ex.Session, "status", res.StatusCode, "written", written, "err", cerr.Error())
			if !written {
				writeError(w, wire, http.StatusBadGateway, "agentctx proxy: "+cerr.Error())
			}
			return
		}
		if s != nil && res.StatusCode < 300 {
			enc := res.Header.Get("Content-Encoding")
			u := ex.usage
			if u != nil && managedWindow(ex) {
				ex.Usage = u
				s.usage, s.usageAt = u, len(s.seen)
			}
			// The answer is the session's until the agent's next
			// request brings its own copy of it (or the session ends).
			if a := readAnswer(wire, tee, enc); a != nil {
				if u != nil {
					uu := *u
					a.Usage = &uu
				}
				s.answer = a
			}
		}
		return
	}
}

// managedWindow reports whether the usage of ex's answer measures the
// Engine's window: always for a managed request, and for one forwarded
// unchanged when nothing was compacted for it.
func managedWindow(ex *Exchange) bool {
	return ex.Managed || len(ex.Compactions) == 0
}

// decoded returns an error body without its gzip encoding, for reading.
func decoded(data []byte, encoding string) []byte {
	if !strings.EqualFold(strings.TrimSpace(encoding), "gzip") {
		return data
	}
	if u := gunzip(data); u != nil {
		return u
	}
	return data
}

// send posts body to the upstream with the agent's headers (its API key
// among them), hop-by-hop headers left out.
func (p *Proxy) send(r *http.Request, body []byte) (*http.Response, error) {
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.target(r.URL).String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range r.Header {
		if hopByHop(k, r.Header) || strings.EqualFold(k, "Content-Length") || strings.EqualFold(k, SessionHeader) {
			continue
		}
		out.Header[k] = vs
	}
	out.ContentLength = int64(len(body))
	out.Host = p.opts.Upstream.Host
	return p.client.Do(out)
}

// copyResponse sends res to the agent and returns the first maxTee bytes
// of its body. An event stream (text/event-stream, or a Gemini
// streamGenerateContent answer) streams, flushed as
// bytes arrive; when the upstream's body fails mid-way (a read error, not
// its end) the agent gets a last event in its wire's error shape
// (streamError), so that a cut answer never reads as a complete one. Any
// other answer of up to maxTee bytes is read whole before its headers are
// written: when its body fails, or it says Content-Encoding: gzip and does
// not decode, nothing has been written and copyResponse returns the error
// with written false (the caller answers 502). A longer one streams; cut,
// it ends short of its Content-Length. The error, when not nil, says what
// failed; written says whether the agent got headers.
func (p *Proxy) copyResponse(w http.ResponseWriter, res *http.Response, wire Wire) (tee []byte, written bool, err error) {
	defer res.Body.Close()
	header := func() {
		for k, vs := range res.Header {
			if hopByHop(k, res.Header) {
				continue
			}
			w.Header()[k] = vs
		}
		w.WriteHeader(res.StatusCode)
		written = true
	}
	rc := http.NewResponseController(w)
	// A Gemini stream without alt=sse is a JSON array that grows: it
	// streams too, though no error event can end it.
	streamed := isEventStream(res.Header) || (res.Request != nil && strings.HasSuffix(res.Request.URL.Path, ":streamGenerateContent"))
	if !streamed {
		buf, rerr := io.ReadAll(io.LimitReader(res.Body, maxTee+1))
		if rerr != nil {
			return nil, false, fmt.Errorf("upstream answer cut after %d bytes: %w", len(buf), rerr)
		}
		if len(buf) <= maxTee {
			if derr := checkEncoding(buf, res.Header.Get("Content-Encoding")); derr != nil {
				return nil, false, derr
			}
			header()
			_, _ = w.Write(buf)
			return buf, true, nil
		}
		// Too long to hold: stream the rest after what was read.
		header()
		if _, werr := w.Write(buf); werr != nil {
			return buf[:maxTee], true, nil
		}
		tee = buf[:maxTee]
	} else {
		header()
	}
	buf := make([]byte, 32<<10)
	for {
		n, rerr := res.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return tee, true, nil // the agent went away
			}
			_ = rc.Flush()
			if len(tee)+n <= maxTee {
				tee = append(tee, buf[:n]...)
			}
		}
		if rerr == io.EOF {
			return tee, true, nil
		}
		if rerr != nil {
			err = fmt.Errorf("upstream answer cut mid-stream: %w", rerr)
			if isEventStream(res.Header) {
				_, _ = w.Write(streamError(wire, "agentctx proxy: the upstream's answer was cut mid-stream: "+rerr.Error()))
				_ = rc.Flush()
			}
			return tee, true, err
		}
	}
}

// isEventStream reports whether h announces Server-Sent Events.
func isEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}

// checkEncoding returns an error when body says gzip and does not decode
// (a corrupt or truncated gzip stream), nil otherwise: the proxy passes
// the bytes through encoded, and an agent would read a corrupt body as an
// empty answer.
func checkEncoding(body []byte, encoding string) error {
	if !strings.EqualFold(strings.TrimSpace(encoding), "gzip") {
		return nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err == nil {
		_, err = io.Copy(io.Discard, zr)
	}
	if err != nil {
		return fmt.Errorf("upstream answer: Content-Encoding gzip does not decode: %w", err)
	}
	return nil
}

// streamError is the last event of a stream that failed, in wire's
// shape: Anthropic's error event
// (https://docs.anthropic.com/en/api/messages-streaming, "Error events"),
// the Responses API's response.failed event, for chat completions a data
// line holding an error object (what OpenAI sends when a stream fails, and
// what its SDKs raise), for the Gemini API a data line holding its error
// object (code, message, status).
func streamError(wire Wire, msg string) []byte {
	m, _ := json.Marshal(msg)
	switch wire {
	case WireGemini:
		e, _ := json.Marshal(map[string]any{"error": map[string]any{"code": http.StatusBadGateway, "message": msg, "status": geminiStatus(http.StatusBadGateway)}})
		return fmt.Appendf(nil, "\n\ndata: %s\n\n", e)
	case WireAnthropic:
		return fmt.Appendf(nil, "\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":%s}}\n\n", m)
	case WireResponses:
		return fmt.Appendf(nil, "\n\nevent: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"object\":\"response\",\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":%s}}}\n\n", m)
	}
	return fmt.Appendf(nil, "\n\ndata: {\"error\":{\"message\":%s,\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n", m)
}

// hopByHop reports whether header k is a hop-by-hop header (RFC 9110
// section 7.6.1): the fixed ones and those h's Connection names.
func hopByHop(k string, h http.Header) bool {
	switch http.CanonicalHeaderKey(k) {
	case "Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade":
		return true
	}
	for _, v := range h.Values("Connection") {
		for _, f := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), k) {
				return true
			}
		}
	}
	return false
}

// unpaired reports whether msgs break the providers' tool-call rules: a
// tool result that answers no call of the assistant message before it, or
// a call whose result does not follow it before the next user or
// assistant message (both APIs refuse either with 400).
func unpaired(msgs []chat.Message) bool {
	open := map[string]bool{}
	for _, m := range msgs {
		switch m.Role {
		case chat.RoleTool:
			r, _ := m.ToolResult()
			if !open[r.ToolCallID] {
				return true
			}
			delete(open, r.ToolCallID)
		case chat.RoleSystem:
			// Instructions between a call and its result do not end the
			// round (Codex's developer messages, Claude Code's system
			// messages; window.Check reads them the same way).
		default:
			if len(open) > 0 {
				return true
			}
			for _, c := range m.ToolCalls() {
				open[c.ID] = true
			}
		}
	}
	return false
}

// compactionPrompts are phrases of the prompts agents send to have the
// model summarize the conversation for their own compaction: Claude Code's
// /compact and auto-compact ("Your task is to create a detailed summary of
// the conversation so far", and "of this conversation" for its partial
// compaction; read from the 2.1.328 binary), Codex CLI's local compaction
// ("CONTEXT CHECKPOINT COMPACTION", its templates/compact/prompt.md),
// Gemini CLI's chat compression ("summarizes internal chat history",
// its getCompressionPrompt), opencode's ("provide a detailed prompt for
// continuing our conversation").
var compactionPrompts = []string{
	"Your task is to create a detailed summary of the",
	"CONTEXT CHECKPOINT COMPACTION",
	"summarizes internal chat history",
	"detailed prompt for continuing our conversation",
}

// agentCompaction reports whether the request is the agent's own
// compaction: its last user message holds one of compactionPrompts.
func agentCompaction(c *conversation) bool {
	for i := len(c.msgs) - 1; i >= 0; i-- {
		m := c.msgs[i]
		if m.Role != chat.RoleUser {
			continue
		}
		t := m.Text()
		for _, p := range compactionPrompts {
			if strings.Contains(t, p) {
				return true
			}
		}
		return false
	}
	return false
}
