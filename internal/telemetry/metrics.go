// Package telemetry holds the metrics and traces of `agentctx serve` and
// `agentctx proxy`. Metrics (Prometheus): one registry per server or
// proxy, the collectors both share, and the handler that serves them at
// /metrics in the Prometheus text format. Traces (OpenTelemetry): the
// spans of a request, its store operations, its compactions and its model
// call (trace.go), exported over OTLP only when configured ([Setup]). The
// names, labels, attributes and settings are listed in
// docs/observability.md.
//
// Labels are bounded: a route is a route pattern ("/v1/sessions/{id}"),
// never a raw path; a reason is one of a few fixed words; no label holds a
// session id, a tenant or a model. Every method of a nil *Metrics does
// nothing, so that code paths without metrics need no checks.
package telemetry

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
)

// Namespace prefixes every metric name.
const Namespace = "agentctx"

// Path is the route where a server and a proxy answer GET with their
// metrics.
const Path = "/metrics"

// Outcomes of a proxied model request, the values of the outcome label of
// agentctx_proxy_requests_total (the proxy's [proxy.SessionStatus]
// counts the same three).
const (
	// OutcomeManaged: sent upstream with the Engine's window.
	OutcomeManaged = "managed"
	// OutcomeForwarded: sent as the agent wrote it because it fit.
	OutcomeForwarded = "forwarded"
	// OutcomeUnmanaged: sent as the agent wrote it because the proxy
	// could not manage it; the reason label says why.
	OutcomeUnmanaged = "unmanaged"
)

// Reasons a proxied model request went unmanaged, the values of the
// reason label of agentctx_proxy_requests_total.
const (
	// ReasonUnreadable: the body is not one of the wire's the proxy reads.
	ReasonUnreadable = "unreadable"
	// ReasonSession: the session could not be opened or its Engine
	// refused the request (store, history).
	ReasonSession = "session"
	// ReasonRender: the Engine's window could not be written in the wire's
	// format.
	ReasonRender = "render"
)

// latencyBuckets are the bounds of the latency histograms, in seconds:
// from a cached read (5 ms) to a proxied answer that streams for minutes.
var latencyBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// Metrics is one process's metrics: a registry and its collectors. Create
// it with [New]. Safe for concurrent use; a nil *Metrics records nothing.
type Metrics struct {
	reg            *prometheus.Registry
	requests       *prometheus.CounterVec
	latency        *prometheus.HistogramVec
	tokens         *prometheus.CounterVec
	cost           prometheus.Counter
	proxyTokens    *prometheus.CounterVec
	proxied        *prometheus.CounterVec
	compactions    *prometheus.CounterVec
	summaries      prometheus.Counter
	fallbacks      prometheus.Counter
	storeErrors    *prometheus.CounterVec
	leaseConflicts prometheus.Counter
}

// New returns metrics on a new registry holding the Go runtime's and the
// process's collectors besides agentctx's own.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status code.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, in seconds, by route pattern (a proxied answer until its last byte).",
			Buckets: latencyBuckets,
		}, []string{"route"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "tokens_total",
			Help: "Tokens of the model calls as the provider reported them: direction=in the prompt read (cache reads and writes included), direction=out the output.",
		}, []string{"direction"}),
		cost: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Name: "model_cost_usd_total",
			Help: "Cost in US dollars of the model calls, from the tokens the provider reported at the model's list price (agentctx's model catalog); calls of a model without a price add nothing.",
		}),
		proxyTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "proxy_prompt_tokens_total",
			Help: "Prompt tokens of proxied model requests by the proxy's count: kind=agent as the agent sent them, kind=sent as they went upstream.",
		}, []string{"kind"}),
		proxied: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "proxy_requests_total",
			Help: "Model requests the proxy handled, by outcome (managed, forwarded, unmanaged) and, for unmanaged ones, reason.",
		}, []string{"outcome", "reason"}),
		compactions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "compactions_total",
			Help: "Compaction levels applied, by level (L1, L2, L3, cut, mask, summary, truncate).",
		}, []string{"level"}),
		summaries: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Name: "summaries_total",
			Help: "Summaries written by a compaction (level summary), fallbacks included.",
		}),
		fallbacks: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Name: "summary_fallbacks_total",
			Help: "Summaries for which the configured summarizer failed and a fallback wrote the note.",
		}),
		storeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "store_errors_total",
			Help: "Session store operations that failed, by operation; not found, exists, invalid id and lease conflicts are not counted.",
		}, []string{"op"}),
		leaseConflicts: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Name: "store_lease_conflicts_total",
			Help: "Session store operations refused because another writer holds the session's lock or lease (session.ErrSessionBusy).",
		}),
	}
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.latency, m.tokens, m.cost, m.proxyTokens, m.proxied, m.compactions,
		m.summaries, m.fallbacks, m.storeErrors, m.leaseConflicts,
	)
	// Zero series for the fixed label values, so that a scrape shows every
	// family from the start and rate() sees the first increment.
	for _, d := range []string{"in", "out"} {
		m.tokens.WithLabelValues(d)
	}
	for _, l := range []compact.Level{compact.LevelL1, compact.LevelL2, compact.LevelL3, compact.LevelCut, compact.LevelMask, compact.LevelSummary, compact.LevelTruncate} {
		m.compactions.WithLabelValues(l.String())
	}
	for _, op := range storeOps {
		m.storeErrors.WithLabelValues(op)
	}
	return m
}

// Registry returns the registry, for a caller that adds its own
// collectors. Nil for a nil m.
func (m *Metrics) Registry() *prometheus.Registry {
	if m == nil {
		return nil
	}
	return m.reg
}

// Handler serves the registry in the Prometheus exposition formats (text,
// or what the scraper's Accept header asks for).
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Request counts one HTTP request of route (a route pattern, "" for none
// matched) answered with status after d.
func (m *Metrics) Request(route, method string, status int, d time.Duration) {
	if m == nil {
		return
	}
	if route == "" {
		route = "unmatched"
	}
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// Usage counts the tokens a provider reported for one model call: in the
// prompt read (input, cache reads and cache writes), out the output. A
// nil u counts nothing.
func (m *Metrics) Usage(u *chat.Usage) {
	if m == nil || u == nil {
		return
	}
	m.tokens.WithLabelValues("in").Add(float64(max(u.PromptTokens(), 0)))
	m.tokens.WithLabelValues("out").Add(float64(max(u.OutputTokens, 0)))
}

// Cost adds usd, the cost in US dollars of one model call (see
// model.CostOf), to the cost counter.
func (m *Metrics) Cost(usd float64) {
	if m == nil || usd <= 0 {
		return
	}
	m.cost.Add(usd)
}

// Proxied counts one proxied model request: its outcome (OutcomeX), the
// reason when unmanaged (ReasonX), and its size in tokens as the agent
// sent it and as it went upstream.
func (m *Metrics) Proxied(outcome, reason string, agentTokens, sentTokens int) {
	if m == nil {
		return
	}
	if outcome != OutcomeUnmanaged {
		reason = ""
	}
	m.proxied.WithLabelValues(outcome, reason).Inc()
	m.proxyTokens.WithLabelValues("agent").Add(float64(max(agentTokens, 0)))
	m.proxyTokens.WithLabelValues("sent").Add(float64(max(sentTokens, 0)))
}

// Compacted counts the compaction levels of recs, and the summaries among
// them with their fallbacks.
func (m *Metrics) Compacted(recs []compact.Record) {
	if m == nil {
		return
	}
	for _, r := range recs {
		m.compactions.WithLabelValues(r.Level.String()).Inc()
		if r.Level == compact.LevelSummary {
			m.summaries.Inc()
			if r.Fallback {
				m.fallbacks.Inc()
			}
		}
	}
}

// SessionsOpen registers the gauge agentctx_sessions_open, read from open
// at each scrape: the sessions held in memory. Call it once per Metrics.
// Errors: the registry's, when a gauge is already registered.
func (m *Metrics) SessionsOpen(open func() int) error {
	if m == nil {
		return nil
	}
	return m.reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: Namespace, Name: "sessions_open",
		Help: "Sessions held open in memory (an Engine each).",
	}, func() float64 { return float64(open()) }))
}
