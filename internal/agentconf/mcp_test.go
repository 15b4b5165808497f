//go:build unix

package agentconf

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentctx/agentctx/internal/sharedtest"
)

// The recall through MCP, end to end: the pinned Claude Code, Gemini CLI
// and Codex (its default model, which calls MCP tools from its exec tool's
// JavaScript, and gpt-5.5, which finds them with tool_search: see
// mcp_codex_test.go), with `agentctx mcp` configured as `agentctx mcp install` writes it,
// run behind `agentctx proxy --mcp-name agentctx` against a scripted
// model. The model runs a command whose 24 kB output the proxy cuts; the
// note names mcp__agentctx__recall_output and the call id; the model calls
// that tool for the line it lost, and answers with what it got back.

// mcpNeedle is the line in the middle of the output, which the cut drops.
const mcpNeedle = "agentctx-needle-7f3a"

// recalledLine is the needle's line as recall_output with a query returns
// it: numbered, from line 2,501 on.
var recalledLine = regexp.MustCompile(`(?m)^ +25\d\d: ` + mcpNeedle + `$`)

// mcpBudget is the proxy's budget for this run: Claude Code's system
// prompt and tools fit under it, its first request with the output does
// not.
const mcpBudget = 14000

// cutNote finds the proxy's note on a cut output: the recall tool it
// names, as the agent presents it, and the call id.
var cutNote = regexp.MustCompile(`call (mcp_{1,2}agentctx_{1,2}recall_output) with call_id="([^"]+)"`)

// mcpScript is the scripted Anthropic model of the run. It records the
// tool results it was sent, by tool name.
type mcpScript struct {
	mu      sync.Mutex
	results map[string]string // the last result of each tool
	tools   []string          // the tools the main conversation declared
	n       int
}

func (s *mcpScript) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p := r.URL.Path
	switch {
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/v1/models"):
		writeJSON(w, http.StatusOK, map[string]any{"data": []any{map[string]any{"type": "model", "id": "claude-opus-5-5", "display_name": "claude-opus-5-5", "created_at": "2026-01-01T00:00:00Z"}},
			"has_more": false, "first_id": "claude-opus-5-5", "last_id": "claude-opus-5-5"})
	case p == "/v1/messages/count_tokens":
		n, _ := Count(body)
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": n})
	case strings.HasSuffix(p, ":countTokens"):
		n, _ := Count(body)
		writeJSON(w, http.StatusOK, map[string]any{"totalTokens": n})
	case p == "/v1/messages":
		s.anthropic(w, body)
	case p == "/v1/responses":
		s.responses(w, body)
	case strings.HasPrefix(p, "/v1beta/models/"):
		s.gemini(w, r, body)
	default:
		writeJSON(w, http.StatusNotFound, errorBody(WireAnthropic, 404, "not_found_error", "no route"))
	}
}

// next is the scripted model's move in the main conversation, whose shell
// tool is shell: run the command, then call the recall tool the cut note
// names, then answer with what it returned. It returns a tool call (name
// and arguments) or a text.
func (s *mcpScript) next(shell string, tools []string, lastName, lastResult string) (name string, args map[string]any, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tools = tools
	if lastName != "" {
		s.results[lastName] = lastResult
	}
	switch lastName {
	case "":
		return shell, map[string]any{"command": "seq 1 2500; echo " + mcpNeedle + "; seq 2501 5000", "description": "Print the log"}, ""
	case shell:
		m := cutNote.FindStringSubmatch(lastResult)
		if m == nil {
			return "", nil, "agentconf: the output was not cut with a note naming the MCP tool."
		}
		return m[1], map[string]any{"call_id": m[2], "query": mcpNeedle}, ""
	}
	return "", nil, "Recalled: " + lastResult
}

func (s *mcpScript) anthropic(w http.ResponseWriter, body []byte) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody(WireAnthropic, 400, "invalid_request_error", err.Error()))
		return
	}
	tools := map[string]bool{}
	var names []string
	for _, t := range req.Tools {
		tools[t.Name] = true
		names = append(names, t.Name)
	}
	// The last tool call and its result.
	var lastName, lastID string
	results := map[string]string{}
	for _, m := range req.Messages {
		bs, _ := anthropicBlocks(m.Content)
		for _, b := range bs {
			switch b.Type {
			case "tool_use":
				lastName, lastID = b.Name, b.ID
			case "tool_result":
				results[b.ToolUseID] = blockText(b.Content)
			}
		}
	}
	s.mu.Lock()
	s.n++
	n := s.n
	s.mu.Unlock()
	out := anthropicOut{typ: "text", text: "agentconf: a side answer."}
	switch {
	case !tools["Bash"]:
		if req.OutputConfig != nil && len(req.OutputConfig.Format) > 0 {
			out.text = `{"title":"Print the log","isNewTopic":true}`
		}
	default:
		name, args, text := s.next("Bash", names, lastName, results[lastID])
		out.text = text
		if name != "" {
			in, _ := json.Marshal(args)
			out = anthropicOut{typ: "tool_use", id: fmt.Sprintf("toolu_mcp%02d", n), name: name, input: in}
		}
	}
	stop := "end_turn"
	if out.typ == "tool_use" {
		stop = "tool_use"
	}
	msgID := fmt.Sprintf("msg_mcp%02d", n)
	block := map[string]any{"type": "text", "text": out.text}
	if out.typ == "tool_use" {
		block = map[string]any{"type": "tool_use", "id": out.id, "name": out.name, "input": out.input}
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		writeJSON(w, http.StatusOK, map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": req.Model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	e := startSSE(w)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": msgID, "type": "message", "role": "assistant",
		"model": req.Model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	if out.typ == "tool_use" {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": out.id, "name": out.name, "input": map[string]any{}}})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(out.input)}})
	} else {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": out.text}})
	}
	e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	e.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

func (s *mcpScript) gemini(w http.ResponseWriter, r *http.Request, body []byte) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody(WireGemini, 400, "", err.Error()))
		return
	}
	tools := map[string]bool{}
	var names []string
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			tools[d.Name] = true
			names = append(names, d.Name)
		}
	}
	var lastName, lastResult string
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				lastName = p.FunctionCall.Name
			}
			if p.FunctionResponse != nil {
				lastResult = responseText(p.FunctionResponse.Response)
			}
		}
	}
	var part map[string]any
	gc := req.GenerationConfig
	switch {
	case gc != nil && gc.ResponseMimeType == "application/json":
		schema := gc.ResponseJSONSchema
		if len(schema) == 0 {
			schema = gc.ResponseSchema
		}
		b, _ := json.Marshal(schemaValue(schema))
		part = map[string]any{"text": string(b)}
	case !tools["run_shell_command"]:
		part = map[string]any{"text": "agentconf: a side answer."}
	default:
		name, args, text := s.next("run_shell_command", names, lastName, lastResult)
		part = map[string]any{"text": text}
		if name != "" {
			part = map[string]any{"functionCall": map[string]any{"name": name, "args": args}}
		}
	}
	model := strings.TrimPrefix(r.URL.Path, "/v1beta/models/")
	model, _, _ = strings.Cut(model, ":")
	chunk := map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "index": 0, "finishReason": "STOP"}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}, "modelVersion": model}
	if !strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
		writeJSON(w, http.StatusOK, chunk)
		return
	}
	startSSE(w).event("", chunk)
}

// responseText is the text of a Gemini functionResponse's response: its
// string values, joined.
func responseText(raw json.RawMessage) string {
	var v map[string]any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	var b strings.Builder
	for _, k := range []string{"output", "content", "error", "llmContent"} {
		if s, ok := v[k].(string); ok {
			b.WriteString(s)
		}
	}
	if b.Len() == 0 {
		return string(raw)
	}
	return b.String()
}

// mcpAgent says how to run one agent with agentctx mcp configured.
type mcpAgent struct {
	name, bin string
	// recall is the name the agent's model sees for recall_output.
	recall string
	// budget is the proxy's budget (0: mcpBudget): the agent's system
	// prompt and tools fit under it, its request with the output does not.
	budget int
	// setup installs the MCP entry with `agentctx mcp install` (bin is
	// agentctx, store its store) and returns the agent's environment and
	// arguments.
	setup func(t *testing.T, bin, store, home, base string) (env, args []string)
	// final extracts the agent's final answer from its output.
	final func(out string) string
}

// mcpInstall runs `agentctx mcp install agent --write --file file`.
func mcpInstall(t *testing.T, bin, store, agent, file string) {
	t.Helper()
	if out, err := exec.CommandContext(t.Context(), bin, "mcp", "install", agent, "--write", "--file", file,
		"--command", bin, "--home", store).CombinedOutput(); err != nil {
		t.Fatalf("agentctx mcp install %s: %v\n%s", agent, err, out)
	}
}

var mcpAgents = []mcpAgent{
	{
		name: "claude-code", bin: "claude", recall: "mcp__agentctx__recall_output",
		setup: func(t *testing.T, bin, store, home, base string) ([]string, []string) {
			conf := filepath.Join(home, "mcp.json")
			mcpInstall(t, bin, store, "claude-code", conf)
			return []string{"IS_SANDBOX=1", "ANTHROPIC_BASE_URL=" + base, "ANTHROPIC_API_KEY=agentconf-key",
					"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"},
				[]string{"-p", mcpPrompt, "--dangerously-skip-permissions", "--output-format", "stream-json", "--verbose",
					"--mcp-config", conf, "--strict-mcp-config"}
		},
		final: func(out string) string {
			var final string
			for _, line := range strings.Split(out, "\n") {
				var ev struct {
					Type   string `json:"type"`
					Result string `json:"result"`
				}
				if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "result" {
					final = ev.Result
				}
			}
			return final
		},
	},
	{
		name: "gemini-cli", bin: "gemini", recall: "mcp_agentctx_recall_output",
		setup: func(t *testing.T, bin, store, home, base string) ([]string, []string) {
			conf := filepath.Join(home, ".gemini", "settings.json")
			if err := os.MkdirAll(filepath.Dir(conf), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(conf, []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`), 0o644); err != nil {
				t.Fatal(err)
			}
			mcpInstall(t, bin, store, "gemini-cli", conf) // merged beside the auth setting
			return []string{"GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_API_KEY=agentconf-key", "GOOGLE_GEMINI_BASE_URL=" + base},
				[]string{"-p", mcpPrompt, "--yolo"}
		},
		final: func(out string) string { return out },
	},
	{
		name: "codex", bin: "codex", recall: "mcp__agentctx__recall_output", budget: 22000,
		setup: codexMCPSetup(nil),
		final: func(out string) string { return out },
	},
	{
		name: "codex-gpt-5.5", bin: "codex", recall: "mcp__agentctx__recall_output", budget: 14000,
		setup: codexMCPSetup([]string{"-m", "gpt-5.5"}),
		final: func(out string) string { return out },
	},
}

// codexMCPSetup configures Codex (flags: its model) for the proxy at base
// as agents_test.go does, with agentctx mcp added by agentctx mcp install.
func codexMCPSetup(flags []string) func(t *testing.T, bin, store, home, base string) ([]string, []string) {
	return func(t *testing.T, bin, store, home, base string) ([]string, []string) {
		codexHome := filepath.Join(home, ".codex")
		if err := os.MkdirAll(codexHome, 0o755); err != nil {
			t.Fatal(err)
		}
		conf := filepath.Join(codexHome, "config.toml")
		provider := fmt.Sprintf("model_provider = \"agentconf\"\ncheck_for_update_on_startup = false\n\n[analytics]\nenabled = false\n\n"+
			"[model_providers.agentconf]\nname = \"agentconf\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"AGENTCONF_KEY\"\n", base+"/v1")
		if err := os.WriteFile(conf, []byte(provider), 0o644); err != nil {
			t.Fatal(err)
		}
		mcpInstall(t, bin, store, "codex", conf) // merged beside the provider
		args := append([]string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"}, flags...)
		return []string{"CODEX_HOME=" + codexHome, "AGENTCONF_KEY=agentconf-key"}, append(args, mcpPrompt)
	}
}

const mcpPrompt = "Print the log, then find the needle line in it."

func TestAgentsRecallThroughMCP(t *testing.T) {
	sharedtest.SkipUnlessLong(t) // real agents: a minute
	dir := os.Getenv("AGENTCTX_AGENTS_DIR")
	if dir == "" {
		skipOrFail(t, "AGENTCTX_AGENTS_DIR is not set (scripts/agents.sh pinned install)")
	}
	bin := agentctxBinary(t)
	for _, a := range mcpAgents {
		if only := os.Getenv("AGENTCTX_AGENTS_ONLY"); only != "" && !strings.Contains(a.name, only) {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			exe := filepath.Join(dir, "node_modules", ".bin", a.bin)
			if _, err := os.Stat(exe); err != nil {
				skipOrFail(t, "no "+a.name+" under "+dir)
			}
			runMCPRecall(t, a, exe, bin)
		})
	}
}

// runMCPRecall runs agent a (exe) behind agentctx proxy --mcp-name
// agentctx with agentctx mcp configured, and checks it recalled the line
// the proxy cut.
func runMCPRecall(t *testing.T, a mcpAgent, exe, bin string) {
	root := t.TempDir()
	repo, home, store := filepath.Join(root, "repo"), filepath.Join(root, "home"), filepath.Join(root, "store")
	for _, d := range []string{repo, home, store} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := &mcpScript{results: map[string]string{}}
	up := httptest.NewServer(script)
	defer up.Close()

	// The proxy, told the agent has agentctx mcp.
	cmd := exec.CommandContext(t.Context(), bin, "proxy", "--upstream", up.URL, "--listen", "127.0.0.1:0",
		"--budget", fmt.Sprint(cmp.Or(a.budget, mcpBudget)), "--home", store, "--mcp-name", "agentctx")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var proxyLog strings.Builder
	cmd.Stderr = &proxyLog
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	var base string
	select {
	case base = <-found:
	case <-time.After(30 * time.Second):
		t.Fatalf("agentctx proxy did not start: %s", proxyLog.String())
	}

	env, args := a.setup(t, bin, store, home, base)
	env = append(env, "PATH="+os.Getenv("PATH"), "HOME="+home)
	code, out := runCommand(t.Context(), exe, args, repo, env)
	script.mu.Lock()
	defer script.mu.Unlock()
	if code != 0 {
		t.Fatalf("%s exited %d:\n%s", a.name, code, tail(out, 4000))
	}
	shell := script.results["Bash"] + script.results["run_shell_command"] + script.results["exec_command"]
	m := cutNote.FindStringSubmatch(shell)
	if m == nil || m[1] != a.recall || strings.Contains(shell, mcpNeedle) {
		t.Fatalf("the model did not get the output cut with a note naming %s (tools %v): %s\n%s:\n%s", a.recall, script.tools, tail(shell, 600), a.name, tail(out, 3000))
	}
	// The line comes back numbered: 2501 in Claude Code's output, 2502
	// in Gemini CLI's, which puts a line of its own first.
	recalled := script.results[a.recall]
	line := recalledLine.FindString(recalled)
	if line == "" {
		t.Fatalf("the MCP tool's result holds no numbered line %q: %q (tools %v)\n%s:\n%s", mcpNeedle, recalled, script.tools, a.name, tail(out, 4000))
	}
	// The agent passed the recalled line on: its final answer holds it.
	if final := a.final(out); !strings.Contains(final, strings.TrimSpace(line)) {
		t.Errorf("%s's answer %q does not hold the recalled line", a.name, tail(final, 600))
	}
	t.Logf("tools %v; cut note: %s; recalled: %q", script.tools, m[0], strings.TrimSpace(recalled))
}
