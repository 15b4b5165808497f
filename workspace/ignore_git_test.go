package workspace

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// walkFiles walks root as the directory structure block does, without
// DefaultIgnore (git knows nothing of it), and returns the files found
// (symlinks and other non-folders included) as sorted slash paths.
func walkFiles(t *testing.T, root string) ([]string, []Notice) {
	t.Helper()
	w := &walker{ctx: t.Context(), limit: DefaultTreeWalk, defaults: map[string]bool{}, markers: map[string]bool{}}
	w.stats.Langs = map[string]int{}
	top := &node{name: root}
	if err := w.walk(top, root, nil, w.ancestorRules(root, nil)); err != nil {
		t.Fatal(err)
	}
	var out []string
	var rec func(n *node, prefix string)
	rec = func(n *node, prefix string) {
		for _, f := range n.files {
			out = append(out, prefix+f)
		}
		for _, d := range n.dirs {
			rec(d, prefix+d.name+"/")
		}
	}
	rec(top, "")
	slices.Sort(out)
	return out, w.notices
}

// gitFiles returns what git lists in the repository at root: tracked and
// untracked files that the standard exclude files do not ignore, sorted.
func gitFiles(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "-C", root, "ls-files", "-co", "--exclude-standard", "-z")
	cmd.Env = gitEnviron(testGitEnv)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v\n%s", err, stderr.String())
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	return files
}

// newGitTree makes a repository holding files (keys are slash paths; a
// key ending in "/" is an empty folder) and returns its root.
func newGitTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "repo")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, root, "init", "-q")
	mkTree(t, root, files)
	return root
}

// TestWalkTreeIgnoreAsGit compares the walk's files with git ls-files
// -co --exclude-standard on trees that exercise gitignore's corners.
// On main, "[!a].txt" showed a.txt and hid b.txt (finding 6 of issue 14).
func TestWalkTreeIgnoreAsGit(t *testing.T) {
	needGit(t)
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
	}{
		{"negated class with !", map[string]string{".gitignore": "[!a].txt\n", "a.txt": "", "b.txt": "", "c.txt": "", "ab.txt": ""}},
		{"negated class with ^", map[string]string{".gitignore": "[^a].txt\n", "a.txt": "", "b.txt": ""}},
		{"class with ranges and bracket", map[string]string{".gitignore": "[]a-c].log\nx[[:digit:]]\n", "].log": "", "b.log": "", "d.log": "", "x1": "", "xa": ""}},
		{"unclosed class matches nothing", map[string]string{".gitignore": "[ab\n", "[ab": "", "a": ""}},
		{"double star in the middle", map[string]string{".gitignore": "a/**/z.txt\n", "a/z.txt": "", "a/b/z.txt": "", "a/b/c/z.txt": "", "a/z.md": "", "b/a/z.txt": ""}},
		{"double star backtracks", map[string]string{".gitignore": "a/**/b/c\n", "a/b/x/b/c": "", "a/b/c": "", "a/b/x/b/d": ""}},
		{"leading double star", map[string]string{".gitignore": "**/cache\n", "cache": "", "x/cache/f": "", "x/y/cache": "", "x/cachex": ""}},
		{"trailing double star keeps the folder", map[string]string{".gitignore": "out/**\n!out/keep\n", "out/a": "", "out/keep": "", "out/sub/b": ""}},
		{"double star inside a name is a star", map[string]string{".gitignore": "a**b\nc/d**/e\n", "axyb": "", "ab": "", "x/a/b": "", "c/d/e": "", "c/dx/e": "", "c/d/x/e": ""}},
		{"trailing slash matches folders only", map[string]string{".gitignore": "gen/\n", "gen/x.go": "", "sub/gen": "file", "sub/gen2/y.go": ""}},
		{"leading slash anchors", map[string]string{".gitignore": "/out.txt\n/docs/tmp\n", "out.txt": "", "sub/out.txt": "", "docs/tmp/a": "", "x/docs/tmp/b": ""}},
		{"slash in the middle anchors", map[string]string{".gitignore": "doc/*.txt\n", "doc/a.txt": "", "doc/sub/b.txt": "", "x/doc/c.txt": ""}},
		{"negation re-includes", map[string]string{".gitignore": "*.log\n!keep.log\n", "a.log": "", "keep.log": "", "sub/keep.log": "", "sub/b.log": ""}},
		{"no re-include inside an ignored folder", map[string]string{".gitignore": "logs/\n!logs/keep.log\n", "logs/keep.log": "", "logs/x.log": ""}},
		{"escapes", map[string]string{".gitignore": "\\#hash\n\\!bang\nsp\\ \nq\\?\n", "#hash": "", "!bang": "", "sp ": "", "q?": "", "qx": ""}},
		{"trailing spaces dropped", map[string]string{".gitignore": "a.txt   \n", "a.txt": "", "a.txt ": ""}},
		{"comments and CRLF", map[string]string{".gitignore": "# c\r\nb.txt\r\n\r\n", "# c": "", "b.txt": ""}},
		{"star does not cross a slash", map[string]string{".gitignore": "a/*\n", "a/x": "", "a/b/y": ""}},
		{"question mark", map[string]string{".gitignore": "?.go\n", "a.go": "", "ab.go": "", "s/b.go": ""}},
		{"nested gitignore files", map[string]string{
			".gitignore": "*.gen\n", "a.gen": "", "keep/.gitignore": "!*.gen\n/local\n", "keep/b.gen": "",
			"keep/local": "", "keep/sub/local": "", "other/c.gen": "",
		}},
		{"nested negation of a parent's folder pattern", map[string]string{".gitignore": "build\n", "src/.gitignore": "!build\n", "src/build/x": "", "build/y": ""}},
		{"info exclude", map[string]string{".git/info/exclude": "secret*\n", "secret.txt": "", "x/secret": "", "public": ""}},
		{"gitignore beats info exclude", map[string]string{".git/info/exclude": "*.tmp\n", ".gitignore": "!keep.tmp\n", "a.tmp": "", "keep.tmp": ""}},
		{"byte order mark", map[string]string{".gitignore": "\ufeffbom.txt\n", "bom.txt": ""}},
		{"ignored folder hides the gitignore inside", map[string]string{".gitignore": "d/\n", "d/.gitignore": "!x\n", "d/x": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := newGitTree(t, tt.files)
			got, _ := walkFiles(t, root)
			if diff := cmp.Diff(gitFiles(t, root), got); diff != "" {
				t.Errorf("files (-git +walk):\n%s", diff)
			}
		})
	}
}

// TestWalkTreeIgnoreAsGitRandom compares the walk with git on random
// trees and random .gitignore files. AGENTCTX_IGNORE_TREES sets how many
// trees (default 30); AGENTCTX_IGNORE_SEED the first seed.
func TestWalkTreeIgnoreAsGitRandom(t *testing.T) {
	needGit(t)
	t.Parallel()
	n := envInt(t, "AGENTCTX_IGNORE_TREES", 30)
	seed := envInt(t, "AGENTCTX_IGNORE_SEED", 1)
	for i := range n {
		s := uint64(seed + i)
		t.Run(strconv.FormatUint(s, 10), func(t *testing.T) {
			t.Parallel()
			files := randomIgnoreTree(rand.New(rand.NewPCG(s, s*7919)))
			root := newGitTree(t, files)
			got, _ := walkFiles(t, root)
			if diff := cmp.Diff(gitFiles(t, root), got); diff != "" {
				var ignores []string
				for p, body := range files {
					if strings.HasSuffix(p, ".gitignore") || strings.HasSuffix(p, "exclude") {
						ignores = append(ignores, fmt.Sprintf("%s:\n%s", p, body))
					}
				}
				slices.Sort(ignores)
				t.Fatalf("seed %d: files (-git +walk):\n%s\nignore files:\n%s", s, diff, strings.Join(ignores, "\n"))
			}
		})
	}
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// randomIgnoreTree returns a tree of about 40 files and folders with
// names from a small set (so that patterns hit), a .gitignore at the root
// and in some folders, and sometimes .git/info/exclude.
func randomIgnoreTree(r *rand.Rand) map[string]string {
	names := []string{"a", "b", "ab", "a.txt", "b.log", "x1", "[a]", "#c", "!d", "e f", "g ", "h?", "*", "build", "out", "cache", "ä.md"}
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	files := map[string]string{}
	var dirs = []string{""}
	for range 40 {
		depth := r.IntN(4)
		var parts []string
		for range depth + 1 {
			parts = append(parts, pick(names))
		}
		p := strings.Join(parts, "/")
		// A path must not run through a file made before.
		clash := false
		for i := 1; i <= len(parts); i++ {
			pre := strings.Join(parts[:i], "/")
			if _, ok := files[pre]; ok {
				clash = true
			}
			if i == len(parts) && slices.Contains(dirs, pre) {
				clash = true
			}
		}
		if clash {
			continue
		}
		files[p] = ""
		for i := 1; i < len(parts); i++ {
			if d := strings.Join(parts[:i], "/"); !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	atoms := []string{"a", "b", "ab", "*", "?", "**", "[!a]", "[^b]", "[a-c]", "[[:alpha:]]", "[]a]", "a*", "*.txt", "*.log", "x?",
		"\\#c", "\\!d", "e\\ f", "g\\ ", "h\\?", "\\*", "build", "out", "cache", "[!a]*", "*b", "\\[a]", "ä*"}
	pattern := func() string {
		var parts []string
		for range 1 + r.IntN(3) {
			parts = append(parts, pick(atoms))
		}
		p := strings.Join(parts, "/")
		if r.IntN(4) == 0 {
			p = "/" + p
		}
		if r.IntN(4) == 0 {
			p += "/"
		}
		if r.IntN(4) == 0 {
			p = "!" + p
		}
		if r.IntN(8) == 0 {
			p += "  "
		}
		return p
	}
	ignoreFile := func() string {
		var lines []string
		for range 1 + r.IntN(4) {
			lines = append(lines, pattern())
		}
		return strings.Join(lines, "\n") + "\n"
	}
	for _, d := range dirs {
		if d != "" && r.IntN(3) != 0 {
			continue
		}
		p := ".gitignore"
		if d != "" {
			p = d + "/.gitignore"
		}
		if _, ok := files[p]; !ok {
			files[p] = ignoreFile()
		}
	}
	if r.IntN(2) == 0 {
		files[".git/info/exclude"] = ignoreFile()
	}
	return files
}
