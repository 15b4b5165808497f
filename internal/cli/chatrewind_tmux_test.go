package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider/providertest"
)

// rewindScript plays TestChatTmuxRewind's model: "fix calc" edits
// calc.py; "write files" creates new.txt and writes shared.txt; a tool
// result is answered "Done: " and its first line; anything else "OK.".
func rewindScript(r providertest.Request) providertest.Reply {
	if rep, ok := summaryReply(r); ok {
		return rep
	}
	if res := resultsSinceUser(r); len(res) > 0 {
		return providertest.Reply{Text: "Done: " + firstLine(res[len(res)-1].Content)}
	}
	write := func(id, path, content string) chat.ToolCall {
		args, _ := json.Marshal(map[string]string{"path": path, "content": content})
		return chat.ToolCall{ID: id, Name: "write_file", Arguments: args}
	}
	switch lastUserText(r) {
	case "fix calc":
		args, _ := json.Marshal(map[string]string{"path": "calc.py", "old_string": "return a - b", "new_string": "return a + b"})
		return providertest.Reply{Text: "Editing.", ToolCalls: []chat.ToolCall{{ID: "edit1", Name: "edit_file", Arguments: args}}}
	case "write files":
		return providertest.Reply{Text: "Writing.", ToolCalls: []chat.ToolCall{write("w1", "new.txt", "made by the agent\n"), write("w2", "shared.txt", "the agent's version\n")}}
	}
	return providertest.Reply{Text: "OK."}
}

// TestChatTmuxRewind: /rewind picks an earlier message with one key,
// returns the conversation to before it, restores the files the agent
// changed since (an edit undone, a file it created removed), leaves
// alone and names a file changed outside the agent since, keeps a file
// the agent never touched, and puts the message back at the prompt;
// /fork goes on in a new session; on both wires.
func TestChatTmuxRewind(t *testing.T) {
	needTmux(t)
	bin := buildAgentctx(t)
	for _, wire := range []providertest.Wire{providertest.WireOpenAI, providertest.WireAnthropic} {
		t.Run(string(wire), func(t *testing.T) {
			srv, dir, env := uiSetupScript(t, wire, rewindScript)
			defer srv.Close()
			read := func(name string) string {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					return "(absent)"
				}
				return string(b)
			}
			writeFile := func(name, body string) {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			writeFile("shared.txt", "the original\n")
			p := tmuxStart(t, env, bin, "chat", dir, "--yes")
			_, at := p.waitFor(0, "new session ", 10*time.Second)
			_, at = p.waitFor(at, "›", 5*time.Second)
			p.send("fix calc", "Enter")
			_, at = p.waitFor(at, "Done: ", 10*time.Second)
			_, at = p.waitFor(at, "›", 5*time.Second)
			// The user's own file, between two turns: the agent never
			// touches it.
			writeFile("user.txt", "mine\n")
			p.send("write files", "Enter")
			_, at = p.waitFor(at, "Done: ", 10*time.Second)
			_, at = p.waitFor(at, "›", 5*time.Second)
			if read("calc.py") != calcFix || read("new.txt") != "made by the agent\n" || read("shared.txt") != "the agent's version\n" {
				t.Fatalf("the agent's writes: calc.py %q, new.txt %q, shared.txt %q", read("calc.py"), read("new.txt"), read("shared.txt"))
			}
			// Changed outside the agent since it wrote it.
			writeFile("shared.txt", "edited by the user\n")

			p.send("/rewind", "Enter")
			s, end := p.waitFor(at, "[1-2] rewind", 5*time.Second)
			if pick := s[at:end]; !strings.Contains(pick, "1. fix calc") || !strings.Contains(pick, "2. write files") {
				t.Errorf("the picker does not list the two messages:\n%s", pick)
			}
			p.send("1") // one key, no Enter
			_, end = p.waitFor(end, "⏪ rewound", 5*time.Second)
			s, at = p.waitFor(end, "› fix calc", 5*time.Second)
			out := s[end:at]
			for _, want := range []string{"restored calc.py", "restored new.txt", "left alone shared.txt"} {
				if !strings.Contains(out, want) {
					t.Errorf("the rewind does not say %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "user.txt") {
				t.Errorf("the rewind names user.txt, which the agent never touched:\n%s", out)
			}
			if got := read("calc.py"); got != calcBug {
				t.Errorf("calc.py not restored: %q", got)
			}
			if got := read("new.txt"); got != "(absent)" {
				t.Errorf("new.txt, created by the agent, is still there: %q", got)
			}
			if got := read("shared.txt"); got != "edited by the user\n" {
				t.Errorf("shared.txt, changed outside the agent, = %q", got)
			}
			if got := read("user.txt"); got != "mine\n" {
				t.Errorf("user.txt = %q", got)
			}
			// The conversation went back too: the next request holds
			// neither message.
			p.send("", "C-u")
			p.send("hello again", "Enter")
			_, at = p.waitFor(at, "OK.", 10*time.Second)
			reqs := srv.Requests()
			last := reqs[len(reqs)-1]
			if body := string(last.Body); strings.Contains(body, "write files") || strings.Contains(body, "fix calc") {
				t.Errorf("the request after the rewind still holds the rewound messages")
			}
			_, at = p.waitFor(at, "›", 5*time.Second)
			p.send("/fork", "Enter")
			s, end = p.waitFor(at, "⑂ forked", 10*time.Second)
			if !strings.Contains(s[at:end], "0 compactions") {
				t.Errorf("the fork's recap counts its boundary as a compaction:\n%s", s[at:end])
			}
			at = end
			_, at = p.waitFor(at, "›", 5*time.Second)
			p.send("after the fork", "Enter")
			p.waitFor(at, "OK.", 10*time.Second)
			reqs = srv.Requests()
			if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, "hello again") {
				t.Errorf("the fork lost the conversation before it")
			}
			p.send("/exit", "Enter")
			if code := p.exitStatus(5 * time.Second); code != 0 {
				t.Fatalf("/exit: status %d\n%s", code, p.screen())
			}
			if d := os.Getenv("AGENTCTX_TMUX_CAPTURE"); d != "" {
				_ = os.WriteFile(filepath.Join(d, "chatrewind-"+string(wire)+".txt"), []byte(p.screen()), 0o644)
			}
		})
	}
}
