package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/token"
)

// mkTree creates files under root: a key ending in "/" is a folder, any
// other key a file holding its value.
func mkTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// listed parses a rendered tree back into the slash paths it lists,
// relative to the top folder (folders end in "/"), in listing order. It
// skips the header, "… " lines and the suffixes in parentheses.
func listed(t testing.TB, text string) []string {
	t.Helper()
	_, tree, ok := strings.Cut(text, "\n\n")
	if !ok {
		t.Fatalf("no tree in %q", text)
	}
	var out, stack []string
	for i, line := range strings.Split(tree, "\n") {
		if i == 0 || line == "" || strings.HasPrefix(line, "(") {
			continue
		}
		trimmed := strings.TrimLeft(line, " ")
		depth := (len(line) - len(trimmed)) / 2
		if strings.HasPrefix(trimmed, "… ") {
			continue
		}
		if j := strings.Index(trimmed, " ("); j >= 0 {
			trimmed = trimmed[:j]
		}
		stack = append(stack[:depth-1], trimmed)
		out = append(out, strings.Join(stack, ""))
	}
	return out
}

func TestWalkTreeIgnore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		files  map[string]string
		sub    string // walk this folder below the root
		ignore []string
		want   []string
	}{
		{
			name: "root gitignore applies at every depth",
			files: map[string]string{
				".gitignore": "*.log\n", "a.log": "", "keep.txt": "", "sub/b.log": "", "sub/c.txt": "",
			},
			want: []string{"sub/", "sub/c.txt", ".gitignore", "keep.txt"},
		},
		{
			name: "nested gitignore applies to its subtree only",
			files: map[string]string{
				"sub/.gitignore": "*.tmp\n", "sub/x.tmp": "", "sub/deep/y.tmp": "", "sub/deep/y.go": "",
				"other/x.tmp": "",
			},
			want: []string{"other/", "other/x.tmp", "sub/", "sub/deep/", "sub/deep/y.go", "sub/.gitignore"},
		},
		{
			name: "negation re-includes",
			files: map[string]string{
				".gitignore": "*.log\n!important.log\n", "a.log": "", "important.log": "", "sub/important.log": "",
			},
			want: []string{"sub/", "sub/important.log", ".gitignore", "important.log"},
		},
		{
			name: "negating a folder does not re-include its ignored files",
			files: map[string]string{
				".gitignore": "*.log\n!logs/\n", "logs/debug.log": "", "logs/readme.txt": "",
			},
			want: []string{"logs/", "logs/readme.txt", ".gitignore"},
		},
		{
			name: "nested negation overrides the root",
			files: map[string]string{
				".gitignore": "*.gen.go\n", "a.gen.go": "", "keep/.gitignore": "!*.gen.go\n", "keep/b.gen.go": "",
			},
			want: []string{"keep/", "keep/.gitignore", "keep/b.gen.go", ".gitignore"},
		},
		{
			name: "dir-only pattern skips folders, not files",
			files: map[string]string{
				".gitignore": "gen/\n", "gen/x.go": "", "sub/gen": "file", "sub/gen2/y.go": "",
			},
			want: []string{"sub/", "sub/gen2/", "sub/gen2/y.go", "sub/gen", ".gitignore"},
		},
		{
			name: "anchored patterns",
			files: map[string]string{
				".gitignore": "/out.txt\n/docs/tmp\n", "out.txt": "", "sub/out.txt": "",
				"docs/tmp/x": "", "docs/keep": "", "sub/docs/tmp/y": "",
			},
			want: []string{
				"docs/", "docs/keep", "sub/", "sub/docs/", "sub/docs/tmp/", "sub/docs/tmp/y",
				"sub/out.txt", ".gitignore",
			},
		},
		{
			name: "double star",
			files: map[string]string{
				".gitignore": "a/**/z.txt\n**/cache/\n", "a/z.txt": "", "a/b/z.txt": "", "a/b/c/z.txt": "",
				"a/z.md": "", "x/y/cache/big": "", "cache/big": "",
			},
			want: []string{"a/", "a/b/", "a/b/c/", "a/z.md", "x/", "x/y/", ".gitignore"},
		},
		{
			name: "escapes, comments, CRLF and trailing spaces",
			files: map[string]string{
				".gitignore": "# comment\r\n\\#hash\r\nspace.txt   \r\n\r\n", "#hash": "", "# comment": "",
				"space.txt": "",
			},
			want: []string{"# comment", ".gitignore"},
		},
		{
			name: "git info exclude",
			files: map[string]string{
				".git/info/exclude": "secret.txt\n", "secret.txt": "", "open.txt": "",
			},
			want: []string{"open.txt"},
		},
		{
			name: "default ignores are folders only",
			files: map[string]string{
				"node_modules/x/y.js": "", "vendor/m/m.go": "", ".venv/bin/python": "", "__pycache__/a.pyc": "",
				"dist": "a file", "src/build/out.o": "", "src/main.go": "",
			},
			want: []string{"src/", "src/main.go", "dist"},
		},
		{
			name: "options ignore",
			files: map[string]string{
				"a.md": "", "b.go": "", "docs/c.md": "", "docs/d.txt": "",
			},
			ignore: []string{"*.md", "", "# not a pattern"},
			want:   []string{"docs/", "docs/d.txt", "b.go"},
		},
		{
			name: "options ignore beats a gitignore negation",
			files: map[string]string{
				".gitignore": "!keep.md\n", "keep.md": "", "b.go": "",
			},
			ignore: []string{"*.md"},
			want:   []string{".gitignore", "b.go"},
		},
		{
			name: "walk below the root honours the root's rules",
			files: map[string]string{
				".gitignore": "*.log\n/sub/hide.txt\n", "sub/.gitignore": "*.tmp\n",
				"sub/a.log": "", "sub/hide.txt": "", "sub/x.tmp": "", "sub/show.txt": "",
				"sub/deep/hide.txt": "", "other/z.txt": "",
			},
			sub:  "sub",
			want: []string{"deep/", "deep/hide.txt", ".gitignore", "show.txt"},
		},
		{
			name: "walk below the root honours an intermediate gitignore",
			files: map[string]string{
				"a/.gitignore": "*.bin\n", "a/b/x.bin": "", "a/b/y.go": "",
			},
			sub:  "a/b",
			want: []string{"y.go"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			mkTree(t, root, tt.files)
			dir := filepath.Join(root, filepath.FromSlash(tt.sub))
			b, _, notes, err := walkTree(t.Context(), root, dir, token.Estimator{}, TreeOptions{Ignore: tt.ignore})
			if err != nil {
				t.Fatal(err)
			}
			if len(notes) > 0 {
				t.Errorf("notices: %v", notes)
			}
			if diff := cmp.Diff(tt.want, listed(t, b.Text)); diff != "" {
				t.Errorf("listed (-want +got):\n%s\n%s", diff, b.Text)
			}
		})
	}
}

func TestWalkTreeRender(t *testing.T) {
	t.Parallel()
	const header = treeHeader + "\n\n"
	tests := []struct {
		name          string
		files         map[string]string
		opts          TreeOptions
		capToWant     bool   // set opts.MaxTokens to the size of want
		want          string // the tree after the header, with DIR for the top folder
		wantTruncated bool
	}{
		{
			name:  "everything fits",
			files: map[string]string{"b.go": "", "a/z.go": "", "a/y/": "", "C.md": ""},
			want:  "DIR/\n  a/\n    y/\n    z.go\n  C.md\n  b.go",
		},
		{
			name: "entry cap: top level first, folders described",
			files: map[string]string{
				"f1": "", "f2": "", "f3": "", "f4": "", "f5": "", "f6": "", "f7": "", "f8": "", "f9": "", "f10": "",
				"a/1": "", "a/2": "", "a/3": "", "a/4": "", "b/c/": "", "b/d": "", "c/": "",
			},
			opts: TreeOptions{MaxEntries: 5},
			want: "DIR/\n  a/ (4 files)\n  b/ (1 folder, 1 file)\n  c/\n  f1\n  f10\n  … 8 more files",
			// f1, f10 sort before f2 (byte order)
			wantTruncated: true,
		},
		{
			name:          "entry cap cuts folders too",
			files:         map[string]string{"a/": "", "b/": "", "c/": "", "x": "", "y": ""},
			opts:          TreeOptions{MaxEntries: 2},
			want:          "DIR/\n  a/\n  b/\n  … 3 more (1 folder, 2 files)",
			wantTruncated: true,
		},
		{
			name:          "one entry fits",
			files:         map[string]string{"a/": "", "b": ""},
			opts:          TreeOptions{MaxEntries: 1},
			want:          "DIR/\n  a/\n  … 1 more file",
			wantTruncated: true,
		},
		{
			name:          "zero entries fit",
			files:         map[string]string{"alpha_long_name/": "", "beta_long_name.txt": ""},
			capToWant:     true,
			want:          "DIR/ (1 folder, 1 file)",
			wantTruncated: true,
		},
		{
			name: "walk bound",
			files: map[string]string{
				"a/1": "", "a/2": "", "b/1": "", "b/2": "",
			},
			opts:          TreeOptions{MaxFiles: 4},
			want:          "DIR/\n  a/\n    1\n    2\n  b/ (not walked)\n\n(the walk stopped after 4 entries: folders marked \"not walked\" were not read)",
			wantTruncated: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			mkTree(t, root, tt.files)
			want := header + strings.ReplaceAll(tt.want, "DIR", filepath.ToSlash(root))
			if tt.capToWant {
				tt.opts.MaxTokens = token.Estimator{}.Count(want)
			}
			b, _, _, err := walkTree(t.Context(), root, root, token.Estimator{}, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, b.Text); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if b.Truncated != tt.wantTruncated {
				t.Errorf("Truncated = %v, want %v", b.Truncated, tt.wantTruncated)
			}
			if b.Name != BlockDirectory || b.Source != "walk" {
				t.Errorf("Name, Source = %q, %q", b.Name, b.Source)
			}
		})
	}
}

// TestWalkTreeBreadthFirst checks that a huge folder does not starve its
// siblings: the small folders are listed in full and the huge one gets
// the rest of the entry budget.
func TestWalkTreeBreadthFirst(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		"small1/a": "", "small1/b": "", "small1/c": "", "small2/a": "", "small2/b": "", "README": "",
	}
	for i := range 1000 {
		files[fmt.Sprintf("huge/f%04d", i)] = ""
	}
	mkTree(t, root, files)
	b, st, _, err := walkTree(t.Context(), root, root, token.Estimator{}, TreeOptions{MaxEntries: 20})
	if err != nil {
		t.Fatal(err)
	}
	// Level 1 takes 4 entries; 16 are left for level 2, shared max-min
	// fairly among demands 1000, 3 and 2: 11, 3 and 2.
	var want []string
	want = append(want, "huge/")
	for i := range 11 {
		want = append(want, fmt.Sprintf("huge/f%04d", i))
	}
	want = append(want, "small1/", "small1/a", "small1/b", "small1/c", "small2/", "small2/a", "small2/b", "README")
	if diff := cmp.Diff(want, listed(t, b.Text)); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
	if !strings.Contains(b.Text, "\n    … 989 more files\n") {
		t.Errorf("no exact more line in:\n%s", b.Text)
	}
	if st.Files != 1006 || st.Folders != 3 {
		t.Errorf("Files, Folders = %d, %d; want 1006, 3", st.Files, st.Folders)
	}
}

func TestWaterfill(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		demand []int
		budget int
		want   []int
	}{
		{"all fit", []int{3, 2, 5}, 10, []int{3, 2, 5}},
		{"small first", []int{1000, 3, 2}, 16, []int{11, 3, 2}},
		{"remainder to the earliest", []int{10, 10, 10}, 7, []int{3, 2, 2}},
		{"zero budget", []int{4, 4}, 0, []int{0, 0}},
		{"empty folders", []int{0, 9, 0}, 4, []int{0, 4, 0}},
		{"one each", []int{5, 5, 5, 5}, 2, []int{1, 1, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, waterfill(tt.demand, tt.budget)); diff != "" {
				t.Errorf("waterfill(%v, %d) (-want +got):\n%s", tt.demand, tt.budget, diff)
			}
		})
	}
}

// TestWalkTreeDefaultIgnoreCost checks that a DefaultIgnore folder costs
// one visited entry however big it is.
func TestWalkTreeDefaultIgnoreCost(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	nm := filepath.Join(root, "node_modules", "pkg")
	if err := os.MkdirAll(nm, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 10_000 {
		if err := os.WriteFile(filepath.Join(nm, fmt.Sprintf("f%05d.js", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mkTree(t, root, map[string]string{"main.go": "", "lib/a.go": ""})
	b, st, _, err := walkTree(t.Context(), root, root, token.Estimator{}, TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// node_modules, main.go, lib, lib/a.go.
	if st.Visited != 4 {
		t.Errorf("Visited = %d, want 4", st.Visited)
	}
	if st.Files != 2 || st.Langs["Go"] != 2 || st.Langs["JavaScript"] != 0 {
		t.Errorf("Files = %d, Langs = %v", st.Files, st.Langs)
	}
	if strings.Contains(b.Text, "node_modules") {
		t.Errorf("node_modules listed:\n%s", b.Text)
	}
}

func TestWalkTreeSymlinks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mkTree(t, root, map[string]string{"a/file.go": ""})
	for _, l := range []struct{ target, link string }{
		{".", "loop"},
		{"..", "a/up"},
		{"a", "alias"},
	} {
		if err := os.Symlink(l.target, filepath.Join(root, filepath.FromSlash(l.link))); err != nil {
			t.Skipf("symlinks unsupported: %v", err)
		}
	}
	b, st, _, err := walkTree(t.Context(), root, root, token.Estimator{}, TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a/", "a/file.go", "a/up", "alias", "loop"}
	if diff := cmp.Diff(want, listed(t, b.Text)); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
	if st.Visited != 5 {
		t.Errorf("Visited = %d, want 5", st.Visited)
	}
}

func TestWalkTreeTokens(t *testing.T) {
	t.Parallel()
	bpe, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	files := map[string]string{}
	for i := range 30 {
		for j := range 20 {
			files[fmt.Sprintf("pkg%02d/file_%02d_name.go", i, j)] = ""
		}
	}
	mkTree(t, root, files)
	for _, c := range []struct {
		name    string
		counter token.Counter
	}{{"estimate", token.Estimator{}}, {"o200k", bpe}} {
		for _, maxTokens := range []int{60, 200, 1000, 100_000} {
			t.Run(fmt.Sprintf("%s/%d", c.name, maxTokens), func(t *testing.T) {
				t.Parallel()
				opts := TreeOptions{MaxTokens: maxTokens, MaxEntries: 10_000}
				b, st, notes, err := walkTree(t.Context(), root, root, c.counter, opts)
				if err != nil {
					t.Fatal(err)
				}
				if got := c.counter.Count(b.Text); b.Tokens != got {
					t.Errorf("Tokens = %d, Count(Text) = %d", b.Tokens, got)
				}
				if b.Tokens > maxTokens {
					t.Errorf("Tokens = %d > cap %d", b.Tokens, maxTokens)
				}
				n := len(listed(t, b.Text))
				all := st.Files + st.Folders
				if b.Truncated != (n < all) {
					t.Errorf("Truncated = %v with %d of %d listed", b.Truncated, n, all)
				}
				if maxTokens == 100_000 && n != all {
					t.Errorf("listed %d of %d under a large cap", n, all)
				}
				if maxTokens == 200 && n < 10 {
					t.Errorf("only %d entries listed under 200 tokens:\n%s", n, b.Text)
				}
				if len(notes) > 0 {
					t.Errorf("notices: %v", notes)
				}
			})
		}
	}
}

func TestWalkTreeTooSmall(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mkTree(t, root, map[string]string{"a": ""})
	b, _, notes, err := walkTree(t.Context(), root, root, token.Estimator{}, TreeOptions{MaxTokens: 5})
	if err != nil {
		t.Fatal(err)
	}
	if b.Text != "" {
		t.Errorf("Text = %q, want empty", b.Text)
	}
	want := []Notice{{Source: BlockDirectory, Message: "the directory structure does not fit in 5 tokens; left out"}}
	if diff := cmp.Diff(want, notes); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
}

func TestWalkTreeDeterministic(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{".gitignore": "*.o\n", "go.mod": "module x\n", "web/package.json": "{}"}
	for i := range 50 {
		files[fmt.Sprintf("d%d/e%d/f%d.go", i%7, i%5, i)] = ""
		files[fmt.Sprintf("d%d/g%d.o", i%7, i)] = ""
	}
	mkTree(t, root, files)
	opts := TreeOptions{MaxEntries: 40}
	b1, s1, n1, err1 := walkTree(t.Context(), root, root, token.Estimator{}, opts)
	b2, s2, n2, err2 := walkTree(t.Context(), root, root, token.Estimator{}, opts)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if diff := cmp.Diff(b1, b2); diff != "" {
		t.Errorf("blocks differ:\n%s", diff)
	}
	if diff := cmp.Diff(s1, s2); diff != "" {
		t.Errorf("stats differ:\n%s", diff)
	}
	if diff := cmp.Diff(n1, n2); diff != "" {
		t.Errorf("notices differ:\n%s", diff)
	}
}

func TestWalkTreeCancel(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{}
	for i := range 2 * ctxEvery {
		files[fmt.Sprintf("f%04d", i)] = ""
	}
	mkTree(t, root, files)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, _, _, err := walkTree(ctx, root, root, token.Estimator{}, TreeOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !strings.HasPrefix(err.Error(), "walk "+root+": ") {
		t.Errorf("err = %q, want it to name the folder", err)
	}
	_, err = Gather(ctx, Options{Dir: root, Git: GitOptions{Disabled: true}, UserDir: "-"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Gather err = %v, want context.Canceled", err)
	}
}

func TestWalkTreeMaxFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{}
	for _, d := range []string{"a", "b", "c"} {
		for i := range 30 {
			files[fmt.Sprintf("%s/f%02d", d, i)] = ""
		}
	}
	mkTree(t, root, files)
	b, st, notes, err := walkTree(t.Context(), root, root, token.Estimator{}, TreeOptions{MaxFiles: 50})
	if err != nil {
		t.Fatal(err)
	}
	want := []Notice{{Source: BlockDirectory, Message: "walk stopped after 50 entries"}}
	if diff := cmp.Diff(want, notes); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
	// 3 top folders, 30 files of one folder and 17 of the next.
	if st.Visited != 50 || !st.Stopped || st.Files != 47 {
		t.Errorf("Visited, Stopped, Files = %d, %v, %d; want 50, true, 47", st.Visited, st.Stopped, st.Files)
	}
	if !b.Truncated || !strings.Contains(b.Text, "c/ (not walked)") || !strings.HasSuffix(b.Text, "(the walk stopped after 50 entries: folders marked \"not walked\" were not read)") {
		t.Errorf("text:\n%s", b.Text)
	}
}

func TestWalkTreeStats(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mkTree(t, root, map[string]string{
		"go.mod": "", ".editorconfig": "", "main.go": "", "util.GO": "", "script.sh": "",
		"web/package.json": "", "web/.eslintrc.json": "", "web/src/app.tsx": "", "web/src/.prettierrc": "",
		"web/src/x.js": "", "docs/README.md": "", "Makefile": "", "sub/": "",
		"notes.txt": "", ".gitignore": "Makefile.local\n", "Makefile.local": "",
	})
	_, st, _, err := walkTree(t.Context(), root, root, token.Estimator{}, TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantMarkers := []string{".editorconfig", "Makefile", "go.mod", "web/.eslintrc.json", "web/package.json"}
	if diff := cmp.Diff(wantMarkers, st.Markers); diff != "" {
		t.Errorf("markers (-want +got):\n%s", diff)
	}
	wantLangs := map[string]int{"Go": 2, "Shell": 1, "TypeScript": 1, "JavaScript": 1}
	if diff := cmp.Diff(wantLangs, st.Langs); diff != "" {
		t.Errorf("langs (-want +got):\n%s", diff)
	}
	if st.Files != 14 || st.Folders != 4 {
		t.Errorf("Files, Folders = %d, %d; want 14, 4", st.Files, st.Folders)
	}

	// Walking below the root: markers of the root itself, dir and one
	// level below dir, relative to the root.
	_, st, _, err = walkTree(t.Context(), root, filepath.Join(root, "web"), token.Estimator{}, TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantMarkers = []string{".editorconfig", "Makefile", "go.mod", "web/.eslintrc.json", "web/package.json", "web/src/.prettierrc"}
	if diff := cmp.Diff(wantMarkers, st.Markers); diff != "" {
		t.Errorf("markers below the root (-want +got):\n%s", diff)
	}
}

func TestWalkTreeOddNames(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	names := []string{"new\nline", "tab\there", "ünïcødé.go", "bad\xffutf8"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(root, n), nil, 0o644); err != nil {
			t.Skipf("file system refuses %q: %v", n, err)
		}
	}
	b, _, _, err := walkTree(t.Context(), root, root, token.Estimator{}, TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`"bad\xffutf8"`, `"new\nline"`, `"tab\there"`, "ünïcødé.go"}
	if diff := cmp.Diff(want, listed(t, b.Text)); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
}

func TestCommas(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 12345: "12,345", 1234567: "1,234,567", -5: "-5"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestGatherTree runs Gather with git off on a small project and checks
// the blocks it gets from this engineer's part: tree, code style, README.
func TestGatherTree(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mkTree(t, root, map[string]string{
		"go.mod":    "module example.com/demo\n\ngo 1.26\n",
		"main.go":   "package main\n",
		"README.md": "# Demo\n\nA demo.\n",
	})
	c, err := Gather(t.Context(), Options{Dir: root, Git: GitOptions{Disabled: true}, UserDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range c.Blocks {
		names = append(names, b.Name)
		if b.Tokens != (token.Estimator{}).Count(b.Text) {
			t.Errorf("%s: Tokens = %d, want %d", b.Name, b.Tokens, (token.Estimator{}).Count(b.Text))
		}
	}
	if diff := cmp.Diff([]string{BlockDirectory, BlockCodeStyle, BlockReadme}, names); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
}
