package cli

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/report"
	"github.com/agentctx/agentctx/transcript"
)

type reportFlags struct {
	replayFlags
	output string
	index  int
}

func newReportCmd(e *env) *cobra.Command {
	var (
		f    reportFlags
		home string
	)
	cmd := &cobra.Command{
		Use:   "report FILE|ID -o report.html",
		Short: "Write a self-contained HTML page of what happened to a session's context window",
		Long: `Report replays a trajectory (FILE, any transcript replay reads) or a stored
session (ID) and writes one self-contained HTML page (-o) that shows what
happened to its context window, call by call:

  - the prompt sent per model call against the budget and against the
    history without compaction, with a marker per compaction (level, tokens
    removed, summarizer, fallback) and the part a warm prompt cache serves;
  - the window at any call, stacked by category (system, tools, instruction
    files, summary, messages, tool results, working memory, reminders);
  - every compaction record, and each summary's retention with the facts
    it lost (with --strategy summarize).

The page embeds its data, script, styles and chart library (uPlot): open
it in any browser, offline. A stored session is replayed from its history
under the model, budget and compaction strategy it recorded (a summary is
written by the extractive summarizer: a report calls no model). The flags
are replay's; like replay, the tool-result limiter, reminders and working
memory are on.

A FILE holding several trajectories (OpenHands output.jsonl) is reported
one at a time: --index picks one (default the first).`,
		Example: `  agentctx report ~/.claude/projects/-home-me-app/8463c716-….jsonl -o report.html
  agentctx report session.jsonl --budget 16000 --strategy summarize -o report.html
  agentctx report 0192f3c4-… -o session.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if f.output == "" {
				return usageError{fmt.Errorf("-o FILE is required: where to write the page")}
			}
			if f.index < 0 {
				return usageError{fmt.Errorf("--index must be ≥ 0, got %d", f.index)}
			}
			if err := checkBudget(cmd, f.budget); err != nil {
				return err
			}
			opts, format, err := f.options(e)
			if err != nil {
				return err
			}
			file, err := fileOrID("report", args[0])
			if err != nil {
				return err
			}
			var rep *report.Report
			if file {
				rep, err = reportFile(cmd, args[0], format, f.index, opts)
			} else {
				if !cmd.Flags().Changed("strategy") {
					opts.Strategy = nil // the session's own
				}
				rep, err = reportSession(cmd, e, home, args[0], opts)
			}
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := report.Write(&buf, rep); err != nil {
				return err
			}
			if err := os.WriteFile(f.output, buf.Bytes(), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "wrote %s: %s, %s, peak %s of %s tokens\n",
				escapeTerm(f.output), nouns(len(rep.Calls), "model call", "model calls"), nouns(len(rep.Compactions), "compaction", "compactions"), num(rep.Totals.PeakPrompt), num(rep.Budget))
			if c := rep.Totals.Cost; c != nil {
				fmt.Fprintf(e.stdout, "cost %s with compaction, %s without (%s list price as of %s)\n",
					dollars(c.USD), dollars(c.UncompactedUSD), escapeTerm(rep.Model), c.PriceAsOf)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "", "the HTML file to write (required)")
	fl.IntVar(&f.index, "index", 0, "in a FILE holding several trajectories, the one to report (0-based)")
	f.addEngineFlags(fl)
	addHomeFlag(cmd, e, &home)
	completeEngineFlags(cmd)
	cmd.ValidArgsFunction = completeSessions(e, &home, 1, true)
	return cmd
}

// reportFile reports trajectory index of file.
func reportFile(cmd *cobra.Command, file string, format transcript.Format, index int, opts replay.Options) (*report.Report, error) {
	trs, err := transcript.ReadFile(file, transcript.Options{Format: format})
	if err != nil {
		return nil, err
	}
	if index >= len(trs) {
		return nil, usageError{fmt.Errorf("--index %d: %s holds %d trajectories", index, file, len(trs))}
	}
	rep, err := report.FromTrajectory(cmd.Context(), trs[index], opts)
	if err != nil {
		return nil, fmt.Errorf("report %s: %w", file, err)
	}
	return rep, nil
}

// reportSession reports stored session id of the store in home.
func reportSession(cmd *cobra.Command, e *env, home, id string, opts replay.Options) (rep *report.Report, err error) {
	st, err := openSessions(e, home)
	if err != nil {
		return nil, err
	}
	defer closeStore(st, &err)
	rep, err = report.FromSession(cmd.Context(), st, id, opts)
	if err != nil {
		return nil, storeError("report", id, err)
	}
	return rep, nil
}
