package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/storeurl"
)

type copyFlags struct {
	from, to string
	json     bool
}

// copyResult is what `sessions copy --json` prints for each session.
type copyResult struct {
	ID      string `json:"id"`
	Status  string `json:"status"` // copied, skipped, failed
	Reason  string `json:"reason,omitempty"`
	Entries int    `json:"entries,omitempty"`
}

func newCopyCmd(e *env, home *string) *cobra.Command {
	var f copyFlags
	cmd := &cobra.Command{
		Use:   "copy [ID...] --to URL",
		Short: "Copy sessions between stores (JSONL, SQLite) losslessly",
		Long: `Copy copies sessions from one store to another, whole: metadata and every
line, byte for byte, in order. The source (--from, default the --store in
use) is only read; in the destination (--to) each session is written in one
step, so an interrupted copy leaves no partial session. Without IDs every
session of the source is copied. A session the destination already has is
skipped and said so. A store URL is jsonl:DIR, sqlite:PATH or a folder (a
JSONL store); "sqlite:" alone is sessions.db in the --home folder.

A JSONL session with a torn or malformed line is not copied: run
'agentctx sessions check --store jsonl:DIR --repair --in-place ID' first.`,
		Example: `  agentctx sessions copy --to jsonl:/tmp/out
  agentctx sessions copy 0192f3c4-… --from sqlite:/srv/agentctx.db --to jsonl:/tmp/out`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCopy(cmd.Context(), e, *home, f, args)
		},
	}
	cmd.Flags().StringVar(&f.from, "from", "", "source store URL (default: the --store in use)")
	cmd.Flags().StringVar(&f.to, "to", "", "destination store URL (required)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print one JSON object per session (JSON Lines)")
	cmd.ValidArgsFunction = completeSessions(e, home, 0, false)
	return cmd
}

func runCopy(ctx context.Context, e *env, home string, f copyFlags, ids []string) (err error) {
	if f.to == "" {
		return usageError{errors.New("sessions copy: --to URL is required")}
	}
	for _, id := range ids {
		if err := session.ValidateID(id); err != nil {
			return usageError{fmt.Errorf("sessions copy: %w", err)}
		}
	}
	from := f.from
	if from == "" {
		from = e.store
	}
	opts := storeurl.Options{Home: home, Logger: e.logger, Version: "agentctx"}
	src, err := storeurl.Open(from, opts)
	if err != nil {
		return usageOrError(err)
	}
	defer closeStore(src, &err)
	dst, err := storeurl.Open(f.to, opts)
	if err != nil {
		return usageOrError(err)
	}
	defer closeStore(dst, &err)
	if len(ids) == 0 {
		ss, err := src.List(ctx, session.ListOptions{})
		if err != nil {
			return err
		}
		for _, s := range ss {
			ids = append(ids, s.ID)
		}
	}
	enc := newJSONLines(e.stdout)
	failed := 0
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := copyResult{ID: id, Status: "copied"}
		got, err := session.Copy(ctx, dst, src, id)
		switch {
		case errors.Is(err, session.ErrExists):
			r.Status, r.Reason = "skipped", "the destination has a session with this id"
		case err != nil:
			r.Status, r.Reason = "failed", storeError("sessions copy", id, err).Error()
			failed++
		default:
			r.Entries = got.Entries
		}
		if f.json {
			if err := enc.Encode(r); err != nil {
				return err
			}
			continue
		}
		switch r.Status {
		case "copied":
			fmt.Fprintf(e.stdout, "copied %s (%s)\n", id, nouns(r.Entries, "entry", "entries"))
		case "skipped":
			fmt.Fprintf(e.stdout, "skipped %s: %s\n", id, r.Reason)
		default:
			fmt.Fprintf(e.stderr, "agentctx: %s\n", r.Reason)
		}
	}
	if failed > 0 {
		return errReported
	}
	return nil
}

// usageOrError makes a store URL the program cannot parse a usage error.
func usageOrError(err error) error {
	if errors.Is(err, storeurl.ErrUnknownScheme) {
		return usageError{err}
	}
	return err
}
