package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/internal/guard"
	"github.com/agentctx/agentctx/internal/httpbody"
	"github.com/agentctx/agentctx/internal/jsonx"
	"github.com/agentctx/agentctx/internal/telemetry"
	"github.com/agentctx/agentctx/session"
)

// Defaults of [Options].
const (
	// DefaultMaxBodyBytes caps a request body: 32 MiB, room for a turn of
	// large tool outputs.
	DefaultMaxBodyBytes = 32 << 20
	// DefaultCacheSessions is how many sessions' Engines a server keeps
	// open in memory.
	DefaultCacheSessions = 256
	// DefaultStoreTimeout bounds /readyz's store check.
	DefaultStoreTimeout = 2 * time.Second
)

// Options configures [New]. Only Store is required.
type Options struct {
	// Store keeps the sessions. Required. The server does not close it.
	// Any store that passes sessiontest.Run works; several servers may
	// share one whose writer lock spans processes (see the package
	// documentation).
	Store session.Store
	// Tokens are the bearer tokens and their tenants. Optional. The zero
	// value turns authentication off: every request is the anonymous
	// tenant (the serve command then listens on loopback only).
	Tokens Tokens
	// Logger receives one access record per request (method, route
	// pattern, status, bytes, duration, tenant; never the token) and the
	// server's errors. Optional. Defaults to no logging.
	Logger *slog.Logger
	// MaxBodyBytes caps a request body, in bytes. Optional. Defaults to
	// [DefaultMaxBodyBytes].
	MaxBodyBytes int64
	// CacheSessions is how many sessions' Engines stay open in memory,
	// least recently used evicted first (closed: their state saved).
	// Optional. Defaults to [DefaultCacheSessions].
	CacheSessions int
	// Engine is the base of the Engine options of every session (budget
	// policy, summarizer, strategy, reminders…); Store, SessionID, Dir,
	// NoDiskReads and Logger are set by the server, and a create request
	// sets Model, Budget, MaxTokens, SystemPrompt and Tools. Optional.
	Engine agentctx.Options
	// Now returns the time for events. Optional. Defaults to time.Now.
	Now func() time.Time
	// AllowedHosts are Host header values accepted besides the address
	// the server listens on: a name ("agentctx.lan") or a name and port
	// ("agentctx.lan:8080"); "*" accepts any. Optional. Without tokens a
	// request whose Host is not a loopback name or address with the
	// listener's port (localhost, 127.0.0.1, [::1]), nor the address the
	// connection came in on, is refused with 421 (CodeMisdirected): a web
	// page reaching the server by DNS rebinding sends its own name. With
	// tokens every Host is accepted unless AllowedHosts is set (a page
	// cannot send a bearer token it does not know).
	AllowedHosts []string
	// TracerProvider receives the spans of each request (see
	// docs/observability.md). Optional. Defaults to the global provider
	// (otel.GetTracerProvider: no spans until telemetry.Setup).
	TracerProvider trace.TracerProvider
	// AllowedOrigins are the web origins ("http://localhost:3000") whose
	// pages may call the server; "*" allows any. Optional. A request with
	// an Origin header (only browsers send one) of another origin than
	// the server's is refused with 403 (CodeForbiddenOrigin).
	AllowedOrigins []string
	// EventPoll is how often an event stream reads its session's events
	// from the store without a notification, when the store keeps events
	// ([EventLog]): the bound on how late an event whose notification was
	// lost arrives. Optional. Defaults to [DefaultEventPoll].
	EventPoll time.Duration
}

// Server is the HTTP/JSON API of agentctx: an [http.Handler]. Create it
// with [New]; call [Server.Close] after the http.Server has shut down.
// Safe for concurrent use: requests on one session are serialized, on
// different sessions they run in parallel.
type Server struct {
	// noEncodingReuse makes every request encode each message anew
	// (tests compare it with the reuse of handle.encoded).
	noEncodingReuse bool
	opts            Options
	store           session.Store
	log             *slog.Logger
	mux             *http.ServeMux
	events          *broker
	// evlog is the store as an EventLog, nil when it keeps no events;
	// stopListen ends its listener, listening waits for it.
	evlog      EventLog
	stopListen context.CancelFunc
	listening  sync.WaitGroup
	// dropNote, set by tests, loses the notifications it returns true
	// for (before the subscribers are woken).
	dropNote func(id string, seq int64) bool
	guard    guard.Policy
	// metrics are the server's Prometheus metrics, served at
	// [telemetry.Path]; store counts their failures.
	metrics *telemetry.Metrics
	tracer  trace.Tracer

	mu      sync.Mutex
	closed  bool
	handles map[string]*handle
	idle    *lru.Cache[string, *handle]
	victims []*handle
	// inflight counts the requests being served, so that Close waits for
	// them (http.Server.Shutdown does too; a caller using the handler
	// without it is covered).
	inflight sync.WaitGroup
}

// route is one registered route: its pattern, method and handler.
type route struct {
	method, path string
	h            func(*Server, http.ResponseWriter, *http.Request) error
}

// routes is every route of the API, in the order of the OpenAPI document.
var routes = []route{
	{"GET", "/healthz", (*Server).healthz},
	{"GET", "/readyz", (*Server).readyz},
	{"GET", "/openapi.json", (*Server).openapi},
	{"POST", "/v1/sessions", (*Server).createSession},
	{"GET", "/v1/sessions", (*Server).listSessions},
	{"GET", "/v1/sessions/{id}", (*Server).getSession},
	{"DELETE", "/v1/sessions/{id}", (*Server).deleteSession},
	{"POST", "/v1/sessions/{id}/messages", (*Server).addMessages},
	{"POST", "/v1/sessions/{id}/request", (*Server).nextRequest},
	{"POST", "/v1/sessions/{id}/reply", (*Server).addReply},
	{"POST", "/v1/sessions/{id}/compact", (*Server).compactNow},
	{"POST", "/v1/sessions/{id}/fork", (*Server).forkSession},
	{"POST", "/v1/sessions/{id}/rewind", (*Server).rewindSession},
	{"GET", "/v1/sessions/{id}/inspect", (*Server).inspect},
	{"GET", "/v1/sessions/{id}/outputs/{call_id}", (*Server).recall},
	{"GET", "/v1/sessions/{id}/pins", (*Server).listPins},
	{"POST", "/v1/sessions/{id}/pins", (*Server).addPin},
	{"DELETE", "/v1/sessions/{id}/pins/{pin}", (*Server).deletePin},
	{"GET", "/v1/sessions/{id}/export", (*Server).export},
	{"GET", "/v1/sessions/{id}/report", (*Server).report},
	{"GET", "/v1/sessions/{id}/events", (*Server).streamEvents},
}

// public routes need no token. /metrics holds no session's data: counts
// by route, status, level and operation, for a scraper without a token.
var public = map[string]bool{"/healthz": true, "/readyz": true, "/openapi.json": true, telemetry.Path: true}

// ErrNoStore reports [New] without [Options].Store. Pass a store.
var ErrNoStore = errors.New("server: no session store")

// New returns the API's handler over opts.Store. Errors: [ErrNoStore].
func New(opts Options) (*Server, error) {
	if opts.Store == nil {
		return nil, ErrNoStore
	}
	opts.MaxBodyBytes = cmp.Or(opts.MaxBodyBytes, DefaultMaxBodyBytes)
	opts.CacheSessions = cmp.Or(opts.CacheSessions, DefaultCacheSessions)
	opts.EventPoll = cmp.Or(opts.EventPoll, DefaultEventPoll)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m, tracer := telemetry.New(), telemetry.Tracer(opts.TracerProvider)
	s := &Server{
		opts: opts, store: m.Store(opts.Store, tracer), log: opts.Logger, metrics: m, tracer: tracer,
		mux: http.NewServeMux(), events: newBroker(),
		handles: map[string]*handle{},
		guard: guard.Policy{
			AllowedHosts: opts.AllowedHosts, AllowedOrigins: opts.AllowedOrigins,
			AnyHost: opts.Tokens.Len() > 0 && len(opts.AllowedHosts) == 0,
		},
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	idle, err := lru.NewWithEvict(opts.CacheSessions, func(_ string, h *handle) {
		// Called by idle.Add with s.mu held: close it after (release).
		s.victims = append(s.victims, h)
	})
	if err != nil {
		return nil, err
	}
	s.idle = idle
	for _, rt := range routes {
		h := rt.h
		s.mux.Handle(rt.method+" "+rt.path, s.wrap(rt.path, rt.method == http.MethodPost, func(w http.ResponseWriter, r *http.Request) error { return h(s, w, r) }))
	}
	// GET /metrics is the operator's, not the API's: it is not in routes
	// (nor the OpenAPI document).
	scrape := m.Handler()
	s.mux.Handle("GET "+telemetry.Path, s.wrap(telemetry.Path, false, func(w http.ResponseWriter, r *http.Request) error {
		scrape.ServeHTTP(w, r)
		return nil
	}))
	if err := m.SessionsOpen(func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.handles)
	}); err != nil {
		return nil, err
	}
	if evlog, ok := opts.Store.(EventLog); ok {
		s.evlog = evlog
		ctx, cancel := context.WithCancel(context.Background())
		s.stopListen = cancel
		s.listening.Go(func() { s.listen(ctx) })
	}
	return s, nil
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, pattern := s.mux.Handler(r)
	if pattern != "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	// No route: net/http answers 404 or 405 in plain text; answer with a
	// problem object instead, logged like any request.
	s.wrap("", false, func(w http.ResponseWriter, r *http.Request) error {
		c := &capture{header: http.Header{}}
		h.ServeHTTP(c, r)
		if c.status == http.StatusMethodNotAllowed {
			allow := c.header.Get("Allow")
			w.Header().Set("Allow", allow)
			return errorf(c.status, CodeMethodNotAllowed, "%s is not allowed on %s; allowed: %s", r.Method, r.URL.Path, allow)
		}
		return errorf(http.StatusNotFound, CodeNotFound, "no route %s %s", r.Method, r.URL.Path)
	}).ServeHTTP(w, r)
}

// capture is a ResponseWriter that keeps the status and headers only.
type capture struct {
	header http.Header
	status int
}

func (c *capture) Header() http.Header         { return c.header }
func (c *capture) Write(b []byte) (int, error) { return len(b), nil }
func (c *capture) WriteHeader(code int)        { c.status = code }

// wrap adds what every route does: the Host and Origin checks (package
// guard), the body limit, authentication, the tenant in the context, the
// session id in the path (storeID), the JSON media type of a route that reads a body (jsonBody), problem
// objects for errors and the access log.
func (s *Server) wrap(pattern string, jsonBody bool, h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ctx, span := telemetry.StartRequest(s.tracer, r, pattern)
		rec := &recorder{ResponseWriter: w, start: start}
		r = r.WithContext(withTiming(ctx, &rec.timing))
		tenant, ok := s.opts.Tokens.tenant(r)
		var err error
		switch {
		case !s.enter():
			err = errShuttingDown
		default:
			defer s.inflight.Done()
			if err = s.guard.Check(r); err != nil {
				// A web page's request: refused before anything is read.
				rec.err = err
				tenant = ""
				break
			}
			r.Body = http.MaxBytesReader(rec, r.Body, s.opts.MaxBodyBytes)
			if !ok && !public[pattern] {
				err = errorf(http.StatusUnauthorized, CodeUnauthorized, "send Authorization: Bearer <token> with a token of the server's tokens file")
				break
			}
			if strings.Contains(pattern, "{id}") {
				// One answer for an invalid id on every route (400
				// invalid-id), before the body or the store is read.
				if _, err = storeID(tenant, r.PathValue("id")); err != nil {
					break
				}
			}
			if jsonBody {
				if err = guard.JSON(r); err != nil {
					break
				}
			}
			err = h(rec, r.WithContext(withTenant(r.Context(), tenant)))
		}
		if err != nil {
			if rec.status != 0 {
				// Too late for a problem object (a stream was cut).
				rec.err = err
			} else {
				writeProblem(rec, r, err)
			}
		}
		d, status := time.Since(start), cmp.Or(rec.status, http.StatusOK)
		s.access(r, pattern, tenant, rec, d)
		s.metrics.Request(pattern, r.Method, status, d)
		telemetry.EndRequest(span, status)
	})
}

// enter counts a request in, unless the server is closed.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.inflight.Add(1)
	return true
}

// recorder notes the status and size of a response for the access log.
type recorder struct {
	http.ResponseWriter
	// start is when the request came in: the response's Server-Timing
	// header gives the time from it to the response's start.
	start time.Time
	// timing is the request's time by phase, for the header's other
	// metrics.
	timing timing
	status int
	bytes  int64
	err    error
}

// ServerTimingMetric is the metric of the Server-Timing header
// (https://www.w3.org/TR/server-timing/) the service puts on every
// response: "app;dur=D", D the milliseconds from the handler's start (the
// request's headers read) to the response's start (its status line; for a
// stream, the time to open it), reading the request's body included. A
// client that subtracts it from what it measured learns the network's and
// its own share of a call (the load generator's "turn, server" row). The
// phases the request spent time in follow it (TimingRead and the others).
const ServerTimingMetric = "app"

// started sets the Server-Timing header, once, as the response starts.
func (r *recorder) started(code int) {
	if r.status != 0 {
		return
	}
	r.status = code
	r.ResponseWriter.Header().Set("Server-Timing", r.timing.header(time.Since(r.start)))
}

func (r *recorder) WriteHeader(code int) {
	r.started(code)
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.started(http.StatusOK)
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (Flush,
// deadlines) through the recorder.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// access logs one request.
func (s *Server) access(r *http.Request, pattern, tenant string, rec *recorder, d time.Duration) {
	status := cmp.Or(rec.status, http.StatusOK)
	level := slog.LevelInfo
	switch {
	case status >= 500:
		level = slog.LevelError
	case status == http.StatusMisdirectedRequest || status == http.StatusForbidden:
		// A refused Host or Origin: a web page tried the server.
		level = slog.LevelWarn
	}
	attrs := []slog.Attr{
		slog.String("method", r.Method),
		slog.String("route", cmp.Or(pattern, "unmatched")),
		slog.Int("status", status),
		slog.Int64("bytes", rec.bytes),
		slog.Duration("duration", d),
		slog.String("tenant", tenant),
	}
	if id := r.PathValue("id"); id != "" {
		attrs = append(attrs, slog.String("session", id))
	}
	if rec.err != nil {
		attrs = append(attrs, slog.String("error", rec.err.Error()))
	}
	if o := r.Header.Get("Origin"); o != "" && status == http.StatusForbidden {
		attrs = append(attrs, slog.String("origin", o))
	}
	s.log.LogAttrs(r.Context(), level, "request", attrs...)
}

// Close ends the event streams, waits for the requests in flight, then
// closes every cached Engine (saving its working-memory state, unless
// another server wrote the session since, and syncing its session).
// Later requests get 503. It does not close the store. Call it after
// http.Server.Shutdown returned, or instead of it in tests.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.events.close()
	if s.stopListen != nil {
		s.stopListen()
		s.listening.Wait()
	}
	s.inflight.Wait()
	s.mu.Lock()
	hs := make([]*handle, 0, len(s.handles))
	for _, h := range s.handles {
		hs = append(hs, h)
	}
	s.handles = map[string]*handle{}
	s.mu.Unlock()
	var errs []error
	for _, h := range hs {
		h.mu.Lock()
		errs = append(errs, s.close(h))
		h.mu.Unlock()
	}
	return errors.Join(errs...)
}

// writeJSON writes v as the JSON response with status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := jsonx.MarshalNoEscape(v)
	if err != nil {
		return err
	}
	writeRaw(w, status, append(b, '\n'))
	return nil
}

// writeRaw writes b, JSON, as the response with status.
func writeRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	// A write error means the client went away: nothing to tell it.
	_, _ = w.Write(b)
}

// readJSON decodes r's JSON body into v; an empty body leaves v as it is
// when empty is allowed. The Content-Type was checked by wrap (guard.JSON).
func readJSON(r *http.Request, v any, emptyOK bool) error {
	defer spent(r.Context(), phaseRead, time.Now())
	body, err := readBody(r)
	if err != nil {
		return err
	}
	if len(body) == 0 && emptyOK {
		return nil
	}
	// The fast decoder first; encoding/json's Decoder, which names the
	// offset or the field, for a body it does not take.
	if !jsonx.TryStrict(body, v) {
		if err := decodeJSON(bytesReader(body), v); err != nil {
			return err
		}
	}
	return refuseNull(body)
}

// readBody reads r's whole body. A body the client cut short (its
// connection closed or reset before Content-Length bytes) is a bad request
// (400), one that did not arrive before the connection's read deadline a
// 408: the client's fault, not the server's.
func readBody(r *http.Request) ([]byte, error) {
	b, err := httpbody.ReadAll(r.Body, r.ContentLength, maxPresizedBody)
	if err == nil {
		return b, nil
	}
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &mbe):
		return nil, err
	case errors.As(err, &ne) && ne.Timeout():
		return nil, &apiError{status: http.StatusRequestTimeout, code: CodeTimeout, detail: fmt.Sprintf("the body did not arrive before the read deadline (%d bytes read)", len(b)), err: err}
	}
	return nil, &apiError{status: http.StatusBadRequest, code: CodeBadRequest, detail: fmt.Sprintf("the body was cut short after %d bytes: %v", len(b), err), err: err}
}

// maxPresizedBody is the most bytes readBody allocates on a body's word
// (its Content-Length) before reading them.
const maxPresizedBody = 1 << 20

// healthz answers 200 while the process serves.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 when the store answers within DefaultStoreTimeout.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), DefaultStoreTimeout)
	defer cancel()
	if _, err := s.store.List(ctx, session.ListOptions{Limit: 1}); err != nil {
		s.log.Error("readyz: store unreachable", "error", err)
		return errorf(http.StatusServiceUnavailable, CodeUnavailable, "the session store does not answer")
	}
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
