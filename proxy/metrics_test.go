package proxy

import (
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/agentctx/agentctx/internal/telemetry/telemetrytest"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/provider/providertest"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// TestMetrics grows a session past the budget through the proxy (requests
// forwarded, then managed with compactions), sends one body the proxy
// cannot read and one request it passes through, and scrapes GET
// /metrics: every family is there and the counts are what the proxy
// reported for each exchange.
func TestMetrics(t *testing.T) {
	t.Parallel()
	st, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Version: "agentctx-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	w := providertest.WireAnthropic
	r := newRig(t, w, providertest.Options{}, Options{Budget: 6000, Store: st})
	msgs := codingSession(30, 2400)
	posts := 0
	for n := 3; n <= len(msgs); n += 4 {
		if status, answer := r.post(t, w, agentBody(t, w, systemPrompt, testTools(), msgs[:n], n%8 == 3), nil); status != 200 {
			t.Fatalf("status %d: %s", status, answer)
		}
		posts++
	}
	if status, _ := r.post(t, w, []byte(`{"model": "x", "messages": [1, 2`), nil); status != 400 {
		t.Fatalf("broken body: status %d, want the upstream's 400", status)
	}
	res, err := http.Get(r.srv.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()

	var managed, forwarded, compactions, agentTokens, sentTokens, in, out, usd float64
	for _, ex := range r.exchanges() {
		usd += ex.cost
		switch {
		case ex.Err != "":
		case ex.Managed:
			managed++
		default:
			forwarded++
		}
		compactions += float64(len(ex.Compactions))
		agentTokens += float64(ex.AgentTokens)
		sentTokens += float64(ex.SentTokens)
		if ex.usage != nil {
			in += float64(ex.usage.PromptTokens())
			out += float64(ex.usage.OutputTokens)
		}
	}
	if managed == 0 || forwarded == 0 || compactions == 0 || in == 0 {
		t.Fatalf("the session did not exercise the proxy: managed %v forwarded %v compactions %v tokens in %v", managed, forwarded, compactions, in)
	}

	// A request is counted once its handler returned, which may be just
	// after its client had the answer: scrape until the last one is in.
	var f telemetrytest.Families
	for range 100 {
		f = telemetrytest.Scrape(t, r.srv.URL+"/metrics")
		if f.Value(t, "agentctx_http_requests_total", map[string]string{"route": "pass"}) == 1 &&
			f.Value(t, "agentctx_http_requests_total", map[string]string{"route": "model:anthropic"}) == float64(posts+1) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, name := range []string{
		"agentctx_http_requests_total", "agentctx_http_request_duration_seconds", "agentctx_tokens_total",
		"agentctx_model_cost_usd_total", "agentctx_proxy_requests_total", "agentctx_proxy_prompt_tokens_total", "agentctx_compactions_total",
		"agentctx_summaries_total", "agentctx_summary_fallbacks_total", "agentctx_store_errors_total",
		"agentctx_store_lease_conflicts_total", "agentctx_sessions_open",
	} {
		if f[name] == nil {
			t.Errorf("family %s missing from /metrics", name)
		}
	}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"agentctx_http_requests_total", map[string]string{"route": "model:anthropic", "status": "200"}, float64(posts)},
		{"agentctx_http_requests_total", map[string]string{"route": "model:anthropic", "status": "400"}, 1},
		{"agentctx_http_requests_total", map[string]string{"route": "pass", "method": "GET"}, 1},
		{"agentctx_http_request_duration_seconds", map[string]string{"route": "model:anthropic"}, float64(posts + 1)},
		{"agentctx_proxy_requests_total", map[string]string{"outcome": "managed"}, managed},
		{"agentctx_proxy_requests_total", map[string]string{"outcome": "forwarded"}, forwarded},
		{"agentctx_proxy_requests_total", map[string]string{"outcome": "unmanaged", "reason": "unreadable"}, 1},
		{"agentctx_proxy_prompt_tokens_total", map[string]string{"kind": "agent"}, agentTokens},
		{"agentctx_proxy_prompt_tokens_total", map[string]string{"kind": "sent"}, sentTokens},
		{"agentctx_compactions_total", nil, compactions},
		{"agentctx_tokens_total", map[string]string{"direction": "in"}, in},
		{"agentctx_tokens_total", map[string]string{"direction": "out"}, out},
		{"agentctx_store_errors_total", nil, 0},
		{"agentctx_store_lease_conflicts_total", nil, 0},
		{"agentctx_sessions_open", nil, 1},
	} {
		if got := f.Value(t, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	// Cost: the upstream's usage at the model's list price, in the
	// metrics and the status.
	want, ok := model.CostOf(anthropicModel, 1000, 0, 0, 100)
	if !ok || want <= 0 || usd <= 0 {
		t.Fatalf("%s has no price (%v), or the exchanges cost nothing (%v)", anthropicModel, want, usd)
	}
	if got := f.Value(t, "agentctx_model_cost_usd_total", nil); math.Abs(got-usd) > 1e-9 {
		t.Errorf("agentctx_model_cost_usd_total = %v, want %v", got, usd)
	}
	var status float64
	for _, s := range r.p.Status().Sessions {
		status += s.CostUSD
	}
	if math.Abs(status-usd) > 1e-9 {
		t.Errorf("the status's cost_usd sums to %v, want %v", status, usd)
	}
	t.Logf("%d requests: managed %v forwarded %v, %v compactions, tokens in %v out %v, $%.4f", posts, managed, forwarded, compactions, in, out, usd)
}
