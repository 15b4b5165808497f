package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/agent"
	"github.com/agentctx/agentctx/agent/tools"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
)

// chatFlags are the flags of `agentctx chat`.
type chatFlags struct {
	prompt   string
	json     bool
	yes      bool
	maxTurns int
	model    string
	provider string
	budget   int
	home     string
	outside  bool
}

// chatSystemPrompt is the reference agent's base system prompt.
const chatSystemPrompt = `You are agentctx's reference coding agent, working in the user's project.
Read before you change; make the smallest change that does the task; run the
project's tests to check your work. Use the tools: read_file, search,
list_files to explore; edit_file and write_file to change files;
run_command to build and test; todo_write to plan multi-step work;
note_finding to keep what you learn; recall_output to read back a tool
output that was cut. When the task is done, answer with a short summary.`

func newChatCmd(e *env) *cobra.Command {
	var f chatFlags
	cmd := &cobra.Command{
		Use:   "chat [DIR]",
		Short: "Run the reference coding agent on the project in DIR (print mode with -p)",
		Long: `Chat runs agentctx's reference coding agent (the seeds' agent) on the
project in DIR (default: the current directory), on the Engine: every model
call within the budget, interrupted calls answered, overflows recovered,
the session stored like any other.

This version has the print mode only, for scripts and CI (like claude -p
and codex exec): -p PROMPT runs until the model stops or --max-turns, prints
the final answer (or, with --json, one JSON event per line), and exits
non-zero on failure. Writes and commands need --yes (a dangerous command,
such as rm -rf / or git push --force, is refused even then).

The model comes from the environment (AGENTCTX_PROVIDER, AGENTCTX_MODEL,
OPENAI_API_KEY / OPENAI_BASE_URL for OpenAI-compatible servers such as
Ollama, vLLM or llama.cpp, ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL) or the
flags.`,
		Example: `  agentctx chat -p "fix the failing test" --yes
  OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_API_KEY=ollama agentctx chat -p "explain main.go" --model qwen2.5-coder
  agentctx chat ~/src/app -p "run the tests" --yes --json | jq .kind`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if f.prompt == "" {
				return usageError{errors.New("the interactive mode is not there yet: give the task with -p PROMPT")}
			}
			if f.maxTurns < 0 || f.budget < 0 {
				return usageError{errors.New("--max-turns and --budget must not be negative")}
			}
			return runChat(cmd, e, f, dir)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.prompt, "print", "p", "", "run this task in print mode and print the final answer")
	fl.BoolVar(&f.json, "json", false, "with -p: print the agent's events as JSON Lines")
	fl.BoolVar(&f.yes, "yes", false, "allow writes and commands without asking (dangerous commands stay refused)")
	fl.IntVar(&f.maxTurns, "max-turns", 50, "most model calls for the task")
	fl.StringVar(&f.model, "model", "", "model name (default: $AGENTCTX_MODEL, else the provider's default)")
	fl.StringVar(&f.provider, "provider", "", "openai or anthropic (default: $AGENTCTX_PROVIDER, else from the API keys set)")
	fl.IntVar(&f.budget, "budget", 0, "prompt budget in tokens (default: the model's)")
	fl.BoolVar(&f.outside, "allow-outside", false, "let the tools read and write outside DIR")
	addHomeFlag(cmd, &f.home)
	return cmd
}

func runChat(cmd *cobra.Command, e *env, f chatFlags, dir string) (err error) {
	ctx := cmd.Context()
	root, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return usageError{fmt.Errorf("%s is not a directory", dir)}
	}
	cfg := provider.FromEnv(provider.Config{Provider: f.provider, Model: f.model})
	llm, err := newModel(cfg)
	if err != nil {
		return fmt.Errorf("chat: %w (set %s, or point %s at a local server)", err, provider.KeyVar(cfg.Provider), baseURLVar(cfg.Provider))
	}
	store, err := openStore(e, f.home)
	if err != nil {
		return err
	}
	defer closeStore(store, &err)
	env := tools.Env{Root: root, AllowOutside: f.outside}
	// The definitions only: the tools that need the engine are built
	// again once it is open.
	defEnv := env
	defEnv.Engine = new(agentctx.Engine)
	defs := toolDefs(tools.Default(defEnv))
	eng, err := agentctx.Open(ctx, agentctx.Options{
		Store: store, Dir: root, Model: cfg.Model, Budget: f.budget, Origin: "chat",
		SystemPrompt: chatSystemPrompt, Tools: append(defs, agentctx.RecallTool()), Logger: e.logger,
	})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := eng.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	env.Engine = eng
	enc := json.NewEncoder(e.stdout)
	a, err := agent.New(agent.Options{
		Engine: eng, Model: llm, Tools: tools.Default(env), MaxTurns: f.maxTurns,
		Permission: &agent.Guard{Yes: f.yes},
		Events: func(ev agent.Event) {
			if f.json {
				_ = enc.Encode(ev)
			}
		},
	})
	if err != nil {
		return err
	}
	res, err := a.Run(ctx, f.prompt)
	if f.json {
		_ = enc.Encode(map[string]any{"kind": "result", "session_id": eng.ID(), "result": res})
	} else if res.Text != "" {
		fmt.Fprintln(e.stdout, res.Text)
	}
	if err != nil {
		return fmt.Errorf("chat: %w", err)
	}
	if res.StopReason != agent.StopDone {
		return fmt.Errorf("chat: stopped: %s after %d model calls (session %s)", res.StopReason, res.ModelCalls, eng.ID())
	}
	return nil
}

// toolDefs returns the definitions of ts.
func toolDefs(ts []tools.Tool) []chat.ToolDef {
	out := make([]chat.ToolDef, 0, len(ts))
	for _, t := range ts {
		if t.Def().Name == agentctx.RecallToolName {
			continue
		}
		out = append(out, t.Def())
	}
	return out
}

// baseURLVar names the base-URL variable of a provider.
func baseURLVar(p string) string {
	if p == provider.ProviderAnthropic {
		return provider.EnvAnthropicBaseURL
	}
	return provider.EnvOpenAIBaseURL
}
