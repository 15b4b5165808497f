package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/session"
)

type compactFlags struct {
	instructions string
	budget       int
	model        string
	dryRun       bool
	json         bool
	project      string
	sum          summarizerFlags
}

func newCompactCmd(e *env) *cobra.Command {
	var (
		f    compactFlags
		home string
	)
	cmd := &cobra.Command{
		Use:   "compact ID|FILE",
		Short: "Summarize a session's older history now, like Claude Code's /compact",
		Long: `Compact restores the live context window of a stored session (ID) and
replaces its older history with a summary, whatever its usage: the most
recent history (20 % of the budget, in tokens, whole rounds) stays verbatim,
the system prompt and first user message stay, and the summary becomes the
compaction note; a previous summary is rolled into the new one. It prints
the tokens before and after, the files whose content went into the summary
request, the retention of the removed part's key facts per category, and
the summary. Unless --dry-run, it writes a compact boundary and the window
as compaction left it (the summary marked isCompactSummary) into the
session, so that a resume starts from the summary.

The summary is written by the extractive summarizer, which needs no model,
unless a provider is configured (--summarizer llm, --provider,
$AGENTCTX_PROVIDER, or $OPENAI_API_KEY / $ANTHROPIC_API_KEY). When the
summarizer fails, times out or returns a summary larger than what it
replaces, compact falls back to keeping the most recent 30 % with a note
that says so.

A FILE (a Claude Code session, an agentctx session file or any transcript
replay reads) is compacted with --dry-run only; import it first
('agentctx sessions import FILE') to write the summary.`,
		Example: `  agentctx compact 0192f3c4-… --instructions "focus on the parser"
  agentctx compact ~/.claude/projects/-home-me-app/8463c716-….jsonl --dry-run
  agentctx compact 0192f3c4-… --summarizer llm --provider anthropic --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if f.budget < 0 {
				return usageError{fmt.Errorf("--budget must be positive, got %d", f.budget)}
			}
			sum, err := f.sum.summarizer()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			var (
				lv *live
				st *session.Recorder
			)
			if isFile(args[0]) {
				if !f.dryRun {
					return usageError{fmt.Errorf("compact %s: a file is compacted with --dry-run only; import it first ('agentctx sessions import %s') to write the summary", args[0], args[0])}
				}
				lives, err := restoreFile(args[0], f.model, f.budget)
				if err != nil {
					return fmt.Errorf("compact %s: %w", args[0], err)
				}
				if len(lives) == 0 {
					return fmt.Errorf("compact %s: no conversation in the file", args[0])
				}
				lv = lives[0]
			} else {
				store, err := openStore(e, home)
				if err != nil {
					return err
				}
				defer closeStore(store, &err)
				if lv, err = restoreStored(ctx, store, args[0], f.model, f.budget); err != nil {
					return err
				}
				if !f.dryRun {
					st = session.NewRecorder(store, args[0])
				}
			}
			root := f.project
			if root == "" && lv.Session != nil {
				root = lv.Session.Project
			}
			s := &compact.Summarize{
				Summarizer: sum, Force: true, Instructions: f.instructions, Logger: e.logger,
				Files: compact.FileAnalyzer{Root: root, ReadContent: true},
			}
			w := lv.Window
			before := w.Size()
			recs, err := s.Compact(ctx, w)
			if err != nil {
				return fmt.Errorf("compact %s: %w", args[0], err)
			}
			rep := compactReport{Source: lv.Source, Budget: w.Budget(), TokensBefore: before, TokensAfter: w.Size(), DryRun: f.dryRun, Records: recs}
			if lv.Session != nil {
				rep.SessionID = lv.Session.ID
			}
			var sr *compact.Record
			for i := range recs {
				if recs[i].Level == compact.LevelSummary {
					sr = &recs[i]
					break
				}
			}
			if sr == nil {
				rep.Summarizer = summarizerName(sum)
				rep.Nothing = true
				return printCompact(e.stdout, rep, f.json)
			}
			rep.Summarizer, rep.FilesIncluded, rep.Fallback, rep.FallbackReason = sr.Summarizer, sr.FilesIncluded, sr.Fallback, sr.FallbackReason
			rep.Retention, rep.Summary, rep.SummaryTokens, rep.DurationMS, rep.Usage = sr.Retention, sr.Summary, sr.SummaryTokens, sr.DurationMS, sr.Usage
			if st != nil {
				meta := session.CompactMetadata{
					Trigger: "manual", PreTokens: before, PostTokens: w.Tokens(),
					FilesIncluded: sr.FilesIncluded, Strategy: s.Name(), Level: compact.LevelSummary.String(), Fallback: sr.Fallback,
					Summarizer: sr.Summarizer, DurationMS: sr.DurationMS, Usage: sr.Usage,
				}
				if err := st.Compacted(ctx, w, meta); err != nil {
					var ce error = err
					if errors.Is(err, session.ErrSessionBusy) || errors.Is(err, session.ErrNotFound) {
						ce = storeError("compact", args[0], err)
					}
					return ce
				}
				rep.Written = true
			}
			return printCompact(e.stdout, rep, f.json)
		},
	}
	addHomeFlag(cmd, &home)
	fl := cmd.Flags()
	fl.StringVar(&f.instructions, "instructions", "", "what the summary should focus on (like Claude Code's /compact <instructions>)")
	fl.StringVar(&f.sum.kind, "summarizer", "auto", summarizerHelp)
	fl.StringVar(&f.sum.provider, "provider", "", "with --summarizer llm, the provider: openai or anthropic")
	fl.StringVar(&f.sum.model, "summary-model", "", "with --summarizer llm, the model that writes the summary (default $AGENTCTX_MODEL)")
	fl.IntVar(&f.budget, "budget", 0, "prompt budget in tokens (default: a replay's saved budget, else the model's default)")
	fl.StringVar(&f.model, "model", "", "count tokens as this model (default: the session's model)")
	fl.StringVar(&f.project, "project", "", "folder the session's relative file paths are read from (default: the session's project)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print what compaction would do; write nothing")
	fl.BoolVar(&f.json, "json", false, "print one JSON object")
	return cmd
}

// compactReport is what `agentctx compact --json` prints. The JSON names
// are part of the command-line contract.
type compactReport struct {
	Source         string             `json:"source"`
	SessionID      string             `json:"session_id,omitempty"`
	Summarizer     string             `json:"summarizer"`
	Budget         int                `json:"budget"`
	TokensBefore   int                `json:"tokens_before"`
	TokensAfter    int                `json:"tokens_after"`
	SummaryTokens  int                `json:"summary_tokens"`
	DurationMS     float64            `json:"duration_ms"`
	FilesIncluded  []string           `json:"files_included"`
	Fallback       bool               `json:"fallback"`
	FallbackReason string             `json:"fallback_reason,omitempty"`
	Retention      *compact.Retention `json:"retention,omitempty"`
	Usage          any                `json:"usage,omitempty"`
	Summary        string             `json:"summary"`
	// Nothing is true when there was no history to summarize.
	Nothing bool             `json:"nothing_to_compact,omitempty"`
	DryRun  bool             `json:"dry_run"`
	Written bool             `json:"written"`
	Records []compact.Record `json:"records"`
}

func printCompact(w io.Writer, r compactReport, asJSON bool) error {
	if asJSON {
		if r.FilesIncluded == nil {
			r.FilesIncluded = []string{}
		}
		if r.Records == nil {
			r.Records = []compact.Record{}
		}
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	if r.Nothing {
		fmt.Fprintf(w, "%s: nothing to compact: the window holds only its pinned messages and the most recent history (%s tokens of %s)\n", r.Source, num(r.TokensBefore), num(r.Budget))
		return nil
	}
	fmt.Fprintf(w, "%s\n", r.Source)
	fmt.Fprintf(w, "  tokens       %s → %s (budget %s); summary %s tokens by %s in %.0f ms\n", num(r.TokensBefore), num(r.TokensAfter), num(r.Budget), num(r.SummaryTokens), r.Summarizer, r.DurationMS)
	if r.Fallback {
		fmt.Fprintf(w, "  FELL BACK    to %s: %s\n", r.Summarizer, r.FallbackReason)
	}
	files := "none"
	if len(r.FilesIncluded) > 0 {
		files = strings.Join(r.FilesIncluded, ", ")
	}
	fmt.Fprintf(w, "  files        %s\n", files)
	printRetention(w, "  retention    ", r.Retention)
	switch {
	case r.Written:
		fmt.Fprintf(w, "  written      compact boundary and summary appended to session %s\n", r.SessionID)
	case r.DryRun:
		fmt.Fprintf(w, "  dry run      nothing written\n")
	}
	fmt.Fprintf(w, "\n%s\n", r.Summary)
	return nil
}
