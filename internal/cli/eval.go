package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/eval"
	"github.com/agentctx/agentctx/report"
	"github.com/agentctx/agentctx/transcript"
)

// defaultEvalBudgets are `agentctx eval`'s budgets when --budget is not
// given, in tokens: issue 27's three.
var defaultEvalBudgets = []int{8000, 16000, 32000}

type evalFlags struct {
	replay     replayFlags
	budgets    []int
	strategies string
	json       bool
	output     string
}

func newEvalCmd(e *env) *cobra.Command {
	var f evalFlags
	cmd := &cobra.Command{
		Use:   "eval FILE|DIR...",
		Short: "Measure what each compaction strategy keeps for the agent's next step",
		Long: `Eval replays every trajectory under each budget with each strategy and
measures, at every model call where the uncompacted history no longer fits
the budget, how much of what the agent did next the request held: its
references (file paths, the text its edits replace, error strings, line
numbers, identifiers, command arguments) that were in its history before
the call, outside the system prompt and the first user message. No model
is needed: summarizing strategies use the extractive summarizer.

One table per budget, one row per strategy:
  SUPPORT      next-action support, the mean over trajectories of the mean
               per call, with its bootstrap 95% confidence interval over
               trajectories; LATEST and OLDER split it by where the
               reference was last seen (the latest round, older history)
  EDITS        edit support: edits whose replaced text the request held
               verbatim (line-number prefixes stripped)
  RECOV        references absent from the request that recall_output
               could bring back (a cut or masked tool output)
  INSTR        instruction survival: the user's rules and corrections
               present in each later request
  RETENTION    replay's retention over summarizing compactions
  TOKENS       mean request size in tokens; CACHE the share a prompt
               cache would serve; COST the tokens priced with cache reads
               at 0.1 of an input token (Anthropic's price)
  COMP, SUMM   compactions; summaries and their tokens; OVER calls over
               the budget

Files are found and read as by 'agentctx replay'. Trajectories are
replayed in parallel, one worker per CPU (GOMAXPROCS).
--strategies takes a comma-separated list of registered strategies, or
all (` + "every registered one" + `); the default strategy is marked.
--json prints one object per budget and strategy (JSON Lines), shares as
fractions. -o writes an HTML page plotting support against tokens sent.`,
		Example: `  agentctx eval ../shared/data --budget 8000 --budget 16000 --budget 32000 --strategies all
  agentctx eval session.jsonl --budget 16000 --strategies tiered,mask --json
  agentctx eval ../shared/data -o eval.html`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEval(cmd.Context(), e, f, args)
		},
	}
	fl := cmd.Flags()
	fl.IntSliceVar(&f.budgets, "budget", nil, "prompt budget in tokens, repeatable (default 8000, 16000 and 32000)")
	fl.StringVar(&f.strategies, "strategies", "all", "comma-separated strategies to compare, or all: "+strings.Join(compact.Names(), ", "))
	fl.BoolVar(&f.json, "json", false, "print one JSON object per budget and strategy (JSON Lines)")
	fl.StringVarP(&f.output, "output", "o", "", "also write an HTML page plotting support against tokens sent")
	fl.StringVar(&f.replay.model, "model", "", "model to replay under (default: the model the transcript records)")
	fl.StringVar(&f.replay.format, "format", "", "force a transcript format: "+formatNames())
	fl.BoolVar(&f.replay.limit, "limit-tool-results", true, "pass each tool result through the tool-result limiter as it enters the window")
	fl.BoolVar(&f.replay.reminders, "reminders", true, "send system reminders with the model calls")
	fl.BoolVar(&f.replay.workmem, "working-memory", true, "keep the working memory and send its context with the model calls")
	completeFlag(cmd, "format", completeWords(formatList))
	completeFlag(cmd, "strategies", completeWords(func() []string { return append(strategyNames(), "all") }))
	return cmd
}

// evalJob is one trajectory replayed at one budget with one strategy.
type evalJob struct {
	tr       *transcript.Trajectory
	budget   int
	strategy string
	out      *eval.Trajectory
	err      error
}

func runEval(ctx context.Context, e *env, f evalFlags, args []string) error {
	begin := time.Now()
	budgets := f.budgets
	if len(budgets) == 0 {
		budgets = defaultEvalBudgets
	}
	for _, b := range budgets {
		if b <= 0 {
			return usageError{fmt.Errorf("--budget %d: want a positive number of tokens", b)}
		}
	}
	names, err := evalStrategies(f.strategies)
	if err != nil {
		return usageError{err}
	}
	f.replay.strategy = "none" // each job builds its own
	base, format, err := f.replay.options(e)
	if err != nil {
		return err
	}
	trs, failed, err := readTrajectories(e, args, format)
	if err != nil {
		return err
	}
	var jobs []*evalJob
	for _, b := range budgets {
		for _, n := range names {
			for _, tr := range trs {
				jobs = append(jobs, &evalJob{tr: tr, budget: b, strategy: n})
			}
		}
	}
	run := func(j *evalJob) {
		s, err := compact.Build(j.strategy, nil, compact.BuildOptions{Logger: e.logger})
		if err != nil {
			j.err = err
			return
		}
		o := base
		o.Budget, o.Strategy = j.budget, s
		j.out, j.err = eval.Run(ctx, j.tr, eval.Options{Replay: o})
	}
	evalPool(jobs, runtime.GOMAXPROCS(0), run)
	if err := ctx.Err(); err != nil {
		return err
	}
	def := defaultStrategy()
	fileSet := strings.Join(args, " ")
	var sums []eval.Summary
	for _, b := range budgets {
		for _, n := range names {
			var ts []*eval.Trajectory
			for _, j := range jobs {
				if j.budget != b || j.strategy != n {
					continue
				}
				if j.err != nil {
					fmt.Fprintf(e.stderr, "agentctx: eval: %s (budget %d, %s): %v\n", j.tr.File, b, n, j.err)
					failed++
					continue
				}
				ts = append(ts, j.out)
			}
			s := eval.Summarize(b, n, ts)
			s.FileSet, s.Default = fileSet, n == def
			sums = append(sums, s)
		}
	}
	if f.json {
		enc := newJSONLines(e.stdout)
		for _, s := range sums {
			if err := enc.Encode(s); err != nil {
				return err
			}
		}
	} else {
		printEval(e.stdout, sums, budgets)
		fmt.Fprintf(e.stdout, "%d trajectories × %d budgets × %d strategies in %.1f s (%d workers)\n",
			len(trs), len(budgets), len(names), time.Since(begin).Seconds(), runtime.GOMAXPROCS(0))
	}
	if f.output != "" {
		if err := writeEvalPage(f.output, fileSet, sums); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "agentctx: eval: wrote %s\n", escapeTerm(f.output))
	}
	if failed > 0 {
		return errReported
	}
	return nil
}

// evalPool runs every job with at most workers at a time.
func evalPool(jobs []*evalJob, workers int, run func(*evalJob)) {
	ch := make(chan *evalJob)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for j := range ch {
				run(j)
			}
		})
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
}

// evalStrategies returns the strategies --strategies names, each once:
// "all" is every registered one. An unknown name is an error naming the
// known ones.
func evalStrategies(list string) ([]string, error) {
	known := compact.Names()
	var out []string
	for n := range strings.SplitSeq(list, ",") {
		n = strings.ToLower(strings.TrimSpace(n))
		switch {
		case n == "":
		case n == "all":
			for _, k := range known {
				if !contains(out, k) {
					out = append(out, k)
				}
			}
		case n == "default":
			if d := defaultStrategy(); !contains(out, d) {
				out = append(out, d)
			}
		case !contains(known, n):
			return nil, fmt.Errorf("--strategies: %w %q (known: %s, all)", compact.ErrUnknownStrategy, n, strings.Join(known, ", "))
		case !contains(out, n):
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--strategies: no strategy named")
	}
	return out, nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// defaultStrategy is the name of the strategy an Engine compacts with
// when given none (compact.ParseStrategy's default).
func defaultStrategy() string {
	s, err := compact.ParseStrategy("", nil)
	if err != nil {
		return ""
	}
	return s.Name()
}

// readTrajectories finds and reads the trajectories of args as replay
// does: a missing path or an unreadable file is reported on stderr and
// counted in failed; a stray file in a folder is skipped.
func readTrajectories(e *env, args []string, format transcript.Format) ([]*transcript.Trajectory, int, error) {
	files, cerr := transcript.Collect(args)
	failed := 0
	for _, err := range splitErrors(cerr) {
		fmt.Fprintf(e.stderr, "agentctx: eval: %v\n", err)
		failed++
	}
	if len(files) == 0 {
		if failed > 0 {
			return nil, failed, errReported
		}
		return nil, 0, fmt.Errorf("eval: no trajectory files (.jsonl, .json, .traj) in %s", strings.Join(args, ", "))
	}
	explicit := explicitFiles(args)
	var out []*transcript.Trajectory
	for _, file := range files {
		trs, err := transcript.ReadFile(file, transcript.Options{Format: format})
		if err != nil {
			if notTrajectory(err, format, explicit[file]) {
				fmt.Fprintf(e.stderr, "agentctx: eval: skipped %s: not a transcript of a known format (found in a folder)\n", file)
				continue
			}
			fmt.Fprintf(e.stderr, "agentctx: eval: %v\n", err)
			failed++
			continue
		}
		out = append(out, trs...)
	}
	return out, failed, nil
}

// printEval writes one table per budget.
func printEval(w io.Writer, sums []eval.Summary, budgets []int) {
	for _, b := range budgets {
		var rows []eval.Summary
		for _, s := range sums {
			if s.Budget == b {
				rows = append(rows, s)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "budget %s tokens: %d trajectories, %s calls measured (the history over the budget) in %d of them\n",
			num(b), rows[0].Trajectories, num(rows[0].MeasuredCalls), rows[0].Measured)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "STRATEGY\tSUPPORT\t95% CI\tLATEST\tOLDER\tEDITS\tRECOV\tINSTR\tRETENTION\tTOKENS\tCACHE\tCOST\tCOMP\tSUMM (TOK)\tOVER\t")
		for _, s := range rows {
			name := s.Strategy
			if s.Default {
				name = "default (" + s.Strategy + ")"
			}
			ci := "-"
			if s.NextActionCI != nil {
				ci = fmt.Sprintf("%s–%s", pct(s.NextActionCI[0]), pct(s.NextActionCI[1]))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d (%s)\t%d\t\n", name,
				share(s.NextActionSupport), ci, share(s.LatestSupport), share(s.OlderSupport), share(s.EditSupport),
				share(s.Recoverable), share(s.InstructionSurvival), share(s.Retention), num(int(s.TokensSent+0.5)),
				pct(s.CacheReuse), num(int(s.CacheAdjustedTokens+0.5)), s.Compactions, s.SummaryCalls, num(s.SummaryTokens), s.CallsOverBudget)
		}
		_ = tw.Flush()
		fmt.Fprintln(w)
	}
}

// share formats a share that may be undefined.
func share(x *float64) string {
	if x == nil {
		return "-"
	}
	return pct(*x)
}

// writeEvalPage writes the HTML page of sums to path.
func writeEvalPage(path, fileSet string, sums []eval.Summary) error {
	p := &report.EvalPage{
		Title: "agentctx eval: " + fileSet,
		Note: "Next-action support: the share of what the agent did next (paths, edited text, errors, lines, identifiers, " +
			"arguments it had seen) present in the request each strategy built, at every call where the history exceeded the budget. " +
			"Each point is one budget; x is the mean request size.",
	}
	for _, s := range sums {
		p.Rows = append(p.Rows, report.EvalRow{
			Budget: s.Budget, Strategy: s.Strategy, Default: s.Default, TokensSent: s.TokensSent, CacheReuse: s.CacheReuse, CacheAdjusted: s.CacheAdjustedTokens,
			Support: s.NextActionSupport, SupportCI: s.NextActionCI, EditSupport: s.EditSupport, Recoverable: s.Recoverable,
			InstructionSurvival: s.InstructionSurvival, Compactions: s.Compactions, SummaryCalls: s.SummaryCalls,
			CallsOverBudget: s.CallsOverBudget,
		})
	}
	var buf bytes.Buffer
	if err := report.WriteEval(&buf, p); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	return nil
}
