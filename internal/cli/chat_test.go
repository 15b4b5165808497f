package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider/providertest"
)

// copyScript plays a small task: read a.txt, write its text upper-cased to
// b.txt, answer.
func copyScript(r providertest.Request) providertest.Reply {
	// The last tool result since the model's last reply (a tail of
	// system reminders may follow it).
	var res chat.ToolResult
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role != chat.RoleAssistant; i-- {
		if x, ok := r.Messages[i].ToolResult(); ok && res.ToolCallID == "" {
			res = x
		}
	}
	switch res.ToolCallID {
	case "":
		return providertest.Reply{Text: "Reading it.", ToolCalls: []chat.ToolCall{{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a.txt"}`)}}}
	case "c1":
		return providertest.Reply{ToolCalls: []chat.ToolCall{{ID: "c2", Name: "write_file", Arguments: json.RawMessage(`{"path":"b.txt","content":"HELLO\n"}`)}}}
	}
	return providertest.Reply{Text: "All done: b.txt holds HELLO."}
}

// TestChatPrintMode runs `agentctx chat -p` against a scripted model on the
// OpenAI wire (streamed): the task changes the project, the answer is
// printed, the session is stored; without --yes the write is denied; with
// --json every line is an event.
func TestChatPrintMode(t *testing.T) {
	srv := providertest.NewOpenAI(providertest.Options{Script: copyScript})
	defer srv.Close()
	t.Setenv("AGENTCTX_PROVIDER", "openai")
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL)
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("AGENTCTX_MODEL", "gpt-4o")
	home := t.TempDir()
	t.Setenv("AGENTCTX_HOME", home)

	project := func() string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}

	dir := project()
	code, out, errOut := run(t, "chat", dir, "-p", "upper-case a.txt into b.txt", "--yes")
	if code != 0 || !strings.Contains(out, "All done") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "b.txt")); err != nil || string(b) != "HELLO\n" {
		t.Fatalf("b.txt = %q, %v", b, err)
	}
	code, out, _ = run(t, "sessions", "list", "--all", "--home", home)
	if code != 0 || !strings.Contains(out, "upper-case a.txt") {
		t.Fatalf("the session is not listed: %d %q", code, out)
	}

	dir = project()
	// Without --yes and without an allow rule: the task stops at the
	// write, named, and exits non-zero.
	if code, out, errOut := run(t, "chat", dir, "-p", "upper-case a.txt into b.txt"); code != ExitError ||
		!strings.Contains(errOut, "refused write_file b.txt: print mode asks no one; pass --yes") {
		t.Fatalf("without --yes: exit %d, %q %q", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Fatal("without --yes the write went through")
	}
	// An allow rule in the project's settings is enough.
	if err := os.MkdirAll(filepath.Join(dir, ".agentctx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".agentctx", "settings.json"), []byte(`{"permissions":{"allow":["Write(b.txt)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, "chat", dir, "-p", "upper-case a.txt into b.txt"); code != 0 || !strings.Contains(out, "All done") {
		t.Fatalf("with an allow rule: exit %d, %q %q", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "b.txt")); err != nil || string(b) != "HELLO\n" {
		t.Fatalf("with an allow rule: b.txt = %q, %v", b, err)
	}
	// A rule that does not parse is an error naming the file and entry.
	if err := os.WriteFile(filepath.Join(dir, ".agentctx", "settings.json"), []byte(`{"permissions":{"deny":["Bash(rm"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, "chat", dir, "-p", "x"); code != ExitError || !strings.Contains(errOut, "settings.json: permissions.deny[0]") {
		t.Fatalf("a bad rule: exit %d, %q", code, errOut)
	}

	dir = project()
	code, out, errOut = run(t, "chat", dir, "-p", "upper-case a.txt into b.txt", "--yes", "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d, %q", code, errOut)
	}
	kinds := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var ev struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Kind == "" {
			t.Fatalf("not a JSON event: %q (%v)", sc.Text(), err)
		}
		kinds[ev.Kind]++
	}
	if kinds["tool_call"] != 2 || kinds["tool_result"] != 2 || kinds["result"] != 1 {
		t.Fatalf("events %v", kinds)
	}
}
