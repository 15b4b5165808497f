// Command agentctx manages the LLM context of coding agents: it replays
// real agent trajectories under a token budget and reports what the engine
// did. Run "agentctx help" for the commands.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/agentctx/agentctx/internal/cli"
)

func main() {
	// The first SIGINT (Ctrl-C) cancels ctx: the command stops and exits
	// 130. Then the handler is removed, so that a second SIGINT ends a
	// command that does not stop (one blocked in a read) the way it ends
	// any program, unless the command catches SIGINT itself (the
	// interactive chat does).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
