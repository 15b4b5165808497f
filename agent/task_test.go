package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/agent"
	"github.com/agentctx/agentctx/agent/tools"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/anthropic"
	"github.com/agentctx/agentctx/provider/openai"
	"github.com/agentctx/agentctx/provider/providertest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// taskRig is an agent with the task tool over a project, a JSONL store
// and a scripted provider.
type taskRig struct {
	srv    *providertest.Server
	store  *jsonlstore.Store
	llm    provider.Model
	eng    *agentctx.Engine
	agent  *agent.Agent
	env    tools.Env
	opts   agentctx.Options
	cp     *agent.Checkpoints
	cpDir  string
	events []agent.Event
	mu     sync.Mutex
}

// newTaskRig opens a session at budget over dir with the default tools
// and the task tool, all allowed (--yes), file checkpoints kept.
func newTaskRig(t *testing.T, wire providertest.Wire, dir string, budget int, script providertest.Script) *taskRig {
	t.Helper()
	r := &taskRig{srv: providertest.New(providertest.Options{Wire: wire, Script: script})}
	t.Cleanup(r.srv.Close)
	var err error
	name := "gpt-4o"
	if wire == providertest.WireAnthropic {
		name = "claude-sonnet-4-5"
		r.llm, err = anthropic.New(anthropic.Options{APIKey: "k", BaseURL: r.srv.BaseURL, Model: name, MaxRetries: -1})
	} else {
		r.llm, err = openai.New(openai.Options{APIKey: "k", BaseURL: r.srv.BaseURL, Model: name, MaxRetries: -1})
	}
	if err != nil {
		t.Fatal(err)
	}
	if r.store, err = jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.store.Close() })
	r.env = tools.Env{Root: dir}
	defEnv := r.env
	defEnv.Engine = new(agentctx.Engine)
	defs := []chat.ToolDef{agentctx.RecallTool(), agent.TaskDef()}
	for _, tl := range tools.Default(defEnv) {
		defs = append(defs, tl.Def())
	}
	r.opts = agentctx.Options{
		Store: r.store, Dir: dir, Model: name, Budget: budget, MaxTokens: 1000, NoWorkspace: true,
		SystemPrompt: "You are a coding agent. Use the tools.", Tools: defs,
		Summarizer: &compact.ModelSummarizer{Model: r.llm},
	}
	e, err := agentctx.Open(context.Background(), r.opts)
	if err != nil {
		t.Fatal(err)
	}
	r.cpDir = t.TempDir()
	if r.cp, err = agent.OpenCheckpoints(r.env, filepath.Join(r.cpDir, e.ID()+".ckpt"), filepath.Join(r.cpDir, "blobs")); err != nil {
		t.Fatal(err)
	}
	r.use(t, e)
	return r
}

// use makes e the rig's session: its agent, tools and task tool.
func (r *taskRig) use(t *testing.T, e *agentctx.Engine) {
	t.Helper()
	if r.eng != nil && r.eng != e {
		_ = r.eng.Close()
	}
	r.eng = e
	t.Cleanup(func() { _ = e.Close() })
	env := r.env
	env.Engine = e
	perm := &agent.Guard{Yes: true}
	task, err := agent.NewTask(agent.TaskOptions{
		Parent: e, Engine: r.opts, Model: r.llm, Permission: perm, Checkpoints: r.cp,
		Tools: func(child *agentctx.Engine) []tools.Tool {
			cenv := r.env
			cenv.Engine = child
			return tools.Default(cenv)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	r.agent, err = agent.New(agent.Options{
		Engine: e, Model: r.llm, Tools: append(tools.Default(env), task), Permission: perm, MaxTurns: 20, Checkpoints: r.cp,
		Events: func(ev agent.Event) {
			r.mu.Lock()
			r.events = append(r.events, ev)
			r.mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// barrier lets n goroutines through once all n arrived; a goroutine
// that waits longer than the test can ever need is told it is alone.
type barrier struct {
	mu   sync.Mutex
	n    int
	done chan struct{}
}

func (b *barrier) wait(n int) bool {
	b.mu.Lock()
	if b.done == nil {
		b.done = make(chan struct{})
	}
	b.n++
	if b.n == n {
		close(b.done)
	}
	done := b.done
	b.mu.Unlock()
	select {
	case <-done:
		return true
	case <-time.After(30 * time.Second):
		return false
	}
}

// TestTaskConcurrent: two task calls in one reply run at the same time
// (each sub-agent's first request waits for the other's), each on a
// session of its own linked to the parent; their events reach the
// parent's Events marked with the sub-agent; the parent's window holds
// their answers only.
func TestTaskConcurrent(t *testing.T) {
	for _, wire := range wires {
		t.Run(string(wire), func(t *testing.T) {
			b := &barrier{}
			script := func(req providertest.Request) providertest.Reply {
				if hasTool(req, agent.TaskToolName) {
					if res := resultsAfterUser(req); len(res) > 0 {
						var texts []string
						for _, x := range res {
							texts = append(texts, firstLine(x.Content))
						}
						return providertest.Reply{Text: strings.Join(texts, " | ")}
					}
					calls := []chat.ToolCall{}
					for _, who := range []string{"alpha", "beta"} {
						args, _ := json.Marshal(map[string]string{"description": "look " + who, "prompt": "list the files, then say " + who})
						calls = append(calls, chat.ToolCall{ID: "task-" + who, Name: agent.TaskToolName, Arguments: args})
					}
					return providertest.Reply{ToolCalls: calls}
				}
				who := strings.TrimPrefix(lastUser(req), "list the files, then say ")
				if len(resultsAfterUser(req)) == 0 {
					return providertest.Reply{ToolCalls: []chat.ToolCall{{ID: "ls-" + who, Name: "list_files", Arguments: json.RawMessage(`{}`)}}}
				}
				if !b.wait(2) {
					return providertest.Reply{Text: who + " ran alone"}
				}
				return providertest.Reply{Text: who + " ran together"}
			}
			r := newTaskRig(t, wire, t.TempDir(), 16_000, script)
			res, err := r.agent.Run(context.Background(), "look at the project twice")
			if err != nil || res.StopReason != agent.StopDone {
				t.Fatalf("Run = %+v, %v", res, err)
			}
			if !strings.Contains(res.Text, "alpha ran together") || !strings.Contains(res.Text, "beta ran together") {
				t.Errorf("the sub-agents did not run at the same time: %q", res.Text)
			}
			ss, err := r.store.List(context.Background(), session.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			children := map[string]string{}
			for _, s := range ss {
				if s.Metadata[session.MetaParent] == r.eng.ID() {
					children[s.Metadata[session.MetaTask]] = s.ID
					if s.Origin != agent.TaskOrigin {
						t.Errorf("sub-agent session %s has origin %q", s.ID, s.Origin)
					}
				}
			}
			if len(children) != 2 || children["look alpha"] == "" || children["look beta"] == "" {
				t.Errorf("the store links %v to the parent", children)
			}
			nested := 0
			for _, ev := range r.events {
				if ev.Agent != nil && ev.Kind == agent.EventToolResult {
					nested++
					if children[ev.Agent.Description] != ev.Agent.SessionID {
						t.Errorf("event of %+v names the wrong session", ev.Agent)
					}
				}
			}
			if nested != 2 {
				t.Errorf("%d sub-agent tool results reached the parent's events, want 2", nested)
			}
			for _, m := range r.eng.Messages() {
				if res, ok := m.ToolResult(); ok && res.ToolName == "list_files" {
					t.Errorf("the parent's window holds a sub-agent's list_files result")
				}
			}
		})
	}
}

// hasTool reports whether req offers the tool named name.
func hasTool(req providertest.Request, name string) bool {
	for _, d := range req.Tools {
		if d.Name == name {
			return true
		}
	}
	return false
}

// userIndex returns the index of the last user message of req with text
// that is not a system reminder; -1 if none.
func userIndex(req providertest.Request) int {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role == chat.RoleUser && userText(m) != "" {
			return i
		}
	}
	return -1
}

// userText is the text of user message m without system reminders.
func userText(m chat.Message) string {
	var out []string
	for _, p := range m.Parts {
		if x, ok := p.(chat.Text); ok && !strings.Contains(x.Text, "system-reminder") && strings.TrimSpace(x.Text) != "" {
			out = append(out, strings.TrimSpace(x.Text))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return out[len(out)-1]
}

// lastUser returns the text of req's last user message.
func lastUser(req providertest.Request) string {
	if i := userIndex(req); i >= 0 {
		return userText(req.Messages[i])
	}
	return ""
}

// resultsAfterUser returns the tool results after req's last user
// message.
func resultsAfterUser(req providertest.Request) []chat.ToolResult {
	var out []chat.ToolResult
	for _, m := range req.Messages[userIndex(req)+1:] {
		for _, p := range m.Parts {
			if x, ok := p.(chat.ToolResult); ok {
				out = append(out, x)
			}
		}
	}
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

var subSessionRE = regexp.MustCompile(`sub-agent session ([0-9a-f-]{36})`)

// TestTaskResume: a task call with resume set continues that sub-agent's
// session (it sees its earlier prompt); resume of a session that is not a
// sub-agent of this one is refused, named.
func TestTaskResume(t *testing.T) {
	var parentID string
	script := func(req providertest.Request) providertest.Reply {
		if !hasTool(req, agent.TaskToolName) {
			n := 0
			for _, m := range req.Messages {
				if m.Role == chat.RoleUser && strings.HasPrefix(userText(m), "count") {
					n++
				}
			}
			return providertest.Reply{Text: fmt.Sprintf("I have seen %d prompts.", n)}
		}
		if res := resultsAfterUser(req); len(res) > 0 {
			var texts []string
			for _, x := range res {
				texts = append(texts, x.Content)
			}
			return providertest.Reply{Text: strings.Join(texts, "\n")}
		}
		task := func(id string, args map[string]string) chat.ToolCall {
			b, _ := json.Marshal(args)
			return chat.ToolCall{ID: id, Name: agent.TaskToolName, Arguments: b}
		}
		if m := subSessionRE.FindStringSubmatch(lastUser(req)); m != nil {
			return providertest.Reply{ToolCalls: []chat.ToolCall{
				task("again", map[string]string{"description": "count again", "prompt": "count again", "resume": m[1]}),
				task("wrong", map[string]string{"description": "count", "prompt": "count", "resume": parentID}),
			}}
		}
		return providertest.Reply{ToolCalls: []chat.ToolCall{task("first", map[string]string{"description": "count", "prompt": "count once"})}}
	}
	r := newTaskRig(t, providertest.WireOpenAI, t.TempDir(), 16_000, script)
	parentID = r.eng.ID()
	ctx := context.Background()
	res, err := r.agent.Run(ctx, "start a counter")
	if err != nil || !strings.HasPrefix(res.Text, "I have seen 1 prompts.") {
		t.Fatalf("first Run = %+v, %v", res, err)
	}
	m := subSessionRE.FindStringSubmatch(res.Text)
	if m == nil {
		t.Fatalf("no sub-agent session id in %q", res.Text)
	}
	res, err = r.agent.Run(ctx, "continue "+m[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Text, "I have seen 2 prompts.") {
		t.Errorf("the resumed sub-agent did not see its first prompt: %q", res.Text)
	}
	if !strings.Contains(res.Text, "Error: resume "+parentID+": not a sub-agent of this session") {
		t.Errorf("resume of the parent itself was not refused: %q", res.Text)
	}
}
