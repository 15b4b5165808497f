package agentconf

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// MaxRequestBytes is the largest request body the servers accept, in
// bytes: the Messages API's documented 32 MB limit. A larger body is
// answered 413 with the wire's request_too_large error.
const MaxRequestBytes = 32 << 20

// DefaultMaxRequests is how many model requests a server answers by
// default before it refuses every further one with 429.
const DefaultMaxRequests = 120

// Wire names the API a recorded request used.
type Wire string

// The wires the servers speak.
const (
	WireAnthropic Wire = "anthropic"
	WireResponses Wire = "responses"
	WireGemini    Wire = "gemini"
	WireOther     Wire = "other"
)

// Options configures a [Server].
type Options struct {
	// Task is the task the scripted model plays. Required.
	Task *Task
	// MaxRequests bounds the model requests answered (then 429).
	// Optional. Defaults to DefaultMaxRequests.
	MaxRequests int
	// Logger receives one line per request. Optional. Defaults to
	// discarding.
	Logger *slog.Logger
	// SigningKey signs the thinking blocks, reasoning items and thought
	// signatures the server sends (HMAC-SHA256), so that it can check
	// they come back unchanged. Optional. Defaults to 32 random bytes;
	// set it to resume, against a new server, a session an agent began
	// against an earlier one.
	SigningKey []byte
}

// Record is one request the server received and what it answered.
type Record struct {
	Time   time.Time
	Method string
	// Path is the request's path and query.
	Path   string
	Header http.Header
	Body   []byte
	Wire   Wire
	// Model is true for a model request (Messages, Responses,
	// generateContent), false for count_tokens, models and others.
	Model bool
	// Main is true for a model request that declared the task's tools
	// (the agent's conversation), false for side requests (titles,
	// summaries, checks) answered with text.
	Main bool
	// Tokens is [Count] of Body.
	Tokens int
	// Status is the HTTP status answered.
	Status int
	// Violation is the rule the request broke (the error message sent),
	// or "".
	Violation string
	// Step is the step the scripted model played, or "".
	Step Step
}

// Server is a scripted model server on a loopback port. Safe for
// concurrent use.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:PORT, without a
	// trailing slash: agents append /v1/messages, /v1/responses or
	// /v1beta/models/... to it.
	URL string

	opts Options
	key  []byte
	srv  *http.Server
	ln   net.Listener
	done chan struct{}

	mu     sync.Mutex
	recs   []Record
	models int
	ids    int
}

// Start starts a server on 127.0.0.1 and a free port. Close stops it.
func Start(opts Options) (*Server, error) {
	if opts.Task == nil {
		return nil, errors.New("agentconf: start: Options.Task is required")
	}
	if opts.MaxRequests <= 0 {
		opts.MaxRequests = DefaultMaxRequests
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	key := opts.SigningKey
	if len(key) == 0 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("agentconf: start: signing key: %w", err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("agentconf: start: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), opts: opts, key: key, ln: ln, done: make(chan struct{})}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// Close stops the server, waiting up to 5 s for requests in flight.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	<-s.done
	if err != nil {
		return fmt.Errorf("agentconf: close: %w", err)
	}
	return nil
}

// Requests returns a copy of the records of every request so far, in
// arrival order.
func (s *Server) Requests() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Record(nil), s.recs...)
}

// sign returns the server's signature of text: base64 of HMAC-SHA256 under
// the server's random key.
func (s *Server) sign(text string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(text))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func (s *Server) nextID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return fmt.Sprintf("%s%06d%x", prefix, s.ids, s.key[:4])
}

// serve answers one request and records it.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	rec := Record{Time: time.Now(), Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Wire: WireOther}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBytes+1))
	rec.Body = body
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/v1/messages"):
		rec.Wire = WireAnthropic
	case strings.HasPrefix(p, "/v1/responses"):
		rec.Wire = WireResponses
	case strings.HasPrefix(p, "/v1beta/"):
		rec.Wire = WireGemini
	case p == "/v1/models" && r.Header.Get("anthropic-version") != "":
		rec.Wire = WireAnthropic
	case p == "/v1/models":
		rec.Wire = WireResponses
	}
	rw := &statusWriter{ResponseWriter: w}
	defer func() {
		rec.Status = rw.status
		if rec.Status == 0 {
			rec.Status = http.StatusOK
		}
		if rec.Tokens == 0 && len(rec.Body) > 0 && len(rec.Body) <= MaxRequestBytes {
			rec.Tokens, _ = Count(rec.Body)
		}
		if s.opts.Logger != nil {
			s.opts.Logger.Info("agentconf", "method", rec.Method, "path", rec.Path, "bytes", len(rec.Body), "tokens", rec.Tokens, "status", rec.Status, "step", rec.Step, "violation", rec.Violation)
		}
		s.mu.Lock()
		s.recs = append(s.recs, rec)
		s.mu.Unlock()
	}()
	if err != nil {
		writeJSON(rw, http.StatusBadRequest, errorBody(rec.Wire, http.StatusBadRequest, "invalid_request_error", "read body: "+err.Error()))
		return
	}
	if len(body) > MaxRequestBytes {
		rec.Violation = fmt.Sprintf("request body is %d bytes, over the %d-byte limit", len(body), MaxRequestBytes)
		writeJSON(rw, http.StatusRequestEntityTooLarge, errorBody(rec.Wire, http.StatusRequestEntityTooLarge, "request_too_large", "Request exceeds the maximum allowed number of bytes."))
		return
	}
	if r.Header.Get("Content-Encoding") != "" {
		rec.Violation = "unsupported Content-Encoding " + r.Header.Get("Content-Encoding")
		writeJSON(rw, http.StatusBadRequest, errorBody(rec.Wire, http.StatusBadRequest, "invalid_request_error", rec.Violation))
		return
	}
	switch {
	case r.Method == http.MethodGet && p == "/v1/models":
		s.models1(rw, rec.Wire)
	case r.Method == http.MethodPost && p == "/v1/messages/count_tokens":
		rec.Tokens, _ = Count(body)
		writeJSON(rw, http.StatusOK, map[string]any{"input_tokens": rec.Tokens})
	case r.Method == http.MethodPost && p == "/v1/messages":
		s.admit(rw, &rec, func() { s.anthropic(rw, r, &rec) })
	case r.Method == http.MethodPost && p == "/v1/responses":
		s.admit(rw, &rec, func() { s.responses(rw, r, &rec) })
	case r.Method == http.MethodPost && strings.HasPrefix(p, "/v1beta/models/") && strings.HasSuffix(p, ":countTokens"):
		rec.Tokens, _ = Count(body)
		writeJSON(rw, http.StatusOK, map[string]any{"totalTokens": rec.Tokens})
	case r.Method == http.MethodPost && strings.HasPrefix(p, "/v1beta/models/") && (strings.HasSuffix(p, ":generateContent") || strings.HasSuffix(p, ":streamGenerateContent")):
		s.admit(rw, &rec, func() { s.gemini(rw, r, &rec) })
	default:
		writeJSON(rw, http.StatusNotFound, errorBody(rec.Wire, http.StatusNotFound, "not_found_error", "agentconf: no route for "+r.Method+" "+p))
	}
}

// admit counts a model request and refuses it with 429 past MaxRequests.
func (s *Server) admit(w http.ResponseWriter, rec *Record, serve func()) {
	rec.Model = true
	s.mu.Lock()
	s.models++
	n := s.models
	s.mu.Unlock()
	if n > s.opts.MaxRequests {
		writeJSON(w, http.StatusTooManyRequests, errorBody(rec.Wire, http.StatusTooManyRequests, "rate_limit_error", fmt.Sprintf("agentconf: more than %d model requests", s.opts.MaxRequests)))
		return
	}
	serve()
}

func (s *Server) models1(w http.ResponseWriter, wire Wire) {
	ids := []string{"claude-opus-5-5", "claude-sonnet-4-5", "claude-haiku-4-5"}
	if wire == WireAnthropic {
		var data []map[string]any
		for _, id := range ids {
			data = append(data, map[string]any{"type": "model", "id": id, "display_name": id, "created_at": "2026-01-01T00:00:00Z"})
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": data, "has_more": false, "first_id": ids[0], "last_id": ids[len(ids)-1]})
		return
	}
	var data []map[string]any
	for _, id := range []string{"gpt-6.1-sol", "gpt-5.5"} {
		data = append(data, map[string]any{"id": id, "object": "model", "created": 1767225600, "owned_by": "agentconf"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// errorBody is the wire's error body: Anthropic's
// {"type":"error","error":{"type","message"}}, OpenAI's
// {"error":{"message","type","param","code"}}, Gemini's
// {"error":{"code","message","status"}}.
func errorBody(wire Wire, status int, typ, msg string) any {
	switch wire {
	case WireResponses:
		return map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}}
	case WireGemini:
		st := "INVALID_ARGUMENT"
		switch status {
		case http.StatusTooManyRequests:
			st = "RESOURCE_EXHAUSTED"
		case http.StatusNotFound:
			st = "NOT_FOUND"
		}
		return map[string]any{"error": map[string]any{"code": status, "message": msg, "status": st}}
	}
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"encode"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// sse writes server-sent events, flushing each.
type sse struct {
	w http.ResponseWriter
}

func startSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sse{w: w}
}

// event writes one event; name may be "" (Gemini sends data lines only).
func (e *sse) event(name string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", b)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

// chunks splits s into pieces of about n bytes on rune boundaries, for
// deltas.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := n
		for i < len(s) && s[i]&0xC0 == 0x80 {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	if s != "" || len(out) == 0 {
		out = append(out, s)
	}
	return out
}
