package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/proxy"
	"github.com/agentctx/agentctx/session/pgstore"
)

type proxyFlags struct {
	upstream       string
	listen         string
	budget         int
	always         bool
	home           string
	allowedHosts   []string
	allowedOrigins []string
	mcpName        string
	otlp           string
	leaseWait      time.Duration
}

func newProxyCmd(e *env) *cobra.Command {
	var f proxyFlags
	cmd := &cobra.Command{
		Use:   "proxy --upstream URL",
		Short: "Manage the context of an agent you cannot change, between it and its provider",
		Long: `Proxy sits between a coding agent and its model provider: point the agent's
base URL at it (ANTHROPIC_BASE_URL=http://127.0.0.1:8787 for Claude Code and
the Anthropic SDKs, OPENAI_BASE_URL=http://127.0.0.1:8787/v1 for the OpenAI
SDKs, model_providers base_url for Codex CLI, GOOGLE_GEMINI_BASE_URL for
Gemini CLI). It speaks the Anthropic Messages API, the OpenAI chat
completions API, the OpenAI Responses API and the Gemini API, streaming
included. Elements it does not interpret (Claude Code's system messages,
tool_reference and image blocks, Codex's additional_tools, the providers'
compaction items) are carried byte for byte and counted.

Each request carries the agent's whole history. A request that fits the
budget goes upstream byte for byte; one that does not gets the session's
managed window instead: old tool outputs masked in batches (the cached
prefix survives), a summary when needed, orphan tool calls answered, with
the agent's own bytes for every message kept. The system prompt, the tools
and every other field are never changed; other routes pass through.

Sessions are stored like every other (--store, default the shared
sessions.db in the --home folder): 'agentctx inspect ID' and the service
see them. The
session is the X-Agentctx-Session header when the agent sets it, else the
agent's own session id (Claude Code, Codex, opencode send one) with a key
from the system prompt and the first user message. A 413 answer sheds the
oldest images and documents and keeps the token budget. GET
/agentctx/status shows what the proxy did per session, and so does one
line per session on exit; GET /metrics serves Prometheus metrics, and
--otlp or $OTEL_EXPORTER_OTLP_ENDPOINT sends traces (docs/observability.md).
API keys pass through in the agent's headers and are never stored or logged.

Web pages cannot use the proxy: a request whose Host is not the address it
listens on (127.0.0.1, localhost or [::1], any port: what agents send)
is refused with 421 (DNS rebinding), one from a page (an Origin header) with
403, a model request not sent as application/json with 415.
--allowed-host and --allowed-origin allow more.

With 'agentctx mcp' configured in the agent (agentctx mcp install), give
--mcp-name with the name it is configured under: the note on a tool
result the proxy cuts then tells the model to call that server's
recall_output (mcp__agentctx__recall_output for Claude Code and Codex,
mcp_agentctx_recall_output for Gemini CLI) for the lines it left out.

With --store postgres://…, several proxies share the sessions (a fleet
behind a load balancer): any instance manages any request of a session,
under the session's lease (as 'agentctx serve' writes), and reads what the
proxy knows of the session from the store; a killed instance loses
nothing. A request of a session another instance is managing waits for it
up to --lease-wait, then goes upstream unchanged (counted unmanaged,
reason busy).`,
		Example: `  agentctx proxy --upstream https://api.anthropic.com
  ANTHROPIC_BASE_URL=http://127.0.0.1:8787 claude

  agentctx proxy --upstream https://api.openai.com --budget 64000
  OPENAI_BASE_URL=http://127.0.0.1:8787/v1 codex`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkBudget(cmd, f.budget); err != nil {
				return usageError{fmt.Errorf("proxy: %w", err)}
			}
			return runProxy(cmd.Context(), e, f)
		},
	}
	cmd.Flags().StringVar(&f.upstream, "upstream", "", "the provider's base URL, e.g. https://api.anthropic.com or https://api.openai.com (required)")
	cmd.Flags().StringVar(&f.listen, "listen", "127.0.0.1:8787", "address to listen on (host:port); loopback only")
	cmd.Flags().IntVar(&f.budget, "budget", 0, "prompt budget in tokens (default: the budget of each request's model)")
	cmd.Flags().BoolVar(&f.always, "always", false, "send the managed window even when the agent's request fits the budget")
	cmd.Flags().StringSliceVar(&f.allowedHosts, "allowed-host", nil, "a Host the proxy answers besides its listening address (name or name:port; repeatable)")
	cmd.Flags().StringSliceVar(&f.allowedOrigins, "allowed-origin", nil, "a web origin whose pages may call the proxy (repeatable)")
	cmd.Flags().StringVar(&f.mcpName, "mcp-name", "", "the name the agents have 'agentctx mcp' configured under (e.g. agentctx): a cut output's note names its recall_output as the agent sees it (mcp__agentctx__recall_output)")
	cmd.Flags().DurationVar(&f.leaseWait, "lease-wait", proxy.DefaultLeaseWait, "with a PostgreSQL --store: how long a request waits for a session another proxy instance is managing before it is forwarded unchanged")
	addOTLPFlag(cmd, &f.otlp)
	addHomeFlag(cmd, e, &f.home)
	return cmd
}

func runProxy(ctx context.Context, e *env, f proxyFlags) (err error) {
	e.ownsInterrupt = true
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	if f.upstream == "" {
		return usageError{errors.New("proxy: --upstream URL is required (the provider's base URL)")}
	}
	up, err := url.Parse(f.upstream)
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return usageError{fmt.Errorf("proxy: --upstream %q: want an absolute http or https URL", f.upstream)}
	}
	if f.leaseWait < 0 {
		return usageError{fmt.Errorf("proxy: --lease-wait %s: want a duration ≥ 0", f.leaseWait)}
	}
	if f.mcpName != "" && !mcpNameRe.MatchString(f.mcpName) {
		return usageError{fmt.Errorf("proxy: --mcp-name %q: want letters, digits, '-' and '_' (the name the agent has agentctx mcp configured under)", f.mcpName)}
	}
	host, _, err := net.SplitHostPort(f.listen)
	if err != nil {
		return usageError{fmt.Errorf("proxy: --listen %q: %w", f.listen, err)}
	}
	if !isLoopback(host) {
		// The agent's API keys travel through the proxy in clear.
		return usageError{fmt.Errorf("proxy: --listen %s is not a loopback address: the proxy carries API keys and has no authentication of its own", f.listen)}
	}
	st, err := openSessions(e, f.home)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := st.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	flush, err := startTracing(ctx, "agentctx-proxy", f.otlp)
	if err != nil {
		return err
	}
	defer flush()
	log := slog.New(slog.NewJSONHandler(e.stderr, nil))
	// A PostgreSQL store is shared: the proxies on it are a fleet.
	_, fleet := st.(*pgstore.Store)
	p, err := proxy.New(proxy.Options{
		Upstream: up, Store: st, Budget: f.budget, Always: f.always, Logger: log,
		AllowedHosts: f.allowedHosts, AllowedOrigins: f.allowedOrigins,
		MCPServer: f.mcpName, Fleet: fleet, LeaseWait: f.leaseWait,
	})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := p.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	// No ReadTimeout: answers stream for minutes, and a connection's read
	// deadline would cancel them; the proxy bounds each model request's
	// body itself (proxy.DefaultReadTimeout).
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	fmt.Fprintf(e.stdout, "agentctx proxy: listening on http://%s, upstream %s\n", ln.Addr(), up.Redacted())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("proxy: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		// Requests still in flight after 30 s: cut them.
		_ = srv.Close()
		return fmt.Errorf("proxy: shutdown: %w", err)
	}
	// What the proxy did, one line per agent session (also served live
	// as JSON on /agentctx/status).
	if err := proxy.WriteSummary(e.stdout, p.Status()); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "agentctx proxy: stopped")
	return nil
}
