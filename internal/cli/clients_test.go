package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestClients starts a real agentctx serve on loopback, with a bearer
// token, and runs the typed clients' own suites against it:
// `python3 -m unittest` in clients/python and `npm test` in
// clients/typescript, with $AGENTCTX_URL and $AGENTCTX_TOKEN set. Each
// suite checks its client against server/openapi.json and runs a turn in
// the OpenAI and Anthropic shapes (request, reply, events, recall,
// export). The TypeScript suite needs `npm ci` in clients/typescript
// (.ci/run does it): without node_modules it skips, and fails under
// CI=true.
func TestClients(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	url, token := startServe(t, "jsonl:"+t.TempDir())
	env := append(os.Environ(), "AGENTCTX_URL="+url, "AGENTCTX_TOKEN="+token)
	ci := os.Getenv("CI") == "true"

	t.Run("python", func(t *testing.T) {
		python, err := exec.LookPath("python3")
		if err != nil {
			if ci {
				t.Fatal("python3 is not installed")
			}
			t.Skip("python3 is not installed")
		}
		cmd := exec.CommandContext(t.Context(), python, "-m", "unittest", "-v")
		cmd.Dir = filepath.Join(root, "clients", "python")
		cmd.Env = env
		got, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("python3 -m unittest: %v\n%s", err, got)
		}
		// With the server's URL set nothing skips.
		if !strings.Contains(string(got), "\nOK\n") || strings.Contains(string(got), "skipped") {
			t.Fatalf("python3 -m unittest:\n%s", got)
		}
	})

	t.Run("typescript", func(t *testing.T) {
		dir := filepath.Join(root, "clients", "typescript")
		needNodeModules(t, dir, filepath.Join("openapi-fetch", "package.json"))
		npmTest(t, dir, env)
	})
}
