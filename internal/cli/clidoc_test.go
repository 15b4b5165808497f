package cli

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra/doc"
)

// TestCLIReference checks that docs/cli/ holds the reference of every
// command as cobra generates it from the commands themselves
// (spf13/cobra/doc), so that the reference cannot go stale: a flag added,
// renamed or documented differently fails it until `go test
// ./internal/cli -run TestCLIReference -update-readme` regenerates the
// pages. The environment is fixed first: defaults that name the home
// folder or the data folder read the same on every machine.
func TestCLIReference(t *testing.T) {
	t.Setenv("HOME", "/home/user")
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("AGENTCTX_HOME", "")
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	root := newRoot(e)
	root.DisableAutoGenTag = true
	got := t.TempDir()
	if err := doc.GenMarkdownTree(root, got); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join("..", "..", "docs", "cli")
	if *updateReadme {
		if err := os.RemoveAll(want); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(want, os.DirFS(got)); err != nil {
			t.Fatal(err)
		}
		return
	}
	names := func(dir string) []string {
		es, _ := os.ReadDir(dir)
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		slices.Sort(out)
		return out
	}
	if g, w := names(got), names(want); !slices.Equal(g, w) {
		t.Fatalf("docs/cli holds %v, the commands make %v; regenerate with -update-readme", w, g)
	}
	for _, n := range names(got) {
		a, _ := os.ReadFile(filepath.Join(got, n))
		b, _ := os.ReadFile(filepath.Join(want, n))
		if string(a) != string(b) {
			t.Errorf("docs/cli/%s is stale: run go test ./internal/cli -run TestCLIReference -update-readme", n)
		}
	}
}
