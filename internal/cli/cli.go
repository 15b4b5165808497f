// Package cli implements the agentctx command line. Commands are built by
// constructors; there are no package globals and no init functions.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes of [Main].
const (
	ExitOK    = 0 // success
	ExitError = 1 // a command failed (unreadable input, …)
	ExitUsage = 2 // bad flags or arguments
	// ExitInterrupted is the exit code after a SIGINT (128 + 2, the
	// shells' convention): a command cancelled by Ctrl-C, the interactive
	// chat left with Ctrl-C.
	ExitInterrupted = 130
)

// usageError marks an error in how the command was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// errReported reports a failure whose message was already printed.
var errReported = errors.New("reported")

// env is what every command writes to.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	logger         *slog.Logger
}

// Main runs the agentctx command line with args (without the program name)
// and returns the process exit code: 0 on success, 1 when a command failed,
// 2 on a usage error, 130 when ctx was cancelled (the SIGINT of Ctrl-C)
// or the interactive chat was left with Ctrl-C. Each error is printed
// once, to stderr.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, logger: slog.New(slog.DiscardHandler)}
	root := newRoot(e)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	err := root.ExecuteContext(ctx)
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errReported):
		return ExitError
	case errors.Is(err, errInterrupted):
		return ExitInterrupted
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "agentctx: %v\n", err)
		return ExitInterrupted
	}
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		fmt.Fprintf(stderr, "agentctx: %v\nRun 'agentctx help' for usage.\n", err)
		return ExitUsage
	}
	fmt.Fprintf(stderr, "agentctx: %v\n", err)
	return ExitError
}

// isCobraUsage recognises cobra's own argument errors (unknown command,
// wrong number of arguments), which it returns as plain errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "unknown flag", "unknown shorthand"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "agentctx",
		Short: "Manage the LLM context of coding agents",
		Long: `agentctx manages the LLM context of coding agents: what goes into every
model call, what is kept when the context window fills, and how a session
comes back.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(newReplayCmd(e), newSessionsCmd(e), newInspectCmd(e), newCompactCmd(e), newContextCmd(e), newChatCmd(e))
	return root
}
