package server

import (
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/telemetry/telemetrytest"
	"github.com/agentctx/agentctx/model"
)

// TestMetrics drives a session through the API (messages, a request, a
// reply with usage, a compaction, a miss) and scrapes GET /metrics with no
// token: every family is there, and the counts are the requests made.
func TestMetrics(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{}, true)
	id := ts.createSession(t, tokenA, map[string]any{"tools": []any{readFileTool}})
	base := "/v1/sessions/" + id
	const turns = 3
	for i := range turns {
		call := "call_" + string(rune('a'+i))
		ts.call(t, "POST", base+"/messages", tokenA, map[string]any{"format": "chat", "messages": []any{
			map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "text": "read main.go " + strings.Repeat("and more ", 50)}}},
			map[string]any{"role": "assistant", "parts": []any{map[string]any{"type": "tool_call", "id": call, "name": "read_file", "arguments": map[string]string{"path": "main.go"}}}},
			map[string]any{"role": "tool", "parts": []any{map[string]any{"type": "tool_result", "tool_call_id": call, "tool_name": "read_file", "content": strings.Repeat("line\n", 50)}}},
			map[string]any{"role": "assistant", "parts": []any{map[string]any{"type": "text", "text": "done " + strings.Repeat("words ", 50)}}},
		}}).must(t, 200)
	}
	ts.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"user","content":"What is in main.go?"}]}`).must(t, 200)
	ts.call(t, "POST", base+"/request", tokenA, nil).must(t, 200)
	ts.call(t, "POST", base+"/reply", tokenA, replyToolCall).must(t, 200) // usage: 120 in, 20 out
	var c compactView
	ts.call(t, "POST", base+"/compact", tokenA, `{}`).must(t, 200).decode(t, &c)
	if len(c.Compactions) == 0 {
		t.Fatal("nothing compacted")
	}
	ts.call(t, "GET", "/v1/sessions/nope", tokenA, nil).must(t, 404)

	f := telemetrytest.Scrape(t, ts.URL+"/metrics")
	for _, name := range []string{
		"agentctx_http_requests_total", "agentctx_http_request_duration_seconds", "agentctx_tokens_total",
		"agentctx_model_cost_usd_total",
		"agentctx_compactions_total", "agentctx_summaries_total", "agentctx_summary_fallbacks_total",
		"agentctx_store_errors_total", "agentctx_store_lease_conflicts_total", "agentctx_sessions_open",
		"go_goroutines",
	} {
		if f[name] == nil {
			t.Errorf("family %s missing from /metrics", name)
		}
	}
	check := func(name string, labels map[string]string, want float64) {
		t.Helper()
		if got := f.Value(t, name, labels); got != want {
			t.Errorf("%s%v = %v, want %v", name, labels, got, want)
		}
	}
	msgs := map[string]string{"route": "/v1/sessions/{id}/messages", "method": "POST", "status": "200"}
	check("agentctx_http_requests_total", msgs, turns+1)
	check("agentctx_http_request_duration_seconds", map[string]string{"route": "/v1/sessions/{id}/messages"}, turns+1)
	check("agentctx_http_requests_total", map[string]string{"route": "/v1/sessions", "status": "201"}, 1)
	check("agentctx_http_requests_total", map[string]string{"route": "/v1/sessions/{id}", "status": "404"}, 1)
	check("agentctx_tokens_total", map[string]string{"direction": "in"}, 120)
	check("agentctx_tokens_total", map[string]string{"direction": "out"}, 20)
	usd, ok := model.CostOf("gpt-4o", 120, 0, 0, 20)
	if !ok || usd <= 0 {
		t.Fatal("gpt-4o has no price in the catalog")
	}
	check("agentctx_model_cost_usd_total", nil, usd)
	var summaries, fallbacks float64
	levels := map[string]float64{}
	for _, r := range c.Compactions {
		levels[r.Level.String()]++
		if r.Level == compact.LevelSummary {
			summaries++
			if r.Fallback {
				fallbacks++
			}
		}
	}
	for l, n := range levels {
		check("agentctx_compactions_total", map[string]string{"level": l}, n)
	}
	check("agentctx_compactions_total", nil, float64(len(c.Compactions)))
	check("agentctx_summaries_total", nil, summaries)
	check("agentctx_summary_fallbacks_total", nil, fallbacks)
	check("agentctx_store_errors_total", nil, 0)
	check("agentctx_store_lease_conflicts_total", nil, 0)
	check("agentctx_sessions_open", nil, 1)
	// No label holds a raw path or a session id.
	for _, m := range f["agentctx_http_requests_total"].GetMetric() {
		for _, lp := range m.GetLabel() {
			if strings.Contains(lp.GetValue(), id) || strings.Contains(lp.GetValue(), "nope") {
				t.Errorf("label %s=%q holds a path", lp.GetName(), lp.GetValue())
			}
		}
	}
	// A scrape is answered without a token, and counted by the next one.
	if f2 := telemetrytest.Scrape(t, ts.URL+"/metrics"); f2.Value(t, "agentctx_http_requests_total", map[string]string{"route": "/metrics", "status": "200"}) < 1 {
		t.Error("the first scrape is not counted")
	}
	t.Logf("compactions: %v summaries %v fallbacks %v", levels, summaries, fallbacks)
}

// TestTrace checks the spans of POST .../compact with an in-memory
// exporter: the request's server span, the store operations and the
// compaction as its children, the compaction's levels as events.
func TestTrace(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	ts := newTestServer(t, Options{TracerProvider: tp}, true)
	id := ts.createSession(t, tokenA, map[string]any{})
	base := "/v1/sessions/" + id
	for range 3 {
		ts.call(t, "POST", base+"/messages", tokenA, map[string]any{"format": "chat", "messages": []any{
			map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "text": "explain " + strings.Repeat("and more ", 60)}}},
			map[string]any{"role": "assistant", "parts": []any{map[string]any{"type": "text", "text": "done " + strings.Repeat("words ", 60)}}},
		}}).must(t, 200)
	}
	exp.Reset()
	var c compactView
	ts.call(t, "POST", base+"/compact", tokenA, `{}`).must(t, 200).decode(t, &c)
	if len(c.Compactions) == 0 {
		t.Fatal("nothing compacted")
	}
	spans := exp.GetSpans()
	var root *tracetest.SpanStub
	for i := range spans {
		if spans[i].Name == "POST /v1/sessions/{id}/compact" {
			root = &spans[i]
		}
	}
	if root == nil {
		t.Fatalf("no request span among %d spans", len(spans))
	}
	children := map[string]int{}
	for _, s := range spans {
		if s.Parent.SpanID() == root.SpanContext.SpanID() {
			children[s.Name]++
			if s.Name == "compaction" && len(s.Events) != len(c.Compactions) {
				t.Errorf("compaction span has %d events, want %d", len(s.Events), len(c.Compactions))
			}
		}
	}
	if children["compaction"] != 1 || children["store.get"] == 0 || children["store.append"] == 0 {
		t.Errorf("children of the request span: %v", children)
	}
	var status int64
	for _, kv := range root.Attributes {
		if kv.Key == "http.response.status_code" {
			status = kv.Value.AsInt64()
		}
	}
	if status != 200 {
		t.Errorf("request span status %d", status)
	}
}

// TestInspectCost: the inspect route reports what sending the window as
// the next prompt would cost at the model's list price, uncached and
// from a warm cache, as `agentctx inspect` does (model.NextCallCost),
// and nothing for a model without a price.
func TestInspectCost(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, Options{}, true)
	for _, c := range []struct {
		model  string
		priced bool
	}{{"gpt-4o", true}, {"my-local-model", false}} {
		id := ts.createSession(t, tokenA, map[string]any{"model": c.model})
		base := "/v1/sessions/" + id
		ts.call(t, "POST", base+"/messages", tokenA, `{"messages":[{"role":"user","content":"What is in main.go? `+strings.Repeat("Tell me more. ", 200)+`"}]}`).must(t, 200)
		var in inspectView
		ts.call(t, "GET", base+"/inspect", tokenA, nil).must(t, 200).decode(t, &in)
		if !c.priced {
			if in.Cost != nil {
				t.Errorf("%s: cost %+v, want none", c.model, in.Cost)
			}
			continue
		}
		want := model.NextCallCost(model.Lookup(c.model), in.Window.Tokens)
		if in.Cost == nil || *in.Cost != *want {
			t.Fatalf("%s: cost %+v, want %+v", c.model, in.Cost, want)
		}
		if !(in.Cost.UncachedUSD > in.Cost.CachedUSD && in.Cost.CachedUSD > 0) || in.Cost.Tokens < 400 {
			t.Errorf("%s: cost %+v: want uncached > cached > 0 for a window of over 400 tokens", c.model, in.Cost)
		}
	}
}
