package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/agent"
	"github.com/agentctx/agentctx/agent/sandbox"
	"github.com/agentctx/agentctx/agent/tools"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/anthropic"
	"github.com/agentctx/agentctx/provider/openai"
	"github.com/agentctx/agentctx/session"
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
	network  bool
	unboxed  bool
	readOnly []string
	cont     bool
	resume   string
}

// chatSystemPrompt is the reference agent's base system prompt.
const chatSystemPrompt = `You are agentctx's reference coding agent, working in the user's project.
Read before you change; make the smallest change that does the task; run the
project's tests to check your work. Use the tools: read_file, search,
list_files to explore; edit_file and write_file to change files;
run_command to build and test; todo_write to plan multi-step work;
note_finding to keep what you learn; recall_output to read back a tool
output that was cut; task to hand a self-contained search or survey to a
sub-agent with a fresh context, which reports back only its answer
(several task calls in one reply run at once). When the task is done,
answer with a short summary.`

// chatSubagentPrompt is the system prompt of the task tool's sub-agents.
const chatSubagentPrompt = `You are a sub-agent of agentctx's reference coding agent, working in the
user's project on one task the agent gave you. Use the tools to do it:
read_file, search, list_files to explore; edit_file and write_file to
change files when the task asks; run_command to build and test. Your
final answer is all the agent will see of your work: make it a short,
self-contained report of what you found or did (paths and line numbers
where they help), not of how.`

func newChatCmd(e *env) *cobra.Command {
	var f chatFlags
	cmd := &cobra.Command{
		Use:   "chat [DIR]",
		Short: "Run the reference coding agent on the project in DIR (interactive, or print mode with -p)",
		Long: `Chat runs agentctx's reference coding agent (the seeds' agent) on the
project in DIR (default: the current directory), on the Engine: every model
call within the budget, interrupted calls answered, overflows recovered,
the session stored like any other.

Without -p, chat is interactive: type a request and Enter; the model's
text streams in, each tool call shows on a line with the first and last
lines of its output, and a status line ends each turn (the prompt's size
against the budget, the share cached, the session's compactions and
cost). --continue or --resume first recaps the session: the last
request, the todo list, the files changed.

Keys and input:
  Enter              send the message
  Alt-Enter          a new line in the message (also a line ending in \)
  paste              a paste is one message, however many lines
  @PATH              attach a file of the project (paths outside it are refused)
  !COMMAND           run a command yourself, in the agent's sandbox; its
                     output goes to the model with your next message
  Ctrl-O             the whole output of the last tool (also /expand)
  Tab                complete a slash command; Up/Down: history
  Ctrl-C             interrupt the model or a command; twice at an empty
                     prompt: exit (the session stays stored)

Permissions: reads run freely; before a write or an edit the change is
shown as a diff, and writes and commands ask, answered with one key:
  y   run it
  n   refuse it and stop the turn; then say what to do instead (that is
      your next message; the model is told you refused)
  a   run it and allow its like from now on: an allow rule such as
      "write_file" or "run_command(go test:*)" in .agentctx/settings.json
The project's rules are read at start from .agentctx/settings.json,
{"permissions": {"allow": [...], "ask": [...], "deny": [...]}}, with
Claude Code's syntax (Bash(go test:*), Edit(src/**), Read, Write(*.md);
our tool names work too): deny first, then ask, then allow. --yes allows
what no rule denies or asks.

Sub-agents: the model may hand a self-contained piece of work (a search
through many files, a survey, a review) to a sub-agent with the task
tool. It runs on a session of its own: its own window and budget, this
session's tools but task, the same permissions and sandbox. Its tool
calls show as nested lines under the task's; only its final answer and
its session's id come back into this session's context. Several task
calls in one reply run at once. 'agentctx sessions show ID' lists a
session's sub-agents, and shows one's whole transcript.

File checkpoints: before each write_file or edit_file, the file as it was
is kept (in the session store's folder, per message of yours). /rewind
lists your last nine messages and one key picks one: the conversation
goes back to before it (what followed stays stored, as a branch), the
message comes back at the prompt, and the files the agent wrote since
are restored (a file it created is removed). A file changed since by
something else (you, a command) is left alone and named. What commands
change is not tracked. /fork goes on in a copy of the session, the
original kept as it is.

Slash commands:
` + slashHelp() + `
Print mode, for scripts and CI (like claude -p and codex exec): -p PROMPT
runs until the model stops or --max-turns, prints the final answer (or,
with --json, one JSON event per line), and exits non-zero on failure. A
write or command that neither --yes nor an allow rule allows stops it:
it exits 1 naming the refused call.

Commands run in an OS sandbox (bubblewrap; Debian/Ubuntu: apt-get install
bubblewrap): they may write only in DIR, a private /tmp and Go's build
cache; the home directory (~/.ssh, ~/.aws, ~/.config and the rest, DIR
excepted) and /etc/shadow are hidden, the Go module cache excepted
(--sandbox-read adds paths); there is no network unless --allow-network
(or AGENTCTX_ALLOW_NETWORK=1); nothing a command starts outlives it. The
agent's API keys and other credentials (*_API_KEY, *_TOKEN, *SECRET*,
*PASSWORD*, AWS_*, OPENAI_*, ANTHROPIC_* …) are removed from the
commands' environment. Where no sandbox can run (bwrap missing, no user
namespaces in a container) or with --no-sandbox, chat says so at start and
asks before every command, even with --yes; in print mode, where no one
can answer, every command is refused.

--yes still asks (and print mode refuses) a command whose shell syntax
shows a hazard: rm -r outside DIR or of / or ~, find -delete or -exec rm,
a pipe into a shell (curl … | sh), bash -c or eval of such a command or
of a script built when it runs, recursive chmod/chown outside DIR, writes
to devices (> /dev/sda, dd of=/dev/…), mkfs, a fork bomb, git push
--force, kill -1, shutdown.

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
			if f.maxTurns < 0 {
				return usageError{errors.New("--max-turns must not be negative")}
			}
			if err := checkBudget(cmd, f.budget); err != nil {
				return err
			}
			return runChat(cmd, e, f, dir)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.prompt, "print", "p", "", "run this task in print mode and print the final answer")
	fl.BoolVar(&f.json, "json", false, "with -p: print the agent's events as JSON Lines")
	fl.BoolVar(&f.yes, "yes", false, "allow writes and commands without asking (hazardous commands, and every command without a sandbox, are still asked)")
	fl.IntVar(&f.maxTurns, "max-turns", 50, "most model calls for the task")
	fl.StringVar(&f.model, "model", "", "model name (default: $AGENTCTX_MODEL, else the provider's default)")
	fl.StringVar(&f.provider, "provider", "", "openai or anthropic (default: $AGENTCTX_PROVIDER, else from the API keys set)")
	fl.IntVar(&f.budget, "budget", 0, "prompt budget in tokens (default: the model's)")
	fl.BoolVar(&f.outside, "allow-outside", false, "let the file tools read and write outside DIR (commands stay sandboxed)")
	fl.BoolVar(&f.network, "allow-network", os.Getenv("AGENTCTX_ALLOW_NETWORK") == "1", "let sandboxed commands use the network (default: $AGENTCTX_ALLOW_NETWORK=1)")
	fl.BoolVar(&f.unboxed, "no-sandbox", false, "run commands without the sandbox; every command is then asked, even with --yes")
	fl.StringArrayVar(&f.readOnly, "sandbox-read", nil, "a path hidden by the sandbox (under the home) that commands may read; repeatable (the Go module cache is by default)")
	fl.BoolVarP(&f.cont, "continue", "c", false, "resume the project's latest chat session")
	fl.StringVar(&f.resume, "resume", "", "resume the session with this ID")
	addHomeFlag(cmd, e, &f.home)
	completeFlag(cmd, "resume", completeSessions(e, &f.home, 0, false))
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
	store, err := openSessions(e, f.home)
	if err != nil {
		return err
	}
	defer closeStore(store, &err)
	home, _ := os.UserHomeDir()
	rules, err := agent.LoadRules(filepath.Join(root, agent.SettingsFile))
	if err != nil {
		return fmt.Errorf("chat: the permission rules: %w", err)
	}
	s := &chatSession{e: e, f: f, root: root, store: store, guard: &agent.Guard{Yes: f.yes, Root: root, Home: home, Rules: rules}}
	defer func() {
		if cerr := s.close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	cleanup, err := s.confine(ctx)
	if err != nil {
		return err
	}
	defer cleanup()
	if s.sandbox == nil && f.prompt != "" {
		// The interactive chat's banner says it.
		fmt.Fprintf(e.stderr, "agentctx chat: %s: every command will be refused (print mode has no one to ask)\n", s.unconfined)
	}
	id, err := s.startID(ctx)
	if err != nil {
		return err
	}
	if f.prompt == "" {
		if err := s.open(ctx, id, agentctx.Options{}); err != nil {
			return err
		}
		return runREPL(ctx, s)
	}
	// No one to ask: a call neither --yes nor an allow rule allows
	// stops the task, named.
	s.guard.Ask = func(_ context.Context, call chat.ToolCall, _ tools.Access, reason string) (agent.Decision, error) {
		if reason != "" {
			// What --yes never allows: refused, and the task goes on.
			return agent.DecisionDeny, &agent.Refusal{By: "agentctx chat -p", Reason: reason + "; print mode asks no one, and --yes does not allow it"}
		}
		why := "print mode asks no one; pass --yes, or allow it in " + agent.SettingsFile + ` (e.g. "allow": ["` + agent.AlwaysRule(call).String() + `"])`
		return agent.DecisionDeny, &agent.Refusal{By: "agentctx chat -p", Reason: why, Stop: true}
	}
	enc := newJSONLines(e.stdout)
	if f.json {
		s.onEvent = func(ev agent.Event) { _ = enc.Encode(ev) }
	}
	if err := s.open(ctx, id, agentctx.Options{}); err != nil {
		return err
	}
	res, err := s.agent.Run(ctx, f.prompt)
	if f.json {
		_ = enc.Encode(map[string]any{"kind": "result", "session_id": s.eng.ID(), "result": res})
	} else if res.Text != "" {
		fmt.Fprintln(e.stdout, res.Text)
	}
	if err != nil {
		return fmt.Errorf("chat: %w%s", err, s.hint(err))
	}
	if res.StopReason == agent.StopDenied {
		c := res.Refusal.Call
		return fmt.Errorf("chat: refused %s %s: %s (session %s)", c.Name, callSummary(&agent.ToolCallEvent{Name: c.Name, Arguments: c.Arguments}), res.Refusal.Reason, s.eng.ID())
	}
	if res.StopReason != agent.StopDone {
		return fmt.Errorf("chat: stopped: %s after %d model calls (session %s)", res.StopReason, res.ModelCalls, s.eng.ID())
	}
	return nil
}

// chatSession is the agent of one `agentctx chat`: the session's engine,
// the model and the loop over them. /clear, /resume, /model and /budget
// open another engine in place.
type chatSession struct {
	e     *env
	f     chatFlags
	root  string
	store session.Store
	guard *agent.Guard
	// sandbox confines run_command; nil when none can run, unconfined
	// saying why.
	sandbox    *sandbox.Sandbox
	unconfined string
	// onEvent receives the agent's events. Optional.
	onEvent func(agent.Event)

	cfg   provider.Config
	llm   provider.Model
	eng   *agentctx.Engine
	agent *agent.Agent
	// env and tools are the session's tools, for the user's !command
	// and @path.
	env   tools.Env
	tools []tools.Tool
	// checkpoints keeps the pre-images of the files the agent writes,
	// for /rewind.
	checkpoints *agent.Checkpoints
}

// tool returns the session's tool named name, nil if none.
func (s *chatSession) tool(name string) tools.Tool {
	for _, t := range s.tools {
		if t.Def().Name == name {
			return t
		}
	}
	return nil
}

// startID returns the session to start with: "" for a new one, the
// project's latest chat session with --continue, the --resume one.
func (s *chatSession) startID(ctx context.Context) (string, error) {
	switch {
	case s.f.resume != "" && s.f.cont:
		return "", usageError{errors.New("--continue and --resume exclude each other")}
	case s.f.resume != "":
		if err := session.ValidateID(s.f.resume); err != nil {
			return "", usageError{err}
		}
		return s.f.resume, nil
	case s.f.cont:
		ss, err := s.store.List(ctx, session.ListOptions{Project: s.root})
		if err != nil {
			return "", err
		}
		for _, x := range ss {
			if x.Origin == chatOrigin {
				return x.ID, nil
			}
		}
		return "", fmt.Errorf("--continue: no chat session in %s yet ('agentctx sessions list' shows the stored ones)", homeShort(s.root))
	}
	return "", nil
}

// confine sets up the sandbox the session's commands run in, with a
// private temporary folder for its /tmp, removed by cleanup. Without one
// (--no-sandbox, or sandbox.ErrUnavailable) the guard asks every command
// and s.unconfined says why.
func (s *chatSession) confine(ctx context.Context) (cleanup func(), err error) {
	cleanup = func() {}
	if s.f.unboxed {
		s.guard.Unconfined, s.unconfined = true, "--no-sandbox: commands run unconfined"
		return cleanup, nil
	}
	tmp, err := os.MkdirTemp("", "agentctx-chat-")
	if err != nil {
		return cleanup, err
	}
	cleanup = func() { _ = os.RemoveAll(tmp) }
	readOnly := slices.Clone(s.f.readOnly)
	if mc := goModCache(); mc != "" {
		readOnly = append(readOnly, mc)
	}
	var writable []string
	if bc := goBuildCache(); bc != "" {
		writable = append(writable, bc)
	}
	sb, err := sandbox.New(ctx, sandbox.Policy{Root: s.root, TempDir: tmp, Network: s.f.network, Home: s.guard.Home, ReadOnly: readOnly, Writable: writable})
	switch {
	case errors.Is(err, sandbox.ErrUnavailable):
		s.guard.Unconfined, s.unconfined = true, err.Error()
		return cleanup, nil
	case err != nil:
		cleanup()
		return func() {}, err
	}
	s.sandbox = sb
	return cleanup, nil
}

// goModCache returns the Go module cache when it exists: the sandbox
// lets commands read it, so that go build works offline in a home it
// hides. "" when there is none.
func goModCache() string {
	dir := os.Getenv("GOMODCACHE")
	if dir == "" {
		gopath := os.Getenv("GOPATH")
		if gopath == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return ""
			}
			gopath = filepath.Join(home, "go")
		}
		dir = filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	return dir
}

// goBuildCache returns Go's build cache when it exists ($GOCACHE, else
// go-build in the user's cache folder): the sandbox lets commands write
// it, or every go build in a chat would start cold (close to a minute
// for a small test on a loaded machine). "" when there is none.
func goBuildCache() string {
	dir := os.Getenv("GOCACHE")
	if dir == "off" {
		return ""
	}
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(cache, "go-build")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	return dir
}

// chatOrigin is the Origin of the sessions chat starts.
const chatOrigin = "chat"

// open closes the current engine, if any, and opens a new session (id
// "") or resumes id with the options in over (Model, Budget) overriding
// what the session recorded (over.Policy: a budget computed again for
// the model). The model is --model (or over's), else the
// session's, else $AGENTCTX_MODEL, else the provider's default.
func (s *chatSession) open(ctx context.Context, id string, over agentctx.Options) error {
	if err := s.close(); err != nil {
		return err
	}
	name := cmp.Or(over.Model, s.f.model)
	cfg := provider.FromEnv(provider.Config{Provider: s.f.provider, Model: name})
	cfg.Model = cmp.Or(cfg.Model, defaultModel(cfg.Provider))
	// Before a session is opened: no key, no session.
	llm, err := newModel(cfg)
	if err != nil {
		return fmt.Errorf("chat: %w%s", err, setupHint(cfg.Provider, err))
	}
	if id == "" {
		name = cfg.Model
	}
	env := tools.Env{Root: s.root, AllowOutside: s.f.outside, Sandbox: s.sandbox}
	// The definitions only: the tools that need the engine are built
	// again once it is open.
	defEnv := env
	defEnv.Engine = new(agentctx.Engine)
	// The summarizer's model is the session's, known once it is open.
	sum := &compact.ModelSummarizer{}
	opts := agentctx.Options{
		Store: s.store, Dir: s.root, Model: name, Budget: cmp.Or(over.Budget, s.f.budget), Policy: over.Policy, Origin: chatOrigin,
		SystemPrompt: chatSystemPrompt, Tools: append(toolDefs(tools.Default(defEnv)), agentctx.RecallTool(), agent.TaskDef()),
		Summarizer: sum, Logger: s.e.logger,
	}
	var eng *agentctx.Engine
	if id == "" {
		eng, err = agentctx.Open(ctx, opts)
	} else {
		eng, err = agentctx.Resume(ctx, id, opts)
	}
	if err != nil {
		if id != "" {
			return storeError("resume", id, err)
		}
		return err
	}
	if m := eng.Model().Name; m != cfg.Model {
		// A resumed session keeps the model it recorded.
		cfg.Model = m
		if llm, err = newModel(cfg); err != nil {
			_ = eng.Close()
			return fmt.Errorf("chat: %w", err)
		}
	}
	sum.Model = llm
	env.Engine = eng
	ts := tools.Default(env)
	cp, err := agent.OpenCheckpoints(env, checkpointLog(s.store, eng.ID()), checkpointBlobs(s.store))
	if err != nil {
		_ = eng.Close()
		return fmt.Errorf("chat: %w", err)
	}
	// Sub-agents: a session of their own each, on this session's model
	// and budget, with its tools and permissions.
	sub := opts
	sub.Model, sub.Budget, sub.Policy, sub.SystemPrompt = eng.Model().Name, eng.Budget(), nil, chatSubagentPrompt
	task, err := agent.NewTask(agent.TaskOptions{
		Parent: eng, Engine: sub, Model: llm, Permission: s.guard, MaxTurns: s.f.maxTurns, Checkpoints: cp,
		Tools: func(child *agentctx.Engine) []tools.Tool {
			cenv := env
			cenv.Engine = child
			return tools.Default(cenv)
		},
	})
	if err != nil {
		_ = eng.Close()
		return err
	}
	ts = append(ts, task)
	a, err := agent.New(agent.Options{
		Engine: eng, Model: llm, Tools: ts, MaxTurns: s.f.maxTurns,
		Permission: s.guard, Events: s.emit, Checkpoints: cp,
	})
	if err != nil {
		_ = eng.Close()
		return err
	}
	s.cfg, s.llm, s.eng, s.agent, s.env, s.tools, s.checkpoints = cfg, llm, eng, a, env, ts, cp
	return nil
}

// checkpointLog is the file checkpoint log of session id
// ([agent.Checkpoints]), in the store's folder.
func checkpointLog(st session.Store, id string) string {
	return filepath.Join(dataDir(st), "checkpoints", id+".ckpt")
}

// checkpointBlobs is the folder of the files' pre-images, shared by the
// store's sessions.
func checkpointBlobs(st session.Store) string {
	return filepath.Join(dataDir(st), "checkpoints", "blobs")
}

// hint says what to check after a failed model call: the server's
// address when it could not be reached, the key when it was refused.
func (s *chatSession) hint(err error) string {
	base := cmp.Or(s.cfg.BaseURL, "the provider's default address")
	switch {
	case errors.Is(err, provider.ErrUnavailable):
		return fmt.Sprintf(" (is the server at %s up? %s sets the address)", base, baseURLVar(s.cfg.Provider))
	case errors.Is(err, provider.ErrAuth):
		return fmt.Sprintf(" (check %s, and that %s is the server the key is for)", provider.KeyVar(s.cfg.Provider), base)
	case errors.Is(err, provider.ErrUnknownModel):
		return fmt.Sprintf(" (check --model or %s)", provider.EnvModel)
	}
	return ""
}

func (s *chatSession) emit(ev agent.Event) {
	if s.onEvent != nil {
		s.onEvent(ev)
	}
}

// close closes the engine, if one is open.
func (s *chatSession) close() error {
	if s.eng == nil {
		return nil
	}
	err := s.eng.Close()
	s.eng, s.agent = nil, nil
	return err
}

// defaultModel is the model an adapter talks to when none is named.
func defaultModel(p string) string {
	if p == provider.ProviderAnthropic {
		return anthropic.DefaultModel
	}
	return openai.DefaultModel
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

// setupHint says what to set after the provider's client could not be
// made, once: nothing for an unknown provider (the error lists the
// known ones), the base URL alone when the error already names the key's
// variable, else both.
func setupHint(p string, err error) string {
	key := provider.KeyVar(p)
	switch {
	case errors.Is(err, provider.ErrUnknownProvider) || key == "":
		return ""
	case strings.Contains(err.Error(), key):
		return fmt.Sprintf(" (or point %s at a local server)", baseURLVar(p))
	}
	return fmt.Sprintf(" (set %s, or point %s at a local server)", key, baseURLVar(p))
}

// slashHelp is the slash commands' lines of chat's help.
func slashHelp() string {
	var b strings.Builder
	for _, c := range slashCommands {
		fmt.Fprintf(&b, "  %-26s %s\n", strings.TrimSpace(c.name+" "+c.args), c.help)
	}
	return b.String()
}

// baseURLVar names the base-URL variable of a provider.
func baseURLVar(p string) string {
	if p == provider.ProviderAnthropic {
		return provider.EnvAnthropicBaseURL
	}
	return provider.EnvOpenAIBaseURL
}
