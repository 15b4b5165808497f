package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/transcript"
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
the summary. A stored session is resumed and compacted as the library
does (agentctx.Resume, Engine.Compact, Engine.Close): unless --dry-run, it
writes a compact boundary, the window as compaction left it (the summary
marked isCompactSummary) and the session's state (the runtime state
tracker, the working memory, the rehydration block) into the session, so
that a resume starts from the summary with nothing else lost. --dry-run
compacts a copy of the session in a temporary store.

The session is compacted under the configuration it recorded (budget,
model, tools, system prompt, strategy); --budget and --model override it,
and the override is recorded in the session. A session that recorded none
(imported with 'agentctx sessions import', or written by an older
agentctx) is compacted under --budget, else its model's default budget
(the context window less a reply reserve and a buffer). The files the
history names are read, for the summary, from the session's project
directory (--project overrides it); when that directory is gone, their
content is left out.

The summary is written by the extractive summarizer, which needs no model,
unless a provider is configured (--summarizer llm, --provider,
$AGENTCTX_PROVIDER, or $OPENAI_API_KEY / $ANTHROPIC_API_KEY). When the
summarizer fails, times out or returns a summary larger than what it
replaces, compact falls back to keeping the most recent 30 % with a note
that says so.

A FILE (a Claude Code session, an agentctx session file or any transcript
replay reads) is compacted with --dry-run only; import it first
('agentctx sessions import FILE') to write the summary. A Claude Code or
Codex FILE is imported into a temporary store and compacted there as an
imported session is (under --budget, else its model's default budget;
files read from the transcript's working directory, or --project); the
other formats are restored and summarized directly, with the files' content
read from --project only.`,
		Example: `  agentctx compact 0192f3c4-… --instructions "focus on the parser"
  agentctx compact ~/.claude/projects/-home-me-app/8463c716-….jsonl --dry-run
  agentctx compact 0192f3c4-… --summarizer llm --provider anthropic --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if err := checkBudget(cmd, f.budget); err != nil {
				return err
			}
			sum, err := f.sum.summarizer()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			file, err := fileOrID("compact", args[0])
			if err != nil {
				return err
			}
			if !file {
				store, err := openSessions(e, home)
				if err != nil {
					return err
				}
				defer closeStore(store, &err)
				rep, err := compactStored(ctx, e, store, args[0], f, sum)
				if err != nil {
					return err
				}
				return printCompact(e.stdout, rep, f.json)
			}
			if !f.dryRun {
				return usageError{fmt.Errorf("compact %s: a file is compacted with --dry-run only; import it first ('agentctx sessions import %s') to write the summary", args[0], args[0])}
			}
			if rep, ok, err := compactFile(ctx, e, args[0], f, sum); ok || err != nil {
				if err != nil {
					return fmt.Errorf("compact %s: %w", args[0], err)
				}
				return printCompact(e.stdout, rep, f.json)
			}
			lives, err := restoreFile(ctx, args[0], f.model, f.budget)
			if err != nil {
				return fmt.Errorf("compact %s: %w", args[0], err)
			}
			if len(lives) == 0 {
				return fmt.Errorf("compact %s: no conversation in the file", args[0])
			}
			lv := lives[0]
			// The files are read from --project only: the process's
			// working directory is not the transcript's.
			s := &compact.Summarize{
				Summarizer: sum, Force: true, Instructions: f.instructions, Logger: e.logger,
				Files: compact.FileAnalyzer{Root: f.project, ReadContent: f.project != ""},
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
			sr := summaryRecord(recs)
			if sr == nil {
				rep.Summarizer = summarizerName(sum)
				rep.Nothing = true
				return printCompact(e.stdout, rep, f.json)
			}
			rep.summary(sr)
			return printCompact(e.stdout, rep, f.json)
		},
	}
	addHomeFlag(cmd, e, &home)
	fl := cmd.Flags()
	fl.StringVar(&f.instructions, "instructions", "", "what the summary should focus on (like Claude Code's /compact <instructions>)")
	fl.StringVar(&f.sum.kind, "summarizer", "auto", summarizerHelp)
	fl.StringVar(&f.sum.provider, "provider", "", "with --summarizer llm, the provider: openai or anthropic")
	fl.StringVar(&f.sum.model, "summary-model", "", "with --summarizer llm, the model that writes the summary (default $AGENTCTX_MODEL)")
	fl.IntVar(&f.budget, "budget", 0, "prompt budget in tokens (default: the one the session recorded, else the model's default); overrides a recorded budget")
	fl.StringVar(&f.model, "model", "", "count tokens as this model (default: the session's model); overrides a recorded model")
	fl.StringVar(&f.project, "project", "", "folder the session's relative file paths are read from (default: the session's project)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print what compaction would do; write nothing")
	fl.BoolVar(&f.json, "json", false, "print one JSON object (JSON Lines)")
	cmd.ValidArgsFunction = completeSessions(e, &home, 1, true)
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
		return writeJSON(w, r)
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

// summaryRecord returns the summary's record among recs, or nil.
func summaryRecord(recs []compact.Record) *compact.Record {
	for i := range recs {
		if recs[i].Level == compact.LevelSummary {
			return &recs[i]
		}
	}
	return nil
}

// summary copies the summary record's fields into r.
func (r *compactReport) summary(sr *compact.Record) {
	r.Summarizer, r.FilesIncluded, r.Fallback, r.FallbackReason = sr.Summarizer, sr.FilesIncluded, sr.Fallback, sr.FallbackReason
	r.Retention, r.Summary, r.SummaryTokens, r.DurationMS, r.Usage = sr.Retention, sr.Summary, sr.SummaryTokens, sr.DurationMS, sr.Usage
}

// compactStored compacts stored session id as the library does: it
// resumes the session (window, tracker, working memory, reminders,
// rehydration block), compacts it with Engine.Compact, which records the
// compaction with the engine's state, and closes the engine, which saves
// the state again and syncs. With --dry-run the same runs on a copy of
// the session's live part in a temporary store, deleted afterwards: the
// session itself is not touched.
func compactStored(ctx context.Context, e *env, store session.Store, id string, f compactFlags, sum compact.Summarizer) (rep compactReport, err error) {
	if err := session.ValidateID(id); err != nil {
		return rep, usageError{err}
	}
	meta, err := store.Get(ctx, id)
	if err != nil {
		return rep, storeError("compact", id, err)
	}
	src := store
	if f.dryRun {
		tmp, err := os.MkdirTemp("", "agentctx-compact-")
		if err != nil {
			return rep, err
		}
		defer os.RemoveAll(tmp)
		cp, err := jsonlstore.Open(jsonlstore.Options{Root: tmp, Logger: e.logger, Version: "agentctx", Sync: jsonlstore.SyncNever})
		if err != nil {
			return rep, err
		}
		defer closeStore(cp, &err)
		if err := copySession(ctx, store, cp, meta); err != nil {
			return rep, fmt.Errorf("compact %s: dry run: %w", id, err)
		}
		src = cp
	}
	recorded, err := hasConfig(ctx, src, id)
	if err != nil {
		return rep, storeError("compact", id, err)
	}
	// Only what the user set: the session's recorded configuration (model,
	// budget, tools, system prompt, strategy) is the engine's to restore.
	// A session that recorded none (imported, or older) is resumed under
	// --budget, else its model's default budget, without the workspace
	// context it never had.
	eng, err := agentctx.Resume(ctx, id, agentctx.Options{
		Store: src, Dir: f.project, Model: f.model, Budget: f.budget,
		NoWorkspace: !recorded, Summarizer: sum, Logger: e.logger,
	})
	if err != nil {
		return rep, storeError("compact", id, err)
	}
	defer func() {
		if cerr := eng.Close(); cerr != nil && err == nil {
			err = storeError("compact", id, cerr)
		}
	}()
	rep = compactReport{Source: id, SessionID: id, Budget: eng.Budget(), TokensBefore: eng.WindowStats().Size, DryRun: f.dryRun}
	recs, err := eng.Compact(ctx, f.instructions)
	if err != nil {
		return rep, storeError("compact", id, err)
	}
	rep.TokensAfter, rep.Records = eng.WindowStats().Size, recs
	sr := summaryRecord(recs)
	if sr == nil {
		rep.Summarizer, rep.Nothing = summarizerName(sum), true
		return rep, nil
	}
	rep.summary(sr)
	rep.Written = !f.dryRun
	return rep, nil
}

// copySession creates session s in dst with the live part of its
// transcript in src (from its last compact boundary on): what a resume
// reads.
func copySession(ctx context.Context, src, dst session.Store, s session.Session) error {
	tr, err := src.Load(ctx, s.ID, session.LoadOptions{})
	if err != nil {
		return err
	}
	if _, err := dst.Create(ctx, s); err != nil {
		return err
	}
	if len(tr.Entries) == 0 {
		return nil
	}
	_, err = dst.Append(ctx, s.ID, tr.Entries...)
	return err
}

// hasConfig reports whether session id recorded the engine's
// configuration (a state entry with a config key), which agentctx.Resume
// restores.
func hasConfig(ctx context.Context, st session.Store, id string) (bool, error) {
	configured := func(en session.Entry) bool {
		if en.Type != session.TypeState {
			return false
		}
		var s struct {
			Config json.RawMessage `json:"config"`
		}
		return json.Unmarshal(en.State, &s) == nil && len(s.Config) > 0 && string(s.Config) != "null"
	}
	if ps, ok := st.(interface{ Path(string) (string, error) }); ok {
		// A store with files (jsonlstore): stream the transcript, decoding
		// only the state lines, instead of loading every entry of a
		// session that may be gigabytes long.
		path, err := ps.Path(id)
		if err != nil {
			return false, err
		}
		return fileHasConfig(ctx, path, configured)
	}
	tr, err := st.Load(ctx, id, session.LoadOptions{All: true})
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(tr.Entries, configured), nil
}

// errFound stops fileHasConfig's reading once a configured state is found.
var errFound = errors.New("found")

// fileHasConfig reports whether a line of the transcript at path is an
// entry for which configured is true, reading line by line and decoding
// only the lines that name the state type.
func fileHasConfig(ctx context.Context, path string, configured func(session.Entry) bool) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	marker := []byte(`"` + session.TypeState + `"`)
	n := 0
	err = session.ReadLines(f, 0, 1, func(l session.Line) error {
		if n++; n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if !bytes.Contains(l.Bytes, marker) {
			return nil
		}
		if en, err := session.DecodeLine(l.Bytes); err == nil && configured(en) {
			return errFound
		}
		return nil
	})
	if errors.Is(err, errFound) {
		return true, nil
	}
	return false, err
}

// compactFile compacts a Claude Code or Codex transcript file as
// compactStored compacts an imported session: imported into a temporary
// store, deleted afterwards. ok is false, with no error, for a format
// that cannot be imported, which the caller compacts itself.
func compactFile(ctx context.Context, e *env, path string, f compactFlags, sum compact.Summarizer) (rep compactReport, ok bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return rep, false, err
	}
	format, err := transcript.Detect(data)
	if err != nil {
		return rep, false, err
	}
	if format != transcript.FormatClaudeCode && format != transcript.FormatCodex {
		return rep, false, nil
	}
	tmp, err := os.MkdirTemp("", "agentctx-compact-")
	if err != nil {
		return rep, true, err
	}
	defer os.RemoveAll(tmp)
	st, err := jsonlstore.Open(jsonlstore.Options{Root: tmp, Logger: e.logger, Version: "agentctx", Sync: jsonlstore.SyncNever})
	if err != nil {
		return rep, true, err
	}
	defer closeStore(st, &err)
	im := &importer{store: st, format: format, sidechains: true, project: f.project}
	r := im.file(ctx, path, true)[0] // the main trajectory
	if r.Status != statusImported {
		return rep, true, errors.New(r.Reason)
	}
	g := f
	g.dryRun = false // the temporary store is the copy
	rep, err = compactStored(ctx, e, st, r.ID, g, sum)
	rep.Source, rep.SessionID, rep.DryRun, rep.Written = path, "", true, false
	return rep, true, err
}
