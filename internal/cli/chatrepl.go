package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chzyer/readline"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/agent"
	"github.com/agentctx/agentctx/agent/tools"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/agentctx/agentctx/workmem"
)

// The interactive chat is a line editor, not a full-screen program: the
// model's text streams into the terminal's own scrollback, where it can
// be scrolled, searched and copied after the program exits, as in
// Claude Code and Codex CLI. github.com/chzyer/readline gives the prompt
// line editing, history (saved in the session store's folder) and tab
// completion of the slash commands, and hands Ctrl-C at the prompt to us
// as an error instead of a signal; during a turn the terminal is in its
// normal mode, so Ctrl-C is a SIGINT that cancels the turn.

// errInterrupted ends the interactive chat on a SIGINT or a second Ctrl-C
// at an empty prompt: the process exits 130.
var errInterrupted = errors.New("interrupted")

// chatPrompt is the prompt of the interactive chat.
const chatPrompt = "› "

// slashCommands are the interactive chat's commands, with their help.
var slashCommands = []struct{ name, args, help string }{
	{"/context", "", "what the context window holds, by category, with bars"},
	{"/compact", "[instructions]", "compact the conversation now (summarize, keeping what the instructions ask)"},
	{"/sessions", "", "the project's stored sessions"},
	{"/resume", "ID", "switch to a stored session"},
	{"/clear", "", "start a new session (the current one stays stored)"},
	{"/fork", "", "go on in a copy of this session (the original stays stored as it is)"},
	{"/rewind", "", "go back to before an earlier message (one key picks it), restoring the files the agent wrote since"},
	{"/model", "NAME", "talk to another model from the next turn on"},
	{"/budget", "N", "set the prompt budget in tokens"},
	{"/pin", "TEXT", "keep an instruction verbatim in every request, whatever compaction does"},
	{"/pins", "", "the pinned instructions, numbered"},
	{"/unpin", "N", "stop sending pinned instruction N (its number in /pins, or its id)"},
	{"/findings", "", "the findings the agent noted (its scratchpad)"},
	{"/plan", "", "the agent's plan and its steps"},
	{"/permissions", "", "the project's allow / ask / deny rules (" + agent.SettingsFile + ")"},
	{"/expand", "", "the whole output of the last tool (also Ctrl-O)"},
	{"/help", "", "this list"},
	{"/exit", "", "leave (the session stays stored: agentctx chat --continue)"},
}

// repl is the interactive chat: the line editor, the session, and the
// state of the output (a tool line left open, the text streaming).
type repl struct {
	s     *chatSession
	rl    *readline.Instance
	out   io.Writer
	color bool

	mu     sync.Mutex
	cancel context.CancelFunc // the running turn's; nil at the prompt
	sigged bool               // a SIGINT came at the prompt

	// Output state: col is the column of the cursor after what was
	// written (0: at a line's start); openCall is set while a tool
	// call's line waits for its result.
	col      int
	openCall bool
	// interactive is set when stdin and stdout are a terminal.
	interactive bool

	// lastOutput is the last tool's whole output (/expand);
	// shellContext the outputs of the user's !commands, for the next
	// message.
	lastOutput   string
	shellContext []string
	// The permission question reads one key: keyMode is set while it
	// waits, key is the key read; expandKey is set by Ctrl-O at the
	// prompt (see pasteReader).
	keyMode   atomic.Bool
	key       atomic.Int32
	expandKey atomic.Bool
	// instead is what the user said to do instead of a call refused
	// with n: the next message.
	instead string
	// outMu serializes the output of sub-agents running side by side,
	// their events and questions; subCalls holds their tool calls
	// waiting for a result, by session and call id.
	outMu    sync.Mutex
	subCalls map[string]string
	// prefill is the text the next prompt starts with (/rewind's).
	prefill string

	// Per session: what the status line reports.
	last        agent.UsageEvent
	turnCost    float64
	cost        float64
	compactions int
	priced      bool
}

// runREPL runs the interactive chat on s until /exit, end of input, a
// second Ctrl-C at an empty prompt or a SIGINT at the prompt
// ([errInterrupted]).
func runREPL(ctx context.Context, s *chatSession) error {
	// A SIGINT cancels the running turn, not the chat: the chat's
	// context outlives the command's, which the first SIGINT cancels.
	base := context.WithoutCancel(ctx)
	// The chat writes its colours and the line editor's sequences to the
	// raw terminal, and passes what it prints of the model's, the tools'
	// and the sessions' text through escapeTerm.
	s.e.ownsInterrupt = true
	interactive := isTerminal(s.e.stdout) && isTerminalReader(s.e.stdin)
	r := &repl{s: s, out: rawWriter(s.e.stdout), color: colorOn(s.e.stdout), interactive: interactive}
	completions := make([]readline.PrefixCompleterInterface, 0, len(slashCommands))
	for _, c := range slashCommands {
		completions = append(completions, readline.PcItem(c.name))
	}
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 r.paint("1", chatPrompt),
		HistoryFile:            filepath.Join(dataDir(s.store), "chat_history"),
		DisableAutoSaveHistory: true,
		AutoComplete:           readline.NewPrefixCompleter(completions...),
		InterruptPrompt:        "^C",
		EOFPrompt:              "/exit",
		Stdin:                  readline.NewCancelableStdin(&pasteReader{r: s.e.stdin, keyMode: &r.keyMode, key: &r.key, expand: &r.expandKey}),
		Stdout:                 r.out,
		Stderr:                 rawWriter(s.e.stderr),
		FuncIsTerminal:         func() bool { return interactive },
	})
	if err != nil {
		return fmt.Errorf("chat: the line editor: %w", err)
	}
	defer rl.Close()
	r.rl = rl
	if interactive {
		// A paste is one message (see pasteReader).
		r.write(bracketedPasteOn)
		defer r.write(bracketedPasteOff)
	}
	s.onEvent = r.event
	s.guard.Ask = r.ask
	s.guard.Remember = r.remember

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-sigs:
				r.mu.Lock()
				cancel := r.cancel
				if cancel == nil {
					r.sigged = true
				}
				r.mu.Unlock()
				if cancel != nil {
					cancel()
				} else {
					_ = rl.Close()
				}
			}
		}
	}()

	r.banner()
	r.recap(base)
	ctrlC := false
	prefill := ""
	for {
		line, err := rl.ReadlineWithDefault(prefill)
		prefill = ""
		if r.expandKey.Swap(false) && err == nil {
			// Ctrl-O: the last output whole, then the line as it was.
			r.expand()
			prefill = line
			continue
		}
		r.mu.Lock()
		sigged := r.sigged
		r.mu.Unlock()
		switch {
		case sigged:
			r.write("\n")
			return errInterrupted
		case errors.Is(err, readline.ErrInterrupt):
			if strings.TrimSpace(line) != "" {
				ctrlC = false
				continue
			}
			if ctrlC {
				return errInterrupted
			}
			ctrlC = true
			r.println(r.paint("2", "(Ctrl-C again to exit, or /exit)"))
			continue
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("chat: read the prompt: %w", err)
		}
		ctrlC = false
		_ = rl.SaveHistory(strings.TrimSpace(line))
		line, err = r.continued(line)
		if err != nil {
			continue
		}
		line = strings.TrimSpace(unmarkLine(line))
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "/") {
			quit, err := r.command(base, line)
			// /rewind puts the message it went back to at the prompt.
			prefill, r.prefill = r.prefill, ""
			if err != nil {
				if s.eng == nil {
					// Neither the session asked for nor the one before
					// could be opened: nothing to go on with.
					return fmt.Errorf("chat: %w", err)
				}
				r.println(r.paint("31", "error: ") + escapeTerm(err.Error()))
			}
			if quit {
				return nil
			}
			continue
		}
		if cmd, ok := strings.CutPrefix(line, "!"); ok {
			if cmd = strings.TrimSpace(cmd); cmd != "" {
				r.shellCommand(base, cmd)
			}
			continue
		}
		msg, paths, err := r.attachMentions(base, line)
		if err != nil {
			r.println(r.paint("31", "error: ") + escapeTerm(err.Error()))
			continue
		}
		for _, p := range paths {
			r.println(r.paint("2", "  ⎿ attached "+escapeTerm(p)))
		}
		r.turn(base, msg)
	}
}

// continued reads the lines that follow a line ending in a backslash
// (the backslash dropped, a newline in its place), as a shell does.
func (r *repl) continued(line string) (string, error) {
	if !strings.HasSuffix(line, "\\") {
		return line, nil
	}
	r.rl.SetPrompt(r.paint("2", "… "))
	defer r.rl.SetPrompt(r.paint("1", chatPrompt))
	for strings.HasSuffix(line, "\\") {
		next, err := r.rl.Readline()
		if err != nil {
			return "", err
		}
		line = strings.TrimSuffix(line, "\\") + string(pasteNL) + next
	}
	return line, nil
}

// ctrlO is the key that shows the last tool output whole.
const ctrlO = 'O' & 0x1f

// turn runs the agent on one user message, after the outputs of the
// user's !commands; Ctrl-C cancels it. When the user refused a call with
// n and said what to do instead, that is the next turn.
func (r *repl) turn(base context.Context, line string) {
	for line != "" {
		if len(r.shellContext) > 0 {
			line = strings.Join(r.shellContext, "\n\n") + "\n\n" + line
			r.shellContext = nil
		}
		r.instead = ""
		r.turn1(base, line)
		line = r.instead
	}
}

func (r *repl) turn1(base context.Context, line string) {
	ctx, cancel := context.WithCancel(base)
	defer cancel()
	r.mu.Lock()
	r.cancel = cancel
	r.mu.Unlock()
	r.turnCost = 0
	start := time.Now()
	res, err := r.s.agent.Run(ctx, line)
	r.mu.Lock()
	r.cancel = nil
	r.mu.Unlock()
	r.endLine()
	switch {
	case res.StopReason == agent.StopInterrupted:
		r.println(r.paint("33", "⏹ interrupted") + r.paint("2", " · the session is intact; an interrupted tool call is answered as such"))
	case err != nil:
		r.println(r.paint("31", "error: ") + escapeTerm(err.Error()+r.s.hint(err)))
	case res.StopReason == agent.StopDenied && r.instead == "":
		r.println(r.paint("33", "⏹ stopped") + r.paint("2", " · "+escapeTerm(res.Refusal.Error())+"; say what to do next"))
	case res.StopReason == agent.StopMaxTurns:
		r.println(r.paint("33", fmt.Sprintf("stopped after %d model calls (--max-turns); say \"go on\" to continue", res.ModelCalls)))
	}
	r.status(time.Since(start))
}

// banner introduces the chat; quiet leaves out the engine's warnings
// that options override the session's (the user just asked for them).
func (r *repl) banner(quiet ...bool) {
	s := r.s
	what := "new session"
	if m := s.eng.Stats(); s.eng.WindowStats().Messages > 0 || m.Requests > 0 {
		what = "resumed session"
	}
	r.println(r.paint("1", "agentctx chat") + r.paint("2", fmt.Sprintf(" · %s · %s · budget %s tokens · %s %s",
		escapeTerm(homeShort(s.root)), escapeTerm(s.llm.Name()), num(s.eng.Budget()), what, s.eng.ID())))
	for _, w := range s.eng.Warnings() {
		if len(quiet) > 0 && quiet[0] && strings.HasPrefix(w, "resume: option overrides") {
			continue
		}
		r.println(r.paint("33", "! ") + escapeTerm(w))
	}
	mode := "writes and commands ask first"
	if s.guard.Yes {
		mode = "writes and commands allowed (--yes; hazardous commands still ask)"
	}
	if s.sandbox != nil {
		r.println(r.paint("2", s.sandbox.String()))
	} else {
		r.println(r.paint("33", "! ") + escapeTerm(s.unconfined) + ": every command asks, even with --yes")
		mode = "writes ask first"
		if s.guard.Yes {
			mode = "writes allowed (--yes)"
		}
	}
	r.println(r.paint("2", mode+" · /help for the commands and keys · Ctrl-C interrupts · Ctrl-C twice exits"))
}

// event shows one agent event.
func (r *repl) event(ev agent.Event) {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	if ev.Agent != nil {
		r.subEvent(ev)
		return
	}
	switch ev.Kind {
	case agent.EventTextDelta:
		r.closeCall("")
		r.write(escapeTerm(ev.Text))
	case agent.EventToolCall:
		r.endLine()
		r.write(r.paint("36", "● ") + r.paint("1", escapeTerm(ev.Call.Name)) + " " + r.paint("2", escapeTerm(callSummary(ev.Call))))
		r.openCall = true
	case agent.EventToolResult:
		res := ev.Result
		what := sizeWord(res.Bytes)
		switch {
		case res.Denied:
			what = r.paint("33", "denied")
		case res.IsError:
			what = r.paint("31", "error") + r.paint("2", " · "+sizeWord(res.Bytes))
		default:
			what = r.paint("2", what)
		}
		r.closeCall(what)
		if !res.Denied {
			r.showOutput(res.Content)
			r.lastOutput = res.Content
		} else {
			r.println(r.paint("2", "    "+escapeTerm(res.Content)))
		}
	case agent.EventCompaction:
		r.endLine()
		c := ev.Compaction
		r.compactions++
		r.println(r.paint("35", "✻ compacted ") + r.paint("2", fmt.Sprintf("%s → %s tokens (%s)", num(c.TokensBefore), num(c.TokensAfter), strings.Join(c.Levels, ", "))))
	case agent.EventUsage:
		r.last = *ev.Usage
		r.turnCost += ev.Usage.CostUSD
		r.cost += ev.Usage.CostUSD
		r.priced = r.priced || ev.Usage.CostUSD > 0
	case agent.EventError:
		r.endLine()
		e := ev.Error
		msg := e.Message
		switch {
		case e.Recovered:
			msg = "the provider said the prompt is too long; compacted and sent again"
		case e.Retry > 0:
			msg = fmt.Sprintf("%s; retry %d", msg, e.Retry)
		}
		r.println(r.paint("33", "! ") + escapeTerm(msg))
	}
}

// subEvent shows a sub-agent's event as a nested line: each tool call
// once its result is in, its compactions, errors and end. The sub-agent's
// text is not shown: its answer is the task call's result.
func (r *repl) subEvent(ev agent.Event) {
	who := ev.Agent.Description
	if who == "" {
		who = "sub-agent " + cut(ev.Agent.SessionID, 8)
	}
	line := func(s string) {
		r.endLine()
		r.println(r.paint("2", "    ⎿ "+escapeTerm(cut(who, 40))+" · ") + s)
	}
	switch ev.Kind {
	case agent.EventToolCall:
		if r.subCalls == nil {
			r.subCalls = map[string]string{}
		}
		r.subCalls[ev.Agent.SessionID+"/"+ev.Call.ID] = strings.TrimSpace(escapeTerm(ev.Call.Name + " " + callSummary(ev.Call)))
	case agent.EventToolResult:
		res := ev.Result
		key := ev.Agent.SessionID + "/" + res.ID
		call := r.subCalls[key]
		delete(r.subCalls, key)
		what := r.paint("2", sizeWord(res.Bytes))
		switch {
		case res.Denied:
			what = r.paint("33", "denied")
		case res.IsError:
			what = r.paint("31", "error") + r.paint("2", " · "+sizeWord(res.Bytes))
		}
		line(r.paint("36", "● ") + cmp.Or(call, escapeTerm(res.Name)) + r.paint("2", " · ") + what)
	case agent.EventCompaction:
		c := ev.Compaction
		line(r.paint("35", "✻ compacted ") + r.paint("2", fmt.Sprintf("%s → %s tokens", num(c.TokensBefore), num(c.TokensAfter))))
	case agent.EventError:
		line(r.paint("33", "! ") + escapeTerm(ev.Error.Message))
	case agent.EventTurnEnd:
		what := "done"
		if ev.StopReason != agent.StopDone {
			what = "stopped: " + string(ev.StopReason)
		}
		line(r.paint("2", fmt.Sprintf("%s after %d model calls (session %s)", what, ev.Turn, ev.Agent.SessionID)))
	}
}

// closeCall ends an open tool line with what ("" when the result comes
// later, on a line of its own).
func (r *repl) closeCall(what string) {
	if !r.openCall {
		if what != "" {
			r.endLine()
			r.println("  ⎿ " + what)
		}
		return
	}
	r.openCall = false
	if what == "" {
		r.endLine()
		return
	}
	r.write(r.paint("2", " · ") + what)
	r.endLine()
}

// status prints the status line of a turn: the last prompt's size
// against the budget, the share read from the provider's cache, the
// compactions so far, the cost when the model's price is known.
func (r *repl) status(took time.Duration) {
	u := r.last
	prompt := u.PromptTokens
	if prompt == 0 {
		prompt = u.RequestTokens
	}
	budget := r.s.eng.Budget()
	parts := []string{fmt.Sprintf("%s / %s tokens (%.0f%%)", num(prompt), num(budget), 100*float64(prompt)/float64(max(budget, 1)))}
	if u.PromptTokens > 0 {
		parts = append(parts, fmt.Sprintf("%.0f%% cached", 100*float64(u.CachedTokens)/float64(u.PromptTokens)))
	}
	word := "compactions"
	if r.compactions == 1 {
		word = "compaction"
	}
	parts = append(parts, fmt.Sprintf("%d %s", r.compactions, word))
	if r.priced {
		parts = append(parts, fmt.Sprintf("$%.4f (session $%.4f)", r.turnCost, r.cost))
	}
	parts = append(parts, took.Round(100*time.Millisecond).String())
	r.println(r.paint("2", "── "+strings.Join(parts, " · ")))
}

// ask is the permission guard's question, answered with one key: y
// runs the call; a runs it and allows its like from now on (an allow
// rule written to the project's settings); n refuses it, stops the turn
// and asks what to do instead, which becomes the next message. A write
// or an edit shows its diff first.
func (r *repl) ask(ctx context.Context, call chat.ToolCall, access tools.Access, reason string) (agent.Decision, error) {
	// Sub-agents running side by side ask one at a time.
	r.outMu.Lock()
	defer r.outMu.Unlock()
	r.closeCall("")
	if c, ok, err := tools.Preview(r.s.env, call); ok {
		if err != nil {
			r.println(r.paint("2", "  (no diff: "+escapeTerm(err.Error())+")"))
		} else {
			r.showDiff(c)
		}
	}
	name := escapeTerm(call.Name)
	q := fmt.Sprintf("allow %s %s?", name, escapeTerm(callSummary(&agent.ToolCallEvent{Name: call.Name, Arguments: call.Arguments})))
	choices := "[y]es · [n]o, and say what to do instead · [a]lways: " + escapeTerm(agent.AlwaysRule(call).String())
	if reason != "" {
		r.println(r.paint("31", "⚠ asked even with --yes: ") + escapeTerm(reason))
		choices = "[y]es · [n]o, and say what to do instead"
	}
	r.println(r.paint("33", q))
	for {
		key, err := r.readKey("  " + choices + " › ")
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			// Ctrl-C at the question: deny and stop the turn.
			r.mu.Lock()
			if r.cancel != nil {
				r.cancel()
			}
			r.mu.Unlock()
			return agent.DecisionDeny, nil
		case err != nil:
			return agent.DecisionDeny, nil
		case ctx.Err() != nil:
			return agent.DecisionDeny, nil
		}
		switch key {
		case 'y':
			r.println(r.paint("2", "  ✓ yes"))
			return agent.DecisionAllow, nil
		case 'a':
			if reason == "" {
				r.println(r.paint("2", "  ✓ always"))
				return agent.DecisionAlways, nil
			}
		case 'n':
			r.println(r.paint("2", "  ✗ no"))
			r.rl.SetPrompt(r.paint("33", "  what should the agent do instead? (Enter: just stop) › "))
			instead, err := r.rl.Readline()
			if err != nil {
				instead = ""
			}
			r.instead = strings.TrimSpace(unmarkLine(instead))
			why := "they stopped the turn"
			if r.instead != "" {
				why = "they said what to do instead in their next message"
			}
			return agent.DecisionDeny, &agent.Refusal{By: "the user", Reason: why, Stop: true}
		}
	}
}

// readKey shows prompt and reads one key: on a terminal the key itself
// (pasteReader's keyMode: y, n, a, 1 to 9, Enter as '\r'), from piped
// input the first character of a line. err is the line editor's
// (readline.ErrInterrupt for Ctrl-C).
func (r *repl) readKey(prompt string) (rune, error) {
	r.rl.SetPrompt(prompt)
	defer r.rl.SetPrompt(r.paint("1", chatPrompt))
	r.key.Store(0)
	r.keyMode.Store(r.interactive)
	ans, err := r.rl.Readline()
	r.keyMode.Store(false)
	if !r.interactive {
		a := strings.ToLower(strings.TrimSpace(ans))
		if a == "" {
			a = "\r"
		}
		r.key.Store(int32(a[0]))
	}
	return rune(r.key.Load()), err
}

// remember writes an "always" answer's allow rule to the project's
// settings file, and says so.
func (r *repl) remember(rule agent.Rule) {
	if err := agent.AddAllowRule(filepath.Join(r.s.root, agent.SettingsFile), rule); err != nil {
		r.println(r.paint("31", "error: ") + "keep the rule " + escapeTerm(rule.String()) + ": " + escapeTerm(err.Error()))
		return
	}
	r.println(r.paint("2", "  allowed from now on: "+escapeTerm(rule.String())+" ("+agent.SettingsFile+")"))
}

// command runs a slash command; quit is set by /exit.
func (r *repl) command(ctx context.Context, line string) (quit bool, err error) {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	s := r.s
	switch name {
	case "/exit", "/quit":
		return true, nil
	case "/help":
		for _, c := range slashCommands {
			r.println(fmt.Sprintf("  %-10s %-16s %s", c.name, c.args, r.paint("2", c.help)))
		}
		r.println(r.paint("2", "  Ctrl-C interrupts the model or a command; Ctrl-C twice at an empty prompt exits."))
	case "/expand":
		r.expand()
	case "/permissions":
		r.permissions()
	case "/context":
		rep := engineReport(s.eng)
		printInspect(r.out, rep, r.color)
	case "/compact":
		before := s.eng.WindowStats().Size
		recs, err := s.eng.Compact(ctx, arg)
		if err != nil {
			return false, err
		}
		if len(recs) == 0 {
			r.println("nothing to compact: the history is a single turn")
			return false, nil
		}
		r.compactions++
		var levels []string
		for _, rec := range recs {
			levels = append(levels, rec.Level.String())
		}
		r.println(r.paint("35", "✻ compacted ") + fmt.Sprintf("%s → %s tokens (%s)", num(before), num(s.eng.WindowStats().Size), strings.Join(levels, ", ")))
	case "/sessions":
		ss, err := s.store.List(ctx, session.ListOptions{Project: s.root, Limit: 20})
		if err != nil {
			return false, err
		}
		printSessions(escapingWriter(r.out), ss, time.Now())
	case "/resume":
		if arg == "" {
			return false, errors.New("/resume ID: which session? (/sessions lists them)")
		}
		if err := session.ValidateID(arg); err != nil {
			return false, err
		}
		return false, r.reopen(ctx, arg, agentctx.Options{})
	case "/clear":
		// A new session with the model of this one (/model's included).
		return false, r.reopen(ctx, "", agentctx.Options{Model: s.eng.Model().Name})
	case "/fork":
		return false, r.fork(ctx)
	case "/rewind":
		return false, r.rewind(ctx)
	case "/model":
		if arg == "" {
			r.println(escapeTerm(s.llm.Name()))
			return false, nil
		}
		// The new model's budget (unless --budget set one), under the
		// default policy: not the old model's, which Resume would keep.
		return false, r.reopen(ctx, s.eng.ID(), agentctx.Options{Model: arg, Policy: model.DefaultPolicy})
	case "/budget":
		if arg == "" {
			r.println(fmt.Sprintf("%s tokens (%s)", num(s.eng.Budget()), s.eng.BudgetSource()))
			return false, nil
		}
		n, err := strconv.Atoi(strings.ReplaceAll(arg, ",", ""))
		if err != nil || n <= 0 {
			return false, fmt.Errorf("/budget N: N must be a positive number of tokens, got %q", arg)
		}
		return false, r.reopen(ctx, s.eng.ID(), agentctx.Options{Budget: n})
	case "/pin":
		if arg == "" {
			return false, errors.New("/pin TEXT: which instruction? (/pins lists them)")
		}
		p, err := s.eng.Pin(ctx, arg)
		if err != nil {
			return false, err
		}
		r.println(r.paint("35", "📌 pinned ") + p.ID + ": " + escapeTerm(p.Text))
	case "/pins":
		pins := s.eng.Pins()
		if len(pins) == 0 {
			r.println("nothing pinned (/pin TEXT pins an instruction)")
		}
		for i, p := range pins {
			r.println(fmt.Sprintf("  %d. %s %s", i+1, r.paint("2", "("+p.ID+")"), escapeTerm(p.Text)))
		}
	case "/unpin":
		pins := s.eng.Pins()
		id := arg
		if n, err := strconv.Atoi(arg); err == nil {
			if n < 1 || n > len(pins) {
				return false, fmt.Errorf("/unpin N: N must be between 1 and %d (/pins lists them), got %d", len(pins), n)
			}
			id = pins[n-1].ID
		}
		if err := s.eng.Unpin(ctx, id); err != nil {
			return false, err
		}
		r.println("unpinned " + escapeTerm(id))
	case "/findings":
		_, rep := s.eng.WorkingMemory(0)
		if len(rep.Findings) == 0 {
			r.println("no findings noted yet")
		}
		for _, f := range rep.Findings {
			r.println(fmt.Sprintf("  [%d] %s", f.Importance, escapeTerm(f.Finding)))
			if f.Evidence != "" {
				r.println(r.paint("2", "      "+escapeTerm(cut(f.Evidence, 100))))
			}
		}
	case "/plan":
		// The todo list the agent keeps with todo_write, and the plan
		// the working memory read from its answers (seed 002).
		todos := s.eng.Todos()
		_, rep := s.eng.WorkingMemory(0)
		if len(todos) == 0 && (rep.Plan == nil || len(rep.Plan.Steps) == 0) {
			r.println("no plan yet")
			return false, nil
		}
		for _, td := range todos {
			r.println("  " + todoMark(td.Status) + " " + escapeTerm(td.Content))
		}
		if rep.Plan != nil {
			if len(todos) > 0 {
				r.println(r.paint("2", "  the plan in the working memory:"))
			}
			for _, st := range rep.Plan.Steps {
				r.println("  " + stepMark(st.Status) + " " + escapeTerm(st.Description))
			}
		}
	default:
		return false, fmt.Errorf("unknown command %s (/help lists them)", name)
	}
	return false, nil
}

// reopen switches the chat to another session (id "" for a new one) or
// reopens this one with over's overrides, and says so; on failure the
// chat goes on with the session it had.
func (r *repl) reopen(ctx context.Context, id string, over agentctx.Options) error {
	prev := r.s.eng.ID()
	if err := r.s.open(ctx, id, over); err != nil {
		if oerr := r.s.open(ctx, prev, agentctx.Options{}); oerr != nil {
			return fmt.Errorf("%w; and reopening %s: %w", err, prev, oerr)
		}
		return err
	}
	if r.s.eng.ID() != prev {
		r.last, r.cost, r.turnCost, r.compactions, r.priced = agent.UsageEvent{}, 0, 0, 0, false
	}
	// What the user asked for (/model, /budget) is recorded in the
	// session without the engine's "option overrides" warning.
	r.banner(over.Model != "" || over.Budget != 0)
	if r.s.eng.ID() != prev && id != "" {
		r.recap(ctx)
	}
	return nil
}

// fork goes on in a copy of the session (Engine.Fork of the whole
// window), its file checkpoints copied with it.
func (r *repl) fork(ctx context.Context) error {
	s := r.s
	prev := s.eng.ID()
	child, err := s.eng.Fork(ctx, len(s.eng.Messages()))
	if err != nil {
		return err
	}
	id := child.ID()
	if err := child.Close(); err != nil {
		return err
	}
	if err := s.checkpoints.CopyTo(checkpointLog(s.store, id)); err != nil {
		return err
	}
	if err := r.reopen(ctx, id, agentctx.Options{}); err != nil {
		return err
	}
	r.println(r.paint("35", "⑂ forked ") + r.paint("2", fmt.Sprintf("%s → %s; the original stays stored as it was (/resume %s goes back)", prev, id, prev)))
	return nil
}

// rewindChoice is a message /rewind can go back to: its index in the
// window, its text, and its checkpoint turn (0: none recorded).
type rewindChoice struct {
	index int
	text  string
	turn  int
}

// rewindChoices returns the user messages of the window, oldest first,
// but the compaction note at index note (-1: none) and messages without
// text of the user's, with their checkpoint turns: the turns recorded
// are matched to the messages from the newest back, by their text.
func rewindChoices(msgs []chat.Message, note int, turns []agent.CheckpointTurn) []rewindChoice {
	var cs []rewindChoice
	for i, m := range msgs {
		if m.Role != chat.RoleUser || i == note {
			continue
		}
		if t := userText(m); t != "" {
			cs = append(cs, rewindChoice{index: i, text: t})
		}
	}
	j := len(turns) - 1
	for k := len(cs) - 1; k >= 0 && j >= 0; k-- {
		if strings.TrimSpace(turns[j].Text) == cs[k].text {
			cs[k].turn = turns[j].N
			j--
		}
	}
	return cs
}

// rewind shows the last nine user messages, reads the one to go back
// to with one key, returns the session to before it (Engine.Rewind: the
// later messages stay in the store) and restores the files the agent
// wrote since, leaving alone and naming those changed by something else.
// The message is put back at the prompt.
func (r *repl) rewind(ctx context.Context) error {
	s := r.s
	cs := rewindChoices(s.eng.Messages(), s.eng.WindowStats().Note, s.checkpoints.Turns())
	if len(cs) == 0 {
		r.println("nothing to rewind to: no message of yours in the window")
		return nil
	}
	if len(cs) > 9 {
		cs = cs[len(cs)-9:]
	}
	r.println(r.paint("2", "rewind to before which message? (the conversation after it stays stored)"))
	for i, c := range cs {
		first, _, more := strings.Cut(c.text, "\n")
		if more {
			first += " …"
		}
		r.println(fmt.Sprintf("  %d. %s", i+1, escapeTerm(cut(first, 100))))
	}
	var pick rune
	for {
		key, err := r.readKey(fmt.Sprintf("  [1-%d] rewind · Enter: cancel › ", len(cs)))
		if err != nil || key == '\r' {
			r.println(r.paint("2", "  (not rewound)"))
			return nil
		}
		if key >= '1' && key < '1'+rune(len(cs)) {
			pick = key
			break
		}
	}
	c := cs[pick-'1']
	// The files from the first turn recorded at or after the message.
	turn := 0
	for _, x := range cs[pick-'1':] {
		if x.turn > 0 {
			turn = x.turn
			break
		}
	}
	if err := s.eng.Rewind(ctx, c.index); err != nil {
		return err
	}
	r.println(r.paint("35", "⏪ rewound ") + r.paint("2", fmt.Sprintf("to before message %d; what followed stays in the store (a branch)", pick-'0')))
	if turn > 0 {
		rep, err := s.checkpoints.Restore(turn)
		for _, p := range rep.Restored {
			r.println(r.paint("2", "  ⎿ restored ") + escapeTerm(p))
		}
		for _, p := range rep.Kept {
			r.println(r.paint("33", "  ⎿ left alone ") + escapeTerm(p) + r.paint("2", " (changed outside the agent since it wrote it)"))
		}
		if err != nil {
			return err
		}
		if len(rep.Restored)+len(rep.Kept) == 0 {
			r.println(r.paint("2", "  ⎿ no file to restore: the agent wrote none since"))
		}
	} else {
		r.println(r.paint("2", "  ⎿ no file checkpoints since that message"))
	}
	r.prefill = strings.ReplaceAll(c.text, "\n", string(pasteNL))
	return nil
}

// permissions prints the guard's rules: the settings file's and the ones
// "always" added.
func (r *repl) permissions() {
	rs := r.s.guard.RulesSnapshot()
	r.println(r.paint("2", "rules from "+filepath.Join(homeShort(r.s.root), agent.SettingsFile)+" (deny, then ask, then allow; the first match decides):"))
	for _, l := range []struct {
		name  string
		rules []agent.Rule
	}{{"deny", rs.Deny}, {"ask", rs.Ask}, {"allow", rs.Allow}} {
		if len(l.rules) == 0 {
			r.println(fmt.Sprintf("  %-6s %s", l.name, r.paint("2", "(none)")))
		}
		for _, x := range l.rules {
			r.println(fmt.Sprintf("  %-6s %s", l.name, escapeTerm(x.String())))
		}
	}
	mode := "other writes and commands are asked"
	if r.s.guard.Yes {
		mode = "--yes: other writes and commands are allowed"
	}
	r.println(r.paint("2", "  "+mode+"; hazardous commands are always asked"))
}

// stepMark is how a plan step's status is shown.
func stepMark(st workmem.StepStatus) string {
	switch st {
	case workmem.StepDone:
		return "✔"
	case workmem.StepInProgress:
		return "▶"
	case workmem.StepSkipped:
		return "–"
	}
	return "○"
}

// todoMark is how a todo's status is shown.
func todoMark(st string) string {
	switch st {
	case tooluse.TodoCompleted:
		return "✔"
	case tooluse.TodoInProgress:
		return "▶"
	}
	return "○"
}

// callSummary is a tool call in a few words: its command, its paths, its
// query, else its arguments cut.
func callSummary(c *agent.ToolCallEvent) string {
	u := tooluse.Classify(chat.ToolCall{Name: c.Name, Arguments: c.Arguments})
	var s string
	var task struct {
		Description string `json:"description"`
	}
	switch {
	case c.Name == agent.TaskToolName && json.Unmarshal(c.Arguments, &task) == nil && task.Description != "":
		s = task.Description
	case u.Command != "":
		s = u.Command
	case len(u.Paths) > 0:
		s = strings.Join(u.Paths, " ")
		if u.Query != "" {
			s = u.Query + " in " + s
		}
	case u.Query != "":
		s = u.Query
	default:
		var m map[string]any
		if json.Unmarshal(c.Arguments, &m) == nil && len(m) == 0 {
			return ""
		}
		s = string(c.Arguments)
	}
	return cut(strings.Join(strings.Fields(s), " "), 80)
}

// sizeWord is a size in bytes for people: "312 B", "4.1 KB".
func sizeWord(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// paint wraps s in the ANSI SGR code when the output is a terminal.
func (r *repl) paint(code, s string) string {
	if !r.color || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// write writes s, remembering whether the cursor is at a line's start.
func (r *repl) write(s string) {
	if s == "" {
		return
	}
	_, _ = io.WriteString(r.out, s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		r.col = len(s) - i - 1
	} else {
		r.col += len(s)
	}
}

// endLine ends the current line if something was written on it.
func (r *repl) endLine() {
	if r.col > 0 {
		r.write("\n")
	}
	r.openCall = false
}

// println writes s on a line of its own.
func (r *repl) println(s string) {
	r.endLine()
	r.write(s + "\n")
}

// isTerminalReader reports whether in is a terminal.
func isTerminalReader(in io.Reader) bool {
	f, ok := in.(*os.File)
	return ok && readline.IsTerminal(int(f.Fd()))
}
