package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentctx/agentctx/agent/sandbox"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider/providertest"
)

// commandScript plays a task that runs commands, one per turn, then
// answers. seen receives what the model was sent of each result, by call
// id.
func commandScript(seen *sync.Map, commands ...string) func(providertest.Request) providertest.Reply {
	return func(r providertest.Request) providertest.Reply {
		n := 0
		for _, m := range r.Messages {
			if res, ok := m.ToolResult(); ok {
				seen.Store(res.ToolCallID, res.Content)
				n++
			}
		}
		if n < len(commands) {
			args, _ := json.Marshal(map[string]string{"command": commands[n]})
			return providertest.Reply{ToolCalls: []chat.ToolCall{{ID: fmt.Sprintf("c%d", n), Name: "run_command", Arguments: args}}}
		}
		return providertest.Reply{Text: "Done."}
	}
}

// toolResults runs chat --json and returns its tool results by call id,
// "DENIED" for a denied one, what the model saw otherwise, and stderr.
func toolResults(t *testing.T, seen *sync.Map, args ...string) (map[string]string, string) {
	t.Helper()
	seen.Clear()
	code, out, errOut := run(t, append([]string{"chat"}, append(args, "--json")...)...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	res := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Kind   string `json:"kind"`
			Result struct {
				ID     string `json:"id"`
				Denied bool   `json:"denied"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Kind == "tool_result" {
			c, _ := seen.Load(ev.Result.ID)
			res[ev.Result.ID], _ = c.(string)
			if ev.Result.Denied {
				res[ev.Result.ID] = "DENIED " + res[ev.Result.ID]
			}
		}
	}
	return res, errOut
}

// TestChatSandbox: under --yes, chat -p runs commands in the sandbox,
// without the provider key in their environment, refuses a hazardous
// command, and without a sandbox refuses every command.
func TestChatSandbox(t *testing.T) {
	const key = "sk-test-chat-sandbox-0123456789"
	outside := filepath.Join(t.TempDir(), "escape.txt")
	var seen sync.Map
	srv := providertest.NewOpenAI(providertest.Options{Script: commandScript(&seen,
		"printenv",
		"rm -rf ~",
		"echo x > "+outside+"; echo in > in.txt",
	)})
	defer srv.Close()
	t.Setenv("AGENTCTX_PROVIDER", "openai")
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL)
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("AGENTCTX_MODEL", "gpt-4o")
	home := t.TempDir()
	t.Setenv("AGENTCTX_HOME", home)
	dir := t.TempDir()

	if _, err := sandbox.New(t.Context(), sandbox.Policy{Root: dir}); errors.Is(err, sandbox.ErrUnavailable) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and no sandbox (apt-get install -y bubblewrap): %v", err)
		}
		t.Skipf("no sandbox here: %v", err)
	}

	res, errOut := toolResults(t, &seen, dir, "-p", "look around", "--yes")
	if errOut != "" {
		t.Errorf("stderr with a sandbox: %q", errOut)
	}
	if !strings.Contains(res["c0"], "PATH=") || strings.Contains(res["c0"], key) || strings.Contains(res["c0"], "OPENAI_API_KEY") {
		t.Errorf("printenv:\n%s", res["c0"])
	}
	if !strings.HasPrefix(res["c1"], "DENIED") {
		t.Errorf("rm -rf ~ under --yes: %q, want denied", res["c1"])
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("%s written by a sandboxed command", outside)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "in.txt")); err != nil || string(b) != "in\n" {
		t.Errorf("in.txt = %q, %v; result %q", b, err, res["c2"])
	}
	// The key reached neither the model nor the session.
	_ = filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), key) {
				t.Errorf("%s holds the provider key", p)
			}
		}
		return nil
	})

	res, errOut = toolResults(t, &seen, t.TempDir(), "-p", "look around", "--yes", "--no-sandbox")
	if !strings.Contains(errOut, "every command will be refused") {
		t.Errorf("--no-sandbox stderr: %q", errOut)
	}
	for id, c := range res {
		if !strings.HasPrefix(c, "DENIED") {
			t.Errorf("--no-sandbox: %s ran: %q", id, c)
		}
	}
}
