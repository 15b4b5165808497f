package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/token"
)

// instrTree lays out a temp folder for the instruction tests: files and
// symlinks relative to it, "$BASE" in contents replaced by its path. The
// project is base/proj, the user folder base/user, and base/outside
// holds what must never be read.
func instrTree(tb testing.TB, files, links map[string]string) string {
	tb.Helper()
	base, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	for _, d := range []string{"proj", "user", "outside"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	for p, content := range files {
		full := filepath.Join(base, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				tb.Fatal(err)
			}
			continue
		}
		putTestFile(tb, full, strings.ReplaceAll(content, "$BASE", base))
	}
	for p, target := range links {
		full := filepath.Join(base, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.Symlink(filepath.FromSlash(target), full); err != nil {
			tb.Fatal(err)
		}
	}
	return base
}

// instrRelNotes returns notices as "source: message" with base cut from the
// source, for comparison.
func instrRelNotes(base string, notes []Notice) []string {
	var out []string
	for _, n := range notes {
		src := strings.TrimPrefix(n.Source, base+string(filepath.Separator))
		out = append(out, src+": "+n.Message)
	}
	return out
}

// instrRelPaths returns paths relative to base.
func instrRelPaths(base string, ps []string) []string {
	var out []string
	for _, p := range ps {
		r, err := filepath.Rel(base, p)
		if err != nil {
			r = p
		}
		out = append(out, filepath.ToSlash(r))
	}
	return out
}

const instrSecret = "SECRET-CONTENT-QZXJW"

func TestLoadInstructionsDiscovery(t *testing.T) {
	t.Parallel()
	type got struct {
		Rel   string
		Scope Scope
		Text  string
	}
	all := map[string]string{
		"user/AGENTS.md":                           "user",
		"proj/AGENTS.md":                           "root agents",
		"proj/CLAUDE.md":                           "root claude",
		"proj/CLAUDE.local.md":                     "root local",
		"proj/.cursorrules":                        "cursor",
		"proj/.github/copilot-instructions.md":     "copilot",
		"proj/sub/GEMINI.md":                       "sub gemini",
		"proj/sub/agents.md":                       "lower case: not an instruction file",
		"proj/sub/.github/copilot-instructions.md": "copilot below the root: ignored",
		"proj/sub/dir/CRUSH.md":                    "crush",
		"proj/sub/dir/AGENTS.md":                   "",
		"proj/sub/dir/CLAUDE.md":                   " \n\n",
		"proj/sub/dir/GEMINI.md/":                  "",
		"proj/other/AGENTS.md":                     "other: not on the way down",
	}
	tests := []struct {
		name      string
		links     map[string]string
		dir, user string
		opts      InstructionOptions
		want      []got
		wantNotes []string
	}{
		{
			name: "user file, then root down to dir",
			dir:  "proj/sub/dir", user: "user",
			want: []got{
				{"AGENTS.md", ScopeUser, "user"},
				{"AGENTS.md", ScopeProject, "root agents"},
				{"CLAUDE.md", ScopeProject, "root claude"},
				{"CLAUDE.local.md", ScopeLocal, "root local"},
				{".cursorrules", ScopeProject, "cursor"},
				{".github/copilot-instructions.md", ScopeProject, "copilot"},
				{"sub/GEMINI.md", ScopeProject, "sub gemini"},
				{"sub/dir/CRUSH.md", ScopeProject, "crush"},
			},
		},
		{
			name: "dir is the root, no user folder",
			dir:  "proj",
			want: []got{
				{"AGENTS.md", ScopeProject, "root agents"},
				{"CLAUDE.md", ScopeProject, "root claude"},
				{"CLAUDE.local.md", ScopeLocal, "root local"},
				{".cursorrules", ScopeProject, "cursor"},
				{".github/copilot-instructions.md", ScopeProject, "copilot"},
			},
		},
		{
			name: "names overridden",
			dir:  "proj/sub", user: "user",
			opts: InstructionOptions{Names: []string{"GEMINI.md", "CLAUDE.md"}},
			want: []got{
				{"AGENTS.md", ScopeUser, "user"},
				{"CLAUDE.md", ScopeProject, "root claude"},
				{"sub/GEMINI.md", ScopeProject, "sub gemini"},
			},
		},
		{
			name:  "a symlink to a file already listed is skipped",
			dir:   "proj/sub/dir",
			links: map[string]string{"proj/sub/dir/CLAUDE.local.md": "CRUSH.md"},
			opts:  InstructionOptions{Names: []string{"CRUSH.md", "CLAUDE.local.md"}},
			want: []got{
				{"CLAUDE.local.md", ScopeLocal, "root local"},
				{"sub/dir/CRUSH.md", ScopeProject, "crush"},
			},
			wantNotes: []string{
				"proj/sub/dir/CLAUDE.local.md: skipped: same file as " + "$BASE/proj/sub/dir/CRUSH.md",
			},
		},
		{
			name:  "project file linking outside is refused",
			dir:   "proj/other",
			links: map[string]string{"proj/other/CLAUDE.md": "../../outside/secret.md"},
			opts:  InstructionOptions{Names: []string{"CLAUDE.md", "AGENTS.md"}},
			want: []got{
				{"CLAUDE.md", ScopeProject, "root claude"},
				{"AGENTS.md", ScopeProject, "root agents"},
				{"other/AGENTS.md", ScopeProject, "other: not on the way down"},
			},
			wantNotes: []string{"proj/other/CLAUDE.md: refused: links outside the project to $BASE/outside/secret.md"},
		},
		{
			name:  "user file may link anywhere",
			dir:   "proj/other",
			user:  "user2",
			links: map[string]string{"user2/AGENTS.md": "../outside/dotfile.md"},
			opts:  InstructionOptions{Names: []string{"CRUSH.md"}},
			want:  []got{{"AGENTS.md", ScopeUser, "from dotfiles"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files := map[string]string{"outside/secret.md": instrSecret, "outside/dotfile.md": "from dotfiles"}
			for k, v := range all {
				files[k] = v
			}
			base := instrTree(t, files, tt.links)
			root := filepath.Join(base, "proj")
			user := ""
			if tt.user != "" {
				user = filepath.Join(base, tt.user)
			}
			counter := token.Estimator{}
			ins, notes := loadInstructions(root, filepath.Join(base, tt.dir), user, counter, tt.opts)
			var gots []got
			for _, in := range ins {
				gots = append(gots, got{in.Rel, in.Scope, in.Text})
				wantPath := filepath.Join(root, in.Rel)
				if in.Scope == ScopeUser {
					wantPath = filepath.Join(user, in.Rel)
				}
				if in.Path != wantPath || in.Bytes != len(in.Text) || in.Tokens != counter.Count(in.Text) || in.Truncated {
					t.Errorf("%s: path %q bytes %d tokens %d truncated %v; want %q, %d, %d, false",
						in.Rel, in.Path, in.Bytes, in.Tokens, in.Truncated, wantPath, len(in.Text), counter.Count(in.Text))
				}
			}
			if diff := cmp.Diff(tt.want, gots); diff != "" {
				t.Errorf("instructions (-want +got):\n%s", diff)
			}
			var wantNotes []string
			for _, n := range tt.wantNotes {
				wantNotes = append(wantNotes, strings.ReplaceAll(n, "$BASE", base))
			}
			if diff := cmp.Diff(wantNotes, instrRelNotes(base, notes)); diff != "" {
				t.Errorf("notices (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadInstructionsImports(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		files       map[string]string // besides proj/AGENTS.md
		links       map[string]string
		top         string // proj/AGENTS.md
		opts        InstructionOptions
		want        string
		wantImports []string // relative to the temp folder
		wantNotes   []string // "source: message", source relative to the temp folder
	}{
		{
			name: "nested a, b, c",
			files: map[string]string{
				"proj/a.md":     "A\n@sub/b.md\n",
				"proj/sub/b.md": "B @c.md\n\n",
				"proj/sub/c.md": "C",
			},
			top:         "top\n@a.md\nend\n",
			want:        "top\nA\nB C\nend\n",
			wantImports: []string{"proj/a.md", "proj/sub/b.md", "proj/sub/c.md"},
		},
		{
			name:        "cycle a, b, a",
			files:       map[string]string{"proj/a.md": "A @b.md", "proj/b.md": "B @a.md"},
			top:         "@a.md",
			want:        "A B @a.md",
			wantImports: []string{"proj/a.md", "proj/b.md"},
			wantNotes:   []string{"proj/b.md: import a.md refused: cycle AGENTS.md -> a.md -> b.md -> a.md"},
		},
		{
			name:      "self import of the top file",
			top:       "me @AGENTS.md and @./AGENTS.md",
			want:      "me @AGENTS.md and @./AGENTS.md",
			wantNotes: []string{"proj/AGENTS.md: import AGENTS.md refused: cycle AGENTS.md -> AGENTS.md", "proj/AGENTS.md: import ./AGENTS.md refused: cycle AGENTS.md -> AGENTS.md"},
		},
		{
			name:        "self import of an imported file",
			files:       map[string]string{"proj/a.md": "A @a.md"},
			top:         "@a.md",
			want:        "A @a.md",
			wantImports: []string{"proj/a.md"},
			wantNotes:   []string{"proj/a.md: import a.md refused: cycle AGENTS.md -> a.md -> a.md"},
		},
		{
			name:  "escaping with ..",
			files: map[string]string{"outside/secret.md": instrSecret},
			top:   "see @../../etc/passwd and @../outside/secret.md and @../../../../../../../../../../../../etc/passwd",
			want:  "see @../../etc/passwd and @../outside/secret.md and @../../../../../../../../../../../../etc/passwd",
			wantNotes: []string{
				"proj/AGENTS.md: import ../../etc/passwd refused: outside the project",
				"proj/AGENTS.md: import ../outside/secret.md refused: outside the project",
				"proj/AGENTS.md: import ../../../../../../../../../../../../etc/passwd refused: outside the project",
			},
		},
		{
			name:        "absolute paths: inside allowed, outside refused",
			files:       map[string]string{"outside/secret.md": instrSecret, "proj/a.md": "A"},
			top:         "@$BASE/proj/a.md @$BASE/outside/secret.md @/etc/passwd",
			want:        "A @$BASE/outside/secret.md @/etc/passwd",
			wantImports: []string{"proj/a.md"},
			wantNotes: []string{
				"proj/AGENTS.md: import $BASE/outside/secret.md refused: outside the project",
				"proj/AGENTS.md: import /etc/passwd refused: outside the project",
			},
		},
		{
			name:  "symlinks pointing outside refused",
			files: map[string]string{"outside/secret.md": instrSecret, "proj/a.md": "A"},
			links: map[string]string{"proj/link.md": "../outside/secret.md", "proj/ext": "../outside", "proj/alias.md": "a.md"},
			top:   "@link.md @ext/secret.md @alias.md",
			want:  "@link.md @ext/secret.md A",
			// The path as written is recorded.
			wantImports: []string{"proj/alias.md"},
			wantNotes: []string{
				"proj/AGENTS.md: import link.md refused: outside the project",
				"proj/AGENTS.md: import ext/secret.md refused: outside the project",
			},
		},
		{
			name: "depth: a chain of 7 files includes 5 levels",
			files: map[string]string{
				"proj/d1.md": "1 @d2.md", "proj/d2.md": "2 @d3.md", "proj/d3.md": "3 @d4.md",
				"proj/d4.md": "4 @d5.md", "proj/d5.md": "5 @d6.md", "proj/d6.md": "6",
			},
			top:         "0 @d1.md",
			want:        "0 1 2 3 4 5 @d6.md",
			wantImports: []string{"proj/d1.md", "proj/d2.md", "proj/d3.md", "proj/d4.md", "proj/d5.md"},
			wantNotes:   []string{"proj/d5.md: import d6.md refused: imports nest at most 5 levels"},
		},
		{
			name:        "depth option",
			files:       map[string]string{"proj/d1.md": "1 @d2.md", "proj/d2.md": "2 @d3.md", "proj/d3.md": "3"},
			top:         "0 @d1.md",
			opts:        InstructionOptions{MaxImportDepth: 2},
			want:        "0 1 2 @d3.md",
			wantImports: []string{"proj/d1.md", "proj/d2.md"},
			wantNotes:   []string{"proj/d2.md: import d3.md refused: imports nest at most 2 levels"},
		},
		{
			name:  "code fences and inline code are not imports",
			files: map[string]string{"proj/a.md": "A"},
			top: "```\n@a.md\n```\n~~~~\n@a.md\n~~~\n@a.md\n~~~~\n" +
				"   ```go\n@a.md\n    ```\n" + // indented opening, closing indented by 4: still open
				"```\n" +
				"use `@a.md` and ``x `@a.md` y`` here\n" +
				"@a.md",
			want: "```\n@a.md\n```\n~~~~\n@a.md\n~~~\n@a.md\n~~~~\n" +
				"   ```go\n@a.md\n    ```\n" +
				"```\n" +
				"use `@a.md` and ``x `@a.md` y`` here\n" +
				"A",
			wantImports: []string{"proj/a.md"},
		},
		{
			name:        "unclosed backticks do not hide an import",
			files:       map[string]string{"proj/a.md": "A"},
			top:         "a ``b @a.md",
			want:        "a ``b A",
			wantImports: []string{"proj/a.md"},
		},
		{
			name:  "emails, decorators and lone @ are not imports",
			files: map[string]string{"proj/a.md": "A", "proj/b.com": "B"},
			top:   "mail me@a.md or a@b.com; @ alone, @@a.md, x@a.md, @alice, @Override.",
			want:  "mail me@a.md or a@b.com; @ alone, @@a.md, x@a.md, @alice, @Override.",
		},
		{
			name:      "missing import noted and left as is",
			top:       "see @docs/none.md. and @missing.md",
			want:      "see @docs/none.md. and @missing.md",
			wantNotes: []string{"proj/AGENTS.md: import docs/none.md not found", "proj/AGENTS.md: import missing.md not found"},
		},
		{
			name:        "trailing punctuation and escaped spaces",
			files:       map[string]string{"proj/a.md": "A", "proj/my notes.md": "N"},
			top:         "see @a.md. (and @my\\ notes.md)",
			want:        "see A. (and N)",
			wantImports: []string{"proj/a.md", "proj/my notes.md"},
		},
		{
			name:        "a file imported twice is included once",
			files:       map[string]string{"proj/a.md": "A", "proj/b.md": "B @a.md"},
			top:         "@a.md\n@b.md\n@a.md",
			want:        "A\nB (see a.md above)\n(see a.md above)",
			wantImports: []string{"proj/a.md", "proj/b.md"},
		},
		{
			name:  "non-text and non-file imports refused",
			files: map[string]string{"proj/bin.dat": "a\x00b", "proj/latin1.md": "caf\xe9", "proj/sub/": ""},
			top:   "@bin.dat @latin1.md @sub",
			want:  "@bin.dat @latin1.md @sub",
			wantNotes: []string{
				"proj/AGENTS.md: import bin.dat refused: not a text file",
				"proj/AGENTS.md: import latin1.md refused: not a text file",
				"proj/AGENTS.md: import sub refused: not a regular file",
			},
		},
		{
			name:        "imports may reach the user folder",
			files:       map[string]string{"user/rules.md": "R"},
			top:         "@../user/rules.md",
			want:        "R",
			wantImports: []string{"user/rules.md"},
		},
		{
			name:        "BOM and CRLF",
			files:       map[string]string{"proj/a.md": "\ufeffA\r\n"},
			top:         "x\r\n@a.md\r\ny",
			want:        "x\r\nA\r\ny",
			wantImports: []string{"proj/a.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files := map[string]string{"proj/AGENTS.md": tt.top}
			for k, v := range tt.files {
				files[k] = v
			}
			base := instrTree(t, files, tt.links)
			opts := tt.opts
			opts.Names = []string{"AGENTS.md"}
			ins, notes := loadInstructions(filepath.Join(base, "proj"), filepath.Join(base, "proj"), filepath.Join(base, "user"), token.Estimator{}, opts)
			if len(ins) != 1 {
				t.Fatalf("%d instructions; want 1; notices %v", len(ins), notes)
			}
			in := ins[0]
			sub := func(s string) string { return strings.ReplaceAll(s, "$BASE", base) }
			if diff := cmp.Diff(sub(tt.want), in.Text); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if strings.Contains(in.Text, instrSecret) || strings.Contains(in.Text, "root:") {
				t.Errorf("text holds content from outside the project: %q", in.Text)
			}
			if diff := cmp.Diff(tt.wantImports, instrRelPaths(base, in.Imports)); diff != "" {
				t.Errorf("imports (-want +got):\n%s", diff)
			}
			var wantNotes []string
			for _, n := range tt.wantNotes {
				wantNotes = append(wantNotes, sub(n))
			}
			if diff := cmp.Diff(wantNotes, instrRelNotes(base, notes)); diff != "" {
				t.Errorf("notices (-want +got):\n%s", diff)
			}
			if in.Bytes != len(in.Text) || in.Truncated {
				t.Errorf("bytes = %d, truncated %v; want %d, false", in.Bytes, in.Truncated, len(in.Text))
			}
		})
	}
}

// TestLoadInstructionsHome is not parallel: it sets HOME for "~/".
func TestLoadInstructionsHome(t *testing.T) {
	base := instrTree(t, map[string]string{
		"home/.config/agentctx/AGENTS.md": "user @~/.config/agentctx/extra.md @~/private.md",
		"home/.config/agentctx/extra.md":  "extra",
		"home/private.md":                 instrSecret,
	}, nil)
	t.Setenv("HOME", filepath.Join(base, "home"))
	user := filepath.Join(base, "home", ".config", "agentctx")
	ins, notes := loadInstructions(filepath.Join(base, "proj"), filepath.Join(base, "proj"), user, token.Estimator{}, InstructionOptions{})
	if len(ins) != 1 {
		t.Fatalf("%d instructions; want 1; notices %v", len(ins), notes)
	}
	if diff := cmp.Diff("user extra @~/private.md", ins[0].Text); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	want := []string{"home/.config/agentctx/AGENTS.md: import ~/private.md refused: outside the project"}
	if diff := cmp.Diff(want, instrRelNotes(base, notes)); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
}

func TestLoadInstructionsCap(t *testing.T) {
	t.Parallel()
	line20 := "0123456789abcdefghi\n" // 20 bytes
	tests := []struct {
		name      string
		files     map[string]string // in proj
		maxBytes  int
		want      map[string]string // rel → text; absent: dropped
		wantTrunc string            // rel of the truncated file
		wantNotes []string          // "rel: message"
	}{
		{
			name: "cut on a line boundary, later files dropped",
			files: map[string]string{
				"AGENTS.md":    strings.Repeat("aaaaaaaaa\n", 4), // 40 bytes
				"CLAUDE.md":    strings.Repeat(line20, 5),        // 100 bytes
				"GEMINI.md":    "dropped",
				"CRUSH.md":     "dropped too",
				".cursorrules": "",
			},
			maxBytes: 100,
			want: map[string]string{
				"AGENTS.md": strings.Repeat("aaaaaaaaa\n", 4),
				"CLAUDE.md": strings.Repeat(line20, 3)[:59] + "\n[truncated: 59 of 100 bytes shown; instruction files are capped at 100 bytes]",
			},
			wantTrunc: "CLAUDE.md",
			wantNotes: []string{
				"CLAUDE.md: truncated: 59 of 100 bytes shown; instruction files are capped at 100 bytes",
				"GEMINI.md: dropped: instruction files are capped at 100 bytes",
				"CRUSH.md: dropped: instruction files are capped at 100 bytes",
			},
		},
		{
			name: "exact fit, next dropped",
			files: map[string]string{
				"AGENTS.md": strings.Repeat(line20, 2),
				"CLAUDE.md": strings.Repeat(line20, 3),
				"GEMINI.md": "x",
			},
			maxBytes: 100,
			want: map[string]string{
				"AGENTS.md": strings.Repeat(line20, 2),
				"CLAUDE.md": strings.Repeat(line20, 3),
			},
			wantNotes: []string{"GEMINI.md: dropped: instruction files are capped at 100 bytes"},
		},
		{
			name: "imports count toward the cap",
			files: map[string]string{
				"AGENTS.md": "top\n@big.md\nend\n",
				"big.md":    strings.Repeat(line20, 10),
			},
			maxBytes: 50,
			want: map[string]string{
				"AGENTS.md": "top\n" + strings.Repeat(line20, 2)[:39] + "\n[truncated: 43 of 208 bytes shown; instruction files are capped at 50 bytes]",
			},
			wantTrunc: "AGENTS.md",
			wantNotes: []string{"AGENTS.md: truncated: 43 of 208 bytes shown; instruction files are capped at 50 bytes"},
		},
		{
			name:     "one long line is cut on a rune boundary",
			files:    map[string]string{"AGENTS.md": strings.Repeat("é", 9)},
			maxBytes: 9,
			want: map[string]string{
				"AGENTS.md": strings.Repeat("é", 4) + "\n[truncated: 8 of 18 bytes shown; instruction files are capped at 9 bytes]",
			},
			wantTrunc: "AGENTS.md",
			wantNotes: []string{"AGENTS.md: truncated: 8 of 18 bytes shown; instruction files are capped at 9 bytes"},
		},
		{
			name:      "nothing of a file fits",
			files:     map[string]string{"AGENTS.md": "abcd", "CLAUDE.md": "éé"},
			maxBytes:  5,
			want:      map[string]string{"AGENTS.md": "abcd"},
			wantNotes: []string{"CLAUDE.md: dropped: instruction files are capped at 5 bytes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files := map[string]string{}
			for k, v := range tt.files {
				files["proj/"+k] = v
			}
			base := instrTree(t, files, nil)
			root := filepath.Join(base, "proj")
			counter := token.Estimator{}
			ins, notes := loadInstructions(root, root, "", counter, InstructionOptions{MaxBytes: tt.maxBytes})
			got := map[string]string{}
			total := 0
			for _, in := range ins {
				got[in.Rel] = in.Text
				if in.Bytes != len(in.Text) || in.Tokens != counter.Count(in.Text) {
					t.Errorf("%s: bytes %d tokens %d; want %d, %d", in.Rel, in.Bytes, in.Tokens, len(in.Text), counter.Count(in.Text))
				}
				if in.Truncated != (in.Rel == tt.wantTrunc) {
					t.Errorf("%s: truncated = %v", in.Rel, in.Truncated)
				}
				shown := in.Bytes
				if i := strings.LastIndex(in.Text, "\n[truncated: "); in.Truncated && i >= 0 {
					shown = i
				}
				total += shown
			}
			if total > tt.maxBytes {
				t.Errorf("%d bytes shown; the cap is %d", total, tt.maxBytes)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("texts (-want +got):\n%s", diff)
			}
			var gotNotes []string
			for _, n := range notes {
				gotNotes = append(gotNotes, strings.TrimPrefix(n.Source, root+string(filepath.Separator))+": "+n.Message)
			}
			if diff := cmp.Diff(tt.wantNotes, gotNotes); diff != "" {
				t.Errorf("notices (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCutPoint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		max  int
		want int
	}{
		{"abc", 5, 3},
		{"abc", 3, 3},
		{"ab\ncd", 3, 2},
		{"ab\ncd", 4, 2},
		{"ab\r\ncd", 5, 2},
		{"\nabcdef", 3, 3}, // the only break is at 0: cut by runes
		{"ééé", 3, 2},
		{"ééé", 0, 0},
		{"日本", 2, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q/%d", tt.s, tt.max), func(t *testing.T) {
			t.Parallel()
			if got := instrCutPoint(tt.s, tt.max); got != tt.want {
				t.Errorf("instrCutPoint = %d; want %d", got, tt.want)
			}
		})
	}
}

// TestDefaultUserDir is not parallel: it sets the environment.
func TestDefaultUserDir(t *testing.T) {
	tests := []struct {
		name                string
		agentctx, xdg, home string
		want                string
	}{
		{"AGENTCTX_HOME is data, not configuration", "/a", "/x", "/h", "/x/agentctx"},
		{"AGENTCTX_HOME without XDG_CONFIG_HOME", "/a", "", "/h", "/h/.config/agentctx"},
		{"XDG_CONFIG_HOME", "", "/x", "/h", "/x/agentctx"},
		{"relative XDG_CONFIG_HOME ignored", "", "x", "/h", "/h/.config/agentctx"},
		{"home", "", "", "/h", "/h/.config/agentctx"},
		{"nothing known", "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("AGENTCTX_HOME", tt.agentctx)
			t.Setenv("XDG_CONFIG_HOME", tt.xdg)
			t.Setenv("HOME", tt.home)
			if got := defaultUserDir(); got != filepath.FromSlash(tt.want) {
				t.Errorf("defaultUserDir = %q; want %q", got, tt.want)
			}
		})
	}
}

// BenchmarkLoadInstructions loads a 32 KiB AGENTS.md that imports 20
// files and holds a line of backtick runs of every length up to 200 (a
// rescan per run would be quadratic), under the default cap.
func BenchmarkLoadInstructions(b *testing.B) {
	files := map[string]string{}
	var top strings.Builder
	for i := range 20 {
		name := fmt.Sprintf("docs/d%02d.md", i)
		files["proj/"+name] = strings.Repeat(fmt.Sprintf("rule %d: keep it short\n", i), 40)
		fmt.Fprintf(&top, "See @%s and `@%s`.\n", name, name)
	}
	for n := 1; n <= 200; n++ {
		top.WriteString(strings.Repeat("`", n) + " ")
	}
	top.WriteString("\n")
	for top.Len() < 32<<10 {
		top.WriteString("Plain guidance line with an email me@example.com and @someone.\n")
	}
	files["proj/AGENTS.md"] = top.String()
	base := instrTree(b, files, nil)
	root := filepath.Join(base, "proj")
	b.SetBytes(int64(top.Len()))
	b.ReportAllocs()
	for b.Loop() {
		ins, _ := loadInstructions(root, root, "", token.Estimator{}, InstructionOptions{})
		if len(ins) != 1 || !ins[0].Truncated || len(ins[0].Imports) != 20 {
			b.Fatalf("got %d instructions", len(ins))
		}
	}
}
