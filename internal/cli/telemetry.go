package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/internal/telemetry"
)

// addOTLPFlag adds --otlp, the OTLP/HTTP endpoint the command's traces go
// to, to a long-running command (serve, proxy).
func addOTLPFlag(cmd *cobra.Command, endpoint *string) {
	cmd.Flags().StringVar(endpoint, "otlp", "", "send OpenTelemetry traces over OTLP/HTTP to this URL, e.g. http://127.0.0.1:4318 (default $"+telemetry.EnvEndpoint+"; none when unset)")
}

// startTracing turns tracing on for service when endpoint or the OTLP
// environment variables name a collector (telemetry.Setup), and returns
// what flushes the spans queued, for a deferred call. Errors: an endpoint
// the exporter refuses, as a usage error naming the flag.
func startTracing(ctx context.Context, service, endpoint string) (func(), error) {
	shutdown, err := telemetry.Setup(ctx, service, endpoint)
	if err != nil {
		return func() {}, usageError{fmt.Errorf("%s: --otlp %q: %w", service, endpoint, err)}
	}
	return func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = shutdown(sctx)
	}, nil
}
