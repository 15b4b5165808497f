package proxy

import (
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentctx/agentctx/provider/providertest"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// TestTrace sends one request over the budget through a proxy with a
// store and an in-memory span exporter: the trace is the request's span
// with, as children, the store operations, the compaction and the model
// call, the last with the GenAI attributes and the upstream's usage.
func TestTrace(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	st, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Version: "agentctx-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	w := providertest.WireAnthropic
	r := newRig(t, w, providertest.Options{}, Options{Budget: 6000, Store: st, TracerProvider: tp})
	if status, answer := r.post(t, w, agentBody(t, w, systemPrompt, testTools(), codingSession(30, 2400), false), nil); status != 200 {
		t.Fatalf("status %d: %s", status, answer)
	}
	ex := r.exchanges()[0]
	if !ex.Managed || len(ex.Compactions) == 0 || ex.Usage == nil {
		t.Fatalf("exchange %+v: want managed, compacted, with usage", ex)
	}

	spans := exp.GetSpans()
	var root *tracetest.SpanStub
	for i := range spans {
		if spans[i].Name == "POST model:anthropic" {
			root = &spans[i]
		}
	}
	if root == nil {
		t.Fatalf("no request span among %d spans", len(spans))
	}
	if root.Parent.IsValid() {
		t.Error("the request span has a parent")
	}
	children := map[string][]tracetest.SpanStub{}
	for _, s := range spans {
		if s.Parent.SpanID() == root.SpanContext.SpanID() {
			children[s.Name] = append(children[s.Name], s)
		}
		if s.SpanContext.TraceID() != root.SpanContext.TraceID() {
			t.Errorf("span %s is in another trace", s.Name)
		}
	}
	if len(children["store.append"]) == 0 || len(children["store.create"]) != 1 {
		t.Errorf("store spans: %d appends, %d creates", len(children["store.append"]), len(children["store.create"]))
	}
	comp := children["compaction"]
	if len(comp) != 1 || len(comp[0].Events) != len(ex.Compactions) {
		t.Fatalf("compaction spans %+v, want one with %d events", comp, len(ex.Compactions))
	}
	call := children["chat "+anthropicModel]
	if len(call) != 1 {
		t.Fatalf("model call spans: %d, want 1 (children %v)", len(call), keys(children))
	}
	attrs := map[attribute.Key]attribute.Value{}
	for _, kv := range call[0].Attributes {
		attrs[kv.Key] = kv.Value
	}
	for k, want := range map[attribute.Key]any{
		"gen_ai.operation.name":      "chat",
		"gen_ai.provider.name":       "anthropic",
		"gen_ai.system":              "anthropic",
		"gen_ai.request.model":       anthropicModel,
		"gen_ai.usage.input_tokens":  int64(ex.Usage.PromptTokens()),
		"gen_ai.usage.output_tokens": int64(ex.Usage.OutputTokens),
		"http.response.status_code":  int64(200),
	} {
		if got := attrs[k].AsInterface(); got != want {
			t.Errorf("model call %s = %v, want %v", k, got, want)
		}
	}
	if ex.Usage.PromptTokens() == 0 {
		t.Error("the upstream reported no prompt tokens")
	}
	t.Logf("%d spans; children of the request: %v", len(spans), keys(children))
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
