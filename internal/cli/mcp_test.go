package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider/providertest"
	"github.com/agentctx/agentctx/proxy"
	"github.com/agentctx/agentctx/session/storeurl"
)

// proxiedCut runs a proxy (MCPServer "agentctx", budget 6,000 tokens) over
// the JSONL store at home in front of a scripted Anthropic upstream, posts
// one Claude Code-shaped request whose tool result (call toolu_log1) is
// 200 kB with a failure at line 2001, and returns that output and the body the upstream got.
func proxiedCut(t *testing.T, home string) (full string, upstream []byte) {
	t.Helper()
	var b strings.Builder
	for i := 1; b.Len() < 200_000; i++ {
		fmt.Fprintf(&b, "line %d of the test log: ok pkg/mod%d\n", i, i%31)
		if i == 2000 {
			b.WriteString("--- FAIL: TestParseDate (0.00s) month off by one\n")
		}
	}
	full = b.String()
	up := providertest.New(providertest.Options{Wire: providertest.WireAnthropic})
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	st, err := storeurl.Open("", storeurl.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	p, err := proxy.New(proxy.Options{Upstream: u, Store: st, Budget: 6000, MCPServer: "agentctx"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	_, wire, err := chat.ToAnthropic([]chat.Message{
		chat.NewText(chat.RoleUser, "Run the tests in /repo and fix what fails."),
		chat.NewAssistant("Running them.", chat.ToolCall{ID: "toolu_log1", Name: "Bash", Arguments: json.RawMessage(`{"command":"go test ./..."}`)}),
		chat.NewToolResult("toolu_log1", "Bash", full, false),
	})
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := json.Marshal(wire)
	body := fmt.Sprintf(`{"model":"claude-sonnet-4-5","max_tokens":1024,"system":"You are Claude Code. Working directory: /repo","tools":[{"name":"Bash","description":"Run a command.","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}}],"messages":%s}`, msgs)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", "test")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("proxy: status %d: %s", res.StatusCode, answer)
	}
	// The proxy stops as it would on exit: its store closes, the session
	// file stays.
	srv.Close()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	reqs := up.Requests()
	upstream = reqs[len(reqs)-1].Body
	if strings.Contains(string(upstream), "month off by one") {
		t.Fatal("the proxy did not cut the 200 kB tool result")
	}
	if !strings.Contains(string(upstream), `call mcp__agentctx__recall_output with call_id=\"toolu_log1\"`) {
		t.Fatalf("the cut note does not name mcp__agentctx__recall_output: %.300s", upstream[max(0, strings.Index(string(upstream), "[agentctx:")):])
	}
	return full, upstream
}

// TestMCPStdioRecallsProxyCut: agentctx mcp on standard input and output,
// as an agent starts it, gives back the output the proxy cut, by the call
// id alone (the agent does not know the proxy's session id).
func TestMCPStdioRecallsProxyCut(t *testing.T) {
	home := t.TempDir()
	full, _ := proxiedCut(t, home)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		done <- Main(t.Context(), []string{"mcp", "--home", home, "--project", t.TempDir()}, inR, outW, &stderr)
		outW.Close()
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "recall_output", Arguments: map[string]any{"call_id": "toolu_log1", "query": "FAIL"}})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || !strings.Contains(got, fmt.Sprintf("%6d: --- FAIL: TestParseDate (0.00s) month off by one", 2001)) {
		t.Errorf("recall_output query: error=%v %q", res.IsError, got)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "recall_output", Arguments: map[string]any{"call_id": "toolu_log1", "start_line": 10, "end_line": 12}})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(full, "\n")
	if _, body, _ := strings.Cut(res.Content[0].(*mcp.TextContent).Text, "\n"); body != strings.Join(lines[9:12], "") {
		t.Errorf("recall_output lines 10-12: %q", body)
	}
	_ = cs.Close()
	inW.Close()
	if code := <-done; code != ExitOK {
		t.Errorf("agentctx mcp exited %d: %s", code, stderr.String())
	}
}

func TestMCPUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"mcp", "--http", "0.0.0.0:0"},
		{"mcp", "--http", "nonsense"},
		{"mcp", "--session", "../x"},
		{"mcp", "install", "cursor"},
		{"mcp", "install"},
		{"mcp", "install", "codex", "--name", "a b"},
		{"proxy", "--upstream", "https://api.anthropic.com", "--mcp-name", "a.b"},
	} {
		if code, _, errOut := run(t, args...); code != ExitUsage || errOut == "" {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, ExitUsage, errOut)
		}
	}
}

// TestMCPInstall: the printed entries, and --write merging them into an
// existing config without touching the rest, idempotently.
func TestMCPInstall(t *testing.T) {
	t.Parallel()
	code, out, errOut := run(t, "mcp", "install", "claude-code", "--command", "/opt/agentctx", "--store", "sqlite:/tmp/s.db")
	var cfg struct {
		MCPServers map[string]mcpEntry `json:"mcpServers"`
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &cfg) != nil {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	want := mcpEntry{Type: "stdio", Command: "/opt/agentctx", Args: []string{"mcp", "--store", "sqlite:/tmp/s.db"}}
	if got := cfg.MCPServers["agentctx"]; got.Command != want.Command || got.Type != want.Type || strings.Join(got.Args, " ") != strings.Join(want.Args, " ") {
		t.Errorf("claude-code entry %+v, want %+v", got, want)
	}
	if _, out, _ := run(t, "mcp", "install", "codex", "--command", "agentctx"); out != "[mcp_servers.agentctx]\ncommand = \"agentctx\"\nargs = [\"mcp\"]\n" {
		t.Errorf("codex entry %q", out)
	}
	// A relative store path is made absolute: the agent starts the
	// server in its own folder.
	wd, _ := os.Getwd()
	for store, want := range map[string]string{
		"sqlite:rel/s.db?sync=always": "sqlite:" + filepath.Join(wd, "rel/s.db") + "?sync=always",
		"jsonl:sessions":              "jsonl:" + filepath.Join(wd, "sessions"),
		"some/folder":                 filepath.Join(wd, "some/folder"),
		"sqlite:":                     "sqlite:",
		"postgres://u@db/x":           "postgres://u@db/x",
	} {
		_, out, _ := run(t, "mcp", "install", "codex", "--command", "agentctx", "--store", store)
		if !strings.Contains(out, strconv.Quote(want)) {
			t.Errorf("--store %s: entry %q, want %q in it", store, out, want)
		}
	}

	dir := t.TempDir()
	for _, c := range []struct {
		agent, file, old string
		// keep are texts of old that must stay; want what the file then
		// holds.
		keep []string
		want string
	}{
		{"claude-code", ".mcp.json", `{"mcpServers":{"github":{"command":"gh-mcp"}},"other":true}`,
			[]string{`"github": {`, `"command": "gh-mcp"`, `"other": true`}, `"args": [` + "\n" + `        "mcp"`},
		{"gemini-cli", "settings.json", `{"theme":"dark","mcpServers":{"agentctx":{"command":"old"}}}`,
			[]string{`"theme": "dark"`}, `"command": "agentctx"`},
		{"gemini-cli", "new/settings.json", ``, nil, `"command": "agentctx"`},
		{"codex", "config.toml", "model = \"gpt-5.5\"\n\n[mcp_servers.agentctx]\ncommand = \"old\"\n\n[mcp_servers.other]\ncommand = \"x\" # keep\n",
			[]string{"model = \"gpt-5.5\"\n", "\n[mcp_servers.other]\ncommand = \"x\" # keep\n"}, "[mcp_servers.agentctx]\ncommand = \"agentctx\"\nargs = [\"mcp\"]\n"},
	} {
		path := filepath.Join(dir, c.agent+"-"+strings.ReplaceAll(c.file, "/", "-"))
		if c.old != "" {
			if err := os.WriteFile(path, []byte(c.old), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 2 {
			code, out, errOut := run(t, "mcp", "install", c.agent, "--write", "--file", path, "--command", "agentctx")
			if code != ExitOK {
				t.Fatalf("%s: exit %d: %s", c.agent, code, errOut)
			}
			if i == 1 && !strings.Contains(out, "already configured") {
				t.Errorf("%s: the second --write changed the file: %s", c.agent, out)
			}
		}
		data, _ := os.ReadFile(path)
		for _, k := range append(c.keep, c.want) {
			if !strings.Contains(string(data), k) {
				t.Errorf("%s: %q lost or missing in:\n%s", c.agent, k, data)
			}
		}
		if fi, _ := os.Stat(path); c.old != "" && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600 kept", c.agent, fi.Mode().Perm())
		}
	}
	// A settings file with comments is not clobbered.
	path := filepath.Join(dir, "commented.json")
	old := "{\n  // mine\n  \"theme\": \"dark\"\n}\n"
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, "mcp", "install", "gemini-cli", "--write", "--file", path); code != ExitError || !strings.Contains(errOut, path) {
		t.Errorf("commented settings: exit %d: %s", code, errOut)
	}
	if data, _ := os.ReadFile(path); string(data) != old {
		t.Errorf("commented settings changed: %s", data)
	}
}

// TestMCPHTTP: agentctx mcp --http serves streamable HTTP on loopback,
// refuses a request whose Host is not a loopback name (DNS rebinding),
// and stops when its context ends.
func TestMCPHTTP(t *testing.T) {
	home := t.TempDir()
	proxiedCut(t, home)
	ctx, cancel := context.WithCancel(t.Context())
	errR, errW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"mcp", "--home", home, "--http", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, errW)
		errW.Close()
	}()
	line, err := bufio.NewReader(errR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	_, addr, _ := strings.Cut(strings.TrimSpace(line), " on ")
	go func() { _, _ = io.Copy(io.Discard, errR) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: addr}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search_session", Arguments: map[string]any{"query": "TestParseDate"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; res.IsError || !strings.Contains(got, "(Bash call_id=toolu_log1, full output) line 2001: --- FAIL: TestParseDate") {
		t.Errorf("search_session over HTTP: error=%v %q", res.IsError, got)
	}
	_ = cs.Close()
	req, _ := http.NewRequest(http.MethodPost, addr, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Host = "evil.example"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusForbidden {
		t.Errorf("a request with Host evil.example: %v %v, want 403", res.StatusCode, err)
	} else {
		res.Body.Close()
	}
	cancel()
	select {
	case code := <-done:
		if code != ExitOK && code != ExitInterrupted {
			t.Errorf("agentctx mcp --http exited %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("agentctx mcp --http did not stop")
	}
}
