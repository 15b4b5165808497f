package workspace

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentctx/agentctx/internal/safefile"
	"github.com/agentctx/agentctx/token"
)

// Code style block limits.
const (
	// styleTokens caps the code style block, in tokens: lines past it are
	// dropped from the end.
	styleTokens = 300
	// styleLangs is how many languages the block names.
	styleLangs = 5
	// styleFileBytes caps the bytes read from one configuration file.
	styleFileBytes = 256 << 10
	// styleLineBytes caps one line of the block, in bytes (cut on a rune
	// boundary).
	styleLineBytes = 240
)

// codeStyle builds the code style block (seed 004's codeStyle) from the
// walk's statistics: the languages by file count (the top [styleLangs]),
// then one line per formatter, linter or build configuration file found
// (st.Markers, read from root), with what a cheap scan of its content
// says: the Go module and version, the pyproject.toml [tool.*] sections,
// the package.json scripts and tools, the .editorconfig [*] indentation,
// tsconfig strict mode, Makefile targets. It is Markdown under
// [styleTokens] tokens; ok is false when nothing was found. A file is
// read only when it is a regular file inside root once symlinks are
// resolved (package safefile): a FIFO, a device or a link out of the
// project is skipped with a Notice and named without details, as an
// unreadable file is. It never fails.
func codeStyle(root string, st treeStats, counter token.Counter) (Block, bool, []Notice) {
	if counter == nil {
		counter = token.Estimator{}
	}
	var lines []string
	if l := langLine(st.Langs); l != "" {
		lines = append(lines, l)
	}
	markers := slices.Clone(st.Markers)
	slices.SortStableFunc(markers, func(a, b string) int {
		return cmp.Or(cmp.Compare(strings.Count(a, "/"), strings.Count(b, "/")), strings.Compare(a, b))
	})
	var tools []string
	var notes []Notice
	seen := map[string]bool{}
	read := func(rel string) []byte {
		b, err := readSmall(root, rel)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			notes = append(notes, Notice{Source: rel, Message: "skipped: " + errText(rel, err)})
		}
		return b
	}
	for _, m := range markers {
		l := markerLine(m, read)
		if l == "" || seen[l] {
			continue
		}
		seen[l] = true
		tools = append(tools, "- "+cutBytes(oneLine(l), styleLineBytes))
	}
	if len(tools) > 0 {
		lines = append(lines, "Formatting and linting:")
		lines = append(lines, tools...)
	}
	if len(lines) == 0 {
		return Block{}, false, notes
	}
	b := Block{Name: BlockCodeStyle, Source: "walk"}
	for len(lines) > 0 {
		b.Text = strings.Join(lines, "\n")
		b.Tokens = counter.Count(b.Text)
		if b.Tokens <= styleTokens {
			break
		}
		lines = lines[:len(lines)-1]
		b.Truncated = true
		if len(lines) == 1 && lines[0] == "Formatting and linting:" {
			lines = nil
		}
	}
	if len(lines) == 0 {
		return Block{}, false, notes
	}
	if b.Truncated {
		// Say so, if the note fits; else drop one more line for it.
		for len(lines) > 0 {
			text := strings.Join(lines, "\n") + "\n- …"
			if n := counter.Count(text); n <= styleTokens {
				b.Text, b.Tokens = text, n
				break
			}
			lines = lines[:len(lines)-1]
		}
		if len(lines) == 0 {
			return Block{}, false, notes
		}
	}
	return b, true, notes
}

// langLine says "Languages (by file count): Go 120, Shell 3" for the top
// languages, most files first, ties by name; "" when there are none.
func langLine(langs map[string]int) string {
	type lc struct {
		name string
		n    int
	}
	var all []lc
	for name, n := range langs {
		if n > 0 {
			all = append(all, lc{name, n})
		}
	}
	if len(all) == 0 {
		return ""
	}
	slices.SortFunc(all, func(a, b lc) int {
		return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.name, b.name))
	})
	var parts []string
	for i, l := range all {
		if i == styleLangs {
			break
		}
		parts = append(parts, l.name+" "+commas(l.n))
	}
	s := "Languages (by file count): " + strings.Join(parts, ", ")
	if len(all) > styleLangs {
		s += ", " + plural(len(all)-styleLangs, "other", "others")
	}
	return s
}

// markerLine describes one configuration file (rel is slash-separated,
// relative to the root), or returns "" when it says nothing useful. It
// reads the file's content, when it needs it, with read.
func markerLine(rel string, read func(rel string) []byte) string {
	name := path.Base(rel)
	where := " (" + rel + ")"
	switch {
	case name == "go.mod":
		return goModLine(read(rel)) + where
	case strings.HasPrefix(name, ".golangci."):
		return golangciLine(read(rel)) + where
	case name == ".editorconfig":
		if l := editorconfigLine(read(rel)); l != "" {
			return l + where
		}
		return "EditorConfig" + where
	case name == "pyproject.toml":
		if l := pyprojectLine(read(rel)); l != "" {
			return l + where
		}
		return ""
	case name == "ruff.toml" || name == ".ruff.toml":
		s := "ruff"
		if n := tomlValue(read(rel), "", "line-length"); n != "" {
			s += " (line-length " + n + ")"
		}
		return s + where
	case name == "setup.cfg":
		if l := setupCfgLine(read(rel)); l != "" {
			return l + where
		}
		return ""
	case name == ".flake8":
		return "flake8" + where
	case name == ".pylintrc":
		return "pylint" + where
	case name == "mypy.ini":
		return "mypy" + where
	case name == "package.json":
		if l := packageJSONLine(read(rel)); l != "" {
			return l + where
		}
		return ""
	case name == "tsconfig.json":
		if tsStrict(read(rel)) {
			return "TypeScript: strict mode" + where
		}
		return "TypeScript" + where
	case strings.HasPrefix(name, ".prettierrc") || strings.HasPrefix(name, "prettier.config."):
		return "Prettier" + where
	case strings.HasPrefix(name, ".eslintrc") || strings.HasPrefix(name, "eslint.config."):
		return "ESLint" + where
	case name == "biome.json" || name == "biome.jsonc":
		return "Biome (format and lint)" + where
	case strings.HasPrefix(name, ".stylelintrc"):
		return "Stylelint" + where
	case name == "Cargo.toml":
		s := "Rust: rustfmt (cargo fmt), clippy"
		if e := tomlValue(read(rel), "package", "edition"); e != "" {
			s += ", edition " + e
		}
		return s + where
	case name == "rustfmt.toml" || name == ".rustfmt.toml":
		return "rustfmt configured" + where
	case name == "clippy.toml":
		return "clippy configured" + where
	case name == ".clang-format":
		if v := yamlValue(read(rel), "BasedOnStyle"); v != "" {
			return "clang-format, based on " + v + where
		}
		return "clang-format" + where
	case name == ".rubocop.yml":
		return "RuboCop" + where
	case name == ".pre-commit-config.yaml":
		if ids := preCommitIDs(read(rel)); len(ids) > 0 {
			return "pre-commit hooks: " + strings.Join(ids, ", ") + where
		}
		return "pre-commit" + where
	case name == "Makefile" || name == "GNUmakefile":
		if t := recipes(read(rel), true); len(t) > 0 {
			return "make targets: " + strings.Join(t, ", ") + where
		}
		return ""
	case name == "justfile" || name == "Justfile":
		if t := recipes(read(rel), false); len(t) > 0 {
			return "just recipes: " + strings.Join(t, ", ") + where
		}
		return ""
	}
	return ""
}

// readSmall reads up to styleFileBytes of the file rel (slash path
// relative to root) when it is a regular file inside root (symlinks
// resolved); nil, and no error, when it is not UTF-8 text. Errors are
// package safefile's.
func readSmall(root, rel string) ([]byte, error) {
	b, _, err := safefile.ReadFile(filepath.FromSlash(rel), styleFileBytes, safefile.Options{Root: root})
	if err != nil {
		return nil, err
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return nil, nil
	}
	return b, nil
}

// eachLine calls fn with each line of b, trimmed of spaces, until fn
// returns false.
func eachLine(b []byte, fn func(line string) bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), styleFileBytes)
	for sc.Scan() {
		if !fn(strings.TrimSpace(sc.Text())) {
			return
		}
	}
}

// goModLine says "Go: gofmt (standard), module M, go V".
func goModLine(b []byte) string {
	s := "Go: gofmt (standard)"
	var mod, ver string
	eachLine(b, func(l string) bool {
		if v, ok := strings.CutPrefix(l, "module "); ok && mod == "" {
			mod = strings.Trim(strings.TrimSpace(stripComment(v, "//")), `"`)
		}
		if v, ok := strings.CutPrefix(l, "go "); ok && ver == "" {
			ver = strings.TrimSpace(stripComment(v, "//"))
		}
		return mod == "" || ver == ""
	})
	if mod != "" {
		s += ", module " + mod
	}
	if ver != "" {
		s += ", go " + ver
	}
	return s
}

// golangciLine says "golangci-lint", with the formatters it names.
func golangciLine(b []byte) string {
	s := "golangci-lint"
	if bytes.Contains(b, []byte(`version: "2"`)) || bytes.Contains(b, []byte("version: 2")) || bytes.Contains(b, []byte(`version: '2'`)) {
		s += " v2"
	}
	var f []string
	for _, name := range []string{"gofumpt", "goimports", "gci", "golines"} {
		if hasWord(b, name) {
			f = append(f, name)
		}
	}
	if len(f) > 0 {
		s += ", formatters " + strings.Join(f, ", ")
	}
	return s
}

// hasWord reports whether b holds w delimited by non-identifier bytes.
func hasWord(b []byte, w string) bool {
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte(w))
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !identByte(b[j-1])) && (end == len(b) || !identByte(b[end])) {
			return true
		}
		i = end
	}
}

func identByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// editorconfigLine says the indentation the [*] section sets.
func editorconfigLine(b []byte) string {
	in := false
	var parts []string
	eachLine(b, func(l string) bool {
		if strings.HasPrefix(l, "[") {
			in = l == "[*]"
			return true
		}
		if !in {
			return true
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			return true
		}
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		switch k {
		case "indent_style", "indent_size", "max_line_length", "end_of_line":
			parts = append(parts, k+" "+v)
		}
		return true
	})
	if len(parts) == 0 {
		return ""
	}
	return "EditorConfig [*]: " + strings.Join(parts, ", ")
}

// pyprojectLine names the tools pyproject.toml configures ([tool.X]
// sections), with ruff's or black's line-length and requires-python.
func pyprojectLine(b []byte) string {
	order := []string{"ruff", "black", "isort", "flake8", "pylint", "mypy", "pyright", "pytest", "coverage", "poetry", "hatch", "uv"}
	found := map[string]bool{}
	section := ""
	var lineLength, python string
	eachLine(b, func(l string) bool {
		if strings.HasPrefix(l, "[") {
			section = strings.Trim(l, "[] ")
			if t, ok := strings.CutPrefix(section, "tool."); ok {
				t, _, _ = strings.Cut(t, ".")
				found[t] = true
			}
			return true
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			return true
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(stripComment(v, "#"))
		switch {
		case k == "line-length" && lineLength == "" && (strings.HasPrefix(section, "tool.ruff") || section == "tool.black"):
			lineLength = v
		case k == "requires-python" && section == "project":
			python = strings.Trim(v, `"'`)
		}
		return true
	})
	var tools []string
	for _, t := range order {
		if found[t] {
			tools = append(tools, t)
		}
	}
	if len(tools) == 0 && python == "" {
		return ""
	}
	s := "Python"
	if python != "" {
		s += " " + python
	}
	if len(tools) > 0 {
		s += ": " + strings.Join(tools, ", ")
	}
	if lineLength != "" {
		s += " (line-length " + lineLength + ")"
	}
	return s
}

// setupCfgLine names the Python tools setup.cfg configures.
func setupCfgLine(b []byte) string {
	names := map[string]string{
		"[flake8]": "flake8", "[isort]": "isort", "[mypy]": "mypy",
		"[tool:pytest]": "pytest", "[pycodestyle]": "pycodestyle", "[pylint]": "pylint",
	}
	var tools []string
	eachLine(b, func(l string) bool {
		if t, ok := names[l]; ok && !slices.Contains(tools, t) {
			tools = append(tools, t)
		}
		return true
	})
	if len(tools) == 0 {
		return ""
	}
	return "Python (setup.cfg): " + strings.Join(tools, ", ")
}

// packageJSONLine names package.json's formatting, linting, typing and
// test tools and its lint/format/test scripts.
func packageJSONLine(b []byte) string {
	var p struct {
		Scripts         map[string]any `json:"scripts"`
		Dependencies    map[string]any `json:"dependencies"`
		DevDependencies map[string]any `json:"devDependencies"`
		PackageManager  string         `json:"packageManager"`
	}
	if len(b) == 0 || json.Unmarshal(b, &p) != nil {
		return ""
	}
	tools := [][2]string{
		{"eslint", "eslint"}, {"prettier", "prettier"}, {"@biomejs/biome", "biome"},
		{"typescript", "typescript"}, {"jest", "jest"}, {"vitest", "vitest"}, {"mocha", "mocha"},
		{"stylelint", "stylelint"},
	}
	var found []string
	for _, t := range tools {
		_, dev := p.DevDependencies[t[0]]
		_, dep := p.Dependencies[t[0]]
		if dev || dep {
			found = append(found, t[1])
		}
	}
	var scripts []string
	for _, name := range []string{"lint", "format", "fmt", "typecheck", "test"} {
		cmd, ok := p.Scripts[name].(string)
		if !ok {
			continue
		}
		scripts = append(scripts, name+" `"+cutBytes(strings.ReplaceAll(cmd, "`", "'"), 60)+"`")
	}
	if len(found) == 0 && len(scripts) == 0 {
		return ""
	}
	s := "JavaScript"
	if slices.Contains(found, "typescript") {
		s = "TypeScript"
	}
	if pm, _, _ := strings.Cut(p.PackageManager, "@"); pm != "" && len(pm) < 20 {
		s += " (" + pm + ")"
	}
	if len(found) > 0 {
		s += ": " + strings.Join(found, ", ")
	}
	if len(scripts) > 0 {
		s += "; scripts " + strings.Join(scripts, ", ")
	}
	return s
}

// tsStrict reports whether a tsconfig.json sets "strict": true.
func tsStrict(b []byte) bool {
	strict := false
	eachLine(b, func(l string) bool {
		l = strings.ReplaceAll(l, " ", "")
		if strings.Contains(l, `"strict":true`) {
			strict = true
			return false
		}
		return true
	})
	return strict
}

// tomlValue returns key's value (unquoted) in a TOML table ("" for the
// top level), by a line scan.
func tomlValue(b []byte, table, key string) string {
	section := ""
	var val string
	eachLine(b, func(l string) bool {
		if strings.HasPrefix(l, "[") {
			section = strings.Trim(l, "[] ")
			return true
		}
		if section != table {
			return true
		}
		k, v, ok := strings.Cut(l, "=")
		if ok && strings.TrimSpace(k) == key {
			val = strings.Trim(strings.TrimSpace(stripComment(v, "#")), `"'`)
			return false
		}
		return true
	})
	return val
}

// yamlValue returns a top-level "key: value" of a YAML file.
func yamlValue(b []byte, key string) string {
	var val string
	eachLine(b, func(l string) bool {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			val = strings.Trim(strings.TrimSpace(stripComment(v, "#")), `"'`)
			return false
		}
		return true
	})
	return val
}

// preCommitIDs returns the hook ids of a .pre-commit-config.yaml, at most
// eight, in order, without repeats.
func preCommitIDs(b []byte) []string {
	var ids []string
	eachLine(b, func(l string) bool {
		l = strings.TrimPrefix(l, "- ")
		v, ok := strings.CutPrefix(l, "id:")
		if !ok {
			return true
		}
		v = strings.Trim(strings.TrimSpace(stripComment(v, "#")), `"'`)
		if v != "" && !slices.Contains(ids, v) {
			ids = append(ids, v)
		}
		return len(ids) < 8
	})
	return ids
}

// recipeNames are the Makefile targets and justfile recipes worth naming.
var recipeNames = []string{"build", "test", "lint", "fmt", "format", "vet", "check", "typecheck", "ci"}

// recipes returns the targets (make) or recipes (just) among recipeNames
// that a Makefile or justfile defines, in recipeNames order.
func recipes(b []byte, isMake bool) []string {
	have := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), styleFileBytes)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || l[0] == ' ' || l[0] == '\t' || l[0] == '#' || l[0] == '.' {
			continue
		}
		head, _, ok := strings.Cut(l, ":")
		if !ok || strings.HasPrefix(l[len(head):], ":=") {
			continue
		}
		if isMake {
			for _, t := range strings.Fields(head) {
				have[t] = true
			}
			continue
		}
		if f := strings.Fields(head); len(f) > 0 {
			have[strings.TrimPrefix(f[0], "@")] = true
		}
	}
	var out []string
	for _, n := range recipeNames {
		if have[n] {
			out = append(out, n)
		}
	}
	return out
}

// stripComment cuts s at the first marker that starts a comment.
func stripComment(s, marker string) string {
	if i := strings.Index(s, marker); i >= 0 {
		return s[:i]
	}
	return s
}

// cutBytes cuts s to at most n bytes on a rune boundary, ending with "…"
// when cut.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// oneLine replaces control characters (a newline in a package.json
// script, say) with spaces so that a value stays on its line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}
