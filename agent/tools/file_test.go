package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	var long strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	env := project(t, map[string]string{
		"a.txt":       "one\ntwo\nthree\n",
		"crlf.txt":    "x\r\ny",
		"empty.txt":   "",
		"long.txt":    long.String(),
		"bin.dat":     "abc\x00def",
		"dir/f.go":    "package f\n",
		"wide.txt":    strings.Repeat("w", 3000),
		"sub/big.log": "",
	})
	if err := os.Symlink("/etc/hostname", filepath.Join(env.Root, "host")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(env.Root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(env.Root, "huge.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat("0123456789\n", MaxReadBytes/11+10)), 0o644); err != nil {
		t.Fatal(err)
	}
	small := env
	small.OutputBytes = 100
	free := env
	free.AllowOutside = true
	tests := []struct {
		name    string
		env     Env
		args    args
		wantErr bool
		want    []string
		notWant []string
	}{
		{"whole file", env, args{"path": "a.txt"}, false, []string{"     1\tone\n     2\ttwo\n     3\tthree\n"}, nil},
		{"crlf, no final newline", env, args{"path": "crlf.txt"}, false, []string{"     1\tx\n     2\ty\n"}, []string{"\r"}},
		{"range", env, args{"path": "long.txt", "start_line": 10, "end_line": 12}, false, []string{"    10\tline 10\n    11\tline 11\n    12\tline 12\n"}, []string{"line 9\n", "line 13"}},
		{"from start_line", env, args{"path": "long.txt", "start_line": 99}, false, []string{"    99\tline 99", "   100\tline 100"}, []string{"line 98"}},
		{"empty", env, args{"path": "empty.txt"}, false, []string{"empty"}, nil},
		{"capped", small, args{"path": "long.txt"}, false, []string{"     1\tline 1", "output capped at 100 bytes", "start_line="}, []string{"line 100"}},
		{"long line cut", env, args{"path": "wide.txt"}, false, []string{"line cut at 2000 bytes"}, []string{strings.Repeat("w", 2001)}},
		{"big file refused", env, args{"path": "huge.txt"}, true, []string{"start_line and end_line"}, nil},
		{"big file with range", env, args{"path": "huge.txt", "start_line": 5, "end_line": 5}, false, []string{"     5\t0123456789\n"}, []string{"     6\t"}},
		{"past the end", env, args{"path": "a.txt", "start_line": 9}, true, []string{"3 lines"}, nil},
		{"bad range", env, args{"path": "a.txt", "start_line": 3, "end_line": 2}, true, []string{"bad line range"}, nil},
		{"directory", env, args{"path": "dir"}, true, []string{"is a directory", "list_files"}, nil},
		{"fifo", env, args{"path": "fifo"}, true, []string{"not a regular file"}, nil},
		{"binary", env, args{"path": "bin.dat"}, true, []string{"binary file"}, nil},
		{"missing", env, args{"path": "nope.txt"}, true, []string{"no such file"}, nil},
		{"no path", env, args{}, true, []string{"path is required"}, nil},
		{"dotdot", env, args{"path": "../x"}, true, []string{"outside the project"}, nil},
		{"absolute outside", env, args{"path": "/etc/passwd"}, true, []string{"outside the project"}, nil},
		{"allow outside", free, args{"path": "/etc/passwd"}, false, []string{"     1\troot:"}, nil},
		{"symlink out", env, args{"path": "host"}, true, []string{"outside the project", "symlink"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := call(t, readFile{tt.env}, tt.args)
			check(t, r, tt.wantErr, tt.want...)
			for _, nw := range tt.notWant {
				if strings.Contains(r.Content, nw) {
					t.Errorf("content holds %q:\n%.500s", nw, r.Content)
				}
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	env := project(t, map[string]string{"exec.sh": "old", "d/x": ""})
	if err := os.Chmod(filepath.Join(env.Root, "exec.sh"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(env.Root, "out")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, content string
		wantErr             bool
		want                string
		mode                os.FileMode
	}{
		{"create with parents", "new/deep/f.txt", "hi\nthere\n", false, "Created new/deep/f.txt (9 bytes, 2 lines)", 0o644},
		{"overwrite keeps mode", "exec.sh", "#!/bin/sh\n", false, "Wrote exec.sh", 0o750},
		{"empty content", "empty", "", false, "Created empty (0 bytes", 0o644},
		{"directory", "d", "x", true, "is a directory", 0},
		{"dotdot", "../escape.txt", "x", true, "outside the project", 0},
		{"symlink out", "out/f.txt", "x", true, "outside the project", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := call(t, writeFile{env}, args{"path": tt.path, "content": tt.content})
			check(t, r, tt.wantErr, tt.want)
			if tt.wantErr {
				return
			}
			abs := filepath.Join(env.Root, tt.path)
			got, err := os.ReadFile(abs)
			if err != nil || string(got) != tt.content {
				t.Errorf("file holds %q, %v; want %q", got, err, tt.content)
			}
			fi, err := os.Stat(abs)
			if err != nil || fi.Mode().Perm() != tt.mode {
				t.Errorf("mode %v, %v; want %v", fi.Mode().Perm(), err, tt.mode)
			}
		})
	}
	t.Run("content required", func(t *testing.T) {
		t.Parallel()
		check(t, call(t, writeFile{env}, args{"path": "c.txt"}), true, "content is required")
	})
	t.Run("no temp files left", func(t *testing.T) {
		t.Parallel()
		env := project(t, nil)
		check(t, call(t, writeFile{env}, args{"path": "f", "content": "x"}), false)
		ents, _ := os.ReadDir(env.Root)
		if len(ents) != 1 {
			t.Errorf("root holds %d entries, want 1", len(ents))
		}
	})
	t.Run("escape leaves nothing", func(t *testing.T) {
		t.Parallel()
		if _, err := os.Stat(filepath.Join(filepath.Dir(env.Root), "escape.txt")); err == nil {
			t.Error("write_file wrote outside the project")
		}
	})
}

func TestEditFile(t *testing.T) {
	t.Parallel()
	const src = "a := 1\nb := 2\na := 1\nc := 3\n"
	tests := []struct {
		name     string
		args     args
		wantErr  bool
		want     []string
		wantFile string
	}{
		{"unique", args{"old_string": "b := 2", "new_string": "b := 20"}, false, []string{"replaced 1 occurrence(s) at line(s) 2"}, "a := 1\nb := 20\na := 1\nc := 3\n"},
		{"multi-line", args{"old_string": "b := 2\na := 1\n", "new_string": ""}, false, []string{"line(s) 2"}, "a := 1\nc := 3\n"},
		{"ambiguous", args{"old_string": "a := 1", "new_string": "a := 9"}, true, []string{"matches 2 times", "at lines 1, 3", "replace_all"}, src},
		{"replace all", args{"old_string": "a := 1", "new_string": "a := 9", "replace_all": true}, false, []string{"replaced 2 occurrence(s) at line(s) 1, 3"}, "a := 9\nb := 2\na := 9\nc := 3\n"},
		{"absent", args{"old_string": "zzz", "new_string": "y"}, true, []string{"not found"}, src},
		{"same", args{"old_string": "c := 3", "new_string": "c := 3"}, true, []string{"same as old_string"}, src},
		{"empty old", args{"old_string": "", "new_string": "y"}, true, []string{"old_string is required"}, src},
		{"no new", args{"old_string": "c"}, true, []string{"new_string is required"}, src},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := project(t, map[string]string{"f.go": src})
			if err := os.Chmod(filepath.Join(env.Root, "f.go"), 0o600); err != nil {
				t.Fatal(err)
			}
			tt.args["path"] = "f.go"
			check(t, call(t, editFile{env}, tt.args), tt.wantErr, tt.want...)
			got, err := os.ReadFile(filepath.Join(env.Root, "f.go"))
			if err != nil || string(got) != tt.wantFile {
				t.Errorf("file = %q, %v; want %q", got, err, tt.wantFile)
			}
			if fi, _ := os.Stat(filepath.Join(env.Root, "f.go")); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
			}
		})
	}
	t.Run("confined", func(t *testing.T) {
		t.Parallel()
		env := project(t, nil)
		if err := os.Symlink("/etc", filepath.Join(env.Root, "etc")); err != nil {
			t.Fatal(err)
		}
		check(t, call(t, editFile{env}, args{"path": "etc/hostname", "old_string": "a", "new_string": "b"}), true, "outside the project")
		check(t, call(t, editFile{env}, args{"path": "missing.go", "old_string": "a", "new_string": "b"}), true, "no such file")
		if err := syscall.Mkfifo(filepath.Join(env.Root, "fifo"), 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, call(t, editFile{env}, args{"path": "fifo", "old_string": "a", "new_string": "b"}), true, "not a regular file")
		check(t, call(t, editFile{env}, args{"path": ".", "old_string": "a", "new_string": "b"}), true, "is a directory")
	})
}
