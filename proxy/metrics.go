package proxy

import (
	"net/http"
	"time"

	"github.com/agentctx/agentctx/internal/telemetry"
)

// ServeHTTP manages model requests, answers GET [StatusPath] and GET
// /metrics (the proxy's Prometheus metrics, see docs/observability.md;
// never forwarded), and passes every other request through. A request a
// web page could make is refused first, on every route (package guard): a
// Host other than the proxy's address (421), a browser Origin not allowed
// (403), a model request whose body is not application/json (415; agents
// send that type). Each request is counted in the metrics by route: the
// proxy's own paths, "model:<wire>" for a model request, "pass" for the
// others.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	wire := wireOf(r)
	route := metricRoute(r, wire)
	ctx, span := telemetry.StartRequest(p.tracer, r, route)
	rec := &recorder{ResponseWriter: w}
	p.serve(rec, r.WithContext(ctx), wire)
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	p.metrics.Request(route, r.Method, status, time.Since(start))
	telemetry.EndRequest(span, status)
}

// metricRoute is the route label of a request: bounded, never the raw path
// (a Gemini path names the model, a passed-through one anything).
func metricRoute(r *http.Request, wire Wire) string {
	switch {
	case r.URL.Path == StatusPath || r.URL.Path == telemetry.Path:
		return r.URL.Path
	case wire != "":
		return "model:" + string(wire)
	}
	return "pass"
}

// count records a model request's outcome, compactions and tokens in the
// metrics.
func (p *Proxy) count(ex *Exchange) {
	outcome := telemetry.OutcomeForwarded
	switch {
	case ex.Err != "":
		outcome = telemetry.OutcomeUnmanaged
	case ex.Managed:
		outcome = telemetry.OutcomeManaged
	}
	p.metrics.Proxied(outcome, ex.reason, ex.AgentTokens, ex.SentTokens)
	p.metrics.Compacted(ex.Compactions)
	p.metrics.Usage(ex.usage)
	p.metrics.Cost(ex.cost)
}

// recorder notes a response's status for the metrics.
type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController (flushes, read deadlines, the
// reverse proxy's upgrades) reach the connection through the recorder.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
