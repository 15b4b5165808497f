package cli

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/provider/providertest"
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
		"one key", "say what to do instead", ".agentctx/settings.json", "Bash(go test:*)",
		"task\ntool", "sub-agent", "nested lines", "run at once", "File checkpoints", "/rewind", "left alone", "/fork"} {
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

// TestChatRecap: --continue recaps the session (its last request, the
// files it changed) and starts the status line's counters from the whole
// session's (issue 30, finding 6).
func TestChatRecap(t *testing.T) {
	srv := providertest.NewOpenAI(providertest.Options{Script: withSummaries(copyScript)})
	defer srv.Close()
	t.Setenv("AGENTCTX_PROVIDER", "openai")
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL)
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("AGENTCTX_MODEL", "gpt-4o")
	t.Setenv("AGENTCTX_HOME", t.TempDir())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runIn(t, "upper-case a.txt into b.txt\ny\n/compact\ndo it again\ny\n/exit\n", "chat", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	costs := regexp.MustCompile(`session \$([\d.]+)\)`).FindAllStringSubmatch(out, -1)
	if len(costs) != 2 {
		t.Fatalf("no session cost in the status lines:\n%s", out)
	}
	code, out, errOut = runIn(t, "once more\ny\n/exit\n", "chat", dir, "--continue")
	if code != 0 {
		t.Fatalf("--continue: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"where the session stands · 2 requests · 1 compaction", "you asked: do it again", "files changed: b.txt", "· 1 compaction ·"} {
		if !strings.Contains(out, want) {
			t.Errorf("--continue does not show %q:\n%s", want, out)
		}
	}
	m := regexp.MustCompile(`\$([\d.]+) \(session \$([\d.]+)\)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no cost in the status line:\n%s", out)
	}
	turn, _ := strconv.ParseFloat(m[1], 64)
	total, _ := strconv.ParseFloat(m[2], 64)
	before, _ := strconv.ParseFloat(costs[1][1], 64)
	if math.Abs(total-(before+turn)) > 0.0002 {
		t.Errorf("session cost %v after --continue, want %v + %v", total, before, turn)
	}
}

// TestChatModelBudget: /model takes the new model's budget and records
// it without the engine's override warning; /clear keeps the model
// (issue 30, finding 7).
func TestChatModelBudget(t *testing.T) {
	srv := providertest.NewOpenAI(providertest.Options{Script: withSummaries(copyScript)})
	defer srv.Close()
	t.Setenv("AGENTCTX_PROVIDER", "openai")
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL)
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("AGENTCTX_MODEL", "gpt-4o")
	t.Setenv("AGENTCTX_HOME", t.TempDir())
	dir := t.TempDir()
	code, out, errOut := runIn(t, "/model gpt-5\n/budget\n/clear\n/exit\n", "chat", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	m := regexp.MustCompile(`openai/gpt-5 · budget ([\d,]+) tokens · (?:new|resumed) session`).FindStringSubmatch(out)
	if m == nil || m[1] == "98,616" {
		t.Fatalf("/model gpt-5 did not take gpt-5's budget:\n%s", out)
	}
	if strings.Contains(out, "option overrides") {
		t.Errorf("/model printed the override warning:\n%s", out)
	}
	if !strings.Contains(out, m[1]+" tokens (policy") {
		t.Errorf("/budget after /model:\n%s", out)
	}
	if !strings.Contains(out, "· openai/gpt-5 · budget "+m[1]+" tokens · new session") {
		t.Errorf("/clear forgot /model:\n%s", out)
	}
	// The switch is recorded: --continue resumes on gpt-5, quietly.
	code, out, errOut = runIn(t, "/exit\n", "chat", dir, "--continue")
	if code != 0 || strings.Contains(out, "option overrides") {
		t.Errorf("--continue: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestChatMentionOutside: an @path outside the project is refused with a
// message and nothing is sent, even under --allow-outside; a file of the
// project is attached.
func TestChatMentionOutside(t *testing.T) {
	srv := providertest.NewOpenAI(providertest.Options{Script: uiScript})
	defer srv.Close()
	t.Setenv("AGENTCTX_PROVIDER", "openai")
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL)
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("AGENTCTX_MODEL", "gpt-4o")
	t.Setenv("AGENTCTX_HOME", t.TempDir())
	parent := t.TempDir()
	dir := filepath.Join(parent, "p")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for p, c := range map[string]string{filepath.Join(parent, "secret.txt"): "s3cret\n", filepath.Join(dir, "calc.py"): calcFix} {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runIn(t, "read @../secret.txt\nlook at @calc.py\n/exit\n", "chat", dir, "--allow-outside")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "@../secret.txt: ../secret.txt: path is outside the project") || !strings.Contains(out, "nothing was sent") {
		t.Errorf("the outside path was not refused:\n%s", out)
	}
	if !strings.Contains(out, "The file is attached: true.") {
		t.Errorf("calc.py was not attached:\n%s", out)
	}
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			if strings.Contains(m.Text(), "s3cret") || strings.Contains(m.Text(), "read @../secret.txt") {
				t.Errorf("request %d holds the refused message", r.N)
			}
		}
	}
}
