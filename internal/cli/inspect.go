package cli

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/window"
)

type inspectFlags struct {
	model  string
	budget int
	json   bool
}

func newInspectCmd(e *env) *cobra.Command {
	var (
		f    inspectFlags
		home string
	)
	cmd := &cobra.Command{
		Use:   "inspect ID|FILE",
		Short: "Break a session's live context window down by category, /context style",
		Long: `Inspect restores the live context window of a stored session (ID) or of a
transcript file (FILE) and shows what it is made of, like Claude Code's
/context: system prompt, user text, assistant text, thinking, tool calls,
tool results, the compaction summary, images, tool schemas and the chat
format's overhead, in tokens and in percent of the model's context window,
with a bar each; then the free space left under the budget and the space
the budget keeps in reserve (the reply and a buffer), and the tool calls
and results by tool name.

A FILE may be a Claude Code session or an agentctx session file (the live
part after the last compact boundary is restored, with the parentUuid chain
repaired where it is broken), or any transcript replay reads (the messages
after the last recorded compaction).

A stored session is restored as the library resumes it (agentctx.Resume),
read-only: inspect never writes to the session. Its model, budget and tool
schemas are the ones the session recorded; --model and --budget override
them for this view. A session that recorded none (imported with
'agentctx sessions import', or written by an older agentctx) and a FILE
are counted with --model, else the model their messages name, under
--budget, else the model's default budget (its context window less a
reply reserve and a buffer). Colors are used only when standard output is
a terminal and NO_COLOR is not set.

With --json, one JSON object per window is printed per line.`,
		Example: `  agentctx inspect 0192f3c4-…
  agentctx inspect ~/.claude/projects/-home-me-app/8463c716-….jsonl
  agentctx inspect rollout-2026-02-23T12-41-04-….jsonl --model gpt-5 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if err := checkBudget(cmd, f.budget); err != nil {
				return err
			}
			var lives []*live
			file, err := fileOrID("inspect", args[0])
			if err != nil {
				return err
			}
			if file {
				lives, err = restoreFile(cmd.Context(), args[0], f.model, f.budget)
				if err != nil {
					return fmt.Errorf("inspect %s: %w", args[0], err)
				}
			} else {
				st, err := openSessions(e, home)
				if err != nil {
					return err
				}
				defer closeStore(st, &err)
				lv, err := restoreStored(cmd.Context(), st, args[0], f.model, f.budget)
				if err != nil {
					return err
				}
				lives = []*live{lv}
			}
			color := colorOn(e.stdout)
			for i, lv := range lives {
				rep := newInspectReport(lv)
				if f.json {
					if err := writeJSON(e.stdout, rep); err != nil {
						return err
					}
					continue
				}
				if i > 0 {
					fmt.Fprintln(e.stdout)
				}
				printInspect(e.stdout, rep, color)
			}
			return nil
		},
	}
	addHomeFlag(cmd, e, &home)
	cmd.Flags().StringVar(&f.model, "model", "", "count tokens and size the context window as this model (default: the session's model)")
	cmd.Flags().IntVar(&f.budget, "budget", 0, "prompt budget in tokens (default: the one the session recorded, else the model's default)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print one JSON object per window (JSON Lines)")
	cmd.ValidArgsFunction = completeSessions(e, &home, 1, true)
	return cmd
}

// inspectRow is one line of the breakdown: tokens and their share of the
// model's context window in percent.
type inspectRow struct {
	Name    string  `json:"name"`
	Tokens  int     `json:"tokens"`
	Percent float64 `json:"percent"`
}

// inspectReport is what `agentctx inspect --json` prints per window. The
// JSON names are part of the command-line contract.
type inspectReport struct {
	Source        string           `json:"source"`
	Session       *session.Session `json:"session,omitempty"`
	Format        string           `json:"format,omitempty"`
	Index         int              `json:"index,omitempty"`
	Model         string           `json:"model"`
	ModelFamily   string           `json:"model_family,omitempty"`
	ContextWindow int              `json:"context_window"`
	Budget        int              `json:"budget"`
	BudgetSource  string           `json:"budget_source"`
	Messages      int              `json:"messages"`
	// Tokens is the window's size: the sum of Categories.
	Tokens  int     `json:"tokens"`
	Percent float64 `json:"percent"`
	// Categories are the breakdown's categories (window.Breakdown), in
	// order; their tokens sum to Tokens.
	Categories []inspectRow `json:"categories"`
	// FreeTokens is the budget left: Budget − Tokens, or 0 when over.
	FreeTokens int `json:"free_tokens"`
	// OverBudget is Tokens − Budget when positive.
	OverBudget int `json:"over_budget,omitempty"`
	// ReservedTokens is the part of the context window outside the budget:
	// the reply reserve and buffer (ContextWindow − Budget).
	ReservedTokens    int          `json:"reserved_tokens"`
	ToolResultsByTool []inspectRow `json:"tool_results_by_tool"`
	ToolCallsByTool   []inspectRow `json:"tool_calls_by_tool"`
	// ProviderTokens is the usage-anchored size: the last prompt size the
	// provider reported plus what was counted since; 0 when no usage was
	// recorded.
	ProviderTokens int `json:"provider_tokens,omitempty"`
	// NextCall is what sending the window as the next prompt would cost;
	// nil when the model has no price.
	NextCall  *inspectCost      `json:"next_call_cost,omitempty"`
	Breakdown window.Breakdown  `json:"breakdown"`
	Problems  []session.Problem `json:"problems,omitempty"`
}

func newInspectReport(lv *live) inspectReport {
	b := lv.Window.Breakdown()
	if i := lv.SummaryAt; i >= 0 && i < lv.Window.Len() {
		// A Claude Code summary is restored as the first user message:
		// count its text as the summary it is.
		n := lv.Window.Counter().Count(lv.Window.At(i).Text())
		n = min(n, b.User)
		b.User -= n
		b.Summary += n
	}
	provider, ok := lv.Window.Anchored()
	if !ok {
		provider = 0
	}
	return inspectReportOf(lv, b, provider)
}

// inspectCost is what sending the window as the next prompt would cost
// (model.CallCost). Tokens is the window's size, the usage-anchored one
// when the provider reported usage.
type inspectCost = model.CallCost

// nextCallCost returns the cost of sending tokens as a prompt to the
// model of info, nil when its price is not known.
func nextCallCost(info model.Info, tokens int) *inspectCost { return model.NextCallCost(info, tokens) }

// engineReport is the inspect report of a running engine's window (the
// chat's /context).
func engineReport(eng *agentctx.Engine) inspectReport {
	lv := &live{Source: eng.ID(), Info: eng.Model(), Budget: eng.Budget(), BudgetSource: eng.BudgetSource(), SummaryAt: -1}
	ws := eng.WindowStats()
	provider := 0
	if ws.Anchor.Set {
		provider = ws.Anchor.Size(ws.Tokens)
	}
	return inspectReportOf(lv, eng.Breakdown(), provider)
}

// inspectReportOf is the report of lv's window, whose breakdown is b and
// usage-anchored size provider (0: no usage seen).
func inspectReportOf(lv *live, b window.Breakdown, provider int) inspectReport {
	cw := lv.Info.ContextWindow
	pct := func(n int) float64 {
		if cw <= 0 {
			return 0
		}
		return 100 * float64(n) / float64(cw)
	}
	rows := func(cs []window.Category) []inspectRow {
		out := make([]inspectRow, 0, len(cs))
		for _, c := range cs {
			out = append(out, inspectRow{Name: c.Name, Tokens: c.Tokens, Percent: pct(c.Tokens)})
		}
		return out
	}
	r := inspectReport{
		Source: lv.Source, Session: lv.Session, Format: lv.Format, Index: lv.Index,
		Model: lv.Info.Name, ModelFamily: lv.Info.Family, ContextWindow: cw,
		Budget: lv.Budget, BudgetSource: lv.BudgetSource,
		Messages: b.Messages, Tokens: b.Total, Percent: pct(b.Total),
		Categories:        rows(b.Categories()),
		FreeTokens:        max(lv.Budget-b.Total, 0),
		OverBudget:        max(b.Total-lv.Budget, 0),
		ReservedTokens:    max(cw-lv.Budget, 0),
		ToolResultsByTool: rows(window.ByTool(b.ToolResultsByTool)),
		ToolCallsByTool:   rows(window.ByTool(b.ToolCallsByTool)),
		Breakdown:         b,
		Problems:          lv.Problems,
		ProviderTokens:    provider,
		NextCall:          nextCallCost(lv.Info, cmp.Or(provider, b.Total)),
	}
	return r
}

// barWidth is the width in columns of a bar for the whole context window.
const barWidth = 40

// eighths are the block characters for 1/8 to 7/8 of a column.
var eighths = []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}

// bar draws n tokens out of total as a bar of at most width columns, in
// eighths of a column; a non-zero n gets at least one eighth.
func bar(n, total, width int) string {
	if n <= 0 || total <= 0 {
		return ""
	}
	e := (n*width*8 + total/2) / total
	e = min(max(e, 1), width*8)
	return strings.Repeat("█", e/8) + eighths[e%8]
}

// categoryColors are the ANSI 256-color codes of the categories, used on
// a terminal only.
var categoryColors = map[string]int{
	window.CategorySystem:      246,
	window.CategoryUser:        39,
	window.CategoryAssistant:   78,
	window.CategoryThinking:    141,
	window.CategoryToolCalls:   214,
	window.CategoryToolResults: 33,
	window.CategorySummary:     205,
	window.CategoryImages:      180,
	window.CategoryReserved:    109,
	window.CategoryOverhead:    240,
}

// label is how a category is called in the table: the window's reserved
// tokens are the tool schemas and the static prompt (the system prompt
// and workspace context an engine sends first), its system-prompt
// category the system messages among the window's messages.
func label(name string) string {
	switch name {
	case window.CategoryReserved:
		return "tool schemas + static prompt"
	case window.CategorySystem:
		return "system messages"
	}
	return name
}

// printInspect writes r for people to w, its bars coloured when color is
// set. The text goes through a [termWriter], the bars (which agentctx
// draws and colours) to the writer under it.
func printInspect(w io.Writer, r inspectReport, color bool) {
	raw := rawWriter(w)
	w = escapingWriter(w)
	paint := func(code int, s string) string {
		if !color || s == "" {
			return s
		}
		return fmt.Sprintf("\x1b[38;5;%dm%s\x1b[0m", code, s)
	}
	src := r.Source
	if r.Session != nil {
		src = "session " + r.Session.ID
		if r.Session.Title != "" {
			src += ": " + cut(r.Session.Title, 60)
		}
	} else if r.Format != "" {
		src = fmt.Sprintf("%s [%s", r.Source, r.Format)
		if r.Index > 0 {
			src += fmt.Sprintf(" #%d", r.Index)
		}
		src += "]"
	}
	fmt.Fprintln(w, src)
	fmt.Fprintf(w, "%s · context window %s tokens · budget %s (%s) · %d messages\n\n",
		r.Model, num(r.ContextWindow), num(r.Budget), r.BudgetSource, r.Messages)
	pct := func(n int) float64 { return 100 * float64(n) / float64(max(r.ContextWindow, 1)) }
	type line struct {
		name   string
		tokens int
		bar    string
	}
	var lines []line
	for _, c := range r.Categories {
		lines = append(lines, line{label(c.Name), c.Tokens, paint(categoryColors[c.Name], bar(c.Tokens, r.ContextWindow, barWidth))})
	}
	lines = append(lines, line{"used", r.Tokens, paint(252, bar(r.Tokens, r.ContextWindow, barWidth))})
	if r.OverBudget > 0 {
		lines = append(lines, line{"over budget", r.OverBudget, paint(196, bar(r.OverBudget, r.ContextWindow, barWidth))})
	} else {
		lines = append(lines, line{"free space", r.FreeTokens, paint(238, strings.ReplaceAll(bar(r.FreeTokens, r.ContextWindow, barWidth), "█", "░"))})
	}
	lines = append(lines, line{"reserved (outside the budget)", r.ReservedTokens, paint(238, strings.ReplaceAll(bar(r.ReservedTokens, r.ContextWindow, barWidth), "█", "▒"))})
	table(w, raw, lines, func(l line) (string, int, string) { return l.name, l.tokens, l.bar }, pct)
	if r.ProviderTokens > 0 {
		fmt.Fprintf(w, "\n  provider-anchored size %s tokens: the last prompt size the provider reported plus what came since,\n  with what the transcript does not record (system prompt, tool schemas) and the provider's own tokenizer\n", num(r.ProviderTokens))
	}
	if c := r.NextCall; c != nil {
		fmt.Fprintf(w, "\n  next call    %s tokens cost %s uncached, %s from a warm cache (%s list price as of %s; the reply not counted)\n",
			num(c.Tokens), dollars(c.UncachedUSD), dollars(c.CachedUSD), r.Model, c.PriceAsOf)
	}
	byTool := func(title string, rows []inspectRow, code int) {
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s\n", title)
		table(w, raw, rows, func(c inspectRow) (string, int, string) {
			return c.Name, c.Tokens, paint(code, bar(c.Tokens, r.ContextWindow, barWidth))
		}, pct)
	}
	byTool("tool results by tool", r.ToolResultsByTool, categoryColors[window.CategoryToolResults])
	byTool("tool calls by tool", r.ToolCallsByTool, categoryColors[window.CategoryToolCalls])
	if len(r.Problems) > 0 {
		fmt.Fprintf(w, "\n%s while loading (see 'agentctx sessions check'):\n", nouns(len(r.Problems), "problem", "problems"))
		for i, p := range r.Problems {
			if i == 5 {
				fmt.Fprintf(w, "  … %d more\n", len(r.Problems)-i)
				break
			}
			fmt.Fprintf(w, "  %s\n", problemLine(p))
		}
	}
}

// table prints rows as "  name  tokens  percent  bar", names padded and
// numbers right-aligned; the bar, which may hold colours, goes to raw, the
// writer under w.
func table[T any](w, raw io.Writer, rows []T, cols func(T) (string, int, string), pct func(int) float64) {
	nameW, numW := 0, 0
	for _, r := range rows {
		name, n, _ := cols(r)
		nameW = max(nameW, utf8.RuneCountInString(name))
		numW = max(numW, len(num(n)))
	}
	for _, r := range rows {
		name, n, b := cols(r)
		fmt.Fprintf(w, "  %s%s  %*s  %5.1f%%  ", name, strings.Repeat(" ", nameW-utf8.RuneCountInString(name)), numW, num(n), pct(n))
		_, _ = io.WriteString(raw, b)
		_, _ = io.WriteString(w, "\n")
	}
}
