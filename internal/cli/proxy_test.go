package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/provider/providertest"
)

// TestProxyUsage: proxy needs an upstream and listens on loopback only.
func TestProxyUsage(t *testing.T) {
	for _, args := range [][]string{
		{"proxy"},
		{"proxy", "--upstream", "api.openai.com"},
		{"proxy", "--upstream", "https://api.openai.com", "--listen", "0.0.0.0:0"},
		{"proxy", "--upstream", "https://api.openai.com", "--budget", "-5"},
	} {
		code, _, errOut := run(t, append(args, "--home", t.TempDir())...)
		if code != ExitUsage || !strings.Contains(errOut, "proxy:") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// TestProxyCommand runs `agentctx proxy` in front of a loopback provider,
// sends a session that outgrows the budget through it, and finds the
// session in the store with `agentctx inspect`.
func TestProxyCommand(t *testing.T) {
	up := providertest.NewOpenAI(providertest.Options{})
	defer up.Close()
	home := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"proxy", "--upstream", up.URL, "--listen", "127.0.0.1:0", "--budget", "3000", "--home", home}, strings.NewReader(""), &out, &errb)
	}()
	base := waitListening(t, &out, &errb, regexp.MustCompile(`listening on (http://\S+),`))
	msgs := []any{map[string]any{"role": "system", "content": "You are a coding agent."}, map[string]any{"role": "user", "content": "Fix the bug."}}
	for i := 0; i < 8; i++ {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "read_file", "arguments": fmt.Sprintf(`{"path":"f%d.go"}`, i)}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": strings.Repeat(fmt.Sprintf("line of f%d.go with some code in it\n", i), 60)})
		body, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": msgs})
		req, _ := http.NewRequestWithContext(t.Context(), "POST", base+"/v1/chat/completions", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer sk-proxy-test-KEY")
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("call %d: %d %s", i, res.StatusCode, data)
		}
	}
	reqs := up.Requests()
	if last := reqs[len(reqs)-1]; last.PromptTokens > 3300 {
		t.Errorf("the last request held %d tokens, budget 3000", last.PromptTokens)
	}
	cancel()
	if code := <-done; code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if strings.Contains(errb.String(), "sk-proxy-test-KEY") {
		t.Errorf("the API key reached the log")
	}
	// On exit, one line per session says what the proxy did.
	if !regexp.MustCompile(`session proxy-[0-9a-f]{20}: 8 requests, \d+ managed, \d+ forwarded as they fit, 0 unmanaged; \d+ tokens from the agent, \d+ sent upstream`).MatchString(out.String()) {
		t.Errorf("no summary line on exit: %q", out.String())
	}
	code, stdout, stderr := run(t, "sessions", "list", "--home", home)
	id := regexp.MustCompile(`proxy-[0-9a-f]{20}`).FindString(stdout)
	if code != ExitOK || id == "" {
		t.Fatalf("sessions list: exit %d, %q %q", code, stdout, stderr)
	}
	// inspect sees the proxied session: its messages and its compactions.
	code, stdout, stderr = run(t, "inspect", id, "--home", home, "--json")
	if code != ExitOK || !strings.Contains(stdout, `"compactions"`) || !strings.Contains(stdout, "gpt-4o") {
		t.Fatalf("inspect %s: exit %d, %.500q %q", id, code, stdout, stderr)
	}
}
