package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/session"
)

type forkFlags struct {
	at   int
	json bool
}

// forkResult is what `sessions fork --json` prints.
type forkResult struct {
	ID       string `json:"id"`
	Parent   string `json:"parent"`
	At       int    `json:"at"`
	Messages int    `json:"messages"`
}

func newForkCmd(e *env, home *string) *cobra.Command {
	var f forkFlags
	cmd := &cobra.Command{
		Use:   "fork ID [--at N]",
		Short: "Start a new session from a stored session's first messages",
		Long: `Fork starts a new session whose history is the first N messages of the
session's live window (--at N; 'sessions show' numbers them from #0, so the
fork ends before #N; default: the whole window), with the same model,
budget and configuration, and prints its id. The session forked from is
only read (it may be in use by a running agent); the new one records it as
its parent ('sessions show' lists a session's parent and forks).`,
		Example: `  agentctx sessions fork 0192f3c4-…
  agentctx sessions fork 0192f3c4-… --at 4 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFork(cmd.Context(), e, *home, f, args[0])
		},
	}
	cmd.Flags().IntVar(&f.at, "at", -1, "keep the first N messages of the live window (default: all)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the new session as one JSON object (JSON Lines)")
	cmd.ValidArgsFunction = completeSessions(e, home, 1, false)
	return cmd
}

func runFork(ctx context.Context, e *env, home string, f forkFlags, id string) (err error) {
	if err := session.ValidateID(id); err != nil {
		return usageError{fmt.Errorf("sessions fork: %w", err)}
	}
	if f.at < -1 {
		return usageError{fmt.Errorf("sessions fork: --at %d: want a message count of 0 or more", f.at)}
	}
	st, err := openSessions(e, home)
	if err != nil {
		return err
	}
	defer closeStore(st, &err)
	recorded, err := hasConfig(ctx, st, id)
	if err != nil {
		return storeError("sessions fork", id, err)
	}
	// Read-only: the parent may be written by a running agent.
	parent, err := agentctx.Resume(ctx, id, agentctx.Options{Store: st, ReadOnly: true, NoWorkspace: !recorded, Logger: e.logger})
	if err != nil {
		return storeError("sessions fork", id, err)
	}
	defer func() { _ = parent.Close() }()
	at := f.at
	if n := len(parent.Messages()); at == -1 {
		at = n
	} else if at > n {
		return usageError{fmt.Errorf("sessions fork %s: --at %d: the live window holds %d messages", id, at, n)}
	}
	child, err := parent.Fork(ctx, at)
	if err != nil {
		return storeError("sessions fork", id, err)
	}
	res := forkResult{ID: child.ID(), Parent: id, At: at, Messages: len(child.Messages())}
	if err := child.Close(); err != nil {
		return storeError("sessions fork", child.ID(), err)
	}
	if f.json {
		return writeJSON(e.stdout, res)
	}
	_, err = fmt.Fprintln(e.stdout, res.ID)
	return err
}
