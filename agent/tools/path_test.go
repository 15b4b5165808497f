package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveConfinement(t *testing.T) {
	t.Parallel()
	env := project(t, map[string]string{"a/b.txt": "x"})
	outside := t.TempDir()
	if err := os.Symlink("/etc", filepath.Join(env.Root, "etc")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(env.Root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "new.txt"), filepath.Join(env.Root, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a", filepath.Join(env.Root, "inner")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       string // relative to Root; "" means refused
	}{
		{"relative", "a/b.txt", "a/b.txt"},
		{"root", ".", "."},
		{"dotdot inside", "a/../a/b.txt", "a/b.txt"},
		{"not yet existing", "a/new/c.txt", "a/new/c.txt"},
		{"symlink inside", "inner/b.txt", "a/b.txt"},
		{"absolute inside", filepath.Join(env.Root, "a"), "a"},
		{"dotdot", "../x", ""},
		{"dotdot deep", "a/../../x", ""},
		{"absolute outside", "/etc/passwd", ""},
		{"symlink to etc", "etc/passwd", ""},
		{"symlink to etc dir", "etc", ""},
		{"symlink to outside dir, new file", "out/new.txt", ""},
		{"dangling symlink out", "dangling", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := resolve(env, tt.path)
			if tt.want == "" {
				if !errors.Is(err, ErrOutside) {
					t.Fatalf("resolve(%q) = %q, %v; want ErrOutside", tt.path, got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("resolve(%q): %v", tt.path, err)
			}
			if d := display(env, got); d != tt.want {
				t.Errorf("resolve(%q) = %q (shown %q), want %q", tt.path, got, d, tt.want)
			}
		})
	}
	t.Run("root through a symlink", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		realDir := filepath.Join(dir, "real")
		if err := os.MkdirAll(filepath.Join(realDir, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(realDir, filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		env := Env{Root: filepath.Join(dir, "link")}
		for _, p := range []string{"src", filepath.Join(dir, "link", "src"), filepath.Join(realDir, "src")} {
			got, err := resolve(env, p)
			if err != nil || display(env, got) != "src" {
				t.Errorf("resolve(%q) = %q, %v; want src", p, got, err)
			}
		}
		if _, err := resolve(env, filepath.Join(dir, "other")); !errors.Is(err, ErrOutside) {
			t.Errorf("resolve of a sibling of the real root: %v, want ErrOutside", err)
		}
	})
	t.Run("allow outside", func(t *testing.T) {
		t.Parallel()
		env := env
		env.AllowOutside = true
		got, err := resolve(env, "etc/passwd")
		if err != nil || got != "/etc/passwd" {
			t.Errorf("resolve = %q, %v; want /etc/passwd", got, err)
		}
	})
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{"a", "../b", "/etc", "a/../../b", "link/x", "", ".", "a\x00b", "link/../../x", "//", "a/./b/.."} {
		f.Add(s)
	}
	root := f.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(root, "link")); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink("../..", filepath.Join(root, "a", "up")); err != nil {
		f.Fatal(err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		f.Fatal(err)
	}
	env := Env{Root: root}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := resolve(env, p)
		if err != nil {
			if got != "" {
				t.Errorf("resolve(%q) = %q with error %v", p, got, err)
			}
			return
		}
		if !within(realRoot, got) {
			t.Fatalf("resolve(%q) = %q, outside %s", p, got, realRoot)
		}
		if strings.Contains(got, "\x00") {
			t.Fatalf("resolve(%q) kept a NUL", p)
		}
	})
}
