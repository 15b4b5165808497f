package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataAndConfigFolders: the session store (data) is $AGENTCTX_HOME,
// else $XDG_DATA_HOME/agentctx, else ~/.local/share/agentctx; the user's
// AGENTS.md (configuration) is in $XDG_CONFIG_HOME/agentctx, else
// ~/.config/agentctx, never in $AGENTCTX_HOME; a relative XDG variable is
// ignored, as the XDG Base Directory Specification says. Not parallel: it
// sets the environment.
func TestDataAndConfigFolders(t *testing.T) {
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	home, data, config, project := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	write(filepath.Join(data, "AGENTS.md"), "rules from the data folder\n")
	write(filepath.Join(config, "agentctx", "AGENTS.md"), "rules from the config folder\n")
	write(filepath.Join(home, ".config", "agentctx", "AGENTS.md"), "rules from ~/.config\n")
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")

	userRules := func(t *testing.T) string {
		t.Helper()
		var rep contextReport
		if err := json.Unmarshal([]byte(mustRun(t, ExitOK, "context", project, "--json")), &rep); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"data folder", "config folder", "~/.config"} {
			if strings.Contains(rep.SystemPrompt, "rules from the "+s) || strings.Contains(rep.SystemPrompt, "rules from "+s) {
				return s
			}
		}
		return ""
	}
	t.Run("config", func(t *testing.T) {
		t.Setenv("AGENTCTX_HOME", data)
		t.Setenv("XDG_CONFIG_HOME", config)
		if got := userRules(t); got != "config folder" {
			t.Errorf("AGENTCTX_HOME and XDG_CONFIG_HOME set: the user's rules come from %q, want the config folder", got)
		}
		t.Setenv("XDG_CONFIG_HOME", "")
		if got := userRules(t); got != "~/.config" {
			t.Errorf("AGENTCTX_HOME set: the user's rules come from %q, want ~/.config", got)
		}
		t.Setenv("XDG_CONFIG_HOME", "relative/config")
		if got := userRules(t); got != "~/.config" {
			t.Errorf("relative XDG_CONFIG_HOME: the user's rules come from %q, want ~/.config", got)
		}
	})

	t.Run("data", func(t *testing.T) {
		file := claudeSession(t, t.TempDir(), "5a1e0b7e-0000-4000-8000-00000000000e", project, "hello")
		rel := "xdg-data-relative-" + filepath.Base(t.TempDir())
		t.Cleanup(func() { _ = os.RemoveAll(rel) })
		t.Setenv("AGENTCTX_HOME", "")
		t.Setenv("XDG_DATA_HOME", rel)
		mustRun(t, ExitOK, "sessions", "import", file)
		if _, err := os.Stat(rel); err == nil {
			t.Errorf("a relative XDG_DATA_HOME was used: %s created in the current folder", rel)
		}
		if n := storedCount(t, filepath.Join(home, ".local", "share", "agentctx")); n != 1 {
			t.Errorf("the session is not in ~/.local/share/agentctx: %d sessions", n)
		}
		xdg := t.TempDir()
		t.Setenv("XDG_DATA_HOME", xdg)
		mustRun(t, ExitOK, "sessions", "import", file)
		if n := storedCount(t, filepath.Join(xdg, "agentctx")); n != 1 {
			t.Errorf("the session is not in $XDG_DATA_HOME/agentctx: %d sessions", n)
		}
		t.Setenv("AGENTCTX_HOME", data)
		mustRun(t, ExitOK, "sessions", "import", file)
		if n := storedCount(t, data); n != 1 {
			t.Errorf("the session is not in $AGENTCTX_HOME: %d sessions", n)
		}
	})
}
