package workspace

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/token"
)

func TestCodeStyle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  string // "" when no block is expected
	}{
		{
			name: "go project",
			files: map[string]string{
				"go.mod":         "// comment\nmodule github.com/acme/tool // the module\n\ngo 1.26.1\n\nrequire x v1\n",
				"main.go":        "",
				"internal/a.go":  "",
				"internal/b.go":  "",
				"scripts/ci.sh":  "",
				".golangci.yml":  "version: \"2\"\nformatters:\n  enable:\n    - gofumpt\n    - goimports\nlinters:\n  enable: [errcheck]\n",
				".editorconfig":  "root = true\n\n[*]\nindent_style = tab\nindent_size = 4\n\n[*.md]\nindent_style = space\n",
				"Makefile":       ".PHONY: test lint\nVAR := x\nbuild:\n\tgo build ./...\ntest lint: build\n\tgo test ./...\n# fmt:\n",
				"docs/notes.txt": "",
			},
			want: "Languages (by file count): Go 3, Shell 1\n" +
				"Formatting and linting:\n" +
				"- EditorConfig [*]: indent_style tab, indent_size 4 (.editorconfig)\n" +
				"- golangci-lint v2, formatters gofumpt, goimports (.golangci.yml)\n" +
				"- make targets: build, test, lint (Makefile)\n" +
				"- Go: gofmt (standard), module github.com/acme/tool, go 1.26.1 (go.mod)",
		},
		{
			name: "python project with ruff",
			files: map[string]string{
				"pyproject.toml": "[project]\nname = \"x\"\nrequires-python = \">=3.11\"\n\n" +
					"[tool.ruff]\nline-length = 100 # wide\n\n[tool.ruff.lint]\nselect = [\"E\"]\n\n" +
					"[tool.mypy]\nstrict = true\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n",
				"pkg/__init__.py": "", "pkg/core.py": "", "tests/test_core.py": "", "stubs/x.pyi": "",
				".pre-commit-config.yaml": "repos:\n  - repo: x\n    hooks:\n      - id: ruff\n      - id: ruff-format\n  - repo: y\n    hooks:\n      - id: ruff\n",
				"setup.cfg":               "[metadata]\nname = x\n",
			},
			want: "Languages (by file count): Python 4\n" +
				"Formatting and linting:\n" +
				"- pre-commit hooks: ruff, ruff-format (.pre-commit-config.yaml)\n" +
				"- Python >=3.11: ruff, mypy, pytest (line-length 100) (pyproject.toml)",
		},
		{
			name: "javascript project with eslint and prettier",
			files: map[string]string{
				"package.json": `{"name":"web","packageManager":"pnpm@9.1.0",
					"scripts":{"lint":"eslint .","format":"prettier --write .","test":"vitest run","dev":"vite"},
					"devDependencies":{"eslint":"^9","prettier":"^3","vitest":"^1"}}`,
				"eslint.config.js": "export default []\n",
				".prettierrc":      "{}\n",
				"src/index.js":     "", "src/util.mjs": "", "src/view.jsx": "",
			},
			want: "Languages (by file count): JavaScript 4\n" +
				"Formatting and linting:\n" +
				"- Prettier (.prettierrc)\n" +
				"- ESLint (eslint.config.js)\n" +
				"- JavaScript (pnpm): eslint, prettier, vitest; scripts lint `eslint .`, format `prettier --write .`, test `vitest run` (package.json)",
		},
		{
			name: "typescript monorepo folder one level down",
			files: map[string]string{
				"web/package.json":  `{"devDependencies":{"typescript":"5","@biomejs/biome":"1"}}`,
				"web/tsconfig.json": "{\n  // comment\n  \"compilerOptions\": {\n    \"strict\" : true\n  }\n}\n",
				"web/biome.json":    "{}",
				"web/a.ts":          "", "web/b.tsx": "",
			},
			want: "Languages (by file count): TypeScript 2\n" +
				"Formatting and linting:\n" +
				"- Biome (format and lint) (web/biome.json)\n" +
				"- TypeScript: biome, typescript (web/package.json)\n" +
				"- TypeScript: strict mode (web/tsconfig.json)",
		},
		{
			name: "rust",
			files: map[string]string{
				"Cargo.toml":   "[package]\nname = \"x\"\nedition = \"2021\"\n\n[dependencies]\nedition = \"no\"\n",
				"rustfmt.toml": "max_width = 100\n",
				"src/main.rs":  "",
			},
			want: "Languages (by file count): Rust 1\n" +
				"Formatting and linting:\n" +
				"- Rust: rustfmt (cargo fmt), clippy, edition 2021 (Cargo.toml)\n" +
				"- rustfmt configured (rustfmt.toml)",
		},
		{
			name:  "nothing found",
			files: map[string]string{"notes.txt": "", "data.json": "{}", "README.md": "# x\n"},
		},
		{
			name: "unhelpful markers say nothing",
			files: map[string]string{
				"package.json": "{not json", "pyproject.toml": "[build-system]\n", "Makefile": "all:\n\techo\n",
			},
		},
		{
			name: "languages sorted by count, top five",
			files: map[string]string{
				"a.go": "", "b.go": "", "c.go": "", "a.py": "", "b.py": "", "a.rs": "", "b.rs": "",
				"a.c": "", "a.rb": "", "a.java": "", "a.kt": "",
			},
			want: "Languages (by file count): Go 3, Python 2, Rust 2, C 1, Java 1, 2 others",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			mkTree(t, root, tt.files)
			_, st, _, err := walkTree(t.Context(), root, root, token.Estimator{}, TreeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			b, ok, _ := codeStyle(root, st, token.Estimator{})
			if ok != (tt.want != "") {
				t.Fatalf("ok = %v, text %q", ok, b.Text)
			}
			if !ok {
				return
			}
			if diff := cmp.Diff(tt.want, b.Text); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if b.Name != BlockCodeStyle || b.Source != "walk" || b.Tokens != (token.Estimator{}).Count(b.Text) || b.Truncated {
				t.Errorf("block = %+v", b)
			}
		})
	}
}

// TestCodeStyleCap checks the token cap: many markers are dropped from
// the end, and the block says so.
func TestCodeStyleCap(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{}
	var st treeStats
	for i := range 60 {
		p := fmt.Sprintf("service-with-a-long-name-%02d/go.mod", i)
		files[p] = fmt.Sprintf("module example.com/some/long/module/path/number/%02d\n\ngo 1.26\n", i)
		st.Markers = append(st.Markers, p)
	}
	mkTree(t, root, files)
	b, ok, _ := codeStyle(root, st, token.Estimator{})
	if !ok {
		t.Fatal("no block")
	}
	if b.Tokens > styleTokens || b.Tokens != (token.Estimator{}).Count(b.Text) {
		t.Errorf("Tokens = %d (count %d), cap %d", b.Tokens, (token.Estimator{}).Count(b.Text), styleTokens)
	}
	if !b.Truncated || !strings.HasSuffix(b.Text, "\n- …") || !strings.HasPrefix(b.Text, "Formatting and linting:\n- Go: ") {
		t.Errorf("truncated %v, text:\n%s", b.Truncated, b.Text)
	}
}

func TestRecipes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		isMake bool
		in     string
		want   []string
	}{
		{"make", true, "build test: deps\n\tx\nlint:\n\tgolangci-lint run\nX := 1\n.PHONY: ci\n", []string{"build", "test", "lint"}},
		{"make double colon", true, "check:: a\n", []string{"check"}},
		{"just", false, "set shell := [\"bash\"]\n@fmt:\n  gofmt\ntest *args:\n  go test {{args}}\n", []string{"test", "fmt"}},
		{"none", true, "all:\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, recipes([]byte(tt.in), tt.isMake)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
