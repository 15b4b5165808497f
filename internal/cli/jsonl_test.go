package cli

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// jsonCommands returns the path ("sessions list") of every command with a
// --json flag.
func jsonCommands() []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("json") != nil {
			out = append(out, strings.TrimPrefix(c.CommandPath(), "agentctx "))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&env{stdout: io.Discard, stderr: io.Discard}))
	slices.Sort(out)
	return out
}

// TestJSONLinesEverywhere runs every command that has --json and checks
// that it prints JSON Lines: one JSON object per line, one line per item
// (two sessions listed: two lines; two files replayed or imported: two
// lines). A new command with --json must be added here.
func TestJSONLinesEverywhere(t *testing.T) {
	useScriptedModel(t, copyScript)

	dir := t.TempDir()
	project := filepath.Join(dir, "proj")
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	chatProject := t.TempDir()
	if err := os.WriteFile(filepath.Join(chatProject, "a.txt"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	one := claudeSession(t, dir, "5a1e0b7e-0000-4000-8000-00000000000a", project, "first")
	two := claudeSession(t, dir, "5a1e0b7e-0000-4000-8000-00000000000b", project, "second")
	home := t.TempDir()
	t.Setenv("AGENTCTX_HOME", home)
	mustRun(t, ExitOK, "sessions", "import", one, two)
	// sessions fork writes a session: into a home of its own, so that
	// sessions list counts two.
	forkHome := t.TempDir()
	mustRun(t, ExitOK, "sessions", "import", "--home", forkHome, one)

	tests := map[string]struct {
		args []string
		// lines is the number of lines, 0 for at least 2.
		lines int
	}{
		"replay":          {[]string{"replay", one, two}, 2},
		"sessions list":   {[]string{"sessions", "list", "--project", project}, 2},
		"sessions show":   {[]string{"sessions", "show", "5a1e0b7e-0000-4000-8000-00000000000a"}, 1},
		"sessions check":  {[]string{"sessions", "check", one}, 1},
		"sessions copy":   {[]string{"sessions", "copy", "--to", "sqlite:" + filepath.Join(t.TempDir(), "s.db")}, 0},
		"sessions fork":   {[]string{"sessions", "fork", "--home", forkHome, "5a1e0b7e-0000-4000-8000-00000000000a", "--at", "1"}, 1},
		"sessions import": {[]string{"sessions", "import", "--home", t.TempDir(), one, two}, 2},
		"inspect":         {[]string{"inspect", one}, 1},
		"compact":         {[]string{"compact", one, "--dry-run", "--budget", "1000", "--summarizer", "extractive"}, 1},
		"context":         {[]string{"context", project}, 1},
		"eval":            {[]string{"eval", one, two, "--budget", "1000", "--strategies", "tiered,truncate"}, 2},
		"version":         {[]string{"version"}, 1},
		"models":          {[]string{"models", "claude-opus-5-5", "gpt-6.1-sol"}, 2},
		"chat":            {[]string{"chat", chatProject, "-p", "upper-case a.txt into b.txt", "--yes"}, 0}, // one per event
	}
	for _, name := range jsonCommands() {
		tt, ok := tests[name]
		if !ok {
			t.Errorf("agentctx %s has --json: add it to this test", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			out := mustRun(t, ExitOK, append(tt.args, "--json")...)
			if got := len(jsonLines[map[string]any](t, out)); got != tt.lines && (tt.lines != 0 || got < 2) {
				t.Errorf("%d lines, want %d:\n%s", got, tt.lines, out)
			}
			if strings.Contains(out, "\n\n") || strings.HasPrefix(out, " ") {
				t.Errorf("not one object per line:\n%s", out)
			}
		})
	}
	if code, out, _ := run(t, "sessions", "list", "--project", t.TempDir(), "--json"); code != ExitOK || out != "" {
		t.Errorf("no sessions: exit %d, printed %q; want nothing", code, out)
	}
}
