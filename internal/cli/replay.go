package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/transcript"
)

type replayFlags struct {
	model     string
	budget    int
	policy    string
	strategy  string
	format    string
	json      bool
	verbose   bool
	strict    bool
	save      bool
	limit     bool
	reminders bool
	workmem   bool
	project   string
	home      string
	sum       summarizerFlags
	// checkEvery is --check-every: the full invariant walk every N calls.
	checkEvery int
}

func newReplayCmd(e *env) *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay FILE|DIR...",
		Short: "Replay recorded agent trajectories under a token budget",
		Long: `Replay feeds each recorded trajectory into a context window one message at a
time, as if it were live under a model's token budget. Before each assistant
message (each model call) it compacts the window as the engine would and
records the prompt's size. It then prints what happened: model calls, peak
prompt size against the budget, calls over budget, compactions per level,
tokens removed, invariant violations and, where the transcript recorded the
provider's usage, agentctx's count beside the provider's.

Formats (auto-detected, or forced with --format): ` + formatNames() + `.
A folder is searched recursively for the files a reader may accept by
their content, whatever their names (JSON or JSONL, a SQLite store, an
aider history), and .jsonl, .json and .traj files; every other file is
skipped with one line on stderr saying why. A path
that does not exist is reported and the other files are still replayed; a
file found in a folder that no reader claims (a stray manifest.json) is
skipped and reported. A file a reader claimed and could not read, or
refused (its shape is close to a format but not of it: the error names the
closest format and what did not match), is an error, as is a forced
--format that finds nothing, or no model call where the format the
content shows reads some (the error names it). Each failure is printed once; the run exits
1 at the end.

What a reader skipped or left out is reported per trajectory, in three
kinds kept apart: records the agent wrote but never sends to the model
("non_context", by kind: progress lines, request blobs, undo snapshots, UI
events; never a --strict failure), conversation it could not map
("dropped", by kind, with a warning line on stderr) and malformed lines
("problems"); and tool results without a call ("orphan_results"). The
last three are in the PROBLEMS column of the table, all in --json.

With --strategy summarize, old history is replaced by a summary (seed 001's
CompactionService): by the extractive summarizer, which needs no model,
unless a provider is configured (--summarizer llm, --provider,
$AGENTCTX_PROVIDER, or $OPENAI_API_KEY / $ANTHROPIC_API_KEY), then by the
model. Each summary's retention (how many of the removed part's user
messages, file paths, errors, failing tests and failed commands are still
in the window) is printed per compaction with -v and overall per category;
--json has it as "retention" (overall, user_messages, files_modified,
files_read, errors, failing_tests, failed_commands) and each summary under
"summaries".

With --json, one JSON object per trajectory is printed per line (JSON Lines).

With --save, each replayed trajectory is stored as a session (in --home, for
the project --project, default the current folder): every message as it
entered the window and, wherever the engine compacted, a compact boundary
followed by the window as compaction left it. 'agentctx sessions show',
'inspect' and a resume then see the window as it was at the end of the
replay. The session id is printed (and is "session_id" in --json). A
Claude Code sub-agent's file (<session>/subagents/agent-*.jsonl) replayed
with its parent's is linked to it as 'sessions import' links it:
'agentctx sessions show' lists it under the parent.`,
		Example: `  agentctx replay ../shared/data --budget 16000
  agentctx replay session.jsonl --model claude-sonnet-4-5 --strategy mask -v
  agentctx replay ./trajectories --json > results.jsonl
  agentctx replay session.jsonl --budget 16000 --save
  agentctx replay ../shared/data --budget 16000 --strategy summarize`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd, e, f, args)
		},
	}
	fl := cmd.Flags()
	f.addEngineFlags(fl)
	fl.Lookup("reminders").Usage += "; -v lists them"
	fl.BoolVar(&f.json, "json", false, "print one JSON object per trajectory (JSON Lines)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "print a per-step table (step, role, tokens added, prompt tokens, usage %, provider's count, action)")
	fl.BoolVar(&f.strict, "strict", false, "exit 1 when a call went over budget although its pinned parts fit, an invariant broke, a tool result had no call, a malformed line was skipped, or the reader left out more than a trace (over 1% of the messages, or any tool call or result); known non-context records never fail it")
	fl.BoolVar(&f.save, "save", false, "store each replayed trajectory as a session and print its id")
	fl.StringVar(&f.project, "project", "", "with --save, the project the sessions belong to (default: the current folder)")
	fl.StringVar(&f.home, "home", "", "with --save, the "+homeHelp)
	fl.IntVar(&f.checkEvery, "check-every", 0, "walk the whole window to check its invariants after every N-th model call (the others are checked incrementally, O(messages added)); 0: never")
	addStoreFlag(fl, e)
	completeEngineFlags(cmd)
	return cmd
}

// addEngineFlags adds to fl the flags that say how a trajectory is
// replayed (replay's and report's): model, budget, policy, strategy,
// summarizer, format, limiter, reminders and working memory.
func (f *replayFlags) addEngineFlags(fl *pflag.FlagSet) {
	fl.StringVar(&f.model, "model", "", "model to replay under (default: the model the transcript records, else "+replay.DefaultModel+")")
	fl.IntVar(&f.budget, "budget", 0, "prompt budget in tokens (default: the model's budget under --policy)")
	fl.StringVar(&f.policy, "policy", "", "budget policy when --budget is not set: reserve or tiers (default "+model.DefaultPolicy.Name()+")")
	fl.StringVar(&f.strategy, "strategy", "tiered", "compaction strategy: "+strings.Join(compact.Names(), ", "))
	fl.StringVar(&f.sum.kind, "summarizer", "auto", "with --strategy summarize, the "+summarizerHelp)
	fl.StringVar(&f.sum.provider, "provider", "", "with --summarizer llm, the provider: openai or anthropic (default $AGENTCTX_PROVIDER, else by the API key set)")
	fl.StringVar(&f.sum.model, "summary-model", "", "with --summarizer llm, the model that writes summaries (default $AGENTCTX_MODEL, else the provider's default)")
	fl.StringVar(&f.format, "format", "", "force a transcript format: "+formatNames())
	fl.BoolVar(&f.limit, "limit-tool-results", true, "pass each tool result through the tool-result limiter (seed 003) as it enters the window; --limit-tool-results=false replays the results whole")
	fl.BoolVar(&f.reminders, "reminders", true, "send system reminders (todo list, changed files, secrets, context pressure) with the model calls")
	fl.BoolVar(&f.workmem, "working-memory", true, "keep the working memory (seed 002) and send its context with the model calls once a compaction ran or a finding or plan exists; --working-memory=false replays without it")
}

func formatNames() string {
	var names []string
	for _, f := range transcript.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

func runReplay(cmd *cobra.Command, e *env, f replayFlags, args []string) (err error) {
	if err := checkBudget(cmd, f.budget); err != nil {
		return err
	}
	opts, format, err := f.options(e)
	if err != nil {
		return err
	}
	// A path that does not exist is reported and the others replayed:
	// the run fails at the end.
	files, passed, cerr := transcript.Scan(args)
	failed := 0
	for _, err := range splitErrors(cerr) {
		fmt.Fprintf(e.stderr, "agentctx: replay: %v\n", err)
		failed++
	}
	for _, s := range passed {
		fmt.Fprintf(e.stderr, "agentctx: replay: skipped %s: %s (found in a folder)\n", s.Path, s.Reason)
	}
	if len(files) == 0 {
		if failed > 0 {
			return errReported
		}
		return fmt.Errorf("replay: no transcript files (JSON, JSONL, SQLite or aider histories) in %s", strings.Join(args, ", "))
	}
	explicit := explicitFiles(args)
	if f.save {
		if opts.Project, err = projectFlag(f.project); err != nil {
			return err
		}
		st, err := openSessions(e, f.home)
		if err != nil {
			return err
		}
		defer closeStore(st, &err)
		opts.Store = st
	}
	var saved []savedReplay // with --save, for linking sub-agents
	ctx := cmd.Context()
	var (
		results []*replay.Result
		skipped []string
		enc     = newJSONLines(e.stdout)
	)
	// The results' times add up to the whole process ([replay.Result].
	// WallMS): mark is where the time not yet charged starts, the
	// process's start at first. Each result is charged the time since
	// mark as load, less its file's reading (parse, charged to the
	// file's first trajectory): start-up before the first, printing the
	// previous result and files that failed before later ones.
	mark := processStart()
	for _, file := range files {
		begin := time.Now()
		trs, err := transcript.ReadFile(file, transcript.Options{Format: format})
		parse := time.Since(begin)
		if err != nil {
			if notTrajectory(err, format, explicit[file]) {
				skipped = append(skipped, file)
				continue
			}
			fmt.Fprintf(e.stderr, "agentctx: replay: %v\n", err)
			failed++
			continue
		}
		for i, tr := range trs {
			pre := time.Since(mark)
			if i > 0 {
				parse = 0
			}
			res, err := replayOne(ctx, e, file, tr, opts)
			mark = time.Now()
			if err == nil {
				res.AddTimes(pre-parse, parse)
			}
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				fmt.Fprintf(e.stderr, "agentctx: replay: %s: %v\n", file, err)
				failed++
				continue
			}
			results = append(results, res)
			if f.save && tr.Format == transcript.FormatClaudeCode {
				saved = append(saved, savedReplay{id: res.SessionID, claude: tr.ID, sub: isSidechainFile(file) || tr.Index > 0, task: sidechainTask(tr)})
			}
			warnDropped(e.stderr, res)
			if f.json {
				if err := enc.Encode(res); err != nil {
					return err
				}
				continue
			}
			f.print(e.stdout, res, len(files) == 1 && len(trs) == 1)
		}
	}
	if !f.json && (len(results) > 1 || (len(results) == 1 && len(files) > 1)) {
		printTable(e.stdout, results)
		printTotals(e.stdout, results)
		printNotes(e.stdout, results)
	}
	if f.save {
		if err := linkSubAgents(ctx, opts.Store, saved); err != nil {
			fmt.Fprintf(e.stderr, "agentctx: replay: %v\n", err)
			failed++
		}
	}
	if !f.json && f.save {
		printSaved(e.stdout, results)
	}
	for _, file := range skipped {
		fmt.Fprintf(e.stderr, "agentctx: replay: skipped %s: not a transcript of a known format (found in a folder)\n", file)
	}
	if failed > 0 {
		return errReported
	}
	if f.strict {
		return strictCheck(results)
	}
	return nil
}

// savedReplay is a Claude Code trajectory replay --save stored: its
// session id, its Claude Code session id, whether it is a sub-agent's
// (a side chain) and, if so, its task.
type savedReplay struct {
	id, claude string
	sub        bool
	task       string
}

// linkSubAgents links each saved Claude Code side chain to the session
// its parent's trajectory was saved as in the same run, as sessions
// import and chat's task tool link sub-agents ([session.MetaParent],
// [session.MetaTask]): sessions show then lists it under its parent.
// Errors: the store's, naming the session.
func linkSubAgents(ctx context.Context, st session.Store, saved []savedReplay) error {
	parents := map[string]string{}
	for _, s := range saved {
		if !s.sub {
			parents[s.claude] = s.id
		}
	}
	for _, s := range saved {
		p, ok := parents[s.claude]
		if !s.sub || !ok {
			continue
		}
		if _, err := st.Update(ctx, s.id, func(x *session.Session) error {
			if x.Metadata == nil {
				x.Metadata = map[string]string{}
			}
			x.Metadata[session.MetaParent], x.Metadata[session.MetaTask] = p, s.task
			return nil
		}); err != nil {
			return fmt.Errorf("link sub-agent session %s to %s: %w", s.id, p, err)
		}
	}
	return nil
}

// summarizes reports whether s writes summaries: its recorded
// configuration names a summarizer (compact.Summarize and the anchors'
// summarizing strategies).
func summarizes(s compact.Strategy) bool {
	c, ok := s.(compact.Configurable)
	if !ok {
		return false
	}
	b, err := c.Config()
	if err != nil {
		return false
	}
	var cfg struct {
		Summarizer string `json:"summarizer"`
	}
	return json.Unmarshal(b, &cfg) == nil && cfg.Summarizer != ""
}

// options checks the flags and returns the replay's options (without a
// store) and the transcript format they force ("" to detect it). Bad
// flags are usage errors.
func (f replayFlags) options(e *env) (replay.Options, transcript.Format, error) {
	if f.checkEvery < 0 {
		return replay.Options{}, "", usageError{fmt.Errorf("--check-every must be 0 or positive, got %d", f.checkEvery)}
	}
	if !f.save && (f.project != "" || f.home != "") {
		return replay.Options{}, "", usageError{errors.New("--project and --home need --save")}
	}
	strategy, err := compact.ParseStrategy(f.strategy, e.logger)
	if err != nil {
		return replay.Options{}, "", usageError{err}
	}
	if summarizes(strategy) {
		// Only a summarizing strategy needs the summarizer, and its flags:
		// it is built again with it.
		sum, err := f.sum.summarizer()
		if err != nil {
			return replay.Options{}, "", err
		}
		if strategy, err = compact.Build(strategy.Name(), nil, compact.BuildOptions{Summarizer: sum, Logger: e.logger}); err != nil {
			return replay.Options{}, "", usageError{err}
		}
	}
	var policy model.Policy
	if f.policy != "" {
		if policy, err = model.ParsePolicy(f.policy); err != nil {
			return replay.Options{}, "", usageError{err}
		}
	}
	var format transcript.Format
	if f.format != "" {
		if format, err = transcript.ParseFormat(f.format); err != nil {
			return replay.Options{}, "", usageError{err}
		}
	}
	return replay.Options{
		Model: f.model, Budget: f.budget, Policy: policy, Strategy: strategy, Steps: f.verbose, EndTexts: f.verbose, Logger: e.logger,
		LimitToolResults: f.limit, WorkingMemory: f.workmem, Reminders: f.reminders, CheckEvery: f.checkEvery,
	}, format, nil
}

// replayOne replays tr, read from file, with a progress bar on a terminal
// for a long one.
func replayOne(ctx context.Context, e *env, file string, tr *transcript.Trajectory, opts replay.Options) (*replay.Result, error) {
	if isTerminal(e.stderr) && len(tr.Messages) >= 500 {
		bar := progressbar.NewOptions(len(tr.Messages),
			progressbar.OptionSetWriter(rawWriter(e.stderr)),
			progressbar.OptionSetDescription(escapeTerm(shortName(file))),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100e6))
		opts.Progress = func(done, _ int) { _ = bar.Set(done) }
		defer func() { _ = bar.Finish() }()
	}
	return replay.Run(ctx, tr, opts)
}

// print writes one replay's report: its steps and working memory with
// -v, its summaries with -v or when it is the only one replayed (single),
// and then its summary.
func (f replayFlags) print(w io.Writer, res *replay.Result, single bool) {
	if f.verbose {
		printSteps(w, res)
		printMemory(w, res)
	}
	if f.verbose || single {
		printSummaries(w, res)
	}
	if single {
		printSummary(w, res)
	}
}

// printTotals writes what several replays add up to: the prompt cache's
// share and the retention over every summary.
func printTotals(w io.Writer, results []*replay.Result) {
	var (
		total          *compact.Retention
		summaries      int
		prompt, cached int
		priced         int
		with, without  float64
	)
	for _, r := range results {
		prompt += r.PromptTokens
		cached += r.CacheReadTokens
		if c := r.Cost; c != nil {
			priced++
			with += c.USD
			without += c.UncompactedUSD
		}
		if r.Retention != nil {
			if total == nil {
				total = &compact.Retention{}
			}
			total.Add(*r.Retention)
			summaries += len(r.Summaries)
		}
	}
	if prompt > 0 {
		fmt.Fprintf(w, "prompt cache: %s of %s prompt tokens (%s) were the previous request's cached prefix\n", num(cached), num(prompt), pct(float64(cached)/float64(prompt)))
	}
	if priced > 0 {
		fmt.Fprintf(w, "cost: %s with compaction, %s without, at list prices (%d of %d trajectories; the others' models have no price)\n",
			dollars(with), dollars(without), priced, len(results))
	}
	if total != nil {
		fmt.Fprintf(w, "retention over %d summaries: ", summaries)
		printRetention(w, "", total)
	}
}

// printNotes writes each replay's notes ([replay.Result].Notes) under
// the table.
func printNotes(w io.Writer, results []*replay.Result) {
	for _, r := range results {
		for _, n := range r.Notes {
			fmt.Fprintf(w, "note: %s: %s\n", resultName(r), n)
		}
	}
}

// printSaved writes the session each replay was saved as.
func printSaved(w io.Writer, results []*replay.Result) {
	for _, r := range results {
		name := r.File
		if r.Index > 0 {
			name = fmt.Sprintf("%s #%d", r.File, r.Index)
		}
		fmt.Fprintf(w, "saved %s as session %s\n", name, r.SessionID)
	}
}

// strictCheck returns an error naming the replays that went over budget
// although their pinned parts fit, broke an invariant, had tool results
// without a call, or whose reader left out more than a trace of the file
// (--strict).
func strictCheck(results []*replay.Result) error {
	var bad []string
	for _, r := range results {
		var why []string
		if n := r.CallsOverBudget - r.CallsOverBudgetPinned; n > 0 || r.InvariantViolations > 0 {
			why = append(why, nouns(n, "call", "calls")+" over budget, "+nouns(r.InvariantViolations, "invariant violation", "invariant violations"))
		}
		if r.OrphanResults > 0 {
			why = append(why, fmt.Sprintf("%d tool results without a call", r.OrphanResults))
		}
		if r.DroppedOverTrace {
			why = append(why, "the reader left out "+dropSummary(r.Dropped))
		}
		if n := len(r.Problems); n > 0 {
			why = append(why, fmt.Sprintf("%d malformed lines skipped", n))
		}
		if len(why) > 0 {
			bad = append(bad, fmt.Sprintf("%s#%d (%s)", r.File, r.Index, strings.Join(why, "; ")))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("replay --strict: %s", strings.Join(bad, "; "))
	}
	return nil
}

// isTerminal reports whether w (under its [termWriter]) is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := rawWriter(w).(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// colorOn reports whether to colour what is written to w: when w is a
// terminal and NO_COLOR is unset or empty (https://no-color.org).
func colorOn(w io.Writer) bool {
	return os.Getenv("NO_COLOR") == "" && isTerminal(w)
}

// splitErrors returns the errors err joins (errors.Join), or err alone;
// none for nil.
func splitErrors(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// explicitFiles returns the files named as arguments (not found in a
// folder).
func explicitFiles(args []string) map[string]bool {
	out := map[string]bool{}
	for _, a := range args {
		if isFile(a) {
			out[filepath.Clean(a)] = true
		}
	}
	return out
}

// notTrajectory reports whether err, reading a file found in a folder
// with the format detected, says that no reader claims the file (a
// stray manifest.json): such a file is skipped and reported, not a
// failure. A file a reader claimed and refused ([transcript.FormatError])
// or could not read, a file named on the command line and a forced
// format fail.
func notTrajectory(err error, forced transcript.Format, explicit bool) bool {
	var fe *transcript.FormatError
	return forced == "" && !explicit && errors.Is(err, transcript.ErrUnknownFormat) && !errors.As(err, &fe)
}

// warnDropped writes a warning line for a replay whose reader left out
// what it did not understand.
func warnDropped(w io.Writer, r *replay.Result) {
	if len(r.Dropped) == 0 {
		return
	}
	fmt.Fprintf(w, "agentctx: replay: warning: %s: the reader left out %s\n", resultName(r), dropSummary(r.Dropped))
}

// dropSummary lists dropped counts as "N KIND", most frequent first.
func dropSummary(d map[string]int) string {
	tr := transcript.Trajectory{Dropped: d}
	return tr.DroppedSummary()
}

// resultName is a replay's file, with its index when the file holds
// several trajectories.
func resultName(r *replay.Result) string {
	if r.Index > 0 {
		return fmt.Sprintf("%s #%d", r.File, r.Index)
	}
	return r.File
}

// problemsCell is the table's PROBLEMS column: malformed lines skipped,
// items left out, orphan results; "-" for none.
func problemsCell(r *replay.Result) string {
	var parts []string
	if n := len(r.Problems); n > 0 {
		parts = append(parts, nouns(n, "line", "lines")+" skipped")
	}
	n := 0
	for _, v := range r.Dropped {
		n += v
	}
	if n > 0 {
		parts = append(parts, fmt.Sprintf("%d left out", n))
	}
	if r.OrphanResults > 0 {
		parts = append(parts, nouns(r.OrphanResults, "orphan", "orphans"))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func shortName(path string) string {
	if len(path) <= 40 {
		return path
	}
	return "…" + path[len(path)-39:]
}

// nouns formats a count of things: n with thousands separators and the
// noun, one when n is 1, else many ("1 trajectory", "2 trajectories").
func nouns(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return num(n) + " " + many
}

// num formats n with thousands separators.
func num(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func levelCounts(r *replay.Result) string {
	var parts []string
	for _, l := range compact.Levels() {
		if n := r.Compactions[l.String()]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", l, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func printSummary(w io.Writer, r *replay.Result) {
	name := r.File
	if r.Index > 0 || r.ID != "" {
		name = fmt.Sprintf("%s #%d %s", r.File, r.Index, r.ID)
	}
	fmt.Fprintf(w, "%s [%s]\n", name, r.Format)
	est := ""
	if r.EncodingEstimated {
		est = ", an estimate for this model"
	}
	fmt.Fprintf(w, "  model        %s (%s; context window %s tokens; counted with %s%s)\n", r.Model, sourceWord(r.ModelSource), num(r.ContextWindow), r.Encoding, est)
	if r.ModelWarning != "" {
		fmt.Fprintf(w, "  warning      %s\n", r.ModelWarning)
	}
	fmt.Fprintf(w, "  budget       %s tokens (%s), strategy %s", num(r.Budget), r.BudgetSource, r.Strategy)
	if r.ToolTokens > 0 {
		fmt.Fprintf(w, ", tool schemas %s tokens", num(r.ToolTokens))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  messages     %s, model calls %s, compactions recorded in the transcript %d\n", num(r.Messages), num(r.ModelCalls), r.RecordedCompactions)
	fmt.Fprintf(w, "  peak prompt  %s / %s tokens (%s); final %s\n", num(r.PeakPromptTokens), num(r.Budget), pct(float64(r.PeakPromptTokens)/float64(max(r.Budget, 1))), num(r.FinalPromptTokens))
	fmt.Fprintf(w, "  over budget  %d calls", r.CallsOverBudget)
	if r.CallsOverBudgetPinned > 0 {
		fmt.Fprintf(w, " (%d where even the pinned parts could not fit)", r.CallsOverBudgetPinned)
	}
	fmt.Fprintf(w, "; invariant violations %d\n", r.InvariantViolations)
	if r.PromptTokens > 0 {
		fmt.Fprintf(w, "  prompt cache %s of %s prompt tokens (%s) were the previous request's cached prefix\n", num(r.CacheReadTokens), num(r.PromptTokens), pct(r.CacheHitRatio))
	}
	if c := r.Cost; c != nil {
		fmt.Fprintf(w, "  cost         %s with compaction, %s without (list price as of %s); %s tokens written to the cache again after compactions\n",
			dollars(c.USD), dollars(c.UncompactedUSD), c.PriceAsOf, num(c.CompactionCacheWriteTokens))
	}
	fmt.Fprintf(w, "  compactions  %s; tokens removed %s\n", levelCounts(r), num(r.TokensRemoved))
	if r.LimitedResults > 0 {
		fmt.Fprintf(w, "  limiter      %s tool results cut as they entered the window, %s characters removed\n", num(r.LimitedResults), num(r.LimitedChars))
	}
	if len(r.Summaries) > 0 {
		fb := 0
		for _, s := range r.Summaries {
			if s.Fallback {
				fb++
			}
		}
		fmt.Fprintf(w, "  summaries    %d in %s model calls (%.2f per call)", len(r.Summaries), num(r.ModelCalls), r.SummariesPerCall)
		by := map[string]int{}
		var names []string
		for _, s := range r.Summaries {
			if by[s.Summarizer] == 0 {
				names = append(names, s.Summarizer)
			}
			by[s.Summarizer]++
		}
		for i, n := range names {
			sep := ", "
			if i == 0 {
				sep = "; by "
			}
			fmt.Fprintf(w, "%s%s %d", sep, n, by[n])
		}
		if fb > 0 {
			fmt.Fprintf(w, "; %d fell back", fb)
		}
		fmt.Fprintln(w)
	}
	if r.SummaryEscalations > 0 {
		fmt.Fprintf(w, "  guard        %s declined (too little to free, or too soon after the last); the next levels compacted instead\n", nouns(r.SummaryEscalations, "summary", "summaries"))
	}
	if r.Retention != nil {
		printRetention(w, "  retention    ", r.Retention)
	}
	if r.InterruptedCalls > 0 {
		fmt.Fprintf(w, "  repaired     %d tool calls without a result answered as interrupted\n", r.InterruptedCalls)
	}
	if r.OrphanResults > 0 {
		fmt.Fprintf(w, "  repaired     %d tool results without a call added as user text\n", r.OrphanResults)
	}
	if d := r.UsageDiff; d != nil {
		fmt.Fprintf(w, "  vs provider  %s with usage: counted mean %s, max %s off (bias %+.1f%%)", nouns(d.Calls, "call", "calls"), pct(d.Mean), pct(d.Max), 100*d.Bias)
		if d.AnchoredCalls > 0 {
			fmt.Fprintf(w, "; usage-anchored mean %s, max %s", pct(d.AnchoredMean), pct(d.AnchoredMax))
		}
		fmt.Fprintln(w)
		if d.FirstCallGap > 0 {
			fmt.Fprintf(w, "               the provider's first prompt held %s tokens more than the recorded messages: the system prompt and tool schemas the transcript does not record, which usage anchoring absorbs\n", num(d.FirstCallGap))
		}
	} else {
		fmt.Fprintf(w, "  vs provider  the transcript records no per-call usage\n")
	}
	if len(r.Problems) > 0 {
		fmt.Fprintf(w, "  skipped      %d malformed lines: %s\n", len(r.Problems), strings.Join(r.Problems[:min(len(r.Problems), 3)], "; "))
	}
	if len(r.DroppedUsage) > 0 {
		fmt.Fprintf(w, "  dropped      %d implausible usage records: %s\n", len(r.DroppedUsage), strings.Join(r.DroppedUsage[:min(len(r.DroppedUsage), 3)], "; "))
	}
	if len(r.NonContext) > 0 {
		fmt.Fprintf(w, "  not context  %s (recorded by the agent, never sent to the model)\n", dropSummary(r.NonContext))
	}
	if len(r.Dropped) > 0 {
		fmt.Fprintf(w, "  left out     %s (not understood by the %s reader)\n", dropSummary(r.Dropped), r.Format)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note         %s\n", n)
	}
	fmt.Fprintf(w, "  wall         %.0f ms: load %.0f ms (start-up, vocabulary), parse %.0f ms, engine %.0f ms\n", r.WallMS, r.LoadMS, r.ParseMS, r.EngineMS)
}

func sourceWord(s string) string {
	switch s {
	case "flag":
		return "from --model"
	case "transcript":
		return "from the transcript"
	}
	return "default: the transcript names no model"
}

func printSteps(w io.Writer, r *replay.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "step\trole\tadded\tprompt\tusage\tprovider\t\taction\n")
	for _, s := range r.Steps {
		provider := ""
		if s.ProviderPromptTokens > 0 {
			provider = num(s.ProviderPromptTokens)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t\t%s\n", s.Step, s.Role, num(s.TokensAdded), num(s.PromptTokens), pct(s.Usage), provider, s.Action)
	}
	_ = tw.Flush()
}

// printSummaries writes one block per summarizing compaction: where it
// happened, its tokens, files, fallback and retention per category.
func printSummaries(w io.Writer, r *replay.Result) {
	for i, s := range r.Summaries {
		fmt.Fprintf(w, "summary %d: %s → %s tokens (summary %s) by %s in %.0f ms, %d messages replaced",
			i+1, num(s.TokensBefore), num(s.TokensAfter), num(s.SummaryTokens), s.Summarizer, s.DurationMS, s.MessagesRemoved)
		if s.Fallback {
			fmt.Fprintf(w, "; FELL BACK to %s: %s", s.Summarizer, s.FallbackReason)
		}
		fmt.Fprintln(w)
		if len(s.FilesIncluded) > 0 {
			fmt.Fprintf(w, "  files     %s\n", strings.Join(s.FilesIncluded, ", "))
		}
		printRetention(w, "  retained  ", s.Retention)
		if s.Retention != nil && len(s.Retention.Missing) > 0 {
			fmt.Fprintf(w, "  lost      %s\n", strings.Join(s.Retention.Missing, " | "))
		}
	}
}

func printTable(w io.Writer, rs []*replay.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// The PROBLEMS column is there when a file had any.
	problems := "\t"
	for _, r := range rs {
		if problemsCell(r) != "-" {
			problems = "\tPROBLEMS\t"
			break
		}
	}
	cell := func(r *replay.Result) string {
		if problems == "\t" {
			return "\t"
		}
		return "\t" + problemsCell(r) + "\t"
	}
	fmt.Fprintln(tw, "FILE\tFORMAT\tMODEL\tBUDGET\tMSGS\tCALLS\tPEAK\tOVER\tVIOL\tCOMPACTIONS\tREMOVED\tVS PROVIDER"+problems+"LOAD MS\tPARSE MS\tENGINE MS\tWALL MS")
	var tot replay.Result
	tot.Compactions = map[string]int{}
	for _, r := range rs {
		name := resultName(r)
		usage := "-"
		if d := r.UsageDiff; d != nil {
			usage = fmt.Sprintf("%s (anch %s)", pct(d.Mean), pct(d.AnchoredMean))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s%s%.0f\t%.0f\t%.0f\t%.0f\n", name, r.Format, r.Model, num(r.Budget), num(r.Messages), num(r.ModelCalls),
			num(r.PeakPromptTokens), r.CallsOverBudget, r.InvariantViolations, levelCounts(r), num(r.TokensRemoved), usage, cell(r), r.LoadMS, r.ParseMS, r.EngineMS, r.WallMS)
		tot.Messages += r.Messages
		tot.ModelCalls += r.ModelCalls
		tot.PeakPromptTokens = max(tot.PeakPromptTokens, r.PeakPromptTokens)
		tot.CallsOverBudget += r.CallsOverBudget
		tot.InvariantViolations += r.InvariantViolations
		tot.TokensRemoved += r.TokensRemoved
		tot.LoadMS += r.LoadMS
		tot.ParseMS += r.ParseMS
		tot.EngineMS += r.EngineMS
		tot.WallMS += r.WallMS
		for k, v := range r.Compactions {
			tot.Compactions[k] += v
		}
	}
	fmt.Fprintf(tw, "TOTAL (%s)\t\t\t\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t"+strings.Repeat("\t", strings.Count(problems, "\t"))+"%.0f\t%.0f\t%.0f\t%.0f\n", nouns(len(rs), "trajectory", "trajectories"), num(tot.Messages), num(tot.ModelCalls),
		num(tot.PeakPromptTokens), tot.CallsOverBudget, tot.InvariantViolations, levelCounts(&tot), num(tot.TokensRemoved), tot.LoadMS, tot.ParseMS, tot.EngineMS, tot.WallMS)
	_ = tw.Flush()
}

// printMemory prints the working memory at the end of a replay: the
// tracker's prompt section and ActiveContext's BuildContext.
func printMemory(w io.Writer, r *replay.Result) {
	if len(r.Reminders) > 0 {
		fmt.Fprintf(w, "\nsystem reminders sent (%d):\n", len(r.Reminders))
		for _, rm := range r.Reminders {
			text := strings.ReplaceAll(strings.TrimSpace(rm.Text), "\n", " ⏎ ")
			if n := []rune(text); len(n) > 160 {
				text = string(n[:160]) + "…"
			}
			fmt.Fprintf(w, "  before step %d  %-16s %s\n", rm.Step, rm.Kind, text)
		}
	}
	if r.TrackerSection != "" {
		fmt.Fprintf(w, "\ntracker section at the end:\n%s\n", strings.TrimRight(r.TrackerSection, "\n"))
	} else if t := r.Tracker; t != nil && len(t.Files)+len(t.Commands)+len(t.Searches)+len(t.Changes) > 0 {
		fmt.Fprintf(w, "\ntracker section at the end: none (the window still shows the %d %s it would list)\n", len(t.Files)+len(t.Commands)+len(t.Searches)+len(t.Changes), plural(len(t.Files)+len(t.Commands)+len(t.Searches)+len(t.Changes), "entry", "entries"))
	}
	if r.Context != "" {
		fmt.Fprintf(w, "\nActiveContext (BuildContext, %d tokens) at the end:\n%s\n\n", replay.ContextTokens, strings.TrimRight(r.Context, "\n"))
	}
}
