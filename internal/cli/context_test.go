package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestContextCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"AGENTS.md":     "# Rules\n@rules/more.md\n@../../etc/passwd\n",
		"rules/more.md": "Use tabs.\n",
		"README.md":     "# demo\n\nA demo.\n",
		"main.go":       "package main\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var rep contextReport
	out := mustRun(t, ExitOK, "context", dir, "--json", "--model", "claude-sonnet-4-5")
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if rep.Repository || rep.Model != "claude-sonnet-4-5" || rep.ContextWindow == 0 {
		t.Errorf("report %+v: want no repository, the model and its window", rep)
	}
	if !strings.Contains(rep.SystemPrompt, "Use tabs.") || strings.Contains(rep.SystemPrompt, "root:x:") {
		t.Errorf("system prompt: the import must be in, /etc/passwd out:\n%s", rep.SystemPrompt)
	}
	refused := false
	for _, n := range rep.Notices {
		refused = refused || strings.Contains(n, "../../etc/passwd")
	}
	if !refused {
		t.Errorf("notices %v do not report the refused import", rep.Notices)
	}
	sum := 0
	names := map[string]bool{}
	for _, p := range rep.Parts {
		sum += p.Tokens
		names[p.Name] = true
		if p.Percent <= 0 {
			t.Errorf("part %s: %.3f%% of the window", p.Name, p.Percent)
		}
	}
	for _, want := range []string{"instruction files", "context:directoryStructure", "context:gitStatus", "context:readme"} {
		if !names[want] {
			t.Errorf("parts %v lack %s", rep.Parts, want)
		}
	}
	if sum < rep.TotalTokens-20 || sum > rep.TotalTokens+20 {
		t.Errorf("parts sum to %d tokens, total %d", sum, rep.TotalTokens)
	}

	text := mustRun(t, ExitOK, "context", dir)
	for _, want := range []string{"<context name=\"directoryStructure\">", "PART", "% OF WINDOW", "not a git repository", "instruction files:"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q", want)
		}
	}
	if code, _, errOut := run(t, "context", filepath.Join(dir, "missing")); code != ExitError || errOut == "" {
		t.Errorf("context of a missing folder: exit %d, stderr %q", code, errOut)
	}
	if code, _, _ := run(t, "context", dir, "--budget", "-1"); code != ExitUsage {
		t.Errorf("--budget -1: exit %d, want %d", code, ExitUsage)
	}
}
