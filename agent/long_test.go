package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

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

// The long session: a task of longTurns model calls whose tool outputs are
// large (20-40 KB each, several times the budget over the run), at a
// budget of longBudget tokens, through the real tools, the Engine, a
// JSONL store and a streaming provider.
const (
	longTurns   = 300
	longBudget  = 16_000
	longFinding = "The parser in file07.txt drops the last field of every record"
	longBroken  = "STATUS = BROKEN"
	longFixed   = "STATUS = FIXED"
	longDone    = "All done: target.txt is fixed."
)

// newLongProject writes a project of 24 text files of 20-40 KB each (the
// same seed, the same files) and target.txt, which the task fixes.
func newLongProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 13))
	words := strings.Fields("alpha beta gamma delta record field parser value index buffer token window budget session compact summary result output error retry stream")
	for i := range 24 {
		var b strings.Builder
		size := 20_000 + rng.IntN(20_000)
		for line := 1; b.Len() < size; line++ {
			fmt.Fprintf(&b, "%04d file%02d", line, i)
			for range 6 + rng.IntN(8) {
				b.WriteString(" " + words[rng.IntN(len(words))])
			}
			fmt.Fprintf(&b, " %d\n", rng.IntN(1_000_000))
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%02d.txt", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "target.txt"), []byte("config\n"+longBroken+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

var recallID = regexp.MustCompile(`call_id="([^"]+)"`)

// longScript plays the task: step 1 writes the plan, then reads, commands,
// searches and listings in turn, a finding noted at step 5, a recall of a
// cut output now and then, the fix at the next-to-last step and the
// answer at the last. Summary requests (no tools) get a summary.
type longScript struct {
	mu     sync.Mutex
	step   int
	recall int // recall_output calls made
	sums   int // summary requests answered
}

func (s *longScript) reply(r providertest.Request) providertest.Reply {
	if len(r.Tools) == 0 {
		s.mu.Lock()
		s.sums++
		s.mu.Unlock()
		return providertest.Reply{Text: "## Task\nFix target.txt while surveying the files.\n## Findings\n" + longFinding + "\n## State\nStill surveying."}
	}
	s.mu.Lock()
	s.step++
	step := s.step
	s.mu.Unlock()
	call := func(name string, args any) providertest.Reply {
		b, _ := json.Marshal(args)
		return providertest.Reply{Text: fmt.Sprintf("Step %d.", step), ToolCalls: []chat.ToolCall{{Name: name, Arguments: b}}}
	}
	file := fmt.Sprintf("file%02d.txt", step%24)
	switch {
	case step == 1:
		return call("todo_write", map[string]any{"todos": []map[string]string{
			{"content": "Survey the files", "status": "in_progress"}, {"content": "Fix target.txt", "status": "pending"}}})
	case step == 5:
		return call("note_finding", map[string]any{"finding": longFinding, "evidence": "file07.txt:12", "importance": 5, "category": "bug"})
	case step == longTurns-1:
		return call("edit_file", map[string]string{"path": "target.txt", "old_string": longBroken, "new_string": longFixed})
	case step >= longTurns:
		return providertest.Reply{Text: longDone}
	case step%40 == 0:
		// Recall part of the latest cut output the request shows.
		for i := len(r.Messages) - 1; i >= 0; i-- {
			if res, ok := r.Messages[i].ToolResult(); ok {
				if m := recallID.FindStringSubmatch(res.Content); m != nil {
					s.mu.Lock()
					s.recall++
					s.mu.Unlock()
					return call(agentctx.RecallToolName, map[string]any{"call_id": m[1], "start_line": 10, "end_line": 30})
				}
			}
		}
		return call("list_files", map[string]string{})
	case step%4 == 0:
		return call("run_command", map[string]string{"command": "cat " + file})
	case step%4 == 1:
		return call("read_file", map[string]string{"path": file})
	case step%4 == 2:
		return call("search", map[string]string{"query": fmt.Sprintf("file%02d .*window", step%24)})
	default:
		return call("read_file", map[string]any{"path": file, "start_line": 100, "end_line": 400})
	}
}

// TestLongSession runs a 300-call task with large tool outputs at a 16,000
// token budget on both wire formats, streaming, with the model as the
// summarizer: every request within budget and valid for the provider
// (the fake provider refuses broken orderings), compactions along the
// way, the finding and the plan kept to the end, the file fixed, the
// window's invariants whole and the stored session clean and resumable.
func TestLongSession(t *testing.T) {
	if testing.Short() {
		t.Skip("long session: skipped in -short")
	}
	for _, wire := range wires {
		t.Run(string(wire), func(t *testing.T) {
			t.Parallel()
			dir := newLongProject(t)
			script := &longScript{}
			srv := providertest.New(providertest.Options{Wire: wire, Script: script.reply})
			defer srv.Close()
			var llm provider.Model
			var err error
			name := "gpt-4o"
			if wire == providertest.WireAnthropic {
				name = "claude-sonnet-4-5"
				llm, err = anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.BaseURL, Model: name, MaxRetries: -1})
			} else {
				llm, err = openai.New(openai.Options{APIKey: "k", BaseURL: srv.BaseURL, Model: name, MaxRetries: -1})
			}
			if err != nil {
				t.Fatal(err)
			}
			st, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			env := tools.Env{Root: dir}
			defEnv := env
			defEnv.Engine = new(agentctx.Engine)
			defs := []chat.ToolDef{agentctx.RecallTool()}
			for _, tl := range tools.Default(defEnv) {
				defs = append(defs, tl.Def())
			}
			ctx := context.Background()
			e, err := agentctx.Open(ctx, agentctx.Options{
				Store: st, Dir: dir, Model: name, Budget: longBudget, MaxTokens: 1000, NoWorkspace: true,
				SystemPrompt: "You are a coding agent. Use the tools.", Tools: defs,
				Summarizer: &compact.ModelSummarizer{Model: llm},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			env.Engine = e
			var compactions, usages, denied int
			var over []string
			a, err := agent.New(agent.Options{Engine: e, Model: llm, Tools: tools.Default(env), MaxTurns: longTurns + 10,
				Permission: &agent.Guard{Yes: true},
				Events: func(ev agent.Event) {
					switch ev.Kind {
					case agent.EventCompaction:
						compactions++
					case agent.EventToolResult:
						if ev.Result.Denied || ev.Result.IsError {
							denied++
							t.Logf("%s failed: %d bytes", ev.Result.Name, ev.Result.Bytes)
						}
					case agent.EventUsage:
						usages++
						if ev.Usage.RequestTokens > ev.Usage.Budget || ev.Usage.Budget != longBudget {
							over = append(over, fmt.Sprintf("turn %d: %d tokens of %d", ev.Turn, ev.Usage.RequestTokens, ev.Usage.Budget))
						}
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := a.Run(ctx, "Survey the files, then fix target.txt (it says BROKEN).")
			if err != nil || res.StopReason != agent.StopDone || res.Text != longDone {
				t.Fatalf("Run = %+v, %v (script at step %d)", res, err, script.step)
			}
			if res.ModelCalls != longTurns || usages != longTurns {
				t.Errorf("%d model calls, %d usage events; want %d", res.ModelCalls, usages, longTurns)
			}
			if len(over) > 0 {
				t.Errorf("%d requests over budget, first: %s", len(over), over[0])
			}
			b, err := os.ReadFile(filepath.Join(dir, "target.txt"))
			if err != nil || !strings.Contains(string(b), longFixed) {
				t.Errorf("target.txt not fixed: %q, %v", b, err)
			}
			if denied > 0 {
				t.Errorf("%d tool calls denied or failed", denied)
			}
			if compactions == 0 {
				t.Error("no compaction in a session many times the budget")
			}
			if script.recall == 0 {
				t.Error("the script never found a cut output to recall")
			}
			if v := e.Check(); len(v) > 0 {
				t.Errorf("window invariants broken: %v", v)
			}

			reqs := srv.Requests()
			tasks := 0
			for _, r := range reqs {
				if len(r.Tools) == 0 {
					continue // a summary request
				}
				tasks++
				// The server's own count (o200k, OpenAI framing) is exact
				// for gpt-4o; Claude's tokenizer is not public, so it is
				// only an estimate there and checked with a margin.
				limit := longBudget
				if wire == providertest.WireAnthropic {
					limit = longBudget * 12 / 10
				}
				if r.PromptTokens > limit {
					t.Errorf("request %d: %d tokens by the server's count, budget %d", r.N, r.PromptTokens, longBudget)
				}
			}
			if tasks != longTurns {
				t.Errorf("%d task requests, want %d", tasks, longTurns)
			}
			// The last request still knows the task, the finding and the plan.
			last := reqs[len(reqs)-1]
			var all strings.Builder
			for _, m := range last.Messages {
				all.WriteString(m.Text())
				all.WriteByte('\n')
			}
			for _, want := range []string{"fix target.txt", longFinding, "Fix target.txt"} {
				if !strings.Contains(all.String(), want) {
					t.Errorf("the last request lost %q", want)
				}
			}

			// The stored session reads back clean and resumes.
			id, stats := e.ID(), e.Stats()
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			path, err := st.Path(id)
			if err != nil {
				t.Fatal(err)
			}
			entries, problems, err := session.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if rep := session.Check(entries, problems); !rep.OK() {
				t.Errorf("stored session: %+v", rep.Problems)
			}
			r, err := agentctx.Resume(ctx, id, agentctx.Options{Store: st, Dir: dir, NoWorkspace: true, Tools: defs})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if v := r.Check(); len(v) > 0 {
				t.Errorf("resumed window: %v", v)
			}
			if len(r.Messages()) == 0 || !strings.Contains(r.Rehydration()+fmt.Sprint(r.Messages()), "fix target.txt") {
				t.Errorf("the resumed session lost the task")
			}
			t.Logf("compactions by level: %v", stats.Compactions)
			t.Logf("%s: %d requests (%d summaries), %d compactions, %d recalls", wire, len(reqs), script.sums, compactions, script.recall)
		})
	}
}
