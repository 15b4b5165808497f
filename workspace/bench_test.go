package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/internal/ignore"
)

// bigTree builds in dir a tree of 100,000 files: 10 top
// folders × 10 × 10 leaf folders (depth 3) of 100 files each, a .gitignore
// at the root ignoring *.log and one nested .gitignore per top folder, and
// a node_modules folder of 2,000 files that the walk must not read.
func bigTree(dir string) (string, error) {
	write := func(p, s string) error { return os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644) }
	if err := write(".gitignore", "*.log\n/generated/\n"); err != nil {
		return "", err
	}
	if err := write("go.mod", "module example.com/big\n\ngo 1.26\n"); err != nil {
		return "", err
	}
	for a := range 10 {
		top := fmt.Sprintf("pkg%02d", a)
		if err := os.MkdirAll(filepath.Join(dir, top), 0o755); err != nil {
			return "", err
		}
		if err := write(filepath.Join(top, ".gitignore"), "tmp_*\n!tmp_keep.go\n"); err != nil {
			return "", err
		}
		for b := range 10 {
			for c := range 10 {
				leaf := filepath.Join(dir, top, fmt.Sprintf("mod%02d", b), fmt.Sprintf("part%02d", c))
				if err := os.MkdirAll(leaf, 0o755); err != nil {
					return "", err
				}
				for f := range 100 {
					name := fmt.Sprintf("file%03d.go", f)
					switch f % 10 {
					case 7:
						name = fmt.Sprintf("trace%03d.log", f)
					case 8:
						name = fmt.Sprintf("tmp_%03d.py", f)
					}
					if err := os.WriteFile(filepath.Join(leaf, name), nil, 0o644); err != nil {
						return "", err
					}
				}
			}
		}
	}
	nm := filepath.Join(dir, "node_modules", "left-pad")
	if err := os.MkdirAll(nm, 0o755); err != nil {
		return "", err
	}
	for f := range 2000 {
		if err := os.WriteFile(filepath.Join(nm, fmt.Sprintf("f%04d.js", f)), nil, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// BenchmarkGather100k times Gather (git disabled) on a 100,000-file tree;
// the target is well under one second per op on a 2-core machine.
func BenchmarkGather100k(b *testing.B) {
	dir, err := bigTree(b.TempDir()) // b.Loop times only the loop
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Dir: dir, Git: GitOptions{Disabled: true}, UserDir: "-"}
	b.ReportAllocs()
	for b.Loop() {
		c, err := Gather(b.Context(), opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(c.Blocks) == 0 {
			b.Fatal("no blocks")
		}
	}
}

// BenchmarkTreeMatch measures the walker's matching of one entry
// against typical rules (a root .gitignore and a nested one): the fast
// paths of package internal/ignore for literal, "*suffix" and "prefix*"
// patterns are what keep matching cheap on a 100,000-file walk.
func BenchmarkTreeMatch(b *testing.B) {
	var rules []ignore.Pattern
	for _, p := range []string{"*.log", "/generated/", "node_modules", "*.o", ".env", "docs/**/*.tmp"} {
		r, _ := ignore.Parse(p, nil)
		rules = append(rules, r)
	}
	for _, p := range []string{"tmp_*", "!tmp_keep.go"} {
		r, _ := ignore.Parse(p, []string{"pkg00"})
		rules = append(rules, r)
	}
	paths := make([][]string, 100)
	for i := range paths {
		paths[i] = []string{"pkg00", "mod01", "part02", fmt.Sprintf("file%03d.go", i)}
	}
	w := &walker{}
	for b.Loop() {
		for _, p := range paths {
			w.ignored(p, rules, false)
		}
	}
}
