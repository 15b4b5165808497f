package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/agent"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider/providertest"
	"github.com/agentctx/agentctx/session"
)

// The daily-driver session: dailyTurns user messages at dailyBudget
// tokens, two sub-agents (started together at turn dailyDelegate), a
// fork after turn dailyFork, a rewind after turn dailyRewindAfter to
// before turn dailyRewindTo.
const (
	dailyTurns       = 30
	dailyBudget      = 16_000
	dailyDelegate    = 5
	dailyFix         = 10
	dailyFork        = 15
	dailyRewindTo    = 20
	dailyRewindAfter = 22
	// childMarker tags every line of the files only the sub-agents read.
	childMarker = "CHILD-ONLY-MARKER"
)

var dailyTurnRE = regexp.MustCompile(`^turn (\d+): (.*)$`)

// dailyScript plays the models of TestDailyDriverSession, deciding from
// the request alone: a summary request (no tools) gets a summary; a
// sub-agent (no task tool) reads its three files in one reply, then
// answers how many it saw; the parent does what the turn's message says
// ("read F", "run F", "delegate", "fix target", "write scratch") and
// then answers "turn N done".
func dailyScript(req providertest.Request) providertest.Reply {
	if len(req.Tools) == 0 {
		return providertest.Reply{Text: "## Task\nA long session of reads, two surveys, a fix.\n## State\ntarget.txt is fixed."}
	}
	call := func(id, name string, args any) chat.ToolCall {
		b, _ := json.Marshal(args)
		return chat.ToolCall{ID: id, Name: name, Arguments: b}
	}
	res := resultsAfterUser(req)
	text := lastUser(req)
	if !hasTool(req, agent.TaskToolName) {
		who := strings.TrimPrefix(text, "survey ")
		if len(res) == 0 {
			var calls []chat.ToolCall
			for i := 1; i <= 3; i++ {
				calls = append(calls, call(fmt.Sprintf("%s-read%d", who, i), "read_file", map[string]string{"path": fmt.Sprintf("child_%s%d.txt", who, i)}))
			}
			return providertest.Reply{Text: "Reading.", ToolCalls: calls}
		}
		n := 0
		for _, x := range res {
			if strings.Contains(x.Content, childMarker) {
				n++
			}
		}
		return providertest.Reply{Text: fmt.Sprintf("Survey %s: %d files read, all well-formed.", who, n)}
	}
	m := dailyTurnRE.FindStringSubmatch(text)
	if m == nil {
		return providertest.Reply{Text: "I do not know this turn: " + text}
	}
	if len(res) > 0 {
		return providertest.Reply{Text: "turn " + m[1] + " done."}
	}
	what, arg, _ := strings.Cut(m[2], " ")
	id := "t" + m[1]
	var calls []chat.ToolCall
	switch what {
	case "read":
		calls = []chat.ToolCall{call(id, "read_file", map[string]string{"path": arg})}
	case "run":
		calls = []chat.ToolCall{call(id, "run_command", map[string]string{"command": "head -c 12000 " + arg})}
	case "delegate":
		for _, who := range []string{"a", "b"} {
			calls = append(calls, call(id+who, agent.TaskToolName, map[string]string{"description": "survey " + who, "prompt": "survey " + who}))
		}
	case "fix":
		calls = []chat.ToolCall{call(id, "edit_file", map[string]string{"path": "target.txt", "old_string": longBroken, "new_string": longFixed})}
	case "write":
		calls = []chat.ToolCall{call(id, "write_file", map[string]string{"path": "scratch.txt", "content": "scratch of turn " + m[1] + "\n"})}
	}
	return providertest.Reply{Text: "On it.", ToolCalls: calls}
}

// dailyMessage is the user message of turn n.
func dailyMessage(n int) string {
	switch {
	case n == dailyDelegate:
		return fmt.Sprintf("turn %02d: delegate", n)
	case n == dailyFix:
		return fmt.Sprintf("turn %02d: fix target", n)
	case n == dailyRewindTo:
		return fmt.Sprintf("turn %02d: write scratch", n)
	case n%3 == 0:
		return fmt.Sprintf("turn %02d: run file%02d.txt", n, n%24)
	}
	return fmt.Sprintf("turn %02d: read file%02d.txt", n, n%24)
}

// TestDailyDriverSession is the acceptance scenario of the chat as a
// daily driver, driven through the agent loop on both wires: 30 user
// messages at a 16,000-token budget, with two sub-agents run together,
// a fork the session goes on in, and a rewind that restores a file the
// agent wrote. Every request is within budget (the Engine's count, and
// the server's where exact) and valid for the provider (the scripted
// server refuses what the real API would: unanswered calls, roles out
// of order); the parent's requests never hold what the sub-agents read;
// every stored session checks clean; the store links the sub-agents and
// the fork to their parent.
func TestDailyDriverSession(t *testing.T) {
	for _, wire := range wires {
		t.Run(string(wire), func(t *testing.T) {
			dir := newLongProject(t)
			for _, who := range []string{"a", "b"} {
				for i := 1; i <= 3; i++ {
					var b strings.Builder
					for line := 1; b.Len() < 25_000; line++ {
						fmt.Fprintf(&b, "%s %s%d line %04d: a record of the survey\n", childMarker, who, i, line)
					}
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("child_%s%d.txt", who, i)), []byte(b.String()), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			r := newTaskRig(t, wire, dir, dailyBudget, dailyScript)
			ctx := context.Background()
			root := r.eng.ID()
			var fork string
			var mu sync.Mutex
			var over []string
			compactions := 0
			check := func() {
				// The usage events so far: every request within budget,
				// the sub-agents' included.
				r.mu.Lock()
				defer r.mu.Unlock()
				for _, ev := range r.events {
					if ev.Kind == agent.EventCompaction {
						compactions++
					}
					if ev.Kind == agent.EventUsage && (ev.Usage.RequestTokens > ev.Usage.Budget || ev.Usage.Budget != dailyBudget) {
						mu.Lock()
						over = append(over, fmt.Sprintf("%+v: %d of %d", ev.Agent, ev.Usage.RequestTokens, ev.Usage.Budget))
						mu.Unlock()
					}
				}
				r.events = nil
			}
			runs := 0
			for n := 1; n <= dailyTurns; n++ {
				msg := dailyMessage(n)
				res, err := r.agent.Run(ctx, msg)
				runs++
				if err != nil || res.StopReason != agent.StopDone || res.Text != fmt.Sprintf("turn %02d done.", n) {
					t.Fatalf("turn %d: Run = %+v, %v", n, res, err)
				}
				check()
				switch n {
				case dailyFork:
					// Go on in a fork of the whole window, its checkpoints
					// copied, as chat's /fork does.
					child, err := r.eng.Fork(ctx, len(r.eng.Messages()))
					if err != nil {
						t.Fatal(err)
					}
					fork = child.ID()
					log := filepath.Join(r.cpDir, fork+".ckpt")
					if err := r.cp.CopyTo(log); err != nil {
						t.Fatal(err)
					}
					if r.cp, err = agent.OpenCheckpoints(r.env, log, filepath.Join(r.cpDir, "blobs")); err != nil {
						t.Fatal(err)
					}
					r.use(t, child)
				case dailyRewindAfter:
					// Back to before turn dailyRewindTo, as chat's
					// /rewind does: the window, then the files.
					if _, err := os.Stat(filepath.Join(dir, "scratch.txt")); err != nil {
						t.Fatalf("the agent did not write scratch.txt: %v", err)
					}
					at, turn := -1, 0
					for i, m := range r.eng.Messages() {
						if m.Role == chat.RoleUser && m.Text() == dailyMessage(dailyRewindTo) {
							at = i
						}
					}
					for _, tn := range r.cp.Turns() {
						if tn.Text == dailyMessage(dailyRewindTo) {
							turn = tn.N
						}
					}
					if at < 0 || turn == 0 {
						t.Fatalf("turn %d is not in the window (%d) or the checkpoints (%d)", dailyRewindTo, at, turn)
					}
					if err := r.eng.Rewind(ctx, at); err != nil {
						t.Fatal(err)
					}
					rep, err := r.cp.Restore(turn)
					if err != nil || len(rep.Restored) != 1 || rep.Restored[0] != "scratch.txt" || len(rep.Kept) != 0 {
						t.Fatalf("Restore(%d) = %+v, %v", turn, rep, err)
					}
					if _, err := os.Stat(filepath.Join(dir, "scratch.txt")); err == nil {
						t.Error("scratch.txt, written after the rewind point, is still there")
					}
					n = dailyRewindTo + (dailyRewindAfter - dailyRewindTo) // the turns go on from 23
				}
			}
			if runs != dailyTurns {
				t.Errorf("%d runs, want %d", runs, dailyTurns)
			}
			if len(over) > 0 {
				t.Errorf("%d requests over budget, first: %s", len(over), over[0])
			}
			if b, err := os.ReadFile(filepath.Join(dir, "target.txt")); err != nil || !strings.Contains(string(b), longFixed) {
				t.Errorf("target.txt, fixed before the rewind point, = %q, %v", b, err)
			}

			// The requests: the server's count within budget where it is
			// exact; the parent's never holding a sub-agent's results.
			var parentReqs, childReqs, biggestChild, biggestParent int
			for _, q := range r.srv.Requests() {
				if len(q.Tools) == 0 {
					continue
				}
				limit := dailyBudget
				if wire == providertest.WireAnthropic {
					limit = dailyBudget * 12 / 10 // Claude's tokenizer is not public
				}
				if q.PromptTokens > limit {
					t.Errorf("request %d: %d tokens by the server's count, budget %d", q.N, q.PromptTokens, dailyBudget)
				}
				if hasTool(q, agent.TaskToolName) {
					parentReqs++
					biggestParent = max(biggestParent, q.PromptTokens)
					if strings.Contains(string(q.Body), childMarker) {
						t.Errorf("parent request %d holds a sub-agent's tool result", q.N)
					}
				} else {
					childReqs++
					biggestChild = max(biggestChild, q.PromptTokens)
				}
			}
			if childReqs != 4 {
				t.Errorf("%d sub-agent requests, want 4 (two each)", childReqs)
			}

			// The store: every session clean, the links in place.
			if err := r.eng.Close(); err != nil {
				t.Fatal(err)
			}
			ss, err := r.store.List(ctx, session.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			subs := 0
			for _, s := range ss {
				path, err := r.store.Path(s.ID)
				if err != nil {
					t.Fatal(err)
				}
				entries, problems, err := session.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if rep := session.Check(entries, problems); !rep.OK() {
					t.Errorf("session %s: %+v", s.ID, rep.Problems)
				}
				switch {
				case s.ID == fork:
					if s.Metadata[session.MetaParent] != root {
						t.Errorf("the fork's parent is %q, want %s", s.Metadata[session.MetaParent], root)
					}
				case s.Metadata[session.MetaTask] != "":
					subs++
					if s.Metadata[session.MetaParent] != root {
						t.Errorf("sub-agent %s's parent is %q, want %s", s.ID, s.Metadata[session.MetaParent], root)
					}
				}
			}
			if len(ss) != 4 || subs != 2 || fork == "" {
				t.Errorf("the store holds %d sessions (%d sub-agents, fork %q); want the root, two sub-agents and the fork", len(ss), subs, fork)
			}
			// The fork resumes whole.
			e, err := agentctx.Resume(ctx, fork, r.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if v := e.Check(); len(v) > 0 {
				t.Errorf("the resumed fork: %v", v)
			}
			t.Logf("%s: %d runs, %d parent requests (largest %d tokens), %d sub-agent requests (largest %d tokens), %d compactions", wire, runs, parentReqs, biggestParent, childReqs, biggestChild, compactions)
		})
	}
}
