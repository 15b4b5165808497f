package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/agentctx/agentctx/transcript"
)

// Metadata keys of an imported session.
const (
	// metaSidechainOf names the session a Claude Code side-chain
	// (sub-agent) file belongs to.
	metaSidechainOf = "sidechain_of"
)

type importFlags struct {
	from       string
	json       bool
	sidechains bool
	project    string
}

func newImportCmd(e *env, home *string) *cobra.Command {
	var f importFlags
	cmd := &cobra.Command{
		Use:   "import [FILE|DIR...]",
		Short: "Store recorded agent transcripts (Claude Code, Codex, …) as agentctx sessions",
		Long: `Import reads recorded transcripts of every format replay reads (` + formatNames() + `)
and stores each trajectory as an agentctx session, which then lists, shows,
inspects and resumes like a native one. A folder is searched recursively (a
whole ~/.claude/projects tree works). With --from claude or codex and no
path, the agent's own folder is imported: ~/.claude/projects for claude,
~/.codex/sessions for codex.

Each session keeps its original id (Claude Code sessionId, Codex rollout
id), its working directory as the project, its git branch, model, start
time and per-message timestamps. Compactions become compact boundaries:
for Claude Code the boundary then the summary message (isCompactSummary);
for Codex the boundary then the replacement history. A compaction the
transcript records without its summary or replacement is left out (the
history stays whole) and said so.

A file of several trajectories (an OpenHands output.jsonl, an array of
OpenAI conversations) gives one session per trajectory. Sessions of formats
that record no session id get an id derived from the file's path (and the
trajectory's index), so that importing the file again finds them.

Importing is idempotent: a session already imported (the same agent session
id, from this file or a copy of it) is skipped. Claude Code side chains
(sub-agents: <session>/subagents/agent-*.jsonl files, or the isSidechain
lines older versions kept in the main file) are skipped unless --sidechains
is given; then each is stored as its own session, id <session>-<file name>
or <session>-sidechain-<n>, linked to its parent as chat's sub-agents are
(metadata parent_session, and task: the side chain's first request), so
'agentctx sessions show' lists it under its parent.

A folder is searched recursively for the files a reader may accept by
their content, whatever their names (JSON or JSONL, a SQLite store, an
aider history); every other file is skipped with one line on stderr
saying why. A file no reader claims (a stray manifest.json) is skipped
with a note when it was found in a folder, an error when named on the
command line. A path
that does not exist is reported and the others are still imported; the
command then exits 1.`,
		Example: `  agentctx sessions import --from claude
  agentctx sessions import ~/.claude/projects/-home-me-src-app/0f3c….jsonl
  agentctx sessions import ../shared/data/claude-code ../shared/data/codex --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImport(cmd.Context(), e, *home, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from", "", "read files as this format ("+formatNames()+"); claude or codex with no path imports the agent's own folder")
	fl.BoolVar(&f.json, "json", false, "print one JSON object per file (JSON Lines)")
	fl.BoolVar(&f.sidechains, "sidechains", false, "also import Claude Code side-chain (sub-agent) files, each as its own session")
	fl.StringVar(&f.project, "project", "", "project path for sessions whose transcript records no working directory (default: the file's folder)")
	completeFlag(cmd, "from", completeWords(formatList))
	return cmd
}

// importResult is what `sessions import --json` prints for each
// trajectory (one per file for most formats; Index > 0 for the later
// trajectories of a file that holds several).
type importResult struct {
	File        string `json:"file"`
	Index       int    `json:"index,omitempty"`
	Format      string `json:"format,omitempty"`
	Status      string `json:"status"` // imported, skipped, failed
	Reason      string `json:"reason,omitempty"`
	ID          string `json:"id,omitempty"`
	Project     string `json:"project,omitempty"`
	Title       string `json:"title,omitempty"`
	Messages    int    `json:"messages,omitempty"`
	Entries     int    `json:"entries,omitempty"`
	Compactions int    `json:"compactions,omitempty"`
	// Notes lists what could not be mapped exactly (a compaction without
	// its summary, lines the reader skipped).
	Notes []string `json:"notes,omitempty"`
}

const (
	statusImported = "imported"
	statusSkipped  = "skipped"
	statusFailed   = "failed"
)

func runImport(ctx context.Context, e *env, home string, f importFlags, args []string) (err error) {
	var format transcript.Format
	if f.from != "" {
		format, err = transcript.ParseFormat(f.from)
		if err != nil {
			return usageError{fmt.Errorf("--from %q: want one of %s", f.from, formatNames())}
		}
	}
	if len(args) == 0 {
		if format == "" {
			return usageError{errors.New("sessions import: give a FILE or DIR, or --from claude|codex")}
		}
		if format != transcript.FormatClaudeCode && format != transcript.FormatCodex {
			return usageError{fmt.Errorf("sessions import: --from %s with no path: only claude and codex have a folder of their own; give a FILE or DIR", format)}
		}
		dir, err := agentFolder(format)
		if err != nil {
			return err
		}
		args = []string{dir}
	}
	explicit := explicitFiles(args)
	// A path that does not exist is reported and the others imported:
	// the command fails at the end.
	files, passed, cerr := transcript.Scan(args)
	failed := 0
	for _, err := range splitErrors(cerr) {
		fmt.Fprintf(e.stderr, "agentctx: sessions import: %v\n", err)
		failed++
	}
	for _, s := range passed {
		fmt.Fprintf(e.stderr, "agentctx: sessions import: skipped %s: %s (found in a folder)\n", s.Path, s.Reason)
	}
	if len(files) == 0 {
		if failed > 0 {
			return errReported
		}
		return fmt.Errorf("sessions import: no transcript files (JSON, JSONL, SQLite or aider histories) in %s", strings.Join(args, ", "))
	}
	ss, err := openSessions(e, home)
	if err != nil {
		return err
	}
	st, ok := ss.(importStore)
	if !ok {
		_ = ss.Close()
		return fmt.Errorf("sessions import: --store %s cannot import whole sessions", e.store)
	}
	if err != nil {
		return err
	}
	defer closeStore(st, &err)

	imp := importer{store: st, format: format, sidechains: f.sidechains, project: f.project}
	enc := newJSONLines(e.stdout)
	var results []importResult
	for _, file := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, r := range imp.file(ctx, file, explicit[file]) {
			if r.Status == statusFailed {
				failed++
				if !f.json {
					fmt.Fprintf(e.stderr, "agentctx: sessions import: %s: %s\n", r.File, r.Reason)
				}
			}
			results = append(results, r)
			if f.json {
				if err := enc.Encode(r); err != nil {
					return err
				}
			}
		}
	}
	if !f.json {
		printImport(e.stdout, results)
	}
	if failed > 0 {
		return errReported
	}
	return nil
}

// agentFolder returns the folder an agent keeps its transcripts in.
func agentFolder(f transcript.Format) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("sessions import: home folder: %w", err)
	}
	dir := filepath.Join(home, ".claude", "projects")
	if f == transcript.FormatCodex {
		dir = filepath.Join(home, ".codex", "sessions")
	}
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("sessions import: %w", err)
	}
	return dir, nil
}

func printImport(w io.Writer, rs []importResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var n [3]int
	var skipped []importResult
	for _, r := range rs {
		switch r.Status {
		case statusImported:
			n[0]++
			fmt.Fprintf(tw, "imported\t%s\t%s msgs\t%s\t%s\n", r.ID, num(r.Messages), nouns(r.Compactions, "compaction", "compactions"), cut(r.Title, 50))
			for _, note := range r.Notes {
				fmt.Fprintf(tw, "\t  note: %s\n", note)
			}
		case statusSkipped:
			n[1]++
			skipped = append(skipped, r)
		default:
			n[2]++
		}
	}
	_ = tw.Flush()
	for _, r := range skipped {
		name := r.File
		if r.Index > 0 {
			name = fmt.Sprintf("%s #%d", r.File, r.Index)
		}
		fmt.Fprintf(w, "skipped   %s: %s\n", name, r.Reason)
	}
	fmt.Fprintf(w, "%d imported, %d skipped, %d failed\n", n[0], n[1], n[2])
}

// importStore is a session store that imports whole sessions (jsonlstore,
// sqlitestore).
type importStore interface {
	session.Store
	session.Importer
}

// importer stores transcripts in a session store.
type importer struct {
	store      importStore
	format     transcript.Format // forced, or "" to detect
	sidechains bool
	project    string // fallback project, or "" for the file's folder
}

// file imports one transcript file: one result per trajectory, or one
// for the file when it is skipped or cannot be read. explicit is true
// when the user named the file (not found it in a folder): a file no
// reader claims is then a failure rather than a skip.
func (im *importer) file(ctx context.Context, file string, explicit bool) []importResult {
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	r := importResult{File: abs}
	sidechain := isSidechainFile(abs)
	if sidechain && !im.sidechains {
		r.Status, r.Reason = statusSkipped, "Claude Code side-chain (sub-agent) file; use --sidechains to import it"
		return []importResult{r}
	}
	trs, err := transcript.ReadFile(file, transcript.Options{Format: im.format})
	if err != nil {
		if notTrajectory(err, im.format, explicit) {
			r.Status, r.Reason = statusSkipped, "not a transcript of a known format"
			return []importResult{r}
		}
		r.Status, r.Reason = statusFailed, err.Error()
		return []importResult{r}
	}
	out := make([]importResult, 0, len(trs))
	for _, tr := range trs {
		if tr.Format == transcript.FormatClaudeCode && tr.Index > 0 && !im.sidechains {
			out = append(out, importResult{File: abs, Index: tr.Index, Format: string(tr.Format), Status: statusSkipped,
				Reason: "Claude Code inline side chain (sub-agent) " + tr.ID + "; use --sidechains to import it"})
			continue
		}
		parent := ""
		if tr.Format == transcript.FormatClaudeCode && (sidechain || tr.Index > 0) {
			parent = trs[0].ID
			if sidechain {
				parent = tr.ID
			}
		}
		out = append(out, im.trajectory(ctx, tr, abs, sidechain, parent))
	}
	return out
}

// trajectory imports one trajectory of the file abs. sidechain tells
// that the file is a Claude Code side-chain file; parent, when not "",
// is the session a side chain belongs to.
func (im *importer) trajectory(ctx context.Context, tr *transcript.Trajectory, abs string, sidechain bool, parent string) importResult {
	r := importResult{File: abs, Index: tr.Index, Format: string(tr.Format)}
	fail := func(err error) importResult {
		r.Status, r.Reason = statusFailed, err.Error()
		return r
	}
	origin := string(tr.Format) + ":" + abs
	if tr.Index > 0 {
		origin += "#" + strconv.Itoa(tr.Index)
	}
	id := importID(tr, abs, sidechain)
	r.ID = id
	skip := func(s session.Session) importResult {
		r.Status, r.Reason = statusSkipped, "already imported as "+id
		if s.Origin != origin {
			r.Reason += " from " + strings.TrimPrefix(s.Origin, string(tr.Format)+":")
		}
		r.Project, r.Title = s.Project, s.Title
		return r
	}
	// leftover is an empty session an import killed part-way left
	// behind (before imports were written in one step): imported again.
	leftover := false
	if s, err := im.store.Get(ctx, id); err == nil {
		// The id is the agent's own session id: the same session, maybe
		// imported from a copy of the file elsewhere.
		if !strings.HasPrefix(s.Origin, string(tr.Format)+":") {
			return fail(fmt.Errorf("a session with id %s already exists (origin %q)", id, s.Origin))
		}
		if s.Entries > 0 || len(tr.Messages) == 0 {
			return skip(s)
		}
		leftover = true
	} else if !errors.Is(err, session.ErrNotFound) {
		return fail(err)
	}
	var notes []string
	if leftover {
		if err := im.store.Delete(ctx, id); err != nil {
			return fail(fmt.Errorf("removing the empty session a killed import left: %w", err))
		}
		notes = append(notes, "replaced the empty session an interrupted import had left")
	}
	for _, p := range tr.Problems {
		if errors.Is(p.Err, chat.ErrImplausibleUsage) {
			notes = append(notes, fmt.Sprintf("dropped usage: %v", p.Err))
			continue
		}
		notes = append(notes, fmt.Sprintf("skipped line %d (byte %d): %v", p.Line, p.Offset, p.Err))
	}
	if len(tr.Dropped) > 0 {
		notes = append(notes, "left out what the reader did not understand: "+tr.DroppedSummary())
	}
	if tr.Orphans > 0 {
		notes = append(notes, fmt.Sprintf("%d tool results without a call stored as user text", tr.Orphans))
	}
	notes = append(notes, tr.Notes...)
	project := tr.CWD
	if project == "" || !filepath.IsAbs(project) {
		project = im.project
	}
	if project == "" {
		project = filepath.Dir(abs)
	}
	if tr.Started.IsZero() {
		// The transcript records no time: the file's last write, when
		// the run wrote it, stands for the run's time (not the import's).
		if fi, err := os.Stat(abs); err == nil {
			tr.Started = fi.ModTime().UTC()
			notes = append(notes, "the transcript records no time: its file's modification time is the session's")
		}
	}
	meta := map[string]string{}
	if parent != "" {
		// A side chain is a sub-agent's transcript: linked to its parent
		// as chat's task tool links the sessions it starts, so that
		// sessions show lists it with its task (its first request).
		meta[metaSidechainOf] = parent
		meta[session.MetaParent] = parent
		meta[session.MetaTask] = sidechainTask(tr)
	}
	// One step: a kill part-way leaves no session, and the next run
	// imports the file again (jsonlstore.Store.Import). The entries are
	// made as Import writes them, one at a time.
	var (
		entries   int
		convNotes []string
	)
	s, err := im.store.Import(ctx, session.Session{
		ID: id, Project: project, Created: tr.Started, GitBranch: tr.GitBranch,
		Model: tr.Model, Origin: origin, Metadata: meta,
	}, importSeq(tr, &entries, &convNotes))
	if errors.Is(err, session.ErrExists) { // imported meanwhile by another process
		s, gerr := im.store.Get(ctx, id)
		if gerr == nil {
			return skip(s)
		}
	}
	if err != nil {
		return fail(err)
	}
	if got, err := im.store.Get(ctx, id); err == nil {
		s = got
	}
	r.Status = statusImported
	r.Project, r.Title = s.Project, s.Title
	r.Messages, r.Entries, r.Compactions = len(tr.Messages), entries, s.Compactions
	r.Notes = append(convNotes, notes...)
	return r
}

// sidechainTask is what a Claude Code side chain was started for: the
// first line of its first user message (the Task tool's prompt, or the
// compaction agent's request), cut to 100 runes; "sub-agent" when it has
// none.
func sidechainTask(tr *transcript.Trajectory) string {
	for _, m := range tr.Messages {
		if m.Role != chat.RoleUser {
			continue
		}
		for line := range strings.SplitSeq(m.Text(), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				return tooluse.CutRunes(line, 100)
			}
		}
	}
	return "sub-agent"
}

// importSeq yields the entries of tr as [eachImportEntry] makes them,
// for jsonlstore.Store.Import, which writes each before the next is made:
// an import holds the trajectory (whose messages are released as they
// are converted) and one entry. It counts the entries in *n and stores
// the conversion's notes in *notes; a conversion error is yielded last.
func importSeq(tr *transcript.Trajectory, n *int, notes *[]string) iter.Seq2[session.Entry, error] {
	return func(yield func(session.Entry, error) bool) {
		stopped := false
		ns, err := eachImportEntry(tr, func(e session.Entry) error {
			*n++
			if !yield(e, nil) {
				stopped = true
				return errStopImport
			}
			return nil
		})
		*notes = ns
		if err != nil && !stopped {
			yield(session.Entry{}, err)
		}
	}
}

// errStopImport ends eachImportEntry when Import stops reading entries.
var errStopImport = errors.New("import stopped")

// isSidechainFile reports whether path is a Claude Code side-chain file:
// <session>/subagents/agent-*.jsonl.
func isSidechainFile(path string) bool {
	return filepath.Base(filepath.Dir(path)) == "subagents" && strings.HasPrefix(filepath.Base(path), "agent-")
}

// importID returns the session id an imported trajectory is stored under:
// for Claude Code and Codex its own id (sessionId, rollout id; an inline
// side chain's is the session's with "-sidechain-<n>") when valid; for a
// side-chain file, which shares its parent's sessionId, the parent's id
// and the file name; else (other formats, whose ids name a task rather
// than a run, and invalid ids) an id derived from the file's path and the
// trajectory's index, so that importing the same file again finds it.
func importID(tr *transcript.Trajectory, abs string, sidechain bool) string {
	id := ""
	if tr.Format == transcript.FormatClaudeCode || tr.Format == transcript.FormatCodex {
		id = tr.ID
	}
	if sidechain && id != "" {
		id += "-" + strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	}
	if id != "" && session.ValidateID(id) == nil {
		return id
	}
	key := abs
	if tr.Index > 0 {
		key += "#" + strconv.Itoa(tr.Index)
	}
	sum := sha256.Sum256([]byte(key))
	return "import-" + hex.EncodeToString(sum[:12])
}

// importEntries maps a trajectory to session entries: one per message, in
// order, with the message's timestamp where the transcript has one (else
// the one before it, the first messages the trajectory's Started), and
// for each compaction a compact boundary:
//
//   - Claude Code: the boundary (trigger, preTokens), then the summary
//     message, marked isCompactSummary (Claude Code's convention: the
//     summary alone is the window after the boundary, and the messages
//     after it follow).
//   - Codex: the boundary with Messages = the length of the replacement
//     history, then the replacement history (the window the compaction
//     left), then the messages after the compaction. A replacement
//     message whose text is the compaction's summary is marked
//     isCompactSummary.
//
// A compaction recorded without its summary (Claude Code) or replacement
// history (Codex context_compacted alone) is left out: the resumed window
// would otherwise lose history it cannot rebuild. Each is said in notes.
func importEntries(tr *transcript.Trajectory) ([]session.Entry, []string, error) {
	var out []session.Entry
	notes, err := eachImportEntry(tr, func(e session.Entry) error {
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, notes, nil
}

// eachImportEntry is [importEntries] handing each entry to fn as soon as
// it is made, and releasing each message of tr once converted (tr is
// left with empty messages): an import holds the trajectory's text once,
// never its entries too. It stops at the first error of fn and returns
// it.
func eachImportEntry(tr *transcript.Trajectory, fn func(session.Entry) error) ([]string, error) {
	byAt := map[int][]transcript.Compaction{}
	for _, c := range tr.Compactions {
		byAt[c.At] = append(byAt[c.At], c)
	}
	var notes []string
	// A message without a time takes the one before it, the first ones
	// the run's start: every entry has the run's time, none the import's.
	last := tr.Started
	at := func(i int) time.Time {
		if i >= 0 && i < len(tr.Times) && !tr.Times[i].IsZero() { // i is -1 for a compaction in a transcript without messages
			last = tr.Times[i]
		}
		return last
	}
	summaryAt := -1 // index of the message to mark isCompactSummary
	for i := 0; i <= len(tr.Messages); i++ {
		for _, c := range byAt[i] {
			boundary := session.Entry{
				Type: session.TypeSystem, Subtype: session.SubtypeCompactBoundary,
				CompactMetadata: &session.CompactMetadata{Trigger: c.Trigger, PreTokens: c.PreTokens},
				Timestamp:       at(min(i, len(tr.Messages)-1)),
			}
			switch {
			case len(c.Replacement) > 0:
				boundary.CompactMetadata.Messages = len(c.Replacement)
				if err := fn(boundary); err != nil {
					return nil, err
				}
				for k, m := range c.Replacement {
					e, err := session.NewMessageEntry(m)
					if err != nil {
						return nil, fmt.Errorf("compaction before message %d, replacement %d: %w", i, k, err)
					}
					e.Timestamp = boundary.Timestamp
					if c.Summary != "" && m.Role == chat.RoleUser && m.Text() == c.Summary {
						e.IsCompactSummary = true
					}
					if err := fn(e); err != nil {
						return nil, err
					}
				}
			case c.Replacement == nil && i < len(tr.Messages) && c.Summary != "" && tr.Messages[i].Text() == c.Summary:
				if err := fn(boundary); err != nil {
					return nil, err
				}
				summaryAt = i
			default:
				notes = append(notes, fmt.Sprintf("compaction before message %d has no summary or replacement history; kept the whole history", i))
			}
		}
		if i == len(tr.Messages) {
			break
		}
		e, err := session.NewMessageEntry(tr.Messages[i])
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		e.Timestamp = at(i)
		if i == summaryAt {
			e.IsCompactSummary = true
		}
		tr.Messages[i] = chat.Message{} // converted: let its text go
		if err := fn(e); err != nil {
			return nil, err
		}
	}
	return notes, nil
}
