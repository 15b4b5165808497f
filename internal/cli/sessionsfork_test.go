package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionsFork forks an imported session at its second message: the
// fork holds the first message, names its parent, and the parent lists
// it; out-of-range points are usage errors.
func TestSessionsFork(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "proj")
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	const id = "5a1e0b7e-0000-4000-8000-00000000000f"
	file := claudeSession(t, dir, id, project, "forkme")
	t.Setenv("AGENTCTX_HOME", t.TempDir())
	mustRun(t, ExitOK, "sessions", "import", file)

	parent := jsonLines[shown](t, mustRun(t, ExitOK, "sessions", "show", id, "--json"))[0]
	if len(parent.Messages) < 2 {
		t.Fatalf("imported session holds %d messages, want 2 or more", len(parent.Messages))
	}
	fork := jsonLines[forkResult](t, mustRun(t, ExitOK, "sessions", "fork", id, "--at", "1", "--json"))[0]
	if fork.ID == "" || fork.ID == id || fork.Parent != id || fork.At != 1 || fork.Messages != 1 {
		t.Fatalf("fork = %+v", fork)
	}
	child := jsonLines[shown](t, mustRun(t, ExitOK, "sessions", "show", fork.ID, "--json"))[0]
	if len(child.Messages) != 1 || child.Messages[0].Message.Text() != parent.Messages[0].Message.Text() {
		t.Fatalf("fork's window = %+v, want the parent's first message", child.Messages)
	}
	if out := mustRun(t, ExitOK, "sessions", "show", fork.ID); !strings.Contains(out, "forked from "+id+", its first 1 messages") {
		t.Errorf("show of the fork does not name its parent:\n%s", out)
	}
	if out := mustRun(t, ExitOK, "sessions", "show", id); !strings.Contains(out, "forks: "+fork.ID) {
		t.Errorf("show of the parent does not list its fork:\n%s", out)
	}
	// The whole window by default; plain output is the id alone.
	whole := strings.TrimSpace(mustRun(t, ExitOK, "sessions", "fork", id))
	if got := jsonLines[shown](t, mustRun(t, ExitOK, "sessions", "show", whole, "--json"))[0]; len(got.Messages) != len(parent.Messages) {
		t.Errorf("default fork holds %d messages, want %d", len(got.Messages), len(parent.Messages))
	}
	if got := jsonLines[shown](t, mustRun(t, ExitOK, "sessions", "show", id, "--json"))[0].Forks; len(got) != 2 || got[0] != fork.ID || got[1] != whole {
		t.Errorf("parent's forks = %v, want [%s %s]", got, fork.ID, whole)
	}
	mustRun(t, ExitUsage, "sessions", "fork", id, "--at", "99")
	mustRun(t, ExitUsage, "sessions", "fork", id, "--at", "-2")
	mustRun(t, ExitUsage, "sessions", "fork")
	mustRun(t, ExitError, "sessions", "fork", "no-such-session")
}
