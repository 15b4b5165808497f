package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/provider/providertest"
)

// slowTask is the user message on which tmuxScript runs a command that
// takes 30 seconds, for the test to interrupt.
const slowTask = "run the slow command"

// slowIntro is the text streamed before the slow command, long enough
// that the test sees it arrive piece by piece.
const slowIntro = "I will run the slow command now; it takes thirty seconds, so feel free to interrupt it whenever you like."

// longTask is the user message on which tmuxScript streams a long text
// (minutes at the test's chunk delay), for the test to interrupt.
const longTask = "tell me a long story"

// tmuxScript plays task, except after longTask (a long text) and after the user message slowTask: then it
// streams slowIntro and runs `sleep 30`, and after that call's result
// (the interrupted one), it says what it saw.
func tmuxScript(task providertest.Script) providertest.Script {
	return func(r providertest.Request) providertest.Reply {
		if lastUserText(r) == longTask {
			return providertest.Reply{Text: strings.Repeat("Once upon a time there was a failing test. ", 100)}
		}
		last := -1
		for i, m := range r.Messages {
			if m.Role == chat.RoleUser && slices.Contains(typedTexts(m), slowTask) {
				last = i
			}
		}
		if last < 0 {
			return task(r)
		}
		for _, m := range r.Messages[last+1:] {
			if res, ok := m.ToolResult(); ok && res.ToolCallID == "slow" {
				return providertest.Reply{Text: "The slow command ended: " + firstLine(res.Content)}
			}
		}
		for _, m := range r.Messages[last+1:] {
			if m.Role == chat.RoleUser && len(typedTexts(m)) > 0 {
				// A later user message: the slow turn is over.
				return task(r)
			}
		}
		return providertest.Reply{Text: slowIntro, ToolCalls: []chat.ToolCall{{ID: "slow", Name: "run_command", Arguments: json.RawMessage(`{"command":"sleep 30"}`)}}}
	}
}

// typedTexts returns the texts of m the user typed: its text parts but
// the system reminders and the engine's sections (the Anthropic wire
// merges consecutive user messages into one, so there may be several).
func typedTexts(m chat.Message) []string {
	var out []string
	for _, p := range m.Parts {
		if t, ok := p.(chat.Text); ok && !strings.Contains(t.Text, "system-reminder") && strings.TrimSpace(t.Text) != "" {
			out = append(out, strings.TrimSpace(t.Text))
		}
	}
	return out
}

// lastUserText returns the last text the user typed in r.
func lastUserText(r providertest.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if m := r.Messages[i]; m.Role == chat.RoleUser {
			if ts := typedTexts(m); len(ts) > 0 {
				return ts[len(ts)-1]
			}
		}
	}
	return ""
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// tmuxPane is a program running in a tmux pane of a private tmux server.
type tmuxPane struct {
	t    *testing.T
	sock string
}

// exitedWith starts the line the pane's shell prints when the program
// exits, before its status.
const exitedWith = "program exited with status "

// tmuxStart runs argv in a new 200×50 pane with env set, on a tmux server
// of its own that the test's cleanup kills. A shell runs it and prints
// its exit status; the shell ignores the SIGINT of Ctrl-C (its trap is
// not inherited: the program gets the terminal's SIGINT as usual).
func tmuxStart(t *testing.T, env []string, argv ...string) *tmuxPane {
	t.Helper()
	p := &tmuxPane{t: t, sock: fmt.Sprintf("agentctx-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	args := []string{"new-session", "-d", "-s", "main", "-x", "200", "-y", "50"}
	for _, e := range env {
		args = append(args, "-e", e)
	}
	args = append(args, "sh", "-c", `trap : INT; "$0" "$@"; echo "`+exitedWith+`$?"; sleep 600`)
	p.tmux(append(args, argv...)...)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", p.sock, "kill-server").Run() })
	p.tmux("set-option", "-t", "main", "history-limit", "10000")
	return p
}

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.sock}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// send types keys: text is sent literally, then the named keys
// (Enter, C-c) if any.
func (p *tmuxPane) send(text string, keys ...string) {
	p.t.Helper()
	if text != "" {
		p.tmux("send-keys", "-t", "main", "-l", text)
	}
	if len(keys) > 0 {
		p.tmux(append([]string{"send-keys", "-t", "main"}, keys...)...)
	}
}

// screen returns the pane's text, scrollback included, lines joined.
func (p *tmuxPane) screen() string {
	return p.tmux("capture-pane", "-p", "-J", "-t", "main", "-S", "-10000")
}

// waitFor waits until the screen, from offset from on, holds want, and
// returns the screen and where want ends; it fails the test after
// timeout.
func (p *tmuxPane) waitFor(from int, want string, timeout time.Duration) (string, int) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := p.screen()
		if from <= len(s) {
			if i := strings.Index(s[from:], want); i >= 0 {
				return s, from + i + len(want)
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("after %v the pane does not show %q; it shows:\n%s", timeout, want, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exitStatus waits until the program exited and returns its status, as
// the pane's shell printed it.
func (p *tmuxPane) exitStatus(timeout time.Duration) int {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	re := regexp.MustCompile(exitedWith + `(\d+)`)
	for {
		if m := re.FindStringSubmatch(p.screen()); m != nil {
			var code int
			_, _ = fmt.Sscan(m[1], &code)
			return code
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the program is still running after %v:\n%s", timeout, p.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// buildAgentctx builds the agentctx binary into a temporary folder.
func buildAgentctx(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agentctx")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/agentctx/agentctx/cmd/agentctx").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// needTmux skips the test without tmux, except in CI, where .ci/run
// installs it.
func needTmux(t *testing.T) {
	t.Helper()
	sharedtest.SkipUnlessLong(t) // real-terminal tests: CI runs them
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is not installed (.ci/run installs it)")
		}
		t.Skip("tmux is not installed")
	}
}

// TestChatTmux runs the interactive chat in a real terminal (tmux) on both
// wire formats: the scripted Go task (the failing test fixed), with its
// permission questions answered; the model's text streaming; Ctrl-C during
// a 30-second command back at the prompt within a second, the session
// intact; /context and /compact; /exit, then --continue resuming the
// session; Ctrl-C twice at the empty prompt exiting 130.
func TestChatTmux(t *testing.T) {
	needTmux(t)
	bin := buildAgentctx(t)
	for _, wire := range []providertest.Wire{providertest.WireOpenAI, providertest.WireAnthropic} {
		t.Run(string(wire), func(t *testing.T) {
			srv := providertest.New(providertest.Options{Wire: wire, Script: withSummaries(tmuxScript(goTaskScript)), ChunkDelay: 40 * time.Millisecond})
			defer srv.Close()
			dir := newGoTask(t)
			home := t.TempDir()
			env := []string{"AGENTCTX_HOME=" + home, "TERM=xterm-256color", "AGENTCTX_PROVIDER=" + string(wire)}
			for _, k := range []string{"PATH", "HOME", "GOPATH", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOTOOLCHAIN"} {
				if v, ok := os.LookupEnv(k); ok {
					env = append(env, k+"="+v)
				}
			}
			if wire == providertest.WireAnthropic {
				env = append(env, "ANTHROPIC_BASE_URL="+srv.BaseURL, "ANTHROPIC_API_KEY=test", "AGENTCTX_MODEL=claude-sonnet-4-5")
			} else {
				env = append(env, "OPENAI_BASE_URL="+srv.BaseURL, "OPENAI_API_KEY=test", "AGENTCTX_MODEL=gpt-4o")
			}

			p := tmuxStart(t, env, bin, "chat", dir)
			_, at := p.waitFor(0, "new session ", 10*time.Second)
			_, at = p.waitFor(at, "›", 5*time.Second)

			// The task, its questions answered: y for edits, always for
			// the rest.
			p.send("make the tests pass", "Enter")
			deadline := time.Now().Add(90 * time.Second)
			for {
				rest := p.screen()[at:]
				qi := strings.Index(rest, "allow ")
				if si := strings.Index(rest, "── "); si >= 0 && (qi < 0 || si < qi) {
					at += si + len("── ")
					break
				}
				if qi >= 0 {
					if k := strings.Index(rest[qi:], "› "); k >= 0 {
						ans := "a"
						if strings.HasPrefix(rest[qi:], "allow edit_file") {
							ans = "y"
						}
						at += qi + k + len("› ")
						// One key answers, as a user presses it: an Enter
						// after it would reach the next question first.
						p.send(ans)
						continue
					}
				}
				if time.Now().After(deadline) {
					t.Fatalf("the task did not end:\n%s", p.screen())
				}
				time.Sleep(20 * time.Millisecond)
			}
			s := p.screen()
			if !strings.Contains(s, "Fixed") || !strings.Contains(s, "● run_command go test ./...") {
				t.Fatalf("the task did not run to its end:\n%s", s)
			}
			checkGoTaskFixed(t, dir)
			_, at = p.waitFor(at, "›", 5*time.Second)

			// The plan and the finding the agent noted.
			p.send("/plan", "Enter")
			_, at = p.waitFor(at, "Fix Sum", 5*time.Second)
			p.send("/findings", "Enter")
			_, at = p.waitFor(at, "Sum skips the last element", 5*time.Second)
			_, at = p.waitFor(at, "›", 5*time.Second)

			// Streaming: the intro shows up in pieces before the command.
			p.send(slowTask, "Enter")
			_, start := p.waitFor(at, slowIntro[:12], 10*time.Second)
			partial := false
			for {
				s := p.screen()
				if strings.Contains(s[at:], slowIntro) {
					break
				}
				partial = true
				time.Sleep(10 * time.Millisecond)
			}
			if !partial {
				t.Errorf("the text did not stream: it appeared whole")
			}
			_, at = p.waitFor(start, "● run_command sleep 30", 10*time.Second)
			time.Sleep(300 * time.Millisecond)
			sent := time.Now()
			p.send("", "C-c")
			_, at = p.waitFor(at, "⏹ interrupted", 5*time.Second)
			_, at = p.waitFor(at, "›", 5*time.Second)
			took := time.Since(sent)
			t.Logf("Ctrl-C during sleep 30: back at the prompt after %v", took)
			if took > time.Second {
				t.Errorf("Ctrl-C during the command: back at the prompt after %v, want under a second", took)
			}

			// Ctrl-C during the model's stream.
			p.send(longTask, "Enter")
			_, at = p.waitFor(at, "Once upon a time", 10*time.Second)
			sent = time.Now()
			p.send("", "C-c")
			_, at = p.waitFor(at, "⏹ interrupted", 5*time.Second)
			_, at = p.waitFor(at, "›", 5*time.Second)
			took = time.Since(sent)
			t.Logf("Ctrl-C during the stream: back at the prompt after %v", took)
			if took > time.Second {
				t.Errorf("Ctrl-C during the stream: back at the prompt after %v, want under a second", took)
			}

			// The session goes on: the interrupted call was answered.
			p.send("what happened?", "Enter")
			_, at = p.waitFor(at, "The slow command ended: ", 10*time.Second)
			_, at = p.waitFor(at, "›", 5*time.Second)

			p.send("/context", "Enter")
			_, at = p.waitFor(at, "free space", 5*time.Second)
			_, at = p.waitFor(at, "›", 5*time.Second)
			p.send("/compact keep the test names", "Enter")
			_, at = p.waitFor(at, "✻ compacted", 10*time.Second)
			p.waitFor(at, "›", 5*time.Second)
			p.send("/exit", "Enter")
			if code := p.exitStatus(5 * time.Second); code != 0 {
				t.Fatalf("/exit: status %d\n%s", code, p.screen())
			}
			s = p.screen()
			if d := os.Getenv("AGENTCTX_TMUX_CAPTURE"); d != "" {
				// For the README: what the terminal showed.
				if err := os.WriteFile(filepath.Join(d, "chat-"+string(wire)+".txt"), []byte(s), 0o644); err != nil {
					t.Error(err)
				}
			}
			id := between(s, "new session ", "\n")

			// --continue resumes it; Ctrl-C twice at the prompt exits 130.
			p2 := tmuxStart(t, env, bin, "chat", dir, "--continue")
			_, at = p2.waitFor(0, "resumed session "+id, 10*time.Second)
			_, at = p2.waitFor(at, "›", 5*time.Second)
			// The window resumed is the compacted one: it holds a summary.
			p2.send("/context", "Enter")
			s, end := p2.waitFor(at, "free space", 5*time.Second)
			if m := regexp.MustCompile(`(?m)^\s+summary\s+([\d,]+)`).FindStringSubmatch(s[at:end]); m == nil || m[1] == "0" {
				t.Errorf("the resumed window has no summary:\n%s", s[at:end])
			}
			_, at = p2.waitFor(end, "›", 5*time.Second)
			p2.send("", "C-c")
			p2.waitFor(at, "Ctrl-C again to exit", 5*time.Second)
			p2.send("", "C-c")
			if code := p2.exitStatus(5 * time.Second); code != ExitInterrupted {
				t.Fatalf("Ctrl-C twice: status %d, want %d\n%s", code, ExitInterrupted, p2.screen())
			}
			checkChatSession(t, home, id)
		})
	}
}

// checkChatSession checks the stored session id: it checks clean, and the
// interrupted slow command has its synthetic result.
func checkChatSession(t *testing.T, home, id string) {
	t.Helper()
	code, out, errOut := run(t, "sessions", "check", id, "--home", home)
	if code != 0 {
		t.Errorf("sessions check %s: exit %d\n%s%s", id, code, out, errOut)
	}
	file := sessionFile(t, home, id)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), agentctx.InterruptedResult) {
		t.Errorf("the interrupted command has no synthetic result in %s", file)
	}
}
