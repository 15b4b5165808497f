package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/transcript"
)

type checkFlags struct {
	repair bool
	force  bool
	out    string
	json   bool
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
conversation) are counted, not problems. The exit status is 1 when a
problem was found.

--repair writes a repaired copy and never edits the original: beside a
FILE as <name>.repaired.jsonl; for a stored session as <file>.repaired (a
name the store does not list). The copy drops unreadable lines and relinks
the chain in file order. An existing copy is not overwritten unless
--force is given. With --repair the exit status says whether the copy
checks clean.`,
		Example: `  agentctx sessions check ~/.claude/projects/-home-me-app/8463c716-….jsonl
  agentctx sessions check 0192f3c4-… --repair`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCheck(cmd.Context(), e, *home, f, args[0])
		},
	}
	cmd.Flags().BoolVar(&f.repair, "repair", false, "write a repaired copy beside the original (never in place)")
	cmd.Flags().BoolVar(&f.force, "force", false, "with --repair, overwrite an existing repaired copy")
	cmd.Flags().StringVar(&f.out, "out", "", "with --repair, write the copy to this file instead")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the report as one JSON object (JSON Lines)")
	return cmd
}

// checkJSON is what `sessions check --json` prints.
type checkJSON struct {
	Report   session.Report `json:"report"`
	OK       bool           `json:"ok"`
	Repaired *repairJSON    `json:"repaired,omitempty"`
}

type repairJSON struct {
	File string `json:"file"`
	// Dropped are the lines left out of the copy: torn and malformed.
	Dropped []session.Problem `json:"dropped"`
	// Fixes are the links the copy repairs.
	Fixes  []session.Problem `json:"fixes"`
	Report session.Report    `json:"report"`
	OK     bool              `json:"ok"`
}

func runCheck(ctx context.Context, e *env, home string, f checkFlags, arg string) (err error) {
	if (f.force || f.out != "") && !f.repair {
		return usageError{errors.New("sessions check: --force and --out need --repair")}
	}
	path, stored := arg, false
	if !isFile(arg) {
		if verr := session.ValidateID(arg); verr != nil {
			return fmt.Errorf("sessions check: %s is neither a file nor a session id: %w", arg, verr)
		}
		st, err := openStore(e, home)
		if err != nil {
			return err
		}
		p, err := st.Path(arg)
		if cerr := st.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			return storeError("sessions check", arg, err)
		}
		path, stored = p, true
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if !stored {
		if f := foreignFormat(path); f != "" {
			return fmt.Errorf("sessions check: %s is a %s transcript; check reads Claude Code and agentctx session files (import it first: agentctx sessions import %s)", path, f, path)
		}
	}
	entries, readProbs, err := session.ReadFile(path)
	if err != nil {
		return fmt.Errorf("sessions check: %w", err)
	}
	rep := session.Check(entries, readProbs)
	rep.SetFile(path)
	out := checkJSON{Report: rep, OK: rep.OK()}
	if f.repair {
		dst := f.out
		if dst == "" {
			dst = repairedPath(path, stored)
		}
		fixed, fixes := session.Repair(entries)
		for i := range fixes {
			if fixes[i].File == "" {
				fixes[i].File = path
			}
		}
		if err := writeEntries(dst, fixed, f.force); err != nil {
			return fmt.Errorf("sessions check --repair: %w", err)
		}
		again, againProbs, err := session.ReadFile(dst)
		if err != nil {
			return fmt.Errorf("sessions check --repair: %w", err)
		}
		r2 := session.Check(again, againProbs)
		r2.SetFile(dst)
		out.Repaired = &repairJSON{File: dst, Dropped: readProbs, Fixes: fixes, Report: r2, OK: r2.OK()}
		if out.Repaired.Fixes == nil {
			out.Repaired.Fixes = []session.Problem{}
		}
		if out.Repaired.Dropped == nil {
			out.Repaired.Dropped = []session.Problem{}
		}
	}
	if f.json {
		if err := writeJSON(e.stdout, out); err != nil {
			return err
		}
	} else {
		printReport(e.stdout, rep)
		if r := out.Repaired; r != nil {
			fmt.Fprintf(e.stdout, "\nwrote %s: %d lines dropped, %d links repaired\n", r.File, len(r.Dropped), len(r.Fixes))
			for _, p := range r.Dropped {
				fmt.Fprintf(e.stdout, "  dropped %s\n", problemLine(p))
			}
			for _, p := range r.Fixes {
				fmt.Fprintf(e.stdout, "  fixed %s\n", problemLine(p))
			}
			fmt.Fprintf(e.stdout, "the repaired copy checks %s\n", okWord(r.OK))
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
	fmt.Fprintf(w, "  %d problems (%s): %s\n", len(r.Problems), strings.Join(parts, ", "), okWord(r.OK()))
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  %s\n", problemLine(p))
	}
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

// writeEntries writes entries as a transcript file (0600), refusing to
// replace an existing file unless force. The file is written whole and
// synced before it is closed.
func writeEntries(path string, entries []session.Entry, force bool) (err error) {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists; remove it or pass --force", path)
	}
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	bw := bufio.NewWriterSize(f, 256<<10)
	for i, e := range entries {
		line, err := session.MarshalLine(e)
		if err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
		if _, err := bw.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Sync()
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
