package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/server"
)

// envTokensFile names the tokens file when --tokens is not given.
const envTokensFile = "AGENTCTX_TOKENS_FILE"

type serveFlags struct {
	listen         string
	tokens         string
	home           string
	allowedHosts   []string
	allowedOrigins []string
	otlp           string
}

func newServeCmd(e *env) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the context engine over HTTP/JSON to agents in any language",
		Long: `Serve runs the agentctx API: agents in any language create sessions, add
their messages, get each model call's request (compacted and assembled, in
the OpenAI or Anthropic shape) and hand back the provider's reply. The
OpenAPI document is at /openapi.json.

Bearer tokens come from --tokens FILE or $AGENTCTX_TOKENS_FILE: one token
per line (at least 16 bytes), optionally followed by a tenant name; each
tenant sees only its own sessions. Without tokens the server listens on
loopback only, and every request sees the sessions the command line made.

Web pages cannot drive the server: a request whose Host is not the address
it listens on (localhost, 127.0.0.1 or [::1], any port) is refused with
421 when it runs without tokens (DNS rebinding), one from a page of another
origin (an Origin header) with 403, a POST body not sent as
application/json with 415. --allowed-host and --allowed-origin allow more.

Sessions are stored in the store every command shares, SQLite
(sessions.db in the --home folder), unless --store or $AGENTCTX_STORE
names another: sqlite:PATH, jsonl:DIR, or postgres://… for several
servers sharing one database. 'agentctx sessions list' and 'agentctx
inspect ID' see the service's sessions, and the service sees theirs.

The server stops on SIGINT or SIGTERM, finishing the requests in flight.`,
		Example: `  agentctx serve
  agentctx serve --store sqlite:/var/lib/agentctx/sessions.db --tokens tokens --listen 0.0.0.0:8080
  agentctx serve --store postgres://agentctx@db/agentctx --tokens tokens --listen 0.0.0.0:8080`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), e, f)
		},
	}
	cmd.Flags().StringVar(&f.listen, "listen", "127.0.0.1:8080", "address to listen on (host:port)")
	cmd.Flags().StringVar(&f.tokens, "tokens", "", "bearer tokens file (default $"+envTokensFile+")")
	cmd.Flags().StringSliceVar(&f.allowedHosts, "allowed-host", nil, "a Host the server answers besides its listening address (name or name:port; repeatable; * for any)")
	cmd.Flags().StringSliceVar(&f.allowedOrigins, "allowed-origin", nil, "a web origin whose pages may call the server, e.g. http://localhost:3000 (repeatable; * for any)")
	addOTLPFlag(cmd, &f.otlp)
	addHomeFlag(cmd, e, &f.home)
	return cmd
}

func runServe(ctx context.Context, e *env, f serveFlags) (err error) {
	// The server handles SIGINT (Main's ctx) and SIGTERM the same way: a
	// graceful shutdown, then exit 0.
	e.ownsInterrupt = true
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	tokensFile := f.tokens
	if tokensFile == "" {
		tokensFile = os.Getenv(envTokensFile)
	}
	var tokens server.Tokens
	if tokensFile != "" {
		if tokens, err = server.LoadTokens(tokensFile); err != nil {
			return err
		}
		if tokens.Len() == 0 {
			return fmt.Errorf("serve: %s holds no token", tokensFile)
		}
	}
	host, _, err := net.SplitHostPort(f.listen)
	if err != nil {
		return usageError{fmt.Errorf("serve: --listen %q: %w", f.listen, err)}
	}
	if tokens.Len() == 0 && !isLoopback(host) {
		return usageError{fmt.Errorf("serve: --listen %s is not a loopback address: give bearer tokens (--tokens FILE or $%s) to listen beyond this machine", f.listen, envTokensFile)}
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
	flush, err := startTracing(ctx, "agentctx-serve", f.otlp)
	if err != nil {
		return err
	}
	defer flush()
	// The access records go out from a goroutine of their own: a
	// request does not wait for stderr (logWriter).
	lw := newLogWriter(e.stderr)
	defer lw.Close()
	log := slog.New(slog.NewJSONHandler(lw, nil))
	log.Info("store", "url", redactURL(e.store))
	srv, err := server.New(server.Options{Store: st, Tokens: tokens, Logger: log, AllowedHosts: f.allowedHosts, AllowedOrigins: f.allowedOrigins})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	auth := fmt.Sprintf("%d bearer tokens", tokens.Len())
	if tokens.Len() == 0 {
		auth = "no tokens: loopback only, no authentication"
	}
	fmt.Fprintf(e.stdout, "agentctx serve: listening on http://%s (%s)\n", ln.Addr(), auth)
	if err := server.Serve(ctx, ln, srv); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintln(e.stdout, "agentctx serve: stopped")
	return nil
}

// isLoopback reports whether host (an IP or a name) is this machine only.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redactURL returns a store URL fit for a log: a password in it becomes
// "xxxxx" (url.URL.Redacted); a URL that does not parse is returned as
// its scheme only.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		scheme, _, _ := strings.Cut(raw, ":")
		return scheme + ":…"
	}
	return u.Redacted()
}
