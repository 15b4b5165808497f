package providertest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/token"
)

// Options configures a [Server]. The zero value serves the OpenAI wire and
// answers every valid request with the text "ok".
type Options struct {
	// Wire is the format served. Optional. Defaults to [WireOpenAI];
	// [NewOpenAI] and [NewAnthropic] set it.
	Wire Wire
	// Script decides each reply. Optional. Defaults to a script that
	// answers "ok".
	Script Script
	// ContextLimit is the context window in tokens: a request whose
	// [Request.PromptTokens] exceeds it gets the provider's overflow
	// answer ([Wire.Overflow]) without consulting the script. Optional.
	// Defaults to 0, no limit.
	ContextLimit int
	// MaxBodyBytes is the largest request body accepted, in bytes: a
	// bigger one gets the provider's 413 ([Wire.TooLarge]) before
	// anything else is checked. Optional. Defaults to 0, no limit.
	MaxBodyBytes int
	// Counter counts a request's prompt in tokens: the messages with
	// token.Messages and token.OpenAIOverhead, plus the tool definitions
	// with token.Tools. Optional. Defaults to the exact o200k_base
	// counter of package token (an approximation for Anthropic models,
	// whose tokenizer is not public), or token.Estimator{} if that cannot
	// load.
	Counter token.Counter
	// Faults fail chosen requests, before validation and the script.
	// Optional.
	Faults []Fault
	// ChunkDelay is the pause before each server-sent event of a streamed
	// reply. Optional. Defaults to none. A canceled request stops the
	// stream at once.
	ChunkDelay time.Duration
	// Model is the "model" of replies. Optional. Defaults to the
	// request's model.
	Model string
}

// Server is a fake provider on a loopback httptest server. Safe for
// concurrent use; Close it when done (it waits for handlers to finish;
// streams stop when the client goes away).
type Server struct {
	// URL is the server's root, "http://127.0.0.1:port".
	URL string
	// BaseURL is what to give an adapter as its base URL: URL + "/v1" for
	// OpenAI (the SDK appends "/chat/completions"), URL for Anthropic (the
	// SDK appends "/v1/messages").
	BaseURL string

	opts    Options
	srv     *httptest.Server
	counter token.Counter

	mu   sync.Mutex
	reqs []Request
}

// NewOpenAI starts a server speaking the OpenAI chat-completions wire
// format on POST /v1/chat/completions (opts.Wire is ignored).
func NewOpenAI(opts Options) *Server {
	opts.Wire = WireOpenAI
	return New(opts)
}

// NewAnthropic starts a server speaking the Anthropic Messages wire format
// on POST /v1/messages (opts.Wire is ignored).
func NewAnthropic(opts Options) *Server {
	opts.Wire = WireAnthropic
	return New(opts)
}

// New starts a server for opts.Wire ([WireOpenAI] when empty). Any other
// path or method gets the provider's 404 body.
func New(opts Options) *Server {
	if opts.Wire == "" {
		opts.Wire = WireOpenAI
	}
	if opts.Script == nil {
		opts.Script = func(Request) Reply { return Reply{Text: "ok"} }
	}
	s := &Server{opts: opts, counter: opts.Counter}
	if s.counter == nil {
		if c, err := token.ForEncoding(token.O200kBase); err == nil {
			s.counter = c
		} else {
			s.counter = token.Estimator{}
		}
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL
	s.BaseURL = s.URL
	if opts.Wire == WireOpenAI {
		s.BaseURL += "/v1"
	}
	return s
}

// Close shuts the server down and waits for its handlers to return.
func (s *Server) Close() { s.srv.Close() }

// Requests returns the requests received so far, oldest first: a copy.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// path is the endpoint of the server's wire.
func (s *Server) path() string {
	if s.opts.Wire == WireAnthropic {
		return "/v1/messages"
	}
	return "/v1/chat/completions"
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	wire := s.opts.Wire
	if r.Method != http.MethodPost || r.URL.Path != s.path() {
		writeFailure(w, Failure{Status: http.StatusNotFound, Header: jsonHeader(),
			Body: wire.errorBody("not_found_error", "", "", fmt.Sprintf("Not found: %s %s", r.Method, r.URL.Path))})
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	req := Request{Wire: wire, Body: body, Header: r.Header.Clone()}
	decodeErr := s.decode(&req)
	s.mu.Lock()
	req.N = len(s.reqs) + 1
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()

	if s.opts.MaxBodyBytes > 0 && len(body) > s.opts.MaxBodyBytes {
		writeFailure(w, wire.TooLarge())
		return
	}
	for _, f := range s.opts.Faults {
		if f.Request == req.N {
			s.fail(w, r, req, f.Failure)
			return
		}
	}
	var verr error
	if wire == WireAnthropic {
		verr = ValidateAnthropic(body)
	} else {
		verr = ValidateOpenAI(body)
	}
	var ve *ValidationError
	if errors.As(verr, &ve) {
		writeFailure(w, ve.Failure())
		return
	}
	if decodeErr != nil {
		writeFailure(w, wire.BadRequest("messages", decodeErr.Error()))
		return
	}
	if s.opts.ContextLimit > 0 && req.PromptTokens > s.opts.ContextLimit {
		writeFailure(w, wire.Overflow(s.opts.ContextLimit, req.PromptTokens))
		return
	}
	rep := s.opts.Script(cloneRequest(req))
	if rep.Failure != nil {
		s.fail(w, r, req, *rep.Failure)
		return
	}
	rep = s.complete(req, rep)
	model := req.Model
	if s.opts.Model != "" {
		model = s.opts.Model
	}
	if wire == WireAnthropic {
		s.anthropicReply(w, r, req, rep, model)
	} else {
		s.openAIReply(w, r, req, rep, model)
	}
}

// fail sends f, as an error event inside a stream when f.MidStream and the
// request streams.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, req Request, f Failure) {
	if !f.MidStream || !req.Stream {
		writeFailure(w, f)
		return
	}
	sse := s.startSSE(w, r)
	if s.opts.Wire == WireAnthropic {
		start := s.anthropicStart(req, Reply{}, req.Model)
		if !sse.event("message_start", start) {
			return
		}
		sse.event("error", f.Body)
		return
	}
	sse.event("", f.Body)
}

// complete fills a reply's defaults: tool-call ids, stop reason, usage.
func (s *Server) complete(req Request, rep Reply) Reply {
	rep.ToolCalls = append([]chat.ToolCall(nil), rep.ToolCalls...)
	out := s.counter.Count(rep.Text)
	for i, c := range rep.ToolCalls {
		if c.ID == "" {
			if s.opts.Wire == WireAnthropic {
				c.ID = fmt.Sprintf("toolu_%02d_%02d", req.N, i)
			} else {
				c.ID = fmt.Sprintf("call_%02d_%02d", req.N, i)
			}
		}
		if len(bytes.TrimSpace(c.Arguments)) == 0 {
			c.Arguments = []byte("{}")
		}
		rep.ToolCalls[i] = c
		out += s.counter.Count(c.Name) + s.counter.Count(string(c.Arguments))
	}
	if rep.StopReason == "" {
		switch {
		case len(rep.ToolCalls) > 0 && s.opts.Wire == WireAnthropic:
			rep.StopReason = "tool_use"
		case len(rep.ToolCalls) > 0:
			rep.StopReason = "tool_calls"
		case s.opts.Wire == WireAnthropic:
			rep.StopReason = "end_turn"
		default:
			rep.StopReason = "stop"
		}
	}
	if rep.Usage == nil {
		rep.Usage = &chat.Usage{InputTokens: req.PromptTokens, OutputTokens: out}
	}
	return rep
}

// countPrompt is the server's count of a decoded request.
func (s *Server) countPrompt(req Request) int {
	return token.Messages(s.counter, token.OpenAIOverhead, req.Messages) + token.Tools(s.counter, req.Tools)
}

// cloneRequest returns a copy of req that shares no memory with it.
func cloneRequest(req Request) Request {
	c := req
	c.Body = bytes.Clone(req.Body)
	c.Header = req.Header.Clone()
	if req.Messages != nil {
		c.Messages = make([]chat.Message, len(req.Messages))
		for i, m := range req.Messages {
			c.Messages[i] = m.Clone()
		}
	}
	c.Tools = append([]chat.ToolDef(nil), req.Tools...)
	return c
}

// writeFailure sends f as a whole response.
func writeFailure(w http.ResponseWriter, f Failure) {
	for k, vs := range f.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	status := f.Status
	if status == 0 {
		status = http.StatusInternalServerError
	}
	w.WriteHeader(status)
	_, _ = w.Write(f.Body)
}

// sseWriter writes server-sent events, pausing before each and stopping
// when the client's context ends.
type sseWriter struct {
	w     http.ResponseWriter
	r     *http.Request
	delay time.Duration
}

func (s *Server) startSSE(w http.ResponseWriter, r *http.Request) *sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	return &sseWriter{w: w, r: r, delay: s.opts.ChunkDelay}
}

// event writes one event ("event: name" when name is not "", then "data:
// data") and flushes it. It reports false when the client is gone.
func (e *sseWriter) event(name string, data []byte) bool {
	if e.delay > 0 {
		t := time.NewTimer(e.delay)
		select {
		case <-e.r.Context().Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
	if e.r.Context().Err() != nil {
		return false
	}
	var b strings.Builder
	if name != "" {
		b.WriteString("event: " + name + "\n")
	}
	b.WriteString("data: ")
	b.Write(data)
	b.WriteString("\n\n")
	if _, err := io.WriteString(e.w, b.String()); err != nil {
		return false
	}
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
	return true
}

// chunks splits s into pieces of about n bytes, on rune boundaries.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := n
		for i < len(s) && !utf8RuneStart(s[i]) {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
