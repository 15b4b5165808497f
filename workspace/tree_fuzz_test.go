package workspace

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/token"
)

// fuzzTree builds a tree from newline-separated slash paths (a trailing
// slash makes a folder), with names mapped onto a small alphabet so that
// the rendering can be parsed back. It returns the top node and the
// number of entries (files and folders) below it.
func fuzzTree(data string) (*node, int) {
	type dir struct {
		dirs  map[string]*dir
		files map[string]bool
	}
	newDir := func() *dir { return &dir{dirs: map[string]*dir{}, files: map[string]bool{}} }
	top := newDir()
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789._-"
	for _, p := range strings.Split(data, "\n") {
		parts := strings.Split(p, "/")
		cur := top
		for i, part := range parts {
			if part == "" {
				continue
			}
			b := []byte(part)
			for j := range b {
				b[j] = alphabet[int(b[j])%len(alphabet)]
			}
			name := string(b)
			if i == len(parts)-1 {
				if cur.dirs[name] == nil {
					cur.files[name] = true
				}
				continue
			}
			if cur.dirs[name] == nil {
				delete(cur.files, name)
				cur.dirs[name] = newDir()
			}
			cur = cur.dirs[name]
		}
	}
	total := 0
	var conv func(name string, d *dir) *node
	conv = func(name string, d *dir) *node {
		n := &node{name: name}
		for k, sub := range d.dirs {
			n.dirs = append(n.dirs, conv(k, sub))
		}
		for k := range d.files {
			n.files = append(n.files, k)
		}
		total += len(n.dirs) + len(n.files)
		slices.SortFunc(n.dirs, func(a, b *node) int { return strings.Compare(a.name, b.name) })
		slices.Sort(n.files)
		return n
	}
	return conv("/top", top), total
}

var (
	moreRE  = regexp.MustCompile(`^… ([0-9,]+) more`)
	countRE = regexp.MustCompile(`([0-9,]+) (folder|file)s?`)
)

func atoiCommas(s string) int {
	n, _ := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	return n
}

// checkRendering parses a rendered tree and checks it against the tree:
// every listed entry exists, and each folder's listed entries plus the
// ones it says are not listed equal its entries. It returns the number of
// entries listed.
func checkRendering(t *testing.T, top *node, text string) int {
	t.Helper()
	_, tree, ok := strings.Cut(text, "\n\n")
	if !ok {
		t.Fatalf("no tree in %q", text)
	}
	lines := strings.Split(tree, "\n")
	type frame struct {
		n      *node
		listed int
		more   int
		said   bool // the folder line said what it holds
	}
	listed := 0
	stack := []*frame{{n: top}}
	closeFrame := func(f *frame) {
		if f.said {
			return
		}
		if f.listed+f.more != f.n.total() {
			t.Errorf("folder %q: %d listed + %d more != %d entries\n%s", f.n.name, f.listed, f.more, f.n.total(), text)
		}
	}
	if m := countRE.FindAllStringSubmatch(lines[0], -1); m != nil {
		stack[0].said = true
		checkCounts(t, top, m)
	}
	for _, line := range lines[1:] {
		trimmed := strings.TrimLeft(line, " ")
		depth := (len(line) - len(trimmed)) / 2
		for len(stack) > depth {
			closeFrame(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
		}
		parent := stack[len(stack)-1]
		if m := moreRE.FindStringSubmatch(trimmed); m != nil {
			parent.more = atoiCommas(m[1])
			continue
		}
		listed++
		parent.listed++
		name, suffix, _ := strings.Cut(trimmed, " ")
		if dname, isDir := strings.CutSuffix(name, "/"); isDir {
			i := slices.IndexFunc(parent.n.dirs, func(d *node) bool { return d.name == dname })
			if i < 0 {
				t.Fatalf("listed folder %q not in %q", dname, parent.n.name)
			}
			f := &frame{n: parent.n.dirs[i]}
			if m := countRE.FindAllStringSubmatch(suffix, -1); m != nil {
				f.said = true
				checkCounts(t, f.n, m)
			}
			stack = append(stack, f)
			continue
		}
		if !slices.Contains(parent.n.files, name) {
			t.Fatalf("listed file %q not in %q", name, parent.n.name)
		}
	}
	for len(stack) > 0 {
		closeFrame(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
	}
	return listed
}

func checkCounts(t *testing.T, n *node, m [][]string) {
	t.Helper()
	dirs, files := 0, 0
	for _, c := range m {
		if c[2] == "folder" {
			dirs = atoiCommas(c[1])
		} else {
			files = atoiCommas(c[1])
		}
	}
	if dirs != len(n.dirs) || files != len(n.files) {
		t.Errorf("folder %q said %d folders, %d files; has %d, %d", n.name, dirs, files, len(n.dirs), len(n.files))
	}
}

// FuzzTreeRender renders random trees under random caps: the caps hold,
// Tokens is exact, the "… N more" counts are exact, Truncated is set
// exactly when entries are left out, and nothing panics.
func FuzzTreeRender(f *testing.F) {
	f.Add("a/b/c\na/d\ne\nf/", uint16(400), uint16(3000))
	f.Add("x/1\nx/2\nx/3\nx/4\ny/1\nz", uint16(3), uint16(3000))
	f.Add("big/"+strings.Repeat("f\nbig/g", 50), uint16(10), uint16(80))
	f.Add("", uint16(0), uint16(0))
	f.Add("a/a/a/a/a/a/a/a/a/a\nb", uint16(5), uint16(45))
	f.Fuzz(func(t *testing.T, data string, maxEntries, maxTokens uint16) {
		if len(data) > 4096 {
			return
		}
		top, total := fuzzTree(data)
		me, mt := int(maxEntries%600)+1, int(maxTokens%4000)+1
		b, ok := renderTree(top, token.Estimator{}, me, mt, false, 0)
		if !ok {
			if b.Text != "" {
				t.Fatalf("not ok but text %q", b.Text)
			}
			return
		}
		if b.Tokens != (token.Estimator{}).Count(b.Text) || b.Tokens > mt {
			t.Fatalf("Tokens = %d, Count = %d, cap %d", b.Tokens, (token.Estimator{}).Count(b.Text), mt)
		}
		n := checkRendering(t, top, b.Text)
		if n > me {
			t.Fatalf("%d entries listed, cap %d", n, me)
		}
		if b.Truncated != (n < total) {
			t.Fatalf("Truncated = %v with %d of %d listed", b.Truncated, n, total)
		}
	})
}

// FuzzTreeReadme cuts random READMEs: the cap holds, Tokens is exact, the
// text is UTF-8 with LF line ends, and a cut ends with its note.
func FuzzTreeReadme(f *testing.F) {
	f.Add([]byte("# T\n\nbody\n"), uint16(100))
	f.Add([]byte(strings.Repeat("line\n", 100)), uint16(20))
	f.Add([]byte(strings.Repeat("ü", 300)), uint16(10))
	f.Add([]byte("a\r\nb\x00"), uint16(5))
	f.Fuzz(func(t *testing.T, content []byte, maxTokens uint16) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "README.md"), content, 0o644); err != nil {
			t.Fatal(err)
		}
		b, ok, notes := readme(dir, dir, token.Estimator{}, int(maxTokens))
		if !ok {
			if b.Text != "" {
				t.Fatalf("not ok but text %q", b.Text)
			}
			return
		}
		if b.Tokens != (token.Estimator{}).Count(b.Text) || b.Tokens > int(maxTokens) {
			t.Fatalf("Tokens = %d, Count = %d, cap %d", b.Tokens, (token.Estimator{}).Count(b.Text), maxTokens)
		}
		if !utf8.ValidString(b.Text) || strings.Contains(b.Text, "\r\n") {
			t.Fatalf("text %q", b.Text)
		}
		if b.Truncated != (len(notes) == 1) || (b.Truncated && !strings.HasSuffix(b.Text, "lines shown]")) {
			t.Fatalf("Truncated %v, notices %v, text %q", b.Truncated, notes, b.Text)
		}
	})
}

// FuzzTreeCodeStyle feeds random content to every configuration file
// parser: the block stays under its cap, one item per line, valid UTF-8.
func FuzzTreeCodeStyle(f *testing.F) {
	names := []string{
		"go.mod", ".golangci.yml", ".editorconfig", "pyproject.toml", "ruff.toml", "setup.cfg",
		"package.json", "tsconfig.json", "Cargo.toml", ".clang-format", ".pre-commit-config.yaml",
		"Makefile", "justfile",
	}
	f.Add(uint8(0), []byte("module x\ngo 1.2\n"))
	f.Add(uint8(6), []byte(`{"scripts":{"lint":"a\nb`+"`"+`c"},"devDependencies":{"eslint":1}}`))
	f.Add(uint8(3), []byte("[tool.ruff]\nline-length = \xff\n"))
	f.Add(uint8(11), []byte("test lint:\n"))
	f.Fuzz(func(t *testing.T, which uint8, content []byte) {
		name := names[int(which)%len(names)]
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
		st := treeStats{Markers: []string{name}, Langs: map[string]int{"Go": 1}}
		b, ok, _ := codeStyle(root, st, token.Estimator{})
		if !ok {
			t.Fatal("no block despite a language")
		}
		if b.Tokens > styleTokens || b.Tokens != (token.Estimator{}).Count(b.Text) || !utf8.ValidString(b.Text) {
			t.Fatalf("block %+v", b)
		}
		for i, l := range strings.Split(b.Text, "\n") {
			if i > 1 && !strings.HasPrefix(l, "- ") {
				t.Fatalf("line %d %q in\n%s", i, l, b.Text)
			}
		}
	})
}
