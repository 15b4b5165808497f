package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider/providertest"
)

const (
	calcBug   = "def add(a, b):\n    return a - b\n"
	calcFix   = "def add(a, b):\n    return a + b\n"
	calcAgain = "def add(a, b):\n    return b + a\n"
)

// uiScript plays TestChatTmuxUI's model. It answers the last tool result
// after the user's last message, else the message: a message of several
// lines by counting them; "fix calc" with an edit of calc.py; "use
// write_file instead" with a write, saying whether it saw the refusal of
// the edit; "run the tests" with a command printing 21 lines, the last a
// failure; "write it again" with another write; a message holding a
// !command's output or an @path's file by saying so.
func uiScript(r providertest.Request) providertest.Reply {
	if rep, ok := summaryReply(r); ok {
		return rep
	}
	last := -1
	for i, m := range r.Messages {
		if m.Role == chat.RoleUser && len(typedTexts(m)) > 0 {
			last = i
		}
	}
	var res *chat.ToolResult
	for _, m := range r.Messages[last+1:] {
		if x, ok := m.ToolResult(); ok {
			res = &x
		}
	}
	if res != nil {
		if strings.Contains(res.Content, "Exit code") {
			return providertest.Reply{Text: "The tests fail."}
		}
		return providertest.Reply{Text: "Done: " + strings.SplitN(res.Content, "\n", 2)[0]}
	}
	text := ""
	if last >= 0 {
		ts := typedTexts(r.Messages[last])
		text = ts[len(ts)-1]
	}
	write := func(content string) chat.ToolCall {
		args, _ := json.Marshal(map[string]string{"path": "calc.py", "content": content})
		return chat.ToolCall{Name: "write_file", Arguments: args}
	}
	switch {
	case strings.HasPrefix(text, "I ran `"):
		return providertest.Reply{Text: fmt.Sprintf("You ran a command; its output holds hello-from-shell: %v.", strings.Contains(text, "hello-from-shell"))}
	case strings.Contains(text, "<file path=\"calc.py\""):
		return providertest.Reply{Text: fmt.Sprintf("The file is attached: %v.", strings.Contains(text, "return a + b"))}
	case strings.Contains(text, "\n"):
		return providertest.Reply{Text: fmt.Sprintf("One message of %d lines.", strings.Count(text, "\n")+1)}
	case text == "fix calc":
		args, _ := json.Marshal(map[string]string{"path": "calc.py", "old_string": "return a - b", "new_string": "return a + b"})
		return providertest.Reply{Text: "Editing.", ToolCalls: []chat.ToolCall{{Name: "edit_file", Arguments: args}}}
	case text == "use write_file instead":
		saw := false
		for _, m := range r.Messages {
			if x, ok := m.ToolResult(); ok && strings.HasPrefix(x.Content, "denied by the user") {
				saw = true
			}
		}
		return providertest.Reply{Text: fmt.Sprintf("Writing (saw the refusal: %v).", saw), ToolCalls: []chat.ToolCall{write(calcFix)}}
	case text == "run the tests":
		args, _ := json.Marshal(map[string]string{"command": "seq 1 20; echo 'FAIL: test_add: want 4, got 0'"})
		return providertest.Reply{ToolCalls: []chat.ToolCall{{Name: "run_command", Arguments: args}}}
	case text == "write it again":
		return providertest.Reply{ToolCalls: []chat.ToolCall{write(calcAgain)}}
	}
	return providertest.Reply{Text: "OK."}
}

// uiSetup starts uiScript's server on wire and makes a project holding
// calc.py, with outside.txt next to it; env is the chat's environment.
func uiSetup(t *testing.T, wire providertest.Wire) (srv *providertest.Server, dir string, env []string) {
	t.Helper()
	return uiSetupScript(t, wire, uiScript)
}

// uiSetupScript is uiSetup with another script.
func uiSetupScript(t *testing.T, wire providertest.Wire, script providertest.Script) (srv *providertest.Server, dir string, env []string) {
	t.Helper()
	srv = providertest.New(providertest.Options{Wire: wire, Script: script})
	dir = t.TempDir()
	calc := filepath.Join(dir, "calc.py")
	if err := os.WriteFile(calc, []byte(calcBug), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "outside.txt"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env = []string{"AGENTCTX_HOME=" + home, "TERM=xterm-256color", "AGENTCTX_PROVIDER=" + string(wire)}
	for _, k := range []string{"PATH", "HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	model := "gpt-4o"
	if wire == providertest.WireAnthropic {
		model = "claude-sonnet-4-5"
		env = append(env, "ANTHROPIC_BASE_URL="+srv.BaseURL, "ANTHROPIC_API_KEY=test")
	} else {
		env = append(env, "OPENAI_BASE_URL="+srv.BaseURL, "OPENAI_API_KEY=test")
	}
	env = append(env, "AGENTCTX_MODEL="+model)
	return srv, dir, env
}

// TestChatTmuxPaste: a three-line bracketed paste, an Alt-Enter and a
// trailing backslash each make one message, on both wires (issue 30,
// finding 1: each pasted line was a turn of its own).
func TestChatTmuxPaste(t *testing.T) {
	needTmux(t)
	bin := buildAgentctx(t)
	for _, wire := range []providertest.Wire{providertest.WireOpenAI, providertest.WireAnthropic} {
		t.Run(string(wire), func(t *testing.T) {
			srv, dir, env := uiSetup(t, wire)
			defer srv.Close()
			p := tmuxStart(t, env, bin, "chat", dir)
			_, at := p.waitFor(0, "new session ", 10*time.Second)
			_, at = p.waitFor(at, "›", 5*time.Second)
			// Finding 1: a paste of three lines is one message.
			p.tmux("set-buffer", "-b", "paste", "Here is the error:\nline two\nline three")
			p.tmux("paste-buffer", "-p", "-b", "paste", "-t", "main")
			_, at = p.waitFor(at, "Here is the error:⏎line two⏎line three", 5*time.Second)
			p.send("", "Enter")
			_, at = p.waitFor(at, "One message of 3 lines.", 10*time.Second)
			for _, r := range srv.Requests() {
				if lt := lastUserText(r); lt == "line two" || lt == "line three" {
					t.Errorf("a pasted line was sent on its own: %q", lt)
				}
			}
			// Alt-Enter, and a line ending in a backslash.
			_, at = p.waitFor(at, "›", 5*time.Second)
			p.send("first", "M-Enter")
			p.send("second", "Enter")
			_, at = p.waitFor(at, "One message of 2 lines.", 10*time.Second)
			_, at = p.waitFor(at, "›", 5*time.Second)
			p.send(`alpha \`, "Enter")
			_, at = p.waitFor(at, "…", 5*time.Second)
			p.send("beta", "Enter")
			_, at = p.waitFor(at, "One message of 2 lines.", 10*time.Second)
			p.waitFor(at, "›", 5*time.Second)

			p.send("/exit", "Enter")
			if code := p.exitStatus(5 * time.Second); code != 0 {
				t.Fatalf("/exit: status %d\n%s", code, p.screen())
			}
		})
	}
}

// TestChatTmuxUI drives the interactive chat in a terminal on both wires
// through what issue 30 found missing: the diff of an edit is on screen before its question, a command's
// failing last line after it, /expand shows the rest (finding 2); the
// question takes one key, n stops the turn and what the user types
// instead is the next message, the model told of the refusal; "a" writes
// an allow rule that /permissions shows and that holds after --continue
// (finding 5); !command and @path; --continue recaps the session and
// keeps its counters (finding 6); /model sets the new model's budget
// without the override warning and /clear keeps it (finding 7).
func TestChatTmuxUI(t *testing.T) {
	needTmux(t)
	bin := buildAgentctx(t)
	for _, wire := range []providertest.Wire{providertest.WireOpenAI, providertest.WireAnthropic} {
		t.Run(string(wire), func(t *testing.T) {
			srv, dir, env := uiSetup(t, wire)
			defer srv.Close()
			calc := filepath.Join(dir, "calc.py")
			p := tmuxStart(t, env, bin, "chat", dir)
			_, at := p.waitFor(0, "new session ", 10*time.Second)
			_, at = p.waitFor(at, "›", 5*time.Second)

			// Finding 2 and 5: the diff, then one key; n stops the turn.
			p.send("fix calc", "Enter")
			s, q := p.waitFor(at, "allow edit_file calc.py?", 10*time.Second)
			if d := s[at:q]; !strings.Contains(d, "-    return a - b") || !strings.Contains(d, "+    return a + b") || !strings.Contains(d, "+++ b/calc.py") {
				t.Errorf("no diff before the question:\n%s", d)
			}
			_, at = p.waitFor(q, "› ", 5*time.Second)
			requests := len(srv.Requests())
			p.send("n") // no Enter
			_, at = p.waitFor(at, "what should the agent do instead?", 5*time.Second)
			if n := len(srv.Requests()); n != requests {
				t.Errorf("after n the turn went on: %d model calls, want %d", n, requests)
			}
			p.send("use write_file instead", "Enter")
			s, q = p.waitFor(at, "allow write_file calc.py?", 10*time.Second)
			if !strings.Contains(s[at:q], "Writing (saw the refusal: true).") {
				t.Errorf("the model was not told of the refusal:\n%s", s[at:q])
			}
			_, at = p.waitFor(q, "› ", 5*time.Second)
			p.send("a")
			_, at = p.waitFor(at, "allowed from now on: write_file", 5*time.Second)
			_, at = p.waitFor(at, "Done: Wrote calc.py", 10*time.Second)
			if b, _ := os.ReadFile(calc); string(b) != calcFix {
				t.Errorf("calc.py = %q", b)
			}
			// A command's output: its head and its failing last line.
			_, at = p.waitFor(at, "›", 5*time.Second)
			p.send("run the tests", "Enter")
			_, at = p.waitFor(at, "allow run_command", 10*time.Second)
			_, at = p.waitFor(at, "› ", 5*time.Second)
			p.send("y")
			s, end := p.waitFor(at, "The tests fail.", 20*time.Second)
			out := s[at:end]
			for _, want := range []string{"    1\n", "    4\n", "… 14 lines", "    19\n", "FAIL: test_add: want 4, got 0"} {
				if !strings.Contains(out, want) {
					t.Errorf("the command's output does not show %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "    10\n") {
				t.Errorf("the output's middle is shown:\n%s", out)
			}
			_, at = p.waitFor(end, "›", 5*time.Second)
			p.send("/expand", "Enter")
			_, at = p.waitFor(at, "    10\n", 5*time.Second)
			_, at = p.waitFor(at, "›", 5*time.Second)
			// Ctrl-O too, the line being typed kept.
			p.send("half-typed", "C-o")
			_, at = p.waitFor(at, "    10\n", 5*time.Second)
			_, at = p.waitFor(at, "› half-typed", 5*time.Second)
			p.send("", "C-u")

			// !command and @path.
			p.send("!echo hello-from-shell", "Enter")
			_, at = p.waitFor(at, "the output goes to the model with your next message", 10*time.Second)
			p.send("what did I run?", "Enter")
			_, at = p.waitFor(at, "holds hello-from-shell: true.", 10*time.Second)
			_, at = p.waitFor(at, "›", 5*time.Second)
			p.send("read @../outside.txt", "Enter")
			_, at = p.waitFor(at, "nothing was sent", 5*time.Second)
			p.send("look at @calc.py", "Enter")
			_, at = p.waitFor(at, "The file is attached: true.", 10*time.Second)
			_, at = p.waitFor(at, "›", 5*time.Second)
			p.send("/permissions", "Enter")
			_, at = p.waitFor(at, "allow  write_file", 5*time.Second)
			_, at = p.waitFor(at, "›", 5*time.Second)
			p.send("/compact", "Enter")
			_, at = p.waitFor(at, "✻ compacted", 10*time.Second)
			p.waitFor(at, "›", 5*time.Second)
			p.send("/exit", "Enter")
			if code := p.exitStatus(5 * time.Second); code != 0 {
				t.Fatalf("/exit: status %d\n%s", code, p.screen())
			}
			if b, err := os.ReadFile(filepath.Join(dir, ".agentctx", "settings.json")); err != nil || !strings.Contains(string(b), `"write_file"`) {
				t.Errorf("settings.json: %s %v", b, err)
			}

			// Finding 6: --continue recaps; the rule holds; the counters
			// are the session's.
			p2 := tmuxStart(t, env, bin, "chat", dir, "--continue")
			_, at = p2.waitFor(0, "where the session stands", 10*time.Second)
			s, end = p2.waitFor(at, "›", 5*time.Second)
			recap := s[at:end]
			for _, want := range []string{"1 compaction", "you asked: look at @calc.py", "files changed: calc.py"} {
				if !strings.Contains(recap, want) {
					t.Errorf("the recap does not show %q:\n%s", want, recap)
				}
			}
			at = end
			p2.send("write it again", "Enter")
			s, end = p2.waitFor(at, "Done: Wrote calc.py", 10*time.Second)
			if strings.Contains(s[at:end], "allow write_file") {
				t.Errorf("the allow rule was not honoured after --continue:\n%s", s[at:end])
			}
			s, end = p2.waitFor(end, "── ", 5*time.Second)
			line, _, _ := strings.Cut(s[end:], "\n")
			if !strings.Contains(line, "1 compaction") {
				t.Errorf("the status line lost the session's compaction: %s", line)
			}
			if m := regexp.MustCompile(`\$([\d.]+) \(session \$([\d.]+)\)`).FindStringSubmatch(line); m == nil || m[1] >= m[2] {
				t.Errorf("the status line's session cost is not the whole session's: %s", line)
			}
			_, at = p2.waitFor(end, "›", 5*time.Second)

			// Finding 7: /model sets the new model's budget, quietly;
			// /clear keeps it.
			if wire == providertest.WireOpenAI {
				p2.send("/model gpt-5", "Enter")
				s, end = p2.waitFor(at, "openai/gpt-5 · budget ", 10*time.Second)
				budget, _, _ := strings.Cut(s[end:], " ")
				if budget == "98,616" {
					t.Errorf("/model gpt-5 kept gpt-4o's budget %s", budget)
				}
				// at is in the newer capture: read the warning there.
				var after string
				after, at = p2.waitFor(end, "›", 5*time.Second)
				if strings.Contains(after[end:at], "option overrides") {
					t.Errorf("/model printed the override warning:\n%s", after[end:at])
				}
				p2.send("/budget", "Enter")
				_, at = p2.waitFor(at, budget+" tokens (policy", 5*time.Second)
				p2.send("/clear", "Enter")
				p2.waitFor(at, "· openai/gpt-5 · budget "+budget+" tokens · new session", 10*time.Second)
			}
			p2.send("/exit", "Enter")
			if code := p2.exitStatus(5 * time.Second); code != 0 {
				t.Fatalf("/exit: status %d\n%s", code, p2.screen())
			}
			if d := os.Getenv("AGENTCTX_TMUX_CAPTURE"); d != "" {
				_ = os.WriteFile(filepath.Join(d, "chatui-"+string(wire)+".txt"), []byte(p.screen()+p2.screen()), 0o644)
			}
		})
	}
}
