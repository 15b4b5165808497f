package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// mcpSDKEnv names the folder where npm installed the official TypeScript
// MCP SDK (@modelcontextprotocol/sdk, the version .ci/run pins):
// TestMCPConformanceTS skips without it, and fails under CI=true.
const mcpSDKEnv = "AGENTCTX_MCP_SDK_DIR"

// tsReport is what testdata/mcp-conformance.cjs prints.
type tsReport struct {
	Server struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"server"`
	Tools []struct {
		Name       string   `json:"name"`
		Required   []string `json:"required"`
		Properties []string `json:"properties"`
	} `json:"tools"`
	Query, Lines, Unknown struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	}
	Context struct {
		IsError    bool           `json:"isError"`
		Structured map[string]any `json:"structured"`
	} `json:"context"`
}

// TestMCPConformanceTS: the official TypeScript SDK's client talks to
// agentctx mcp over stdio (it starts the program, as an agent does) and
// over streamable HTTP, lists the tools, and reads back an output a real
// proxy cut, by call id.
func TestMCPConformanceTS(t *testing.T) {
	sdk := os.Getenv(mcpSDKEnv)
	if sdk == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: .ci/run installs @modelcontextprotocol/sdk and sets it", mcpSDKEnv)
		}
		t.Skipf("%s is not set (npm install --prefix DIR @modelcontextprotocol/sdk@1.32.2)", mcpSDKEnv)
	}
	if _, err := os.Stat(filepath.Join(sdk, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("%s=%s holds no @modelcontextprotocol/sdk: %v", mcpSDKEnv, sdk, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "mcp-conformance.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	full, _ := proxiedCut(t, home)
	lines := strings.SplitAfter(full, "\n")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(asMainEnv, "1") // the client starts this test binary as agentctx

	// The HTTP server runs in this process.
	ctx, cancel := context.WithCancel(t.Context())
	errR, errW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"mcp", "--home", home, "--http", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, errW)
		errW.Close()
	}()
	line, err := bufio.NewReader(errR).ReadString('\n')
	if err != nil {
		t.Fatalf("agentctx mcp --http: %v", err)
	}
	_, addr, ok := strings.Cut(strings.TrimSpace(line), " on ")
	if !ok {
		t.Fatalf("agentctx mcp --http printed %q", line)
	}
	go func() { _, _ = io.Copy(io.Discard, errR) }()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("agentctx mcp --http did not stop")
		}
	}()

	for name, args := range map[string][]string{
		"stdio": {"stdio", self, "mcp", "--home", home},
		"http":  {"http", addr + "/"},
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), node, append([]string{script, sdk}, args...)...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("node: %v\n%s", err, stderr.String())
			}
			var rep tsReport
			if err := json.Unmarshal(out, &rep); err != nil {
				t.Fatalf("report %q: %v", out, err)
			}
			if rep.Server.Name != "agentctx" {
				t.Errorf("server %+v", rep.Server)
			}
			var names []string
			for _, tl := range rep.Tools {
				names = append(names, tl.Name)
				if tl.Name == "recall_output" && !slices.Contains(tl.Properties, "call_id") {
					t.Errorf("recall_output's schema has no call_id: %+v", tl)
				}
				if tl.Name == "pin" && !slices.Equal(tl.Required, []string{"text"}) {
					t.Errorf("pin requires %v, want [text]", tl.Required)
				}
			}
			slices.Sort(names)
			if want := []string{"context", "pin", "recall_output", "recall_span", "search_session", "unpin"}; !slices.Equal(names, want) {
				t.Errorf("tools %v, want %v", names, want)
			}
			if rep.Query.IsError || !strings.Contains(rep.Query.Text, "  2001: --- FAIL: TestParseDate (0.00s) month off by one") {
				t.Errorf("recall_output query: %+v", rep.Query)
			}
			if _, body, _ := strings.Cut(rep.Lines.Text, "\n"); rep.Lines.IsError || body != strings.Join(lines[9:12], "") {
				t.Errorf("recall_output lines 10-12: %+v", rep.Lines)
			}
			if !rep.Unknown.IsError || !strings.Contains(rep.Unknown.Text, "toolu_nope") {
				t.Errorf("recall_output of an unknown call: %+v", rep.Unknown)
			}
			if c := rep.Context; c.IsError || c.Structured["budget"] != float64(6000) || c.Structured["tokens"].(float64) <= 0 {
				t.Errorf("context: %+v", c)
			}
		})
	}
}
