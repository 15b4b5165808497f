package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func searchProject(t *testing.T) Env {
	t.Helper()
	env := project(t, map[string]string{
		".gitignore":         "build/\n*.log\n!keep.log\n",
		"main.go":            "package main\n\nfunc main() { todo() }\n",
		"lib/util.go":        "package lib\n// TODO: fix\nfunc todo() {}\n",
		"lib/.gitignore":     "gen_*.go\n",
		"lib/gen_x.go":       "func todo() {} // generated\n",
		"lib/sub/deep.txt":   "todo deep\n",
		"build/out.go":       "todo in build\n",
		"app.log":            "todo in log\n",
		"keep.log":           "todo kept\n",
		"bin.dat":            "todo\x00binary",
		".git/config":        "todo in git\n",
		"docs/readme.md":     "nothing here\n",
		"docs/many/a.txt":    strings.Repeat("todo\n", 300),
		"docs/many/wide.txt": "todo " + strings.Repeat("w", 1000) + "\n",
	})
	if err := os.Symlink("/etc", filepath.Join(env.Root, "etc")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(env.Root, "docs", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	return env
}

func TestSearch(t *testing.T) {
	t.Parallel()
	env := searchProject(t)
	tests := []struct {
		name    string
		args    args
		wantErr bool
		want    []string
		notWant []string
	}{
		{"respects gitignore", args{"query": "todo", "path": "lib"}, false,
			[]string{"lib/util.go:3:func todo() {}", "lib/sub/deep.txt:1:todo deep"},
			[]string{"gen_x.go", "TODO"}},
		{"whole project", args{"query": "todo (in|kept|deep)"}, false,
			[]string{"keep.log:1:todo kept", "lib/sub/deep.txt:1:todo deep"},
			[]string{"build/", "app.log", "in git", "bin.dat", "etc/"}},
		{"regexp", args{"query": `^func \w+\(\)`, "path": "."}, false, []string{"lib/util.go:3:", "main.go:3:"}, []string{"gen_x", "deep"}},
		{"glob", args{"query": "todo", "glob": "*.go"}, false, []string{"main.go:3:", "lib/util.go:3:"}, []string{"deep.txt", "keep.log"}},
		{"glob with a path", args{"query": "todo", "path": "lib", "glob": "lib/sub/*.txt"}, false, []string{"lib/sub/deep.txt:1:"}, []string{"util.go"}},
		{"glob with **", args{"query": "todo", "glob": "**/sub/*.txt"}, false, []string{"lib/sub/deep.txt:1:"}, []string{"util.go", "keep.log"}},
		{"negated glob", args{"query": "todo", "path": "lib", "glob": "!*.go"}, false, []string{"lib/sub/deep.txt:1:"}, []string{"util.go"}},
		{"single file", args{"query": "main", "path": "main.go"}, false, []string{"main.go:1:package main", "main.go:3:"}, nil},
		{"capped", args{"query": "todo", "path": "docs/many"}, false, []string{fmt.Sprintf("showing the first %d matches", MaxSearchMatches)}, nil},
		{"long line cut", args{"query": "w{100}", "path": "docs/many"}, false, []string{"wide.txt:1:todo www"}, []string{strings.Repeat("w", 400)}},
		{"fifo skipped", args{"query": "nothing", "path": "docs"}, false, []string{"docs/readme.md:1:nothing here"}, nil},
		{"fifo refused", args{"query": "x", "path": "docs/fifo"}, true, []string{"not a regular file"}, nil},
		{"no match", args{"query": "zebra"}, false, []string{"No matches"}, nil},
		{"bad regexp", args{"query": "("}, true, []string{"not a valid regular expression"}, nil},
		{"no query", args{}, true, []string{"query is required"}, nil},
		{"dotdot", args{"query": "x", "path": ".."}, true, []string{"outside the project"}, nil},
		{"symlink to etc", args{"query": "root", "path": "etc"}, true, []string{"outside the project"}, nil},
		{"missing path", args{"query": "x", "path": "nope"}, true, []string{"no such file"}, nil},
	}
	engines := []struct {
		name string
		noRg bool
	}{{"walk", true}}
	if _, err := exec.LookPath("rg"); err == nil {
		engines = append(engines, struct {
			name string
			noRg bool
		}{"rg", false})
	} else {
		t.Log("rg is not on PATH: only the Go walk is tested")
	}
	for _, eng := range engines {
		for _, tt := range tests {
			t.Run(eng.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				r := call(t, search{env: env, noRg: eng.noRg}, tt.args)
				check(t, r, tt.wantErr, tt.want...)
				for _, nw := range tt.notWant {
					if strings.Contains(r.Content, nw) {
						t.Errorf("content holds %q:\n%.1000s", nw, r.Content)
					}
				}
			})
		}
	}
	t.Run("byte cap", func(t *testing.T) {
		t.Parallel()
		env := env
		env.OutputBytes = 100
		r := call(t, search{env: env, noRg: true}, args{"query": "todo", "path": "docs/many/a.txt"})
		check(t, r, false, "more were left out")
		if len(r.Content) > 300 {
			t.Errorf("content is %d bytes", len(r.Content))
		}
	})
}

func TestListFiles(t *testing.T) {
	t.Parallel()
	env := searchProject(t)
	tests := []struct {
		name    string
		env     Env
		args    args
		wantErr bool
		want    []string
		notWant []string
	}{
		{"root", env, args{}, false,
			[]string{"./\n", "\nlib/\n", "  util.go\n", "    deep.txt\n", "keep.log\n", "etc@\n", "main.go\n", ".gitignore\n"},
			[]string{"build", "app.log", "gen_x.go", ".git/", "config"}},
		{"depth 1", env, args{"depth": 1}, false, []string{"lib/\n", "main.go\n"}, []string{"util.go"}},
		{"subdir", env, args{"path": "lib"}, false, []string{"lib/\n", "sub/\n", "  deep.txt\n"}, []string{"gen_x.go", "main.go"}},
		{"file", env, args{"path": "main.go"}, true, []string{"is a file"}, nil},
		{"dotdot", env, args{"path": "../"}, true, []string{"outside the project"}, nil},
		{"symlink to etc", env, args{"path": "etc"}, true, []string{"outside the project"}, nil},
		{"absolute", env, args{"path": "/"}, true, []string{"outside the project"}, nil},
		{"negative depth", env, args{"depth": -1}, true, []string{"depth"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := call(t, listFiles{tt.env}, tt.args)
			check(t, r, tt.wantErr, tt.want...)
			for _, nw := range tt.notWant {
				if strings.Contains(r.Content, nw) {
					t.Errorf("content holds %q:\n%s", nw, r.Content)
				}
			}
		})
	}
	t.Run("capped", func(t *testing.T) {
		t.Parallel()
		files := map[string]string{}
		for i := range MaxListEntries + 10 {
			files[fmt.Sprintf("f%04d", i)] = ""
		}
		env := project(t, files)
		r := call(t, listFiles{env}, args{})
		check(t, r, false, fmt.Sprintf("showing the first %d entries", MaxListEntries))
	})
}
