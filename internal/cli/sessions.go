package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
)

func newSessionsCmd(e *env) *cobra.Command {
	var home string
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, show, check, import, copy, fork and remove stored sessions",
		Long: `Sessions are stored in one SQLite database, <home>/sessions.db, which every
command shares (chat, serve, proxy, replay --save, inspect, report,
compact and these): what one writes the others see. Each entry is kept as
the JSONL line of Claude Code's session files, byte for byte. The folder
(--home) defaults to $AGENTCTX_HOME, else $XDG_DATA_HOME/agentctx, else
~/.local/share/agentctx. The first command run copies the sessions of
the previous default, JSONL files under <home>/projects, into the
database, and leaves the files in place.

--store URL (or $AGENTCTX_STORE) names another store: jsonl:DIR, one JSONL
file per session under DIR/projects/<escaped project path>/<id>.jsonl;
sqlite:PATH; or postgres://…. 'sessions copy' moves sessions between
stores.`,
		Args: unknownCommand,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	addHomeFlag(cmd, e, &home)
	cmd.AddCommand(newListCmd(e, &home), newShowCmd(e, &home), newRmCmd(e, &home), newCheckCmd(e, &home), newImportCmd(e, &home), newCopyCmd(e, &home), newForkCmd(e, &home))
	return cmd
}

type listFlags struct {
	project string
	all     bool
	json    bool
}

func newListCmd(e *env, home *string) *cobra.Command {
	var f listFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the sessions of this project (or of every project)",
		Long: `List prints the stored sessions of the current folder's project (or of
--project DIR, or of every project with --all), the most recently active
first: id, title (the first user prompt), messages in the live window, the
last prompt size the provider reported in tokens, last activity, project.`,
		Example: `  agentctx sessions list
  agentctx sessions list --all --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runList(cmd.Context(), e, *home, f)
		},
	}
	cmd.Flags().StringVar(&f.project, "project", "", "list the sessions of this project folder (default: the current folder)")
	cmd.Flags().BoolVar(&f.all, "all", false, "list the sessions of every project")
	cmd.Flags().BoolVar(&f.json, "json", false, "print one JSON object per session (JSON Lines)")
	return cmd
}

func runList(ctx context.Context, e *env, home string, f listFlags) (err error) {
	if f.all && f.project != "" {
		return usageError{errors.New("sessions list: --project and --all exclude each other")}
	}
	var opts session.ListOptions
	if !f.all {
		if opts.Project, err = projectFlag(f.project); err != nil {
			return err
		}
	}
	st, err := openSessions(e, home)
	if err != nil {
		return err
	}
	defer closeStore(st, &err)
	ss, err := st.List(ctx, opts)
	if err != nil {
		return err
	}
	if f.json {
		enc := newJSONLines(e.stdout)
		for _, s := range ss {
			if err := enc.Encode(s); err != nil {
				return err
			}
		}
		return nil
	}
	if len(ss) == 0 {
		if f.all {
			fmt.Fprintln(e.stdout, "no sessions stored")
		} else {
			fmt.Fprintf(e.stdout, "no sessions for project %s (--all lists every project)\n", opts.Project)
		}
		return nil
	}
	printSessions(e.stdout, ss, time.Now())
	return nil
}

func printSessions(w io.Writer, ss []session.Session, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tMSGS\tTOKENS\tACTIVE\tPROJECT")
	for _, s := range ss {
		title := cut(s.Title, 48)
		if title == "" {
			title = "-"
		}
		tokens := "-"
		if s.PromptTokens > 0 {
			tokens = num(s.PromptTokens)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, title, num(s.Messages), tokens, ago(now, s.LastActivity), homeShort(s.Project))
	}
	_ = tw.Flush()
}

func newRmCmd(e *env, home *string) *cobra.Command {
	return &cobra.Command{
		ValidArgsFunction: completeSessions(e, home, 0, false),
		Use:               "rm ID...",
		Aliases:           []string{"remove", "delete"},
		Short:             "Remove stored sessions",
		Long: `Rm deletes each session's transcript and metadata. A session that another
process is writing (an agent still running) is not removed: rm fails with
exit status 1 and says so.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			st, err := openSessions(e, *home)
			if err != nil {
				return err
			}
			defer closeStore(st, &err)
			failed := false
			for _, id := range args {
				if err := session.ValidateID(id); err != nil {
					return usageError{fmt.Errorf("sessions rm: %w", err)}
				}
				if err := st.Delete(cmd.Context(), id); err != nil {
					if len(args) == 1 {
						return storeError("sessions rm", id, err)
					}
					fmt.Fprintf(e.stderr, "agentctx: %v\n", storeError("sessions rm", id, err))
					failed = true
					continue
				}
				fmt.Fprintf(e.stdout, "removed %s\n", id)
			}
			if failed {
				return errReported
			}
			return nil
		},
	}
}

type showFlags struct {
	json  bool
	full  bool
	model string
}

func newShowCmd(e *env, home *string) *cobra.Command {
	var f showFlags
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print a session's live window, as a resumed agent would see it",
		Long: `Show restores the session's live window (the messages from the last
compaction on, the summary or compaction note first) and prints it: each
message's role and size in tokens, tool calls one line each (name and
arguments, cut), tool results cut to 10 lines or 1,000 characters with a
note of what was left out (--full prints them whole).`,
		Example: `  agentctx sessions show 0192f3c4-…
  agentctx sessions show 0192f3c4-… --full | less`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if file, err := fileOrID("sessions show", args[0]); err != nil {
				return err
			} else if file {
				return usageError{fmt.Errorf("sessions show %s: show takes a stored session's id; 'agentctx inspect %s' shows a file's window", args[0], args[0])}
			}
			st, err := openSessions(e, *home)
			if err != nil {
				return err
			}
			defer closeStore(st, &err)
			lv, err := restoreStored(cmd.Context(), st, args[0], f.model, 0)
			if err != nil {
				return err
			}
			forks, subs, err := childrenOf(cmd.Context(), st, args[0])
			if err != nil {
				return storeError("sessions show", args[0], err)
			}
			if f.json {
				out := showJSON(lv)
				out.Forks = ids(forks)
				out.SubAgents = ids(subs)
				return writeJSON(e.stdout, out)
			}
			printShow(e.stdout, lv, f.full, time.Now())
			printLinks(e.stdout, lv.Session, forks, subs)
			return nil
		},
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print the session and its live window as one JSON object (JSON Lines)")
	cmd.Flags().BoolVar(&f.full, "full", false, "print tool results and long texts whole")
	cmd.Flags().StringVar(&f.model, "model", "", "count tokens as this model does (default: the session's model)")
	cmd.ValidArgsFunction = completeSessions(e, home, 1, false)
	return cmd
}

// shownMessage is one message of `sessions show --json`.
type shownMessage struct {
	Index  int `json:"index"`
	Tokens int `json:"tokens"`
	// Summary marks the compaction note or summary.
	Summary bool         `json:"summary,omitempty"`
	Message chat.Message `json:"message"`
}

type shown struct {
	Session  *session.Session  `json:"session,omitempty"`
	Model    string            `json:"model"`
	Tokens   int               `json:"tokens"`
	Messages []shownMessage    `json:"messages"`
	Problems []session.Problem `json:"problems,omitempty"`
	// Forks are the ids of the sessions forked from this one
	// ([session.MetaParent]), oldest first.
	Forks []string `json:"forks,omitempty"`
	// SubAgents are the ids of the sessions of the sub-agents this
	// session's task tool started ([session.MetaTask]), oldest first.
	SubAgents []string `json:"sub_agents,omitempty"`
}

func showJSON(lv *live) shown {
	out := shown{Session: lv.Session, Model: lv.Info.Name, Tokens: lv.Window.Tokens(), Problems: lv.Problems, Messages: []shownMessage{}}
	w := lv.Window
	for i := range w.Len() {
		out.Messages = append(out.Messages, shownMessage{Index: i, Tokens: w.TokensAt(i), Summary: w.IsNote(i) || i == lv.SummaryAt, Message: w.At(i)})
	}
	return out
}

// childrenOf returns the sessions of st linked to session id (their
// [session.MetaParent]), oldest first: those forked from it, and those
// of the sub-agents it started ([session.MetaTask] set).
func childrenOf(ctx context.Context, st session.Store, id string) (forks, subs []session.Session, err error) {
	ss, err := st.List(ctx, session.ListOptions{})
	if err != nil {
		return nil, nil, err
	}
	slices.SortFunc(ss, func(a, b session.Session) int { return a.Created.Compare(b.Created) })
	for _, s := range ss {
		switch {
		case s.Metadata[session.MetaParent] != id:
		case s.Metadata[session.MetaTask] != "" && s.Metadata[session.MetaForkAt] == "":
			subs = append(subs, s)
		default:
			forks = append(forks, s)
		}
	}
	return forks, subs, nil
}

// ids returns the ids of ss.
func ids(ss []session.Session) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return out
}

// printLinks prints, after a session's window, the session it was forked
// from or started by, those forked from it, and its sub-agents'.
func printLinks(w io.Writer, s *session.Session, forks, subs []session.Session) {
	if s != nil && s.Metadata[session.MetaParent] != "" {
		if t := s.Metadata[session.MetaTask]; t != "" && s.Metadata[session.MetaForkAt] == "" {
			fmt.Fprintf(w, "\nsub-agent of %s, for the task %q\n", s.Metadata[session.MetaParent], t)
		} else {
			fmt.Fprintf(w, "\nforked from %s, its first %s messages\n", s.Metadata[session.MetaParent], s.Metadata[session.MetaForkAt])
		}
	}
	if len(forks) > 0 {
		fmt.Fprintf(w, "\nforks: %s\n", strings.Join(ids(forks), ", "))
	}
	if len(subs) > 0 {
		fmt.Fprintf(w, "\nsub-agents (agentctx sessions show ID reads one's whole transcript):\n")
		for _, x := range subs {
			fmt.Fprintf(w, "  %s  %s\n", x.ID, escapeTerm(cut(x.Metadata[session.MetaTask], 70)))
		}
	}
}

// Limits of `sessions show` without --full.
const (
	showLines    = 10
	showChars    = 1000
	showArgRunes = 120
)

func printShow(w io.Writer, lv *live, full bool, now time.Time) {
	win := lv.Window
	if s := lv.Session; s != nil {
		fmt.Fprintf(w, "session %s", s.ID)
		if s.Title != "" {
			fmt.Fprintf(w, ": %s", cut(s.Title, 70))
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "project %s", homeShort(s.Project))
		if s.GitBranch != "" {
			fmt.Fprintf(w, " (%s)", s.GitBranch)
		}
		fmt.Fprintf(w, ", last active %s", ago(now, s.LastActivity))
		if s.Origin != "" {
			fmt.Fprintf(w, ", from %s", s.Origin)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "live window: %d messages, %s tokens (%s)\n", win.Len(), num(win.Tokens()), lv.Info.Name)
	for _, p := range lv.Problems {
		fmt.Fprintf(w, "repaired: %s\n", problemLine(p))
	}
	for i := range win.Len() {
		m := win.At(i)
		head := string(m.Role)
		if win.IsNote(i) || i == lv.SummaryAt {
			head = "summary (compaction)"
		}
		if r, ok := m.ToolResult(); ok {
			head = "tool result " + r.ToolName
			if r.IsError {
				head += " (error)"
			}
		}
		fmt.Fprintf(w, "\n── #%d %s · %s tokens\n", i, head, num(win.TokensAt(i)))
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.Text:
				if strings.TrimSpace(p.Text) != "" {
					writeBlock(w, p.Text, full)
				}
			case chat.Thinking:
				if p.Text != "" {
					fmt.Fprintf(w, "  [thinking] %s\n", cutUnlessFull(p.Text, full))
				} else {
					fmt.Fprintf(w, "  [thinking: %d bytes encrypted]\n", len(p.Encrypted))
				}
			case chat.ToolCall:
				args := string(p.Arguments)
				if !full {
					args = cut(args, showArgRunes)
				}
				fmt.Fprintf(w, "  → %s %s\n", p.Name, args)
			case chat.ToolResult:
				if strings.TrimSpace(p.Content) == "" {
					fmt.Fprintln(w, "  (empty)")
				} else {
					writeBlock(w, p.Content, full)
				}
			case chat.Image:
				fmt.Fprintf(w, "  [image %s]\n", p.Source)
			case chat.Opaque:
				fmt.Fprintf(w, "  [%s %s, %d bytes]\n", p.Wire, p.Kind, len(p.Raw))
			}
		}
	}
}

func cutUnlessFull(s string, full bool) string {
	if full {
		return s
	}
	return cut(s, showArgRunes)
}

// writeBlock prints text indented by two spaces, cut to showLines lines
// and showChars characters unless full, with a note of what was left.
func writeBlock(w io.Writer, text string, full bool) {
	text = strings.TrimRight(text, "\n")
	lines := strings.Split(text, "\n")
	shownLines, rest := lines, 0
	if !full {
		n, chars := 0, 0
		for n < len(lines) && n < showLines && chars+len(lines[n]) <= showChars {
			chars += len(lines[n]) + 1
			n++
		}
		if n == 0 && len(lines) > 0 { // one very long line: cut it
			shownLines = []string{cut(lines[0], showChars)}
			n = 1
		} else {
			shownLines = lines[:n]
		}
		rest = len(lines) - n
	}
	for _, l := range shownLines {
		fmt.Fprintf(w, "  %s\n", l)
	}
	if rest > 0 {
		fmt.Fprintf(w, "  … %d more lines\n", rest)
	}
}

// problemLine formats a problem as "FILE:LINE (byte OFFSET) KIND uuid U:
// DETAIL", leaving out what is unknown.
func problemLine(p session.Problem) string {
	var loc string
	switch {
	case p.File != "" && p.Line > 0:
		loc = fmt.Sprintf("%s:%d (byte %d)", p.File, p.Line, p.Offset)
	case p.Line > 0:
		loc = fmt.Sprintf("line %d (byte %d)", p.Line, p.Offset)
	case p.File != "":
		loc = fmt.Sprintf("%s (byte %d)", p.File, p.Offset)
	default:
		loc = fmt.Sprintf("byte %d", p.Offset)
	}
	s := loc + " " + string(p.Kind)
	if p.UUID != "" {
		s += " uuid " + p.UUID
	}
	if p.Detail != "" {
		s += ": " + p.Detail
	}
	return s
}
