package proxy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/guard"
	"github.com/agentctx/agentctx/internal/httpbody"
	"github.com/agentctx/agentctx/internal/telemetry"
	"github.com/agentctx/agentctx/session"
)

// SessionHeader names the header an agent can set to choose its session
// id. Without it the proxy derives one from the request (see [Proxy]).
const SessionHeader = "X-Agentctx-Session"

// MaxBody is the largest model request body the proxy reads, in bytes
// (64 MiB): a bigger one is refused with 413 before anything is sent.
const MaxBody = 64 << 20

// Options configures a [Proxy].
type Options struct {
	// Upstream is the provider's base URL, such as https://api.anthropic.com
	// or https://api.openai.com: a request's path is appended to its path.
	// Required.
	Upstream *url.URL
	// Store keeps the proxied sessions, so that `agentctx inspect` and
	// the service see them. Optional: without one, sessions live in
	// memory only.
	Store session.Store
	// Budget is the prompt budget in tokens of every session. Optional.
	// Defaults to the budget of the request's model (model.DefaultPolicy).
	Budget int
	// Always makes the proxy send its managed window even when the
	// agent's request fits the budget (tool results limited, orphan calls
	// answered). By default a request that fits is forwarded unchanged.
	Always bool
	// Strategy compacts the windows. Optional. Defaults to the Engine's
	// (tiered levels, then a summary by the extractive summarizer: no
	// model call is made on the agent's key).
	Strategy compact.Strategy
	// MaxSessions is how many sessions are kept in memory; the least
	// recently used is closed beyond it. Optional. Defaults to 256.
	MaxSessions int
	// Client sends the upstream requests. Optional. Defaults to a client
	// without a timeout (replies stream for minutes), honouring the
	// request's context.
	Client *http.Client
	// Logger receives one line per request (method, path, session,
	// tokens, status) and never a header or a key. Optional.
	Logger *slog.Logger
	// Observe, when set, is called after each managed model request with
	// what the proxy did. For tests and reports. Optional.
	Observe func(Exchange)
	// AllowedHosts are Host header values accepted besides the address
	// the proxy listens on (localhost, 127.0.0.1, [::1], any port;
	// what agents send): a name or name:port, "*" for any. Optional. Any
	// other Host is refused with 421 (a web page reaching the proxy by
	// DNS rebinding sends its own name).
	AllowedHosts []string
	// AllowedOrigins are the web origins whose pages may call the proxy;
	// "*" allows any. Optional. A request with an Origin header (only
	// browsers send one; agents do not, and Claude Code's
	// anthropic-dangerous-direct-browser-access header is not one) of
	// another origin is refused with 403.
	AllowedOrigins []string
	// TracerProvider receives the spans of each request: the request,
	// its store operations, compactions and upstream model calls (see
	// docs/observability.md). Optional. Defaults to the global provider
	// (otel.GetTracerProvider: no spans until telemetry.Setup).
	TracerProvider trace.TracerProvider
	// ReadTimeout bounds reading a model request's body, from its
	// headers' arrival: a body not whole by then is answered 408.
	// Optional. Defaults to [DefaultReadTimeout].
	ReadTimeout time.Duration
	// MCPServer is the name under which the agents behind the proxy have
	// `agentctx mcp` configured ("agentctx" as `agentctx mcp install`
	// writes it). When set, the note on a tool result the proxy cuts names
	// that server's recall_output as the agent presents it to its model
	// ([MCPToolName]: mcp__agentctx__recall_output for Claude Code and
	// Codex, mcp_agentctx_recall_output for Gemini CLI), with the call id
	// to give it, so the model can read the output back. Optional.
	// Defaults to "": the note names an MCP recall_output only when the
	// agent's request declares one, and otherwise says how long the output
	// was (and, for a command's output, how to run it again filtered).
	MCPServer string
	// Fleet says that several proxy instances share Store (a PostgreSQL
	// store: its writer lock is a lease that can be given back), so that
	// any instance manages any request of a session: the session's
	// current generation and what the proxy knows of it are read from the
	// store at each request, under the session's lease (fleet.go).
	// Optional. Defaults to false: sessions live in this process, and a
	// proxy started again opens new generations. New refuses Fleet with a
	// store without leases.
	Fleet bool
	// LeaseWait is how long a request of a fleet waits for a session
	// another instance is managing a request of, before it is forwarded
	// unchanged (counted unmanaged, reason "busy"). Optional. Defaults to
	// [DefaultLeaseWait].
	LeaseWait time.Duration
}

// DefaultReadTimeout is how long the proxy waits for a model request's
// body by default (see [Options].ReadTimeout).
const DefaultReadTimeout = 30 * time.Second

// Exchange is what the proxy did with one model request.
type Exchange struct {
	// Session is the session id; Wire the API.
	Session string
	Wire    Wire
	// AgentTokens is the agent's request counted as the proxy counts (the
	// whole history); SentTokens what was sent upstream; Budget the
	// budget.
	AgentTokens, SentTokens, Budget int
	// Managed is true when the proxy sent its window, false when it
	// forwarded the agent's request unchanged.
	Managed bool
	// Compactions are the levels the Engine applied for this request.
	Compactions []compact.Record
	// Kept counts the elements of the agent's "messages" sent as the
	// agent wrote them; Elements the elements sent.
	Kept, Elements int
	// Status is the upstream's HTTP status; Overflows how many times the
	// upstream answered with a context overflow and the proxy compacted
	// and sent again.
	Status, Overflows int
	// Usage is what the upstream reported, when it did.
	Usage *chat.Usage
	// Err is why the proxy forwarded the request unchanged when it could
	// not manage it ("" otherwise).
	Err string
	// ByteBudget is the request size limit in force, in bytes; Bytes the
	// size of the body sent upstream; TooLarge how many times the
	// upstream answered 413 (too many bytes) and the proxy shed media and
	// sent again.
	ByteBudget, Bytes, TooLarge int
	// AgentCompaction is true when the request is the agent's own
	// compaction (it asks the model to summarize the conversation).
	AgentCompaction bool

	// reason is why the request went unmanaged (telemetry.ReasonX, with
	// Err); usage the upstream's usage whether or not it measures the
	// Engine's window (for the token metrics).
	reason string
	usage  *chat.Usage
	// model is the request's model as the agent named it; cost the
	// cost of usage in US dollars at its list price (0 without a price).
	model string
	cost  float64
}

// Proxy is an http.Handler that sits between an agent and its provider.
// It manages model requests (POST …/v1/messages in the Anthropic wire
// format, POST …/chat/completions in OpenAI's, POST …/v1/responses in the
// OpenAI Responses API's, as Codex CLI sends, POST
// …/models/{model}:generateContent and :streamGenerateContent in the Gemini
// API's, as Gemini CLI sends), answers GET [StatusPath] itself, and passes
// every other request through unchanged, as it does a Responses API
// request that continues a conversation kept by the provider
// (previous_response_id).
//
// Each model request carries the agent's whole history. The proxy finds
// the request's session (the [SessionHeader] header, else a key derived
// from the wire, the model's system prompt and the first user message),
// adds the messages the session has not seen to its Engine, and asks the
// Engine for the next request: when the agent's request fits the budget it
// is forwarded byte for byte (unless [Options].Always); otherwise the
// "messages" array is replaced by the Engine's window (old tool outputs
// masked in batches, a summary when needed, orphan calls answered), with
// the agent's own bytes for every message the window kept as it was. The
// system prompt, the tools and every other field are never changed.
//
// The upstream's answer streams back unchanged; its usage anchors the
// Engine's next count. A context-overflow answer makes the Engine lower
// its budget and compact, and the request is sent again (at most twice).
// When the agent rewrites its history (its own compaction, an edit), the
// proxy starts a new generation of the session (id suffix "-2", "-3", …).
//
// API keys pass through in the agent's headers and are never stored or
// logged. Safe for concurrent use; requests of one session are serialized.
type Proxy struct {
	opts     Options
	log      *slog.Logger
	client   *http.Client
	pass     *httputil.ReverseProxy
	mu       sync.Mutex
	sessions *lru.Cache[string, *state]
	ledger   ledger
	guard    guard.Policy
	// reads keeps what history elements read as, by their bytes.
	reads *readCache
	// metrics are the proxy's Prometheus metrics, served at
	// [telemetry.Path] (metrics.go).
	metrics *telemetry.Metrics
	tracer  trace.Tracer
	// onBusy, set by tests, is called each time a request of a fleet
	// finds its session's lease held by another instance.
	onBusy func(id string)
}

// New returns a proxy for opts. Errors: no upstream, or an upstream that is
// not an absolute http(s) URL.
func New(opts Options) (*Proxy, error) {
	u := opts.Upstream
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("proxy: the upstream must be an absolute http or https URL")
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 256
	}
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = DefaultReadTimeout
	}
	if opts.LeaseWait <= 0 {
		opts.LeaseWait = DefaultLeaseWait
	}
	if _, ok := opts.Store.(leaser); opts.Fleet && !ok {
		return nil, errors.New("proxy: a fleet needs a store whose writer lock is a lease (PostgreSQL)")
	}
	m, tracer := telemetry.New(), telemetry.Tracer(opts.TracerProvider)
	opts.Store = m.Store(opts.Store, tracer)
	p := &Proxy{
		opts: opts, log: opts.Logger, client: opts.Client, reads: newReadCache(readCacheSize), metrics: m, tracer: tracer,
		guard: guard.Policy{AllowedHosts: opts.AllowedHosts, AllowedOrigins: opts.AllowedOrigins},
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.client == nil {
		p.client = &http.Client{}
	}
	// An evicted session may be in the middle of a request: it closes
	// when that request is done, without holding up the others.
	cache, err := lru.NewWithEvict(opts.MaxSessions, func(_ string, s *state) { go s.close() })
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	p.sessions = cache
	if err := m.SessionsOpen(cache.Len); err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	p.pass = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL = p.target(r.In.URL)
			r.Out.Host = u.Host
		},
		FlushInterval: -1,
		ErrorLog:      slog.NewLogLogger(p.log.Handler(), slog.LevelWarn),
	}
	return p, nil
}

// target is the upstream URL for an incoming request's URL.
func (p *Proxy) target(in *url.URL) *url.URL {
	u := *p.opts.Upstream
	u.Path = strings.TrimSuffix(u.Path, "/") + in.Path
	if in.RawPath != "" {
		u.RawPath = strings.TrimSuffix(u.EscapedPath(), "/") + in.RawPath
	} else {
		u.RawPath = ""
	}
	u.RawQuery = in.RawQuery
	return &u
}

// wireOf tells the wire of a model request from its method and path; ""
// for any other request.
func wireOf(r *http.Request) Wire {
	if r.Method != http.MethodPost {
		return ""
	}
	switch path := strings.TrimSuffix(r.URL.Path, "/"); {
	case strings.HasSuffix(path, "/v1/messages"):
		return WireAnthropic
	case strings.HasSuffix(path, "/chat/completions"):
		return WireOpenAI
	case strings.HasSuffix(path, "/v1/responses"):
		return WireResponses
	case geminiModel(path) != "":
		return WireGemini
	}
	return ""
}

// serve manages model requests and passes the others through (see
// [Proxy.ServeHTTP]). A
// request a web page could make is refused first, on every route (package
// guard): a Host other than the proxy's address (421), a browser Origin
// not allowed (403), a model request whose body is not application/json
// (415; agents send that type).
func (p *Proxy) serve(w http.ResponseWriter, r *http.Request, wire Wire) {
	if err := p.guard.Check(r); err != nil {
		status := http.StatusForbidden
		if errors.Is(err, guard.ErrHost) {
			status = http.StatusMisdirectedRequest
		}
		p.log.Warn("refused", "method", r.Method, "path", r.URL.Path, "status", status, "reason", err.Error())
		writeError(w, wire, status, "agentctx proxy: "+err.Error())
		return
	}
	if r.URL.Path == StatusPath {
		p.serveStatus(w, r)
		return
	}
	if r.URL.Path == telemetry.Path && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		p.metrics.Handler().ServeHTTP(w, r)
		return
	}
	if wire == "" {
		p.log.Info("pass", "method", r.Method, "path", r.URL.Path)
		p.ledger.mu.Lock()
		p.ledger.passed++
		p.ledger.mu.Unlock()
		p.pass.ServeHTTP(w, r)
		return
	}
	if err := guard.JSON(r); err != nil {
		p.log.Warn("refused", "method", r.Method, "path", r.URL.Path, "status", http.StatusUnsupportedMediaType, "reason", err.Error())
		writeError(w, wire, http.StatusUnsupportedMediaType, "agentctx proxy: "+err.Error()+"; send Content-Type: application/json")
		return
	}
	// The body's deadline is lifted once it is read: the answer may
	// stream for minutes, and the connection's reads then only watch for
	// the agent hanging up.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(p.opts.ReadTimeout))
	raw, err := readBody(w, r)
	if err != nil {
		// The deadline stays passed: net/http does not wait for the rest
		// of a trickled body before answering, and closes the connection.
		_ = rc.SetReadDeadline(time.Now())
		var mbe *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &mbe):
			writeError(w, wire, http.StatusRequestEntityTooLarge, fmt.Sprintf("agentctx proxy: request body over %d bytes", MaxBody))
		case errors.As(err, &ne) && ne.Timeout():
			p.log.Info("request body late", "path", r.URL.Path, "bytes", len(raw), "timeout", p.opts.ReadTimeout.String())
			writeError(w, wire, http.StatusRequestTimeout, fmt.Sprintf("agentctx proxy: the request body did not arrive within %s (%d bytes read)", p.opts.ReadTimeout, len(raw)))
		default:
			p.log.Info("request body cut", "path", r.URL.Path, "bytes", len(raw), "err", err.Error())
			writeError(w, wire, http.StatusBadRequest, fmt.Sprintf("agentctx proxy: the request body was cut short after %d bytes: %v", len(raw), err))
		}
		return
	}
	_ = rc.SetReadDeadline(time.Time{})
	p.model(w, r, wire, raw)
}

// Close ends every session in memory, saving what their Engines hold.
// Errors: none today; the signature leaves room for a store's.
func (p *Proxy) Close() error {
	for _, k := range p.sessions.Keys() {
		if s, ok := p.sessions.Peek(k); ok {
			s.close()
		}
	}
	p.sessions.Purge()
	return nil
}

// state is one proxied session: its Engine and what the agent sent so far.
type state struct {
	mu  sync.Mutex
	key string // the session key, before generations
	gen int
	eng *agentctx.Engine
	// sys and tools are hashes of the system prompt and the tools the
	// Engine was opened with.
	sys, tools [32]byte
	// seen are the fingerprints of the agent's messages added so far.
	seen []fingerprint
	// agentTokens is the size of those messages in tokens.
	agentTokens int
	// usage is the upstream's usage for the request sent when the history
	// was seen[:usageAt]; it goes on the assistant message that follows.
	usage   *chat.Usage
	usageAt int
	// byteBudget is the largest request body the upstream takes, in
	// bytes: the provider's documented limit, lowered when it answers
	// 413 (maxRequestBytes).
	byteBudget int
	// answer is the upstream's last answer, not yet in the Engine: the
	// agent's next request carries it (and replaces it); when the session
	// ends first, it is added then, so the final answer is in the session.
	answer *chat.Message
	// agentCompacted is set by the agent's own compaction request: the
	// next generation starts from the agent's summary.
	agentCompacted bool

	// In a fleet (fleet.go): fleet is set; rev is the revision of the
	// state saved in the store this memory matches; seenN and seenHash
	// the store's seen messages until restoreSeen checks them against a
	// request; prev the generation a new one follows when the Engine was
	// dropped; locked the session ids whose leases the request holds.
	fleet    bool
	rev      int64
	seenN    int
	seenHash string
	prev     string
	locked   []string
}

// close ends the session in memory: the answer not yet in the Engine is
// added and the Engine closed. In a fleet the Engine is dropped instead:
// the store has everything, the answer is in the saved state, and
// another instance may be writing the session.
func (s *state) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fleet {
		s.drop()
		return
	}
	if s.eng != nil {
		if s.answer != nil {
			_ = s.eng.Add(context.Background(), *s.answer)
			s.answer = nil
		}
		_ = s.eng.Close()
		s.eng = nil
	}
}

// agentSessionHeaders are the request headers in which agents name their
// own session, with the prefix a proxied session id gets from each:
// Claude Code's X-Claude-Code-Session-Id (a UUID per conversation, sent by
// its sub-agents and side requests too), Codex CLI's session-id (its
// thread id; older versions wrote session_id), opencode's X-Session-Id
// ("ses_…"). Found by recording the requests of Claude Code 2.1.328, Codex
// CLI 0.169.0 and opencode 1.18.33; Gemini CLI 0.61.0 sends none.
var agentSessionHeaders = []struct{ header, prefix string }{
	{"X-Claude-Code-Session-Id", "claude"},
	{"Session-Id", "codex"},
	{"Session_id", "codex"},
	{"X-Session-Id", "opencode"},
}

// sessionKey is the session id for a request:
//
//   - the [SessionHeader] header's value when set (the caller's choice);
//   - else, when the agent names its session (agentSessionHeaders), the
//     agent's prefix, its session id and 8 hex digits of a hash of the
//     wire, the system prompt and the first user message: one agent
//     session's main conversation, sub-agents and side requests (titles,
//     summaries) are separate conversations, each its own session, and two
//     agents with the same first prompt never share one;
//   - else "proxy-" and 20 hex digits of that hash.
func sessionKey(r *http.Request, wire Wire, c *conversation) string {
	if id := strings.TrimSpace(r.Header.Get(SessionHeader)); id != "" {
		return id
	}
	h := sha256.New()
	_, _ = io.WriteString(h, string(wire))
	_, _ = h.Write([]byte{0})
	_, _ = io.WriteString(h, c.system)
	_, _ = h.Write([]byte{0})
	for _, m := range c.msgs {
		if m.Role == chat.RoleUser {
			_, _ = io.WriteString(h, m.Text())
			break
		}
	}
	sum := hex.EncodeToString(h.Sum(nil))
	for _, a := range agentSessionHeaders {
		if id := idPart(r.Header.Get(a.header)); id != "" {
			return a.prefix + "-" + id + "-" + sum[:8]
		}
	}
	return "proxy-" + sum[:20]
}

// idPart returns an agent's session id made safe for a session id: ASCII
// letters, digits, '-' and '_' only, at most 64 bytes ("" when nothing is
// left).
func idPart(v string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(v) {
		if b.Len() >= 64 {
			break
		}
		if r == '-' || r == '_' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') {
			b.WriteRune(r)
		}
	}
	return strings.Trim(b.String(), "-")
}

// session returns the state of key, creating it.
func (p *Proxy) session(key string) *state {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.sessions.Get(key); ok {
		return s
	}
	s := &state{key: key, fleet: p.opts.Fleet}
	p.sessions.Add(key, s)
	return s
}

// open starts the Engine of s for a conversation, in a new generation
// when s had one: the first free id among key, key-2, key-3, … (a
// generation left by an earlier run of the proxy is not reused: the
// proxy cannot tell which of the agent's messages it holds).
func (p *Proxy) open(ctx context.Context, s *state, b *body, c *conversation) error {
	meta := map[string]string{"agentctx.proxy.wire": string(b.wire)}
	if s.eng != nil {
		meta["agentctx.proxy.previous"] = s.eng.ID()
		if !s.fleet {
			_ = s.eng.Close()
		}
		s.eng = nil
	} else if s.prev != "" {
		meta["agentctx.proxy.previous"] = s.prev
	}
	s.prev = ""
	if s.agentCompacted {
		// The agent's own compaction rewrote its history: this
		// generation starts from its summary.
		meta["agentctx.proxy.agent_compaction"] = "true"
		s.agentCompacted = false
	}
	s.answer = nil
	var id string
	for {
		s.gen++
		id = s.key
		if s.gen > 1 {
			id = fmt.Sprintf("%s-%d", s.key, s.gen)
		}
		if p.opts.Store == nil {
			break
		}
		if _, err := p.opts.Store.Get(ctx, id); errors.Is(err, session.ErrNotFound) {
			break
		} else if err != nil {
			return err
		}
		if s.gen > 1000 {
			return fmt.Errorf("proxy: session %s: no free generation", s.key)
		}
	}
	if s.fleet {
		// Its first write takes its lease: give it back after the
		// request even when the Engine fails after that write.
		s.locked = append(s.locked, id)
	}
	eng, err := agentctx.Open(ctx, p.engineOptions(b, c, id, meta))
	if err != nil {
		return err
	}
	s.eng = eng
	s.sys = sha256.Sum256([]byte(c.system))
	s.tools = sha256.Sum256(b.tools)
	s.seen, s.agentTokens, s.usage = nil, 0, nil
	return nil
}

// engineOptions are the Engine options of session id for a request's
// body and conversation, with meta for a new session.
func (p *Proxy) engineOptions(b *body, c *conversation, id string, meta map[string]string) agentctx.Options {
	return agentctx.Options{
		Store: p.opts.Store, SessionID: id, Origin: "proxy", Dir: projectOf(c),
		Metadata: meta,
		Model:    b.model, Budget: p.opts.Budget, MaxTokens: b.maxTokens,
		SystemPrompt: c.system, Tools: c.tools, StaticRatio: 1,
		RecallToolName: p.recallToolName(b.wire, c.tools),
		NoWorkspace:    true, NoDiskReads: true, NoWorkingMemory: true, NoTrackerSection: true, NoReminders: true,
		Rehydrate: agentctx.RehydrateOptions{Disabled: true},
		Strategy:  p.opts.Strategy, Logger: p.opts.Logger,
	}
}

// writeError answers the agent in its provider's error shape.
func writeError(w http.ResponseWriter, wire Wire, status int, msg string) {
	if wire == WireGemini {
		writeGeminiError(w, status, msg)
		return
	}
	m, _ := json.Marshal(msg)
	var body []byte
	if wire == WireAnthropic {
		body = fmt.Appendf(nil, `{"type":"error","error":{"type":"api_error","message":%s}}`, m)
	} else {
		body = fmt.Appendf(nil, `{"error":{"message":%s,"type":"server_error","param":null,"code":null}}`, m)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// since is milliseconds since t, for logs.
func since(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

// prefixOf reports whether a is a prefix of b.
func prefixOf(a, b []fingerprint) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// readBody reads a request body of at most MaxBody bytes, in one buffer of
// its announced length when it announces one.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	return httpbody.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody), r.ContentLength, MaxBody)
}
