package cli

import (
	"strings"
	"testing"
)

// TestChatHelp: chat --help documents the interactive mode, its keys,
// the permission question and every slash command (issue 30, finding 3).
func TestChatHelp(t *testing.T) {
	code, out, errOut := run(t, "chat", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "print mode only") {
		t.Error("chat --help still says it has the print mode only")
	}
	for _, want := range []string{"Alt-Enter", "Ctrl-O", "Ctrl-C", "@PATH", "!COMMAND", "a paste is one message",
		"one key", "say what to do instead", ".agentctx/settings.json", "Bash(go test:*)"} {
		if !strings.Contains(out, want) {
			t.Errorf("chat --help does not mention %q", want)
		}
	}
	for _, c := range slashCommands {
		if !strings.Contains(out, "  "+c.name+" ") {
			t.Errorf("chat --help does not document %s", c.name)
		}
	}
}

// TestChatProviderHints: a provider error names the provider and says
// what to set once; an unknown provider gets no empty variable (issue
// 30, finding 7).
func TestChatProviderHints(t *testing.T) {
	t.Setenv("AGENTCTX_HOME", t.TempDir())
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("AGENTCTX_PROVIDER", "")
	dir := t.TempDir()
	code, _, errOut := run(t, "chat", dir, "--provider", "foo", "-p", "x")
	if code != ExitError || !strings.Contains(errOut, `"foo": unknown provider (known: openai, anthropic)`) || strings.Contains(errOut, "(set ,") {
		t.Errorf("--provider foo: exit %d, %q", code, errOut)
	}
	code, _, errOut = run(t, "chat", dir, "--provider", "openai", "-p", "x")
	if code != ExitError || strings.Count(errOut, "OPENAI_API_KEY") != 1 || !strings.Contains(errOut, "openai") ||
		!strings.Contains(errOut, "OPENAI_BASE_URL") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("no key: exit %d, %q (want the key's variable named once)", code, errOut)
	}
}
