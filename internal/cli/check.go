package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/transcript"
)

type checkFlags struct {
	repair  bool
	inPlace bool
	force   bool
	out     string
	json    bool
}

func newCheckCmd(e *env, home *string) *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check ID|FILE",
		Short: "Validate a session transcript (ours or Claude Code's); --repair writes a fixed copy",
		Long: `Check reads a transcript, a stored session (ID) or a file (FILE: an agentctx
session or a Claude Code session file), and reports its counts (lines,
entries, messages, compact boundaries, side-chain and foreign lines,
entries on abandoned branches) and every problem with its file, line, byte
offset and kind: torn or malformed lines, dangling or looping parentUuid
links, duplicate uuids, tool results without their call, entries after a
torn line, compact boundaries cut short. Abandoned branches (a rewound
conversation) are counted, not problems. A torn line, and the entry after
it, are warnings: a write a crash cut short, which its writer never
reported done, and which loading recovers from. The exit status is 1
when a problem other than a warning was found.

--repair writes a repaired copy and leaves the original alone: beside a
FILE as <name>.repaired.jsonl; for a stored session as <file>.repaired (a
name the store does not list); or to --out. The copy drops unreadable
lines, drops a compaction cut short (its boundary and partial snapshot:
the history before it is whole) and relinks the chain in file order. It
is written to a temporary file renamed into place; an existing copy is
not replaced unless --force is given, and the original itself never is
(--out naming it is refused). With --repair the exit status says whether
the copy checks clean.

--repair --in-place repairs the transcript itself, under the session's
lock (a session another process is writing is refused: try again when it
has finished), and keeps the original beside it as <file>.bak (the
latest backup only). An agent waiting to write then writes to the
repaired file.`,
		Example: `  agentctx sessions check ~/.claude/projects/-home-me-app/8463c716-….jsonl
  agentctx sessions check 0192f3c4-… --repair
  agentctx sessions check 0192f3c4-… --repair --in-place`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCheck(cmd.Context(), e, *home, f, args[0])
		},
	}
	cmd.Flags().BoolVar(&f.repair, "repair", false, "write a repaired copy beside the original")
	cmd.Flags().BoolVar(&f.inPlace, "in-place", false, "with --repair, repair the transcript itself under its lock, keeping the original as <file>.bak")
	cmd.Flags().BoolVar(&f.force, "force", false, "with --repair, overwrite an existing repaired copy (never the original)")
	cmd.Flags().StringVar(&f.out, "out", "", "with --repair, write the copy to this file instead (not the original)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the report as one JSON object (JSON Lines)")
	cmd.ValidArgsFunction = completeSessions(e, home, 1, true)
	return cmd
}

// checkJSON is what `sessions check --json` prints.
type checkJSON struct {
	Report   session.Report `json:"report"`
	OK       bool           `json:"ok"`
	Repaired *repairJSON    `json:"repaired,omitempty"`
}

// checkProblem is a problem as `sessions check --json` prints it:
// session.Problem's fields, with its Repaired flag (reading works around
// the problem: the entry is kept, or the chain relinked in memory;
// nothing is written) named for what it says, "recovered". "repaired" is
// true only on what --repair fixed in the copy it wrote (the repaired
// section's dropped lines and fixed links): without --repair, check
// repairs nothing.
type checkProblem struct {
	Kind      session.ProblemKind `json:"kind"`
	File      string              `json:"file,omitempty"`
	Line      int                 `json:"line,omitempty"`
	Offset    int64               `json:"offset"`
	UUID      string              `json:"uuid,omitempty"`
	Detail    string              `json:"detail"`
	Recovered bool                `json:"recovered,omitempty"`
	Repaired  bool                `json:"repaired,omitempty"`
}

// checkReport is a session.Report with its problems as check prints
// them.
type checkReport struct {
	session.Report
	Problems []checkProblem `json:"problems"`
}

// printedCheck is checkJSON as `sessions check --json` prints it.
type printedCheck struct {
	Report   checkReport    `json:"report"`
	OK       bool           `json:"ok"`
	Repaired *printedRepair `json:"repaired,omitempty"`
}

type printedRepair struct {
	File    string         `json:"file"`
	Backup  string         `json:"backup,omitempty"`
	Dropped []checkProblem `json:"dropped"`
	Fixes   []checkProblem `json:"fixes"`
	Report  checkReport    `json:"report"`
	OK      bool           `json:"ok"`
}

// printed returns c as `sessions check --json` prints it.
func (c checkJSON) printed() printedCheck {
	out := printedCheck{Report: printedReport(c.Report), OK: c.OK}
	if r := c.Repaired; r != nil {
		out.Repaired = &printedRepair{File: r.File, Backup: r.Backup, Dropped: printedProblems(r.Dropped, true),
			Fixes: printedProblems(r.Fixes, true), Report: printedReport(r.Report), OK: r.OK}
	}
	return out
}

func printedReport(r session.Report) checkReport {
	return checkReport{Report: r, Problems: printedProblems(r.Problems, false)}
}

// printedProblems converts ps; repaired says --repair fixed them.
func printedProblems(ps []session.Problem, repaired bool) []checkProblem {
	if ps == nil {
		return nil
	}
	out := make([]checkProblem, len(ps))
	for i, p := range ps {
		out[i] = checkProblem{Kind: p.Kind, File: p.File, Line: p.Line, Offset: p.Offset, UUID: p.UUID, Detail: p.Detail, Recovered: p.Repaired && !repaired, Repaired: repaired}
	}
	return out
}

type repairJSON struct {
	File string `json:"file"`
	// Backup is where --in-place kept the original.
	Backup string `json:"backup,omitempty"`
	// Dropped are the lines left out of the copy: torn and malformed.
	Dropped []session.Problem `json:"dropped"`
	// Fixes are the links the copy repairs.
	Fixes  []session.Problem `json:"fixes"`
	Report session.Report    `json:"report"`
	OK     bool              `json:"ok"`
}

func runCheck(ctx context.Context, e *env, home string, f checkFlags, arg string) (err error) {
	if (f.force || f.out != "" || f.inPlace) && !f.repair {
		return usageError{errors.New("sessions check: --force, --out and --in-place need --repair")}
	}
	if f.inPlace && (f.out != "" || f.force) {
		return usageError{errors.New("sessions check: --in-place replaces the transcript itself: no --out or --force")}
	}
	path, stored := arg, false
	name := path // what the report calls the transcript
	var st *jsonlstore.Store
	file, err := fileOrID("sessions check", arg)
	if err != nil {
		return err
	}
	if !file {
		opened, err := openSessions(e, home)
		if err != nil {
			return err
		}
		defer closeStore(opened, &err)
		var ok bool
		if st, ok = opened.(*jsonlstore.Store); ok {
			p, err := st.Path(arg)
			if err != nil {
				return storeError("sessions check", arg, err)
			}
			path, name, stored = p, p, true
		} else {
			// A database store has no file: check the session's lines,
			// exported as they are stored, in a temporary file.
			if f.inPlace {
				return usageError{fmt.Errorf("sessions check %s: --in-place repairs a JSONL session file; this store keeps each entry whole in a transaction: --repair --out FILE writes a repaired copy", arg)}
			}
			if f.repair && f.out == "" {
				return usageError{fmt.Errorf("sessions check %s: --repair of a session stored in a database needs --out FILE", arg)}
			}
			tmp, err := exportLines(ctx, opened, arg)
			if err != nil {
				return err
			}
			defer os.RemoveAll(filepath.Dir(tmp))
			path, name = tmp, arg
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if !stored {
		if f := foreignFormat(path); f != "" {
			return fmt.Errorf("sessions check: %s is a %s transcript; check reads Claude Code and agentctx session files (import it first: agentctx sessions import %s)", path, f, path)
		}
	}
	var out checkJSON
	if f.repair && f.inPlace {
		rep, err := repairInPlace(ctx, st, arg, path)
		if err != nil {
			return err
		}
		out = rep
	} else if !f.repair {
		// Only the report is needed: CheckFile keeps the entries without
		// their text (a 1 GB session checks in a fraction of its size).
		rep, err := session.CheckFile(path)
		if err != nil {
			return fmt.Errorf("sessions check: %w", err)
		}
		rep.SetFile(name)
		out = checkJSON{Report: rep, OK: rep.OK()}
	} else {
		// Repairing rewrites the entries, so it reads them whole.
		entries, readProbs, err := session.ReadFile(path)
		if err != nil {
			return fmt.Errorf("sessions check: %w", err)
		}
		rep := session.Check(entries, readProbs)
		rep.SetFile(name)
		out = checkJSON{Report: rep, OK: rep.OK()}
		dst := f.out
		if dst == "" {
			dst = repairedPath(path, stored)
		}
		if err := refuseSame(dst, path); err != nil {
			return fmt.Errorf("sessions check --repair: %w", err)
		}
		fixed, dropped, fixes := repairEntries(path, entries, readProbs)
		if err := writeEntries(dst, fixed, f.force); err != nil {
			return fmt.Errorf("sessions check --repair: %w", err)
		}
		out.Repaired = &repairJSON{File: dst, Dropped: dropped, Fixes: fixes}
	}
	if r := out.Repaired; r != nil {
		r2, err := session.CheckFile(r.File)
		if err != nil {
			return fmt.Errorf("sessions check --repair: %w", err)
		}
		r.Report, r.OK = r2, r2.OK()
	}
	if f.json {
		if err := writeJSON(e.stdout, out.printed()); err != nil {
			return err
		}
	} else {
		printReport(e.stdout, out.Report)
		if r := out.Repaired; r != nil {
			fmt.Fprintf(e.stdout, "\nwrote %s: %s dropped, %s repaired\n", r.File, nouns(len(r.Dropped), "line", "lines"), nouns(len(r.Fixes), "link", "links"))
			if r.Backup != "" {
				fmt.Fprintf(e.stdout, "the original is kept as %s\n", r.Backup)
			}
			for _, p := range r.Dropped {
				fmt.Fprintf(e.stdout, "  dropped %s\n", problemLine(p))
			}
			for _, p := range r.Fixes {
				fmt.Fprintf(e.stdout, "  fixed %s\n", problemLine(p))
			}
			what := "the repaired copy"
			if r.Backup != "" {
				what = "the repaired transcript"
			}
			fmt.Fprintf(e.stdout, "%s checks %s\n", what, okWord(r.OK))
		}
	}
	ok := out.OK
	if out.Repaired != nil {
		ok = out.Repaired.OK
	}
	if !ok {
		return errReported
	}
	return nil
}

func okWord(ok bool) string {
	if ok {
		return "OK"
	}
	return "NOT OK"
}

func printReport(w io.Writer, r session.Report) {
	fmt.Fprintln(w, r.File)
	fmt.Fprintf(w, "  lines %s, entries %s, messages %s, compact boundaries %d, side-chain %s, foreign %s, abandoned %s\n",
		num(r.Lines), num(r.Entries), num(r.Messages), r.Boundaries, num(r.Sidechain), num(r.Foreign), num(r.Abandoned))
	if r.Abandoned > 0 {
		fmt.Fprintf(w, "  (abandoned: entries on branches the conversation left, as after a rewind; not a problem)\n")
	}
	if len(r.Problems) == 0 {
		fmt.Fprintln(w, "  no problems: OK")
		return
	}
	counts := map[session.ProblemKind]int{}
	var kinds []string
	for _, p := range r.Problems {
		if counts[p.Kind] == 0 {
			kinds = append(kinds, string(p.Kind))
		}
		counts[p.Kind]++
	}
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%d %s", counts[session.ProblemKind(k)], k))
	}
	if r.OK() {
		fmt.Fprintf(w, "  %s (%s): OK (a write a crash cut short, which loading recovers from; --repair removes it)\n", nouns(len(r.Problems), "warning", "warnings"), strings.Join(parts, ", "))
	} else {
		fmt.Fprintf(w, "  %s (%s): %s\n", nouns(len(r.Problems), "problem", "problems"), strings.Join(parts, ", "), okWord(r.OK()))
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  %s\n", problemLine(p))
	}
}

// exportLines writes stored session id of st, every entry's line as
// stored, to a temporary file (0600, in a folder of its own the caller
// removes) named <id>.jsonl, and returns its path. Errors: a store that
// cannot export whole sessions, the store's (storeError).
func exportLines(ctx context.Context, st session.Store, id string) (path string, err error) {
	ex, ok := st.(session.Exporter)
	if !ok {
		return "", fmt.Errorf("sessions check %s: %T cannot read a session whole; copy it to a JSONL store first ('agentctx sessions copy --to jsonl:DIR %s')", id, st, id)
	}
	_, entries, err := ex.Export(ctx, id)
	if err != nil {
		return "", storeError("sessions check", id, err)
	}
	dir, err := os.MkdirTemp("", "agentctx-check-")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	path = filepath.Join(dir, id+".jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriter(f)
	for en, err := range entries {
		if err != nil {
			_ = f.Close()
			return "", fmt.Errorf("sessions check %s: %w", id, err)
		}
		_, _ = w.Write(en.Raw)
		_ = w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		_ = f.Close()
		return "", err
	}
	return path, f.Close()
}

// repairedPath is where --repair writes by default: <name>.repaired.jsonl
// beside a file; <file>.repaired for a stored session, so that the store
// does not list the copy as a session.
func repairedPath(path string, stored bool) string {
	if stored {
		return path + ".repaired"
	}
	if base, ok := strings.CutSuffix(path, ".jsonl"); ok {
		return base + ".repaired.jsonl"
	}
	return path + ".repaired.jsonl"
}

// repairEntries repairs entries read from path (session.Repair) and
// returns the repaired entries, the lines left out (the read problems that
// drop a line: torn and malformed) and the fixes, each naming path.
func repairEntries(path string, entries []session.Entry, readProbs []session.Problem) (fixed []session.Entry, dropped, fixes []session.Problem) {
	fixed, fixes = session.Repair(entries)
	dropped = []session.Problem{}
	for _, p := range readProbs {
		if p.Kind == session.ProblemMalformed || p.Kind == session.ProblemTornLine && !p.Repaired {
			dropped = append(dropped, p)
		}
	}
	if fixes == nil {
		fixes = []session.Problem{}
	}
	for i := range fixes {
		if fixes[i].File == "" {
			fixes[i].File = path
		}
	}
	return fixed, dropped, fixes
}

// repairInPlace checks and repairs the transcript at path (stored session
// id of st when st is not nil) in place, under its lock, keeping a
// backup (jsonlstore.Store.Rewrite, jsonlstore.RewriteFile). The report
// is of the transcript as the lock found it.
func repairInPlace(ctx context.Context, st *jsonlstore.Store, id, path string) (checkJSON, error) {
	var out checkJSON
	fn := func(src io.Reader, dst io.Writer) error {
		entries, readProbs, err := session.Read(src, session.ReadOptions{File: path, FirstLine: 1})
		if err != nil {
			return err
		}
		rep := session.Check(entries, readProbs)
		rep.SetFile(path)
		out = checkJSON{Report: rep, OK: rep.OK()}
		fixed, dropped, fixes := repairEntries(path, entries, readProbs)
		out.Repaired = &repairJSON{File: path, Dropped: dropped, Fixes: fixes}
		return encodeEntries(dst, fixed)
	}
	var backup string
	var err error
	if st != nil {
		backup, err = st.Rewrite(ctx, id, fn)
	} else {
		backup, err = jsonlstore.RewriteFile(ctx, path, fn)
	}
	if err != nil {
		return out, storeError("sessions check --repair --in-place", path, err)
	}
	out.Repaired.Backup = backup
	return out, nil
}

// refuseSame returns an error when dst names the file src is (the same
// file under another name or through a link included): a repaired copy
// never replaces its original (--in-place does, under the lock).
func refuseSame(dst, src string) error {
	d, err := os.Stat(dst)
	if err != nil {
		return nil // no such file yet
	}
	s, err := os.Stat(src)
	if err != nil {
		return err
	}
	if os.SameFile(d, s) {
		return fmt.Errorf("%s is the transcript being checked; a copy never replaces it (use --in-place to repair it under its lock, keeping a backup)", dst)
	}
	return nil
}

// writeEntries writes entries as a transcript file (0600): to a
// temporary file beside path, synced, then renamed over path when force,
// else linked to path, which refuses to replace an existing file.
func writeEntries(path string, entries []session.Entry, force bool) (err error) {
	if !force {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s exists; remove it or pass --force", path)
		}
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		_ = f.Close()
		_ = os.Remove(f.Name()) // renamed or linked already on success
	}()
	if err := f.Chmod(0o600); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	if err := encodeEntries(bw, entries); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if force {
		return os.Rename(f.Name(), path)
	}
	if err := os.Link(f.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s exists; remove it or pass --force", path)
		}
		return err
	}
	return nil
}

// encodeEntries writes entries as transcript lines to w.
func encodeEntries(w io.Writer, entries []session.Entry) error {
	for i, e := range entries {
		line, err := session.MarshalLine(e)
		if err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// foreignFormat returns the transcript format of the file at path when it
// is a known format other than Claude Code's (whose lines agentctx's
// session files share), judged from its first MiB; else "".
func foreignFormat(path string) transcript.Format {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return ""
	}
	format, err := transcript.Detect(head)
	if err != nil || format == transcript.FormatClaudeCode {
		return ""
	}
	return format
}
