package tools

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
)

// callWithin runs call and fails the test when it does not return within
// five seconds: a FIFO opened for reading blocks until a writer comes.
func callWithin(t *testing.T, tool Tool, a args) chat.ToolResult {
	t.Helper()
	done := make(chan chat.ToolResult, 1)
	go func() { done <- call(t, tool, a) }()
	select {
	case r := <-done:
		return r
	case <-time.After(5 * time.Second):
		t.Fatalf("%s %v hangs", tool.Def().Name, a)
		return chat.ToolResult{}
	}
}

// TestToolsFIFO: the read tools never wait on a FIFO, whether the path
// names it, links to it, or an ignore file is one (finding 4 of issue
// 14; on main list_files and the Go search walk hung on a FIFO
// .gitignore).
func TestToolsFIFO(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(outside, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ignoreFile := range []string{".gitignore", "lib/.gitignore", ".git/info/exclude"} {
		t.Run(ignoreFile, func(t *testing.T) {
			t.Parallel()
			env := project(t, map[string]string{"main.go": "package main // todo\n", "lib/a.go": "package lib // todo\n"})
			p := filepath.Join(env.Root, filepath.FromSlash(ignoreFile))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(env.Root, "lib", "pipe"), 0o644); err != nil {
				t.Fatal(err)
			}
			check(t, callWithin(t, listFiles{env}, args{}), false, "main.go", "a.go")
			check(t, callWithin(t, search{env: env, noRg: true}, args{"query": "todo"}), false, "main.go:1:", "lib/a.go:1:")
			// ripgrep itself waits on a FIFO .gitignore: it is stopped
			// after the command timeout and the Go walk answers.
			short := env
			short.CommandTimeout = 300 * time.Millisecond
			check(t, callWithin(t, search{env: short}, args{"query": "todo"}), false, "main.go:1:", "lib/a.go:1:")
		})
	}
	t.Run("read_file", func(t *testing.T) {
		t.Parallel()
		env := project(t, map[string]string{"a.txt": "x\n"})
		if err := syscall.Mkfifo(filepath.Join(env.Root, "fifo"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(env.Root, "to-fifo")); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"fifo", "to-fifo"} {
			r := callWithin(t, readFile{env}, args{"path": name})
			if !r.IsError {
				t.Errorf("read_file %s succeeded: %s", name, r.Content)
			}
		}
		r := callWithin(t, search{env: env, noRg: true}, args{"query": "x", "path": "fifo"})
		check(t, r, true, "not a regular file")
	})
}

// TestListFilesGitignoreAsGit: list_files reads .gitignore as git does
// (finding 6 of issue 14: with go-git's matcher "[!a].txt" hid a.txt and
// showed b.txt).
func TestListFilesGitignoreAsGit(t *testing.T) {
	t.Parallel()
	env := project(t, map[string]string{
		".gitignore": "[!a].txt\nout/**\n", "a.txt": "", "b.txt": "", "c.txt": "", "out/x": "",
	})
	r := call(t, listFiles{env}, args{})
	check(t, r, false, "a.txt", "out/")
	for _, hidden := range []string{"b.txt", "c.txt", "  x"} {
		if strings.Contains(r.Content, hidden) {
			t.Errorf("list_files shows %q:\n%s", hidden, r.Content)
		}
	}
}
