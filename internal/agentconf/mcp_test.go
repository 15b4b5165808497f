//go:build unix

package agentconf

import (
	"bufio"
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
)

// The recall through MCP, end to end: the pinned Claude Code, with
// `agentctx mcp` configured as `agentctx mcp install claude-code` writes
// it, runs behind `agentctx proxy --mcp-name agentctx` against a scripted
// model. The model runs a command whose 24 kB output the proxy cuts; the
// note names mcp__agentctx__recall_output and the call id; the model calls
// that tool for the line it lost, and answers with what it got back.

// mcpNeedle is the line in the middle of the output, which the cut drops.
const mcpNeedle = "agentctx-needle-7f3a"

// mcpBudget is the proxy's budget for this run: Claude Code's system
// prompt and tools fit under it, its first request with the output does
// not.
const mcpBudget = 14000

var cutNote = regexp.MustCompile(`call (mcp__agentctx__recall_output) with call_id="([^"]+)"`)

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
	switch {
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/models"):
		writeJSON(w, http.StatusOK, map[string]any{"data": []any{map[string]any{"type": "model", "id": "claude-opus-5-5", "display_name": "claude-opus-5-5", "created_at": "2026-01-01T00:00:00Z"}},
			"has_more": false, "first_id": "claude-opus-5-5", "last_id": "claude-opus-5-5"})
		return
	case r.URL.Path == "/v1/messages/count_tokens":
		n, _ := Count(body)
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": n})
		return
	case r.URL.Path != "/v1/messages":
		writeJSON(w, http.StatusNotFound, errorBody(WireAnthropic, 404, "not_found_error", "no route"))
		return
	}
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
	id := fmt.Sprintf("toolu_mcp%02d", s.n)
	if tools["Bash"] {
		s.tools = names
		if lastName != "" {
			s.results[lastName] = results[lastID]
		}
	}
	s.mu.Unlock()
	var out anthropicOut
	switch {
	case !tools["Bash"]:
		out = anthropicOut{typ: "text", text: "agentconf: a side answer."}
		if req.OutputConfig != nil && len(req.OutputConfig.Format) > 0 {
			out.text = `{"title":"Print the log","isNewTopic":true}`
		}
	case lastName == "":
		in, _ := json.Marshal(map[string]string{"command": "seq 1 2500; echo " + mcpNeedle + "; seq 2501 5000", "description": "Print the log"})
		out = anthropicOut{typ: "tool_use", id: id, name: "Bash", input: in}
	case lastName == "Bash":
		m := cutNote.FindStringSubmatch(results[lastID])
		if m == nil {
			out = anthropicOut{typ: "text", text: "agentconf: the output was not cut with a note naming the MCP tool."}
			break
		}
		in, _ := json.Marshal(map[string]string{"call_id": m[2], "query": mcpNeedle})
		out = anthropicOut{typ: "tool_use", id: id, name: m[1], input: in}
	default:
		out = anthropicOut{typ: "text", text: "Recalled: " + results[lastID]}
	}
	stop := "end_turn"
	if out.typ == "tool_use" {
		stop = "tool_use"
	}
	msgID := fmt.Sprintf("msg_mcp%02d", s.n)
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

func TestClaudeCodeRecallsThroughMCP(t *testing.T) {
	dir := os.Getenv("AGENTCTX_AGENTS_DIR")
	if dir == "" {
		skipOrFail(t, "AGENTCTX_AGENTS_DIR is not set (scripts/agents.sh pinned install)")
	}
	exe := filepath.Join(dir, "node_modules", ".bin", "claude")
	if _, err := os.Stat(exe); err != nil {
		skipOrFail(t, "no Claude Code under "+dir)
	}
	bin := agentctxBinary(t)
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
		"--budget", fmt.Sprint(mcpBudget), "--home", store, "--mcp-name", "agentctx")
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

	// The MCP entry, as agentctx mcp install writes it.
	mcpConfig := filepath.Join(root, "mcp.json")
	if out, err := exec.CommandContext(t.Context(), bin, "mcp", "install", "claude-code", "--write", "--file", mcpConfig,
		"--command", bin, "--home", store).CombinedOutput(); err != nil {
		t.Fatalf("agentctx mcp install: %v\n%s", err, out)
	}

	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "IS_SANDBOX=1", "ANTHROPIC_BASE_URL=" + base, "ANTHROPIC_API_KEY=agentconf-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}
	code, out := runCommand(t.Context(), exe, []string{"-p", "Print the log, then find the needle line in it.", "--dangerously-skip-permissions",
		"--output-format", "stream-json", "--verbose", "--mcp-config", mcpConfig, "--strict-mcp-config"}, repo, env)
	script.mu.Lock()
	defer script.mu.Unlock()
	if code != 0 {
		t.Fatalf("claude exited %d:\n%s", code, tail(out, 4000))
	}
	bash := script.results["Bash"]
	if !cutNote.MatchString(bash) || strings.Contains(bash, mcpNeedle) {
		t.Fatalf("the model did not get the output cut with a note naming mcp__agentctx__recall_output (tools %v): %s", script.tools, tail(bash, 600))
	}
	recalled := script.results["mcp__agentctx__recall_output"]
	if !strings.Contains(recalled, "  2501: "+mcpNeedle) {
		t.Fatalf("the MCP tool's result holds no line 2501 %q: %q\nclaude:\n%s", mcpNeedle, recalled, tail(out, 4000))
	}
	// The agent passed the recalled line on: its final result holds it.
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
	if !strings.Contains(final, "2501: "+mcpNeedle) {
		t.Errorf("Claude Code's result %q does not hold the recalled line", final)
	}
	t.Logf("cut note: %s; recalled: %q", cutNote.FindString(bash), strings.TrimSpace(recalled))
}
