package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/agent"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider/providertest"
)

// subMarker tags every line of the big files: a request holding one
// holds a sub-agent's tool result.
const subMarker = "BIG-MARKER-"

// subAnswer starts the sub-agent's answer.
const subAnswer = "Survey done:"

// hasTool reports whether r offers the tool named name.
func hasTool(r providertest.Request, name string) bool {
	for _, d := range r.Tools {
		if d.Name == name {
			return true
		}
	}
	return false
}

// resultsSinceUser returns the tool results after the last message the
// user typed in r.
func resultsSinceUser(r providertest.Request) []chat.ToolResult {
	last := -1
	for i, m := range r.Messages {
		if m.Role == chat.RoleUser && len(typedTexts(m)) > 0 {
			last = i
		}
	}
	var out []chat.ToolResult
	for _, m := range r.Messages[last+1:] {
		for _, p := range m.Parts {
			if x, ok := p.(chat.ToolResult); ok {
				out = append(out, x)
			}
		}
	}
	return out
}

// subScript plays TestChatTmuxSubAgent's models. The parent (offered
// the task tool) hands "survey the big files" to a sub-agent and reports
// its answer; the sub-agent (not offered it) reads big1.txt to big3.txt
// in one reply and answers with the number of files whose lines it saw.
func subScript(r providertest.Request) providertest.Reply {
	if rep, ok := summaryReply(r); ok {
		return rep
	}
	res := resultsSinceUser(r)
	if !hasTool(r, agent.TaskToolName) {
		if len(res) == 0 {
			var calls []chat.ToolCall
			for i := 1; i <= 3; i++ {
				calls = append(calls, chat.ToolCall{ID: fmt.Sprintf("read%d", i), Name: "read_file", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"big%d.txt"}`, i))})
			}
			return providertest.Reply{Text: "Reading the three files.", ToolCalls: calls}
		}
		n := 0
		for _, x := range res {
			if strings.Contains(x.Content, subMarker) {
				n++
			}
		}
		return providertest.Reply{Text: fmt.Sprintf("%s %d files read; every line is tagged.", subAnswer, n)}
	}
	for _, x := range res {
		if x.ToolCallID == "task1" {
			return providertest.Reply{Text: "The sub-agent answered: " + firstLine(x.Content)}
		}
	}
	if lastUserText(r) == "survey the big files" {
		args, _ := json.Marshal(map[string]string{"description": "survey big files", "prompt": "Read big1.txt, big2.txt and big3.txt; report how many you read."})
		return providertest.Reply{Text: "Handing this to a sub-agent.", ToolCalls: []chat.ToolCall{{ID: "task1", Name: agent.TaskToolName, Arguments: args}}}
	}
	return providertest.Reply{Text: "OK."}
}

// TestChatTmuxSubAgent: the task tool runs a sub-agent that reads three
// large files; its progress shows as nested lines; the parent's next
// request holds its answer and none of what it read (its window a small
// part of the sub-agent's); `sessions show` links the two sessions; on
// both wires.
func TestChatTmuxSubAgent(t *testing.T) {
	needTmux(t)
	bin := buildAgentctx(t)
	for _, wire := range []providertest.Wire{providertest.WireOpenAI, providertest.WireAnthropic} {
		t.Run(string(wire), func(t *testing.T) {
			srv, dir, env := uiSetupScript(t, wire, subScript)
			defer srv.Close()
			for i := 1; i <= 3; i++ {
				var b strings.Builder
				for line := 1; b.Len() < 30_000; line++ {
					fmt.Fprintf(&b, "%s%d line %04d: the quick brown fox jumps over the lazy dog %d\n", subMarker, i, line, line*7919%10007)
				}
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("big%d.txt", i)), []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p := tmuxStart(t, env, bin, "chat", dir)
			s, at := p.waitFor(0, "new session ", 10*time.Second)
			parent := regexp.MustCompile(`[0-9a-f-]{36}`).FindString(s[at:])
			_, at = p.waitFor(at, "›", 5*time.Second)
			p.send("survey the big files", "Enter")
			s, end := p.waitFor(at, "The sub-agent answered: "+subAnswer+" 3 files read", 20*time.Second)
			out := s[at:end]
			for i := 1; i <= 3; i++ {
				if want := fmt.Sprintf("    ⎿ survey big files · ● read_file big%d.txt · 3", i); !strings.Contains(out, want) {
					t.Errorf("no nested line %q:\n%s", want, out)
				}
			}
			m := regexp.MustCompile(`⎿ survey big files · done after 2 model calls \(session ([0-9a-f-]{36})\)`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no nested end line naming the sub-agent's session:\n%s", out)
			}
			child := m[1]
			p.waitFor(end, "›", 5*time.Second)
			p.send("/exit", "Enter")
			if code := p.exitStatus(5 * time.Second); code != 0 {
				t.Fatalf("/exit: status %d\n%s", code, p.screen())
			}

			// The parent's request after the task holds the answer, not
			// the files; the sub-agent's last held all three.
			var parentNext, childLast *providertest.Request
			for _, r := range srv.Requests() {
				switch {
				case !hasTool(r, agent.TaskToolName) && len(r.Tools) > 0:
					childLast = &r
				case hasTool(r, agent.TaskToolName) && parentNext == nil:
					for _, x := range resultsSinceUser(r) {
						if x.ToolCallID == "task1" {
							parentNext = &r
						}
					}
				}
			}
			if parentNext == nil || childLast == nil {
				t.Fatalf("no parent request after the task (%v) or no sub-agent request (%v)", parentNext != nil, childLast != nil)
			}
			if strings.Contains(string(parentNext.Body), subMarker) {
				t.Errorf("the parent's request holds the sub-agent's tool results")
			}
			if !strings.Contains(string(parentNext.Body), subAnswer+" 3 files read") || !strings.Contains(string(parentNext.Body), child) {
				t.Errorf("the parent's request lacks the sub-agent's answer or its session id")
			}
			if n := strings.Count(string(childLast.Body), subMarker); n < 3 {
				t.Errorf("the sub-agent's last request holds %d tagged lines; it read three files", n)
			}
			t.Logf("%s: parent's window after the task %d tokens; the sub-agent's last %d tokens", wire, parentNext.PromptTokens, childLast.PromptTokens)
			if parentNext.PromptTokens*4 > childLast.PromptTokens {
				t.Errorf("the parent's window (%d tokens) is not a small part of the sub-agent's (%d)", parentNext.PromptTokens, childLast.PromptTokens)
			}

			// The store links them.
			show := func(id string, flags ...string) string {
				cmd := exec.Command(bin, append([]string{"sessions", "show", id}, flags...)...)
				cmd.Env = env
				b, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("sessions show %s: %v\n%s", id, err, b)
				}
				return string(b)
			}
			if got := show(parent); !strings.Contains(got, "sub-agents") || !strings.Contains(got, child+"  survey big files") {
				t.Errorf("sessions show %s does not list the sub-agent %s:\n%s", parent, child, got)
			}
			var js shown
			if err := json.Unmarshal([]byte(show(parent, "--json")), &js); err != nil || len(js.SubAgents) != 1 || js.SubAgents[0] != child || len(js.Forks) != 0 {
				t.Errorf("sessions show --json: sub_agents %v, forks %v, %v", js.SubAgents, js.Forks, err)
			}
			if got := show(child); !strings.Contains(got, "sub-agent of "+parent) {
				t.Errorf("sessions show %s does not name its parent:\n%s", child, got)
			}
			if d := os.Getenv("AGENTCTX_TMUX_CAPTURE"); d != "" {
				_ = os.WriteFile(filepath.Join(d, "chatsub-"+string(wire)+".txt"), []byte(p.screen()), 0o644)
			}
		})
	}
}
