package jsonlstore_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentctx/agentctx/session/jsonlstore"
)

func TestDetectGitBranch(t *testing.T) {
	t.Parallel()
	write := func(t *testing.T, p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, root string) string // returns the dir to ask about
		want  string
	}{
		{"branch", func(t *testing.T, root string) string {
			write(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
			return root
		}, "main"},
		{"branch with slash, from a subfolder", func(t *testing.T, root string) string {
			write(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/feature/x-1\n")
			sub := filepath.Join(root, "a", "b")
			if err := os.MkdirAll(sub, 0o700); err != nil {
				t.Fatal(err)
			}
			return sub
		}, "feature/x-1"},
		{"detached", func(t *testing.T, root string) string {
			write(t, filepath.Join(root, ".git", "HEAD"), "0123456789abcdef0123456789abcdef01234567\n")
			return root
		}, "0123456789ab"},
		{"worktree", func(t *testing.T, root string) string {
			write(t, filepath.Join(root, "main", ".git", "worktrees", "wt", "HEAD"), "ref: refs/heads/wt-branch\n")
			write(t, filepath.Join(root, "wt", ".git"), "gitdir: ../main/.git/worktrees/wt\n")
			return filepath.Join(root, "wt")
		}, "wt-branch"},
		{"absolute gitdir", func(t *testing.T, root string) string {
			write(t, filepath.Join(root, "store", "HEAD"), "ref: refs/heads/sub\n")
			write(t, filepath.Join(root, "mod", ".git"), "gitdir: "+filepath.Join(root, "store")+"\n")
			return filepath.Join(root, "mod")
		}, "sub"},
		{"bad .git file", func(t *testing.T, root string) string {
			write(t, filepath.Join(root, ".git"), "nonsense\n")
			return root
		}, ""},
		{"garbage HEAD", func(t *testing.T, root string) string {
			write(t, filepath.Join(root, ".git", "HEAD"), "\x00\x01zz")
			return root
		}, ""},
		{"no repository", func(t *testing.T, root string) string { return root }, ""},
		// Finding 4 of issue 14: on main each of these hung Create.
		{"fifo .git", func(t *testing.T, root string) string {
			mkfifo(t, filepath.Join(root, ".git"))
			return root
		}, ""},
		{"fifo HEAD", func(t *testing.T, root string) string {
			mkfifo(t, filepath.Join(root, ".git", "HEAD"))
			return root
		}, ""},
		{".git linking to a fifo", func(t *testing.T, root string) string {
			mkfifo(t, filepath.Join(root, "fifo"))
			symlink(t, filepath.Join(root, "fifo"), filepath.Join(root, "sub", ".git"))
			return filepath.Join(root, "sub")
		}, ""},
		{"HEAD linking to stdin", func(t *testing.T, root string) string {
			symlink(t, "/dev/stdin", filepath.Join(root, ".git", "HEAD"))
			return root
		}, ""},
		{"gitdir whose HEAD is a fifo", func(t *testing.T, root string) string {
			mkfifo(t, filepath.Join(root, "store", "HEAD"))
			write(t, filepath.Join(root, "mod", ".git"), "gitdir: ../store\n")
			return filepath.Join(root, "mod")
		}, ""},
		{"missing folder", func(t *testing.T, root string) string { return filepath.Join(root, "nope") }, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := c.setup(t, t.TempDir())
			done := make(chan string, 1)
			go func() { done <- jsonlstore.DetectGitBranch(dir) }()
			select {
			case got := <-done:
				if got != c.want {
					t.Errorf("DetectGitBranch = %q, want %q", got, c.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("DetectGitBranch hangs")
			}
		})
	}
}

// symlink makes a symlink at p (and its folders) to target.
func symlink(t *testing.T, target, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
}
