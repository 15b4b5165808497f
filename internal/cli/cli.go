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
	ExitError = 1 // a command failed (unreadable input, a missing file or session: "no such file", "no such session", …)
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
	stdin io.Reader
	// stdout and stderr escape the terminal's control characters
	// ([termWriter]); [rawWriter] returns the writers under them.
	stdout, stderr io.Writer
	logger         *slog.Logger
	// ownsInterrupt is set by a command that handles SIGINT itself (the
	// interactive chat, where Ctrl-C stops the turn): Main then exits
	// 130 only when the command says so ([errInterrupted]).
	ownsInterrupt bool
	// store is the session store's URL (--store, $AGENTCTX_STORE); ""
	// for the default, the SQLite database in the data folder that every
	// command shares. See openSessions.
	store string
}

// Main runs the agentctx command line with args (without the program name)
// and returns the process exit code: 0 on success, 1 when a command failed,
// 2 on a usage error, 130 when ctx was cancelled (the SIGINT of Ctrl-C),
// whatever the command returned, or the interactive chat was left with
// Ctrl-C. Each error is printed once, to stderr. What the commands print
// to stdout and stderr has the terminal's control characters escaped
// ([escapeTerm]).
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: escapingWriter(stdout), stderr: escapingWriter(stderr), logger: slog.New(slog.DiscardHandler)}
	root := newRoot(e)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	err := root.ExecuteContext(ctx)
	var ue usageError
	switch {
	case errors.Is(err, errInterrupted):
		return ExitInterrupted
	case ctx.Err() != nil && !e.ownsInterrupt:
		// Interrupted: whatever the command made of it (it may have
		// stopped with a wrapped context error, or finished), the run
		// did not go as asked.
		msg := "interrupted"
		if err != nil && !errors.Is(err, errReported) && !errors.Is(err, context.Canceled) {
			msg = err.Error()
		}
		fmt.Fprintf(e.stderr, "agentctx: %s\n", msg)
		return ExitInterrupted
	case err == nil:
		return ExitOK
	case errors.Is(err, errReported):
		return ExitError
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "agentctx: %v\nRun 'agentctx help' for usage.\n", err)
		return ExitUsage
	}
	fmt.Fprintf(e.stderr, "agentctx: %v\n", err)
	return ExitError
}

func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "agentctx",
		Short: "Manage the LLM context of coding agents",
		Long: `agentctx manages the LLM context of coding agents: what goes into every
model call, what is kept when the context window fills, and how a session
comes back.`,
		Version:       readVersion().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          unknownCommand,
		RunE:          func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SuggestionsMinimumDistance = 2
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(newReplayCmd(e), newSessionsCmd(e), newInspectCmd(e), newReportCmd(e), newEvalCmd(e), newCompactCmd(e), newContextCmd(e), newChatCmd(e), newServeCmd(e), newProxyCmd(e), newMCPCmd(e), newModelsCmd(e), newVersionCmd(e))
	// cobra's completion command (bash, zsh, fish, powershell), made now
	// rather than when it runs so that it is in the tree typedArgs walks.
	// Its scripts go to the raw stdout (it takes the root's output when it
	// is made): they are programs, not text.
	root.SetOut(rawWriter(e.stdout))
	root.InitDefaultCompletionCmd()
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	typedArgs(root)
	return root
}

// unknownCommand is the argument check of a command that only groups
// others (the root, sessions): any argument is a command it does not
// know, a usage error.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usageError{errors.New(msg)}
}

// typedArgs makes the argument check of cmd and of every command under it
// return a [usageError], so that Main tells a wrong call from a failure by
// the error's type; cobra returns its own checks' errors as plain errors.
// (Flag errors come through the root's FlagErrorFunc; a command without
// an argument check takes any arguments.)
func typedArgs(cmd *cobra.Command) {
	if !cmd.Runnable() && cmd.HasSubCommands() {
		// cobra prints the help of a command that only groups others
		// and exits 0, whatever its arguments (completion tcsh).
		cmd.Args = unknownCommand
		cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	}
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			err := check(c, args)
			var ue usageError
			if err != nil && !errors.As(err, &ue) {
				return usageError{err}
			}
			return err
		}
	}
	for _, sub := range cmd.Commands() {
		typedArgs(sub)
	}
}
