package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/mcpserver"
	"github.com/agentctx/agentctx/session"
)

type mcpFlags struct {
	home    string
	http    string
	session string
	project string
}

func newMCPCmd(e *env) *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "mcp [--http ADDR]",
		Short: "Serve the context tools to an agent over MCP: recall cut outputs, see the window, pin instructions",
		Long: `Mcp is agentctx's MCP server. An agent that has it configured (agentctx mcp
install) gets tools to see and steer its own context:

  recall_output   the full text, some lines, or the lines matching a query,
                  of a tool output the proxy or the Engine cut, by the
                  call id the cut note gives
  recall_span     the messages of a span a summary replaced (s1, s2…)
  context         the window's breakdown by category, the budget, the pins,
                  what can be read back
  pin, unpin      instructions kept verbatim through every compaction
  search_session  the lines of the whole session that hold a text

It serves one agent on standard input and output (the agent starts it), or
any number over streamable HTTP with --http ADDR (loopback only: the tools
read the sessions, with no authentication).

It works on the sessions of the store the other commands use (--store,
--home). A tool call names its session with session_id; without one, the
session is --session, else the one most recently active in --project (by
default the folder the server was started in: an agent starts it in its
project), else the store's latest. recall_output also searches the 50 most
recent sessions for the call id: an agent behind 'agentctx proxy
--mcp-name agentctx' knows the call id from the cut note, not the session.
pin and unpin resume the session to write it, which fails while another
process (a running proxy or chat) holds it.`,
		Example: `  agentctx mcp
  agentctx mcp --http 127.0.0.1:8788
  agentctx mcp install claude-code --write`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(cmd.Context(), e, f)
		},
	}
	addHomeFlag(cmd, e, &f.home)
	cmd.Flags().StringVar(&f.http, "http", "", "serve streamable HTTP on this address (host:port, loopback) instead of standard input and output")
	cmd.Flags().StringVar(&f.session, "session", "", "the session a tool call without session_id works on (default: the latest in --project)")
	cmd.Flags().StringVar(&f.project, "project", "", "the folder whose latest session is the default (default: the current folder)")
	cmd.AddCommand(newMCPInstallCmd(e, &f.home))
	return cmd
}

func runMCP(ctx context.Context, e *env, f mcpFlags) (err error) {
	if f.session != "" {
		if err := session.ValidateID(f.session); err != nil {
			return usageError{fmt.Errorf("mcp: --session: %w", err)}
		}
	}
	var ln net.Listener
	if f.http != "" {
		host, _, err := net.SplitHostPort(f.http)
		if err != nil {
			return usageError{fmt.Errorf("mcp: --http %q: %w", f.http, err)}
		}
		if !isLoopback(host) {
			return usageError{fmt.Errorf("mcp: --http %s is not a loopback address: the tools read the sessions and have no authentication", f.http)}
		}
		if ln, err = net.Listen("tcp", f.http); err != nil {
			return fmt.Errorf("mcp: %w", err)
		}
		defer ln.Close()
	}
	project, err := projectFlag(f.project)
	if err != nil {
		return err
	}
	st, err := openSessions(e, f.home)
	if err != nil {
		return err
	}
	defer closeStore(st, &err)
	// The server's diagnostics go to stderr, never to stdout: on stdio,
	// stdout carries the protocol.
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := mcpserver.New(mcpserver.Options{
		Store: st, Session: f.session, Project: project, Version: readVersion().Version, Logger: log,
		OpenWriter: func() (session.Store, error) { return openSessions(e, f.home) },
	})
	if err != nil {
		return err
	}
	if ln == nil {
		in, ok := e.stdin.(io.ReadCloser)
		if !ok {
			in = io.NopCloser(e.stdin)
		}
		err := srv.Run(ctx, &mcp.IOTransport{Reader: in, Writer: nopWriteCloser{rawWriter(e.stdout)}})
		if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	e.ownsInterrupt = true
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 30 * time.Second}
	fmt.Fprintf(e.stderr, "agentctx mcp: streamable HTTP on http://%s\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("mcp: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	return nil
}

// nopWriteCloser is an io.WriteCloser whose Close does nothing: the
// command's standard output outlives the MCP connection.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
