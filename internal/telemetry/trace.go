package telemetry

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
)

// ScopeName is the instrumentation scope of agentctx's spans.
const ScopeName = "github.com/agentctx/agentctx"

// Span names besides the request's ("METHOD route") and the model call's
// ("chat <model>", the GenAI semantic conventions' "{operation} {model}").
const (
	// SpanStorePrefix prefixes a store operation's span: "store.append".
	SpanStorePrefix = "store."
	// SpanCompaction is the span of an Engine call that compacted the
	// window: its levels are events of the span.
	SpanCompaction = "compaction"
)

// EnvEndpoint and EnvTracesEndpoint are the OpenTelemetry variables that
// turn OTLP export on ([Setup]); the exporter reads its other settings
// (headers, timeout, protocol details) from the OTEL_EXPORTER_OTLP_*
// variables the OpenTelemetry specification defines.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
)

// Setup turns tracing on for the process when endpoint (a base URL such
// as http://127.0.0.1:4318, to which /v1/traces is added unless it names
// a path; the --otlp flag) is set or the environment names
// an OTLP endpoint ([EnvEndpoint], [EnvTracesEndpoint]): spans go to it
// over OTLP/HTTP in batches, as service service, and the W3C trace
// context of incoming requests is honoured. Otherwise nothing is set and
// spans are dropped at no cost. Call the returned shutdown before exit:
// it flushes the spans still queued. Errors: an endpoint the exporter
// refuses.
func Setup(ctx context.Context, service, endpoint string) (shutdown func(context.Context) error, err error) {
	none := func(context.Context) error { return nil }
	if endpoint == "" && os.Getenv(EnvEndpoint) == "" && os.Getenv(EnvTracesEndpoint) == "" {
		return none, nil
	}
	var opts []otlptracehttp.Option
	if endpoint != "" {
		// Like OTEL_EXPORTER_OTLP_ENDPOINT, a base URL: the traces path
		// is added unless the URL names one (WithEndpointURL takes the
		// path as it is).
		u, err := url.Parse(endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return none, fmt.Errorf("telemetry: OTLP endpoint %q: want an http or https URL", endpoint)
		}
		if strings.Trim(u.Path, "/") == "" {
			u.Path = "/v1/traces"
		}
		opts = append(opts, otlptracehttp.WithEndpointURL(u.String()))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return none, fmt.Errorf("telemetry: OTLP exporter: %w", err)
	}
	// The service's name, unless OTEL_SERVICE_NAME or
	// OTEL_RESOURCE_ATTRIBUTES (read after it) say otherwise.
	res, err := resource.New(ctx, resource.WithAttributes(semconv.ServiceName(service)), resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return none, fmt.Errorf("telemetry: resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return tp.Shutdown, nil
}

// Tracer returns agentctx's tracer of tp, or of the global provider when
// tp is nil (a no-op one until [Setup] turned tracing on).
func Tracer(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return tp.Tracer(ScopeName)
}

// StartRequest starts the server span of an HTTP request matched to route
// (a route pattern, "" for none), a child of the trace context the
// request carries (traceparent) when there is one.
func StartRequest(t trace.Tracer, r *http.Request, route string) (context.Context, trace.Span) {
	ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	if route == "" {
		route = "unmatched"
	}
	return t.Start(ctx, r.Method+" "+route, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		semconv.HTTPRequestMethodKey.String(r.Method),
		semconv.HTTPRoute(route),
		semconv.URLPath(r.URL.Path),
	))
}

// EndRequest ends a request's span with its status; 5xx marks it failed.
func EndRequest(span trace.Span, status int) {
	span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	if status >= 500 {
		span.SetStatus(codes.Error, http.StatusText(status))
		span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(status)))
	}
	span.End()
}

// Providers are the gen_ai.provider.name values of the wires, from the
// GenAI semantic conventions (semconv v1.41.0).
var providers = map[string]attribute.KeyValue{
	"anthropic": semconv.GenAIProviderNameAnthropic,
	"openai":    semconv.GenAIProviderNameOpenAI,
	"responses": semconv.GenAIProviderNameOpenAI,
	"gemini":    semconv.GenAIProviderNameGCPGemini,
}

// StartModelCall starts the client span of one call to a model, named and
// attributed by the GenAI semantic conventions: "chat <model>",
// gen_ai.operation.name chat, gen_ai.provider.name (and the older
// gen_ai.system, which backends that predate the rename read) of wire
// ("anthropic", "openai", "responses", "gemini"), gen_ai.request.model.
func StartModelCall(ctx context.Context, t trace.Tracer, wire, model string) (context.Context, trace.Span) {
	prov, ok := providers[wire]
	if !ok {
		prov = semconv.GenAIProviderNameKey.String(wire)
	}
	return t.Start(ctx, "chat "+model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		semconv.GenAIOperationNameChat,
		prov,
		attribute.String("gen_ai.system", prov.Value.AsString()),
		semconv.GenAIRequestModel(model),
	))
}

// EndModelCall ends a model call's span with the upstream's HTTP status
// and usage (nil when it reported none): gen_ai.usage.input_tokens (every
// prompt token, cache reads and writes included, as the conventions ask),
// gen_ai.usage.output_tokens and the cache counts.
func EndModelCall(span trace.Span, status int, u *chat.Usage) {
	span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	if u != nil {
		span.SetAttributes(
			semconv.GenAIUsageInputTokens(u.PromptTokens()),
			semconv.GenAIUsageOutputTokens(u.OutputTokens),
			semconv.GenAIUsageCacheReadInputTokens(u.CacheReadTokens),
			semconv.GenAIUsageCacheCreationInputTokens(u.CacheWriteTokens),
		)
	}
	if status >= 400 || status == 0 {
		span.SetStatus(codes.Error, "upstream status "+strconv.Itoa(status))
		span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(status)))
	}
	span.End()
}

// Compaction records recs, the levels an Engine call applied between
// start and now, as a [SpanCompaction] child span of ctx's span covering
// that call (the Engine does not time its levels apart), one event per
// level with its tokens before and after, and, for a summary, its
// summarizer and whether a fallback wrote it. No records, no span.
func Compaction(ctx context.Context, t trace.Tracer, start time.Time, recs []compact.Record) {
	if len(recs) == 0 {
		return
	}
	_, span := t.Start(ctx, SpanCompaction, trace.WithTimestamp(start), trace.WithAttributes(
		attribute.Int("agentctx.compaction.levels", len(recs)),
		attribute.Int("agentctx.compaction.tokens_before", recs[0].TokensBefore),
		attribute.Int("agentctx.compaction.tokens_after", recs[len(recs)-1].TokensAfter),
	))
	for _, r := range recs {
		attrs := []attribute.KeyValue{
			attribute.String("agentctx.compaction.level", r.Level.String()),
			attribute.String("agentctx.compaction.strategy", r.Strategy),
			attribute.Int("agentctx.compaction.tokens_before", r.TokensBefore),
			attribute.Int("agentctx.compaction.tokens_after", r.TokensAfter),
		}
		if r.Level == compact.LevelSummary {
			attrs = append(attrs, attribute.String("agentctx.summary.summarizer", r.Summarizer), attribute.Bool("agentctx.summary.fallback", r.Fallback))
		}
		span.AddEvent("compaction."+r.Level.String(), trace.WithAttributes(attrs...))
	}
	span.End()
}

// storeSpan starts the span of store operation op on session id ("" for
// none), a child of ctx's span.
func storeSpan(ctx context.Context, t trace.Tracer, op, id string) (context.Context, trace.Span) {
	if t == nil {
		return ctx, trace.SpanFromContext(ctx)
	}
	var attrs []attribute.KeyValue
	if id != "" {
		attrs = append(attrs, attribute.String("agentctx.session", id))
	}
	return t.Start(ctx, SpanStorePrefix+op, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// endStoreSpan ends a store operation's span with its error.
func endStoreSpan(t trace.Tracer, span trace.Span, err error) {
	if t == nil {
		return
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
