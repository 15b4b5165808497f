package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/workspace"
)

type contextFlags struct {
	model    string
	budget   int
	system   string
	json     bool
	noPrompt bool
}

func newContextCmd(e *env) *cobra.Command {
	var f contextFlags
	cmd := &cobra.Command{
		Use:   "context [DIR]",
		Short: "Show the static system prompt a session in DIR would start with, and its size per block",
		Long: `Context gathers a project's static context the way a session does when it
starts (seed 004's getContext): the instruction files (AGENTS.md, CLAUDE.md,
CLAUDE.local.md, GEMINI.md, CRUSH.md, .cursorrules,
.github/copilot-instructions.md, from the repository root down to DIR, plus
the user's AGENTS.md in $XDG_CONFIG_HOME/agentctx, else ~/.config/agentctx)
with their @imports resolved; the directory structure (respecting
.gitignore); the git status; the code style; the README. It prints the assembled system prompt, then a table of
each part's size in tokens and in percent of the model's context window,
and what was refused, cut or missing.

DIR defaults to the current directory. Tokens are counted with --model's
tokenizer (default ` + agentctx.DefaultModel + `). With --budget the prompt is capped at a quarter
of the budget, as the engine caps it (blocks dropped first, then
instruction files cut), and the cap is reported.`,
		Example: `  agentctx context
  agentctx context ~/src/app --model claude-sonnet-4-5
  agentctx context . --json | jq '.parts'
  agentctx context --no-prompt`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if err := checkBudget(cmd, f.budget); err != nil {
				return err
			}
			return runContext(cmd, e, f, dir)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.model, "model", agentctx.DefaultModel, "model whose tokenizer counts and whose context window the percentages refer to")
	fl.IntVar(&f.budget, "budget", 0, "prompt budget in tokens; caps the static prompt at 25% of it, as a session does (default: no cap)")
	fl.StringVar(&f.system, "system", "", "file holding the agent's base system prompt, placed first")
	fl.BoolVar(&f.json, "json", false, "print one JSON object (JSON Lines)")
	fl.BoolVar(&f.noPrompt, "no-prompt", false, "print the table only, not the prompt")
	return cmd
}

// contextReport is the JSON form of `agentctx context`: part of the
// command-line contract.
type contextReport struct {
	Dir           string                  `json:"dir"`
	Root          string                  `json:"root"`
	Repository    bool                    `json:"repository"`
	Model         string                  `json:"model"`
	Encoding      string                  `json:"encoding"`
	ContextWindow int                     `json:"context_window"`
	Budget        int                     `json:"budget,omitempty"`
	Parts         []contextPart           `json:"parts"`
	TotalTokens   int                     `json:"total_tokens"`
	Instructions  []workspace.Instruction `json:"instructions"`
	Dropped       []string                `json:"dropped,omitempty"`
	Notices       []string                `json:"notices"`
	TookMS        float64                 `json:"took_ms"`
	SystemPrompt  string                  `json:"system_prompt"`
}

type contextPart struct {
	Name    string  `json:"name"`
	Tokens  int     `json:"tokens"`
	Percent float64 `json:"percent_of_window"`
}

func runContext(cmd *cobra.Command, e *env, f contextFlags, dir string) error {
	info := model.Lookup(f.model)
	counter, err := model.Counter(info)
	if err != nil {
		return err
	}
	base := ""
	if f.system != "" {
		b, err := os.ReadFile(f.system)
		if err != nil {
			return fmt.Errorf("--system: %w", err)
		}
		base = string(b)
	}
	ws, err := workspace.Gather(cmd.Context(), workspace.Options{Dir: dir, Counter: counter})
	if err != nil {
		return err
	}
	capTokens := 0
	if f.budget > 0 {
		capTokens = f.budget / 4
	}
	st := prompt.BuildStatic(base, ws, counter, prompt.StaticOptions{MaxTokens: capTokens})
	rep := contextReport{
		Dir: ws.Dir, Root: ws.Root, Repository: ws.Repository,
		Model: f.model, Encoding: info.Encoding, ContextWindow: info.ContextWindow, Budget: f.budget,
		TotalTokens: st.Tokens, Instructions: ws.Instructions, Dropped: st.Dropped,
		Notices: []string{}, TookMS: float64(ws.Took.Microseconds()) / 1000, SystemPrompt: st.Text,
	}
	if rep.Instructions == nil {
		rep.Instructions = []workspace.Instruction{}
	}
	for _, r := range st.Rows {
		rep.Parts = append(rep.Parts, contextPart{Name: r.Name, Tokens: r.Tokens, Percent: percentOf(r.Tokens, info.ContextWindow)})
	}
	for _, n := range ws.Notices {
		rep.Notices = append(rep.Notices, n.String())
	}
	if f.json {
		return writeJSON(e.stdout, rep)
	}
	if !f.noPrompt {
		fmt.Fprintln(e.stdout, st.Text)
		fmt.Fprintln(e.stdout)
		fmt.Fprintln(e.stdout, strings.Repeat("─", 72))
	}
	printContextTable(e.stdout, rep)
	return nil
}

func percentOf(n, window int) float64 {
	if window <= 0 {
		return 0
	}
	return 100 * float64(n) / float64(window)
}

func printContextTable(w io.Writer, rep contextReport) {
	repo := "not a git repository"
	if rep.Repository {
		repo = "git repository at " + rep.Root
	}
	fmt.Fprintf(w, "%s (%s)\nmodel %s (%s), context window %s tokens; gathered in %.0f ms\n\n",
		rep.Dir, repo, rep.Model, rep.Encoding, num(rep.ContextWindow), rep.TookMS)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "PART\tTOKENS\t% OF WINDOW\t")
	for _, p := range rep.Parts {
		fmt.Fprintf(tw, "%s\t%s\t%.2f%%\t\n", p.Name, num(p.Tokens), p.Percent)
	}
	fmt.Fprintf(tw, "system prompt, total\t%s\t%.2f%%\t\n", num(rep.TotalTokens), percentOf(rep.TotalTokens, rep.ContextWindow))
	_ = tw.Flush()
	if len(rep.Instructions) > 0 {
		fmt.Fprintln(w, "\ninstruction files:")
		for _, in := range rep.Instructions {
			extra := ""
			if len(in.Imports) > 0 {
				extra = fmt.Sprintf(", %d imports", len(in.Imports))
			}
			if in.Truncated {
				extra += ", TRUNCATED"
			}
			fmt.Fprintf(w, "  %-8s %s (%s bytes, %s tokens%s)\n", in.Scope, in.Rel, num(in.Bytes), num(in.Tokens), extra)
		}
	}
	if len(rep.Dropped) > 0 {
		fmt.Fprintf(w, "\nleft out to fit a quarter of the %s-token budget: %s\n", num(rep.Budget), strings.Join(rep.Dropped, ", "))
	}
	if len(rep.Notices) > 0 {
		fmt.Fprintln(w, "\nnotices:")
		for _, n := range rep.Notices {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
}
