package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/agentctx/agentctx/internal/ignore"
	"github.com/agentctx/agentctx/internal/safefile"
	"github.com/agentctx/agentctx/token"
)

// treeHeader is the first line of the directory structure block (seed
// 004's directoryStructure, with the note that it is a snapshot).
const treeHeader = "Below is a snapshot of this project's file structure at the start of the session. It does not update during the session."

// Walk tuning.
const (
	// ctxEvery is how many entries the walk visits between checks of ctx.
	ctxEvery = 256
	// readBatch is how many entries one ReadDir call returns, so that the
	// MaxFiles bound holds inside a huge folder too.
	readBatch = 1024
	// maxGitFile caps the bytes read from a .git file or commondir file;
	// real ones are under 200 bytes.
	maxGitFile = 4 << 10
)

// treeStats is what the walk learned besides the tree: for code style.
type treeStats struct {
	// Files counts the files seen (not ignored) in the whole walk, shown
	// in the tree or not. Symbolic links count as files.
	Files int
	// Folders counts the folders seen (not ignored), dir itself excluded.
	Folders int
	// Langs counts files by programming language name ("Go", "Python"…),
	// from their extensions ([langByExt]).
	Langs map[string]int
	// Markers are the formatter, linter and build configuration files
	// found at the root, in dir, or one level below dir, as slash paths
	// relative to the root (".editorconfig", "go.mod", ".golangci.yml",
	// "pyproject.toml", "web/package.json"…), sorted.
	Markers []string
	// Visited counts the directory entries the walk examined, ignored
	// ones included; the MaxFiles bound applies to it.
	Visited int
	// Stopped reports that the walk stopped at MaxFiles.
	Stopped bool
}

// node is one folder of the walked tree. Its children are sorted by name
// (byte order): folders in dirs, everything else (files, symbolic links,
// devices) in files.
type node struct {
	name  string
	dirs  []*node
	files []string
	// unread reports that the walk stopped before reading the folder.
	unread bool
	// partial reports that the walk stopped while reading the folder.
	partial bool
	// failed reports that the folder could not be read.
	failed bool
	// show is the number of children the current render lists: the first
	// show of dirs then files. Set by allocate.
	show int
}

func (n *node) total() int { return len(n.dirs) + len(n.files) }

// walker is the state of one walk. Not safe for concurrent use.
type walker struct {
	ctx     context.Context
	limit   int
	visited int
	stats   treeStats
	// defaults are DefaultIgnore's names: folders skipped by name.
	defaults map[string]bool
	// extra are opts.Ignore, above every .gitignore in priority.
	extra   []ignore.Pattern
	markers map[string]bool
	notices []Notice
	// unreadable counts the folders that could not be read; firstErr is
	// the first such error.
	unreadable int
	firstErr   error
}

// queued is a folder waiting to be read in the breadth-first walk.
type queued struct {
	n     *node
	abs   string
	path  []string         // components relative to the root
	rules []ignore.Pattern // active .gitignore patterns, lowest priority first
	depth int              // 0 for dir
}

// walkTree builds the directory structure block for dir (whose project
// root is root), honouring .gitignore files from root down (plus
// .git/info/exclude), DefaultIgnore and opts.
//
// The walk is breadth first over directory entries (no stat per file),
// does not follow symbolic links, skips DefaultIgnore folders without
// reading them, stops after opts.MaxFiles entries (a Notice says so) and
// checks ctx every [ctxEvery] entries; the only error it returns is ctx's,
// wrapped. Folders it cannot read are reported in one Notice.
//
// Gitignore patterns are parsed and matched with git's semantics by
// package internal/ignore. Each entry is matched against its own path
// only, since the walk never enters an ignored folder, as git does. A
// .gitignore that is a symlink is not read, as git does not, and neither
// is an ignore file that is not a regular file (a FIFO): a Notice says
// so. The global excludes file (core.excludesFile) is not read, so that
// the block depends on the project only.
func walkTree(ctx context.Context, root, dir string, counter token.Counter, opts TreeOptions) (Block, treeStats, []Notice, error) {
	if counter == nil {
		counter = token.Estimator{}
	}
	w := &walker{
		ctx:      ctx,
		limit:    opts.MaxFiles,
		defaults: make(map[string]bool, len(DefaultIgnore)),
		markers:  map[string]bool{},
	}
	if w.limit <= 0 {
		w.limit = DefaultTreeWalk
	}
	w.stats.Langs = map[string]int{}
	for _, name := range DefaultIgnore {
		w.defaults[name] = true
	}
	for _, p := range opts.Ignore {
		if r, ok := ignore.Parse(p, nil); ok {
			w.extra = append(w.extra, r)
		}
	}

	base := relPath(root, dir)
	rules := w.ancestorRules(root, base)
	top := &node{name: dir}
	if root != dir {
		w.rootMarkers(root)
	}
	if err := w.walk(top, dir, base, rules); err != nil {
		return Block{}, w.stats, w.notices, err
	}
	w.stats.Markers = make([]string, 0, len(w.markers))
	for m := range w.markers {
		w.stats.Markers = append(w.stats.Markers, m)
	}
	slices.Sort(w.stats.Markers)
	w.stats.Visited = w.visited
	if w.unreadable > 0 {
		w.notices = append(w.notices, Notice{
			Source:  BlockDirectory,
			Message: fmt.Sprintf("%s could not be read: %v", plural(w.unreadable, "folder", "folders"), w.firstErr),
		})
	}
	if w.stats.Stopped {
		w.notices = append(w.notices, Notice{
			Source:  BlockDirectory,
			Message: "walk stopped after " + commas(w.visited) + " entries",
		})
	}
	if opts.Disabled {
		return Block{}, w.stats, w.notices, nil
	}
	maxEntries, maxTokens := opts.MaxEntries, opts.MaxTokens
	if maxEntries <= 0 {
		maxEntries = DefaultTreeEntries
	}
	if maxTokens <= 0 {
		maxTokens = DefaultTreeTokens
	}
	b, ok := renderTree(top, counter, maxEntries, maxTokens, w.stats.Stopped, w.visited)
	if !ok {
		w.notices = append(w.notices, Notice{
			Source:  BlockDirectory,
			Message: fmt.Sprintf("the directory structure does not fit in %d tokens; left out", maxTokens),
		})
	}
	return b, w.stats, w.notices, nil
}

// relPath returns dir's path components relative to root; nil when dir
// is root or not below it.
func relPath(root, dir string) []string {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}

// ancestorRules reads .git/info/exclude and the .gitignore files of root
// and of every folder between root and dir (dir's own is read by the
// walk), lowest priority first.
func (w *walker) ancestorRules(root string, base []string) []ignore.Pattern {
	rules := w.readRules(filepath.Join(gitDir(root), "info", "exclude"), nil, true)
	for i := range base {
		rules = append(rules, w.readRules(filepath.Join(root, filepath.Join(base[:i]...), ".gitignore"), base[:i], false)...)
	}
	return rules
}

// gitDir returns the git folder of the work tree at root: root/.git, or
// for a linked work tree or submodule (where .git is a file saying
// "gitdir: …") the common git folder it points to. It reads regular
// files only ([safefile.Open]): a FIFO named .git is not waited on.
func gitDir(root string) string {
	dot := filepath.Join(root, ".git")
	b, _, err := safefile.ReadFile(dot, maxGitFile, safefile.Options{})
	if err != nil {
		return dot // a folder, absent, or not a regular file
	}
	line, _, _ := strings.Cut(string(b), "\n")
	gd, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return dot
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(root, gd)
	}
	if c, _, err := safefile.ReadFile(filepath.Join(gd, "commondir"), maxGitFile, safefile.Options{}); err == nil {
		cd := strings.TrimSpace(string(c))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(gd, cd)
		}
		return cd
	}
	return gd
}

// readRules parses one ignore file whose patterns are relative to the
// folder with components domain; follow says whether the file may be a
// symlink (.git/info/exclude) or not (.gitignore, as git reads it). A
// missing file has no rules; a file that is not a regular file, or
// cannot be read, is reported as a Notice.
func (w *walker) readRules(file string, domain []string, follow bool) []ignore.Pattern {
	rules, err := ignore.ReadFile(file, domain, follow)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			w.notices = append(w.notices, Notice{Source: file, Message: "skipped: " + errText(file, err)})
		}
		return nil
	}
	return rules
}

// errText returns err's message for a Notice whose Source is file:
// without the file's name, which the error repeats.
func errText(file string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == file {
		return pe.Op + ": " + pe.Err.Error()
	}
	return strings.TrimPrefix(err.Error(), file+": ")
}

// ignored reports whether the entry at path (components relative to the
// root, the last one its name) is ignored by rules or by opts.Ignore.
// The highest priority pattern that matches decides.
func (w *walker) ignored(path []string, rules []ignore.Pattern, isDir bool) bool {
	if r := ignore.Match(w.extra, path, isDir); r != ignore.NoMatch {
		return r == ignore.Exclude
	}
	return ignore.Match(rules, path, isDir) == ignore.Exclude
}

// walk reads top and the folders below it breadth first.
func (w *walker) walk(top *node, dir string, base []string, rules []ignore.Pattern) error {
	queue := []queued{{n: top, abs: dir, path: base, rules: rules}}
	for len(queue) > 0 {
		q := queue[0]
		queue[0] = queued{}
		queue = queue[1:]
		if w.visited >= w.limit {
			w.stats.Stopped = true
			q.n.unread = true
			for _, r := range queue {
				r.n.unread = true
			}
			return nil
		}
		next, err := w.readFolder(q)
		if err != nil {
			return err
		}
		queue = append(queue, next...)
	}
	return nil
}

// readFolder lists one folder and returns its subfolders to walk.
func (w *walker) readFolder(q queued) ([]queued, error) {
	f, err := os.Open(q.abs)
	if err != nil {
		w.fail(q.n, err)
		return nil, nil
	}
	defer f.Close()
	var entries []fs.DirEntry
	for {
		batch, err := f.ReadDir(readBatch)
		if room := w.limit - w.visited - len(entries); len(batch) > room {
			entries = append(entries, batch[:room]...)
			q.n.partial = true
			w.stats.Stopped = true
			break
		}
		entries = append(entries, batch...)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				w.fail(q.n, err)
			}
			break
		}
	}
	hasRule := false
	for _, e := range entries {
		if e.Name() == ".gitignore" && !e.IsDir() {
			hasRule = true
		}
	}
	rules := q.rules
	if hasRule {
		own := w.readRules(filepath.Join(q.abs, ".gitignore"), q.path, false)
		if len(own) > 0 {
			rules = append(rules[:len(rules):len(rules)], own...)
		}
	}
	path := append(q.path[:len(q.path):len(q.path)], "")
	var next []queued
	for _, e := range entries {
		w.visited++
		if w.visited%ctxEvery == 0 {
			if err := w.ctx.Err(); err != nil {
				return nil, fmt.Errorf("walk %s: %w", q.abs, err)
			}
		}
		name := e.Name()
		isDir := e.IsDir()
		if name == ".git" || (isDir && w.defaults[name]) {
			continue
		}
		path[len(path)-1] = name
		if w.ignored(path, rules, isDir) {
			continue
		}
		if isDir {
			w.stats.Folders++
			child := &node{name: name}
			q.n.dirs = append(q.n.dirs, child)
			next = append(next, queued{
				n:     child,
				abs:   filepath.Join(q.abs, name),
				path:  slices.Clone(path),
				rules: rules,
				depth: q.depth + 1,
			})
			continue
		}
		w.stats.Files++
		q.n.files = append(q.n.files, name)
		if l := langOf(name); l != "" {
			w.stats.Langs[l]++
		}
		if q.depth <= 1 && isMarker(name) {
			w.markers[strings.Join(path, "/")] = true
		}
	}
	slices.SortFunc(q.n.dirs, func(a, b *node) int { return strings.Compare(a.name, b.name) })
	slices.Sort(q.n.files)
	slices.SortFunc(next, func(a, b queued) int { return strings.Compare(a.n.name, b.n.name) })
	return next, nil
}

// fail records a folder that could not be read.
func (w *walker) fail(n *node, err error) {
	n.failed = true
	if w.unreadable == 0 {
		w.firstErr = err
	}
	w.unreadable++
}

// rootMarkers adds the markers found in root itself, when the walk starts
// below it.
func (w *walker) rootMarkers(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() && isMarker(e.Name()) {
			w.markers[e.Name()] = true
		}
	}
}

// markerNames are the formatter, linter and build configuration files
// codeStyle reads; markerPrefixes match families such as .eslintrc.json.
var (
	markerNames = map[string]bool{
		".editorconfig": true, "go.mod": true,
		".golangci.yml": true, ".golangci.yaml": true, ".golangci.toml": true, ".golangci.json": true,
		"biome.json": true, "biome.jsonc": true,
		"pyproject.toml": true, "ruff.toml": true, ".ruff.toml": true, "setup.cfg": true,
		".flake8": true, ".pylintrc": true, "mypy.ini": true,
		"rustfmt.toml": true, ".rustfmt.toml": true, "clippy.toml": true, "Cargo.toml": true,
		"package.json": true, "tsconfig.json": true, ".clang-format": true, ".rubocop.yml": true,
		".pre-commit-config.yaml": true, "Makefile": true, "GNUmakefile": true,
		"justfile": true, "Justfile": true,
	}
	markerPrefixes = []string{".prettierrc", "prettier.config.", ".eslintrc", "eslint.config.", ".stylelintrc"}
)

// isMarker reports whether a file name is a formatter, linter or build
// configuration file.
func isMarker(name string) bool {
	if markerNames[name] {
		return true
	}
	for _, p := range markerPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// langByExt maps a lower-case file extension to its programming
// language. Markup, styles, data and prose (HTML, CSS, Markdown, JSON,
// YAML, SQL…) are not programming languages here: the code style block
// lists what the project is written in.
var langByExt = map[string]string{
	".go": "Go",
	".py": "Python", ".pyi": "Python",
	".ts": "TypeScript", ".tsx": "TypeScript", ".mts": "TypeScript", ".cts": "TypeScript",
	".js": "JavaScript", ".jsx": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript",
	".rs":   "Rust",
	".java": "Java",
	".kt":   "Kotlin", ".kts": "Kotlin",
	".c": "C", ".h": "C",
	".cc": "C++", ".cpp": "C++", ".cxx": "C++", ".hpp": "C++", ".hh": "C++", ".hxx": "C++",
	".cs":    "C#",
	".rb":    "Ruby",
	".php":   "PHP",
	".swift": "Swift",
	".m":     "Objective-C", ".mm": "Objective-C",
	".sh": "Shell", ".bash": "Shell", ".zsh": "Shell",
	".scala": "Scala",
	".lua":   "Lua",
	".dart":  "Dart",
	".ex":    "Elixir", ".exs": "Elixir",
	".erl": "Erlang",
	".hs":  "Haskell",
	".ml":  "OCaml", ".mli": "OCaml",
	".clj": "Clojure",
	".zig": "Zig",
	".jl":  "Julia",
	".r":   "R",
	".pl":  "Perl", ".pm": "Perl",
	".vue":    "Vue",
	".svelte": "Svelte",
	".fs":     "F#",
	".groovy": "Groovy",
	".nim":    "Nim",
	".v":      "V",
	".sol":    "Solidity",
}

// langOf returns the programming language of a file name, or "".
func langOf(name string) string {
	ext := filepath.Ext(name)
	if ext == "" || ext == name {
		return ""
	}
	return langByExt[strings.ToLower(ext)]
}
