//go:build unix

package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gatherWithin runs Gather with a context of ctxTimeout and fails the
// test when it does not return within limit: on main, opening a FIFO
// for reading blocked until a writer came, whatever the context.
func gatherWithin(t *testing.T, opts Options, ctxTimeout, limit time.Duration) (*Context, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), ctxTimeout)
	defer cancel()
	type result struct {
		c   *Context
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := Gather(ctx, opts)
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		return r.c, r.err
	case <-time.After(limit):
		t.Fatalf("Gather did not return within %v (context deadline %v)", limit, ctxTimeout)
		return nil, nil
	}
}

// hasNotice reports whether a notice's source ends with name and its
// message holds all of words.
func hasNotice(c *Context, name string, words ...string) bool {
	for _, n := range c.Notices {
		if !strings.HasSuffix(filepath.ToSlash(n.Source), name) {
			continue
		}
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(n.Message, w)
		}
		if ok {
			return true
		}
	}
	return false
}

// TestGatherFIFO puts a FIFO, a symlink to a FIFO and a symlink to
// /dev/stdin under each name Gather reads (finding 4 of issue 14: on
// main each hung Gather forever, and with it agentctx context and
// agentctx.Open). Gather must return at once and report the file as
// skipped.
func TestGatherFIFO(t *testing.T) {
	t.Parallel()
	names := []string{
		"Makefile", "package.json", "go.mod", ".editorconfig", "pyproject.toml",
		"README.md", "AGENTS.md", ".gitignore", "sub/.gitignore", ".git", ".git/info/exclude",
	}
	kinds := []string{"fifo", "link to fifo", "link to stdin"}
	elsewhere := t.TempDir()
	outFIFO := filepath.Join(elsewhere, "fifo")
	if err := syscall.Mkfifo(outFIFO, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		for _, kind := range kinds {
			t.Run(name+"/"+kind, func(t *testing.T) {
				t.Parallel()
				root := filepath.Join(t.TempDir(), "proj")
				files := map[string]string{"main.go": "package main\n", "sub/x.go": "package sub\n"}
				if name == ".git/info/exclude" {
					files[".git/HEAD"] = "ref: refs/heads/main\n"
				}
				mkTree(t, root, files)
				p := filepath.Join(root, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				var err error
				switch kind {
				case "fifo":
					err = syscall.Mkfifo(p, 0o644)
				case "link to fifo":
					err = os.Symlink(outFIFO, p)
				case "link to stdin":
					err = os.Symlink("/dev/stdin", p)
				}
				if err != nil {
					t.Fatal(err)
				}
				c, err := gatherWithin(t, Options{Dir: root, UserDir: "-", Git: GitOptions{Disabled: true}}, 5*time.Second, 10*time.Second)
				if err != nil {
					t.Fatalf("Gather: %v", err)
				}
				switch name {
				case ".git":
					// Not a repository: nothing to report.
					if c.Repository {
						t.Errorf("a %s named .git made a repository", kind)
					}
				case ".gitignore", "sub/.gitignore", ".git/info/exclude", "AGENTS.md":
					if !hasNotice(c, name, "skipped") {
						t.Errorf("no notice that %s was skipped: %v", name, c.Notices)
					}
				default:
					if !hasNotice(c, name, "skipped", "not a regular file") {
						t.Errorf("no notice that %s was skipped: %v", name, c.Notices)
					}
				}
			})
		}
	}
}

// TestGatherFIFOGitDeadline: git itself blocks on a FIFO .git/info/exclude;
// Gather still returns by its context's deadline.
func TestGatherFIFOGitDeadline(t *testing.T) {
	needGit(t)
	t.Parallel()
	root := gitNewRepo(t, "main")
	if err := os.Remove(filepath.Join(root, ".git", "info", "exclude")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".git", "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, ".git", "info", "exclude"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c, err := gatherWithin(t, Options{Dir: root, UserDir: "-", Git: GitOptions{Timeout: time.Minute}}, time.Second, 10*time.Second)
	if err == nil {
		// git may not read the exclude file for every command; then the
		// block is there and says so.
		if !hasNotice(c, ".git/info/exclude", "skipped") {
			t.Errorf("no notice for the FIFO: %v", c.Notices)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Gather took %v with a 1s deadline", d)
	}
}

// TestGatherSymlinkOutside: files that link out of the project stay out
// of the context (finding 5 of issue 14: on main README.md ->
// ~/.ssh/id_ed25519 put the key into the system prompt).
func TestGatherSymlinkOutside(t *testing.T) {
	t.Parallel()
	const secret = "SECRET-KEY-MATERIAL"
	home := t.TempDir()
	key := filepath.Join(home, "id_ed25519")
	if err := os.WriteFile(key, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(home, "go.mod")
	if err := os.WriteFile(mod, []byte("module "+secret+"\n\ngo 1.26\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mk := filepath.Join(home, "Makefile")
	if err := os.WriteFile(mk, []byte("test:\n\techo "+secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(home, "package.json")
	if err := os.WriteFile(pkg, []byte(`{"scripts":{"test":"`+secret+`"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, target, dir string }{
		{"README.md", key, ""},
		{"readme.txt", key, "sub"},
		{"go.mod", mod, ""},
		{"Makefile", mk, ""},
		{"package.json", pkg, "sub"},
		{".gitignore", key, ""},
		{"AGENTS.md", key, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "proj")
			mkTree(t, root, map[string]string{"main.go": "package main\n", "sub/x.go": "package sub\n"})
			p := filepath.Join(root, tt.dir, tt.name)
			// A relative link, as a cloned repository would carry.
			rel, err := filepath.Rel(filepath.Dir(p), tt.target)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(rel, p); err != nil {
				t.Fatal(err)
			}
			c, err := gatherWithin(t, Options{Dir: filepath.Join(root, tt.dir), UserDir: "-", Git: GitOptions{Disabled: true}}, 5*time.Second, 10*time.Second)
			if err != nil {
				t.Fatalf("Gather: %v", err)
			}
			for _, b := range c.Blocks {
				if strings.Contains(b.Text, secret) {
					t.Errorf("block %s holds the secret:\n%s", b.Name, b.Text)
				}
			}
			for _, in := range c.Instructions {
				if strings.Contains(in.Text, secret) {
					t.Errorf("instruction %s holds the secret", in.Rel)
				}
			}
			if tt.name != ".gitignore" && !hasNotice(c, tt.name, "outside the project") {
				t.Errorf("no notice that %s was refused: %v", tt.name, c.Notices)
			}
			if tt.name == ".gitignore" && !hasNotice(c, tt.name, "skipped") {
				t.Errorf("no notice that the symlinked .gitignore was skipped: %v", c.Notices)
			}
		})
	}
}
