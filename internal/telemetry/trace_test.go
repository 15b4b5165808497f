package telemetry_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"go.opentelemetry.io/otel"

	"github.com/agentctx/agentctx/internal/telemetry"
)

// TestSetup checks that tracing is off without an endpoint, and that with
// one (the --otlp flag) a span reaches a loopback OTLP/HTTP collector as
// a protobuf POST to /v1/traces naming the service, once flushed.
func TestSetup(t *testing.T) {
	t.Setenv(telemetry.EnvEndpoint, "")
	t.Setenv(telemetry.EnvTracesEndpoint, "")
	before := otel.GetTracerProvider()
	shutdown, err := telemetry.Setup(t.Context(), "agentctx-test", "")
	if err != nil {
		t.Fatal(err)
	}
	if otel.GetTracerProvider() != before {
		t.Fatal("Setup without an endpoint changed the tracer provider")
	}
	_ = shutdown(t.Context())

	var mu sync.Mutex
	var got [][]byte
	col := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method == http.MethodPost && r.URL.Path == "/v1/traces" && r.Header.Get("Content-Type") == "application/x-protobuf" {
			mu.Lock()
			got = append(got, body)
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer col.Close()
	shutdown, err = telemetry.Setup(t.Context(), "agentctx-test", col.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { otel.SetTracerProvider(before) })
	_, span := telemetry.Tracer(nil).Start(context.Background(), "probe-span")
	span.End()
	if err := shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 {
		t.Fatal("the collector got no OTLP export")
	}
	all := bytes.Join(got, nil)
	for _, want := range []string{"probe-span", "agentctx-test"} {
		if !bytes.Contains(all, []byte(want)) {
			t.Errorf("the export lacks %q", want)
		}
	}
}
