package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentctx/agentctx/internal/safefile"
	"github.com/agentctx/agentctx/token"
)

// userInstructionName is the user-level instruction file looked for in the
// user folder ([Options].UserDir). Only AGENTS.md: the other tools' user
// files (~/.claude/CLAUDE.md, ~/.codex/AGENTS.md…) live in their own
// folders, which agentctx does not read.
const userInstructionName = "AGENTS.md"

// instrExpandFactor and instrMinExpand bound the work of expanding one
// instruction file's imports: once the expanded text passes
// max(instrExpandFactor × MaxBytes, instrMinExpand) bytes, which is far
// past the byte cap, further imports are left unexpanded (they would be cut
// anyway) and each file is read at most that many bytes.
const (
	instrExpandFactor = 4
	instrMinExpand    = 1 << 20
)

// importTrailing are the characters that end a sentence after an @import
// ("see @docs/style.md."): when the path with them does not exist, it is
// tried without them.
const importTrailing = ".,;:!?)]}'\""

// defaultUserDir returns the default user folder ([Options].UserDir), the
// user's configuration: $XDG_CONFIG_HOME/agentctx (when absolute, as the
// XDG Base Directory Specification requires), else ~/.config/agentctx,
// else "" when the home folder is unknown. $AGENTCTX_HOME is the data
// folder (the session store), not configuration: it plays no part.
func defaultUserDir() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "agentctx")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "agentctx")
}

// loadInstructions finds and reads the instruction files of the project
// at root for the working folder dir, plus the user file
// <userDir>/AGENTS.md (userDir "" skips it).
//
// Discovery: the user file first ([ScopeUser]), then each folder from root
// down to dir, inclusive (just dir when dir is not inside root), and in
// each folder the names of opts.Names (default [InstructionNames]) in
// order, case-sensitive, that are regular files. A name with a folder in
// it (".github/copilot-instructions.md") is looked for at the root only,
// where its tool reads it. CLAUDE.local.md is [ScopeLocal], the others
// [ScopeProject]. A project file whose real path (symlinks resolved) lies
// outside root and userDir is refused, so that a cloned repository cannot
// pull, say, ~/.ssh into the prompt; the user file may be a symlink
// anywhere (dotfile managers). A file that is the same file as one already
// listed (CLAUDE.md → AGENTS.md) is skipped with a notice. Empty files are
// skipped silently; unreadable and non-text files with a notice.
//
// @imports follow Claude Code's memory files: "@path" at the start of a
// line or after white space, outside fenced code blocks (``` and ~~~) and
// inline code spans, is replaced by the content of the file at path
// (relative to the importing file's folder; "~/" is the home folder;
// absolute paths allowed), recursively, at most opts.MaxImportDepth
// (default [DefaultImportDepth]) levels deep. "\ " escapes a space in a
// path; trailing sentence punctuation is dropped when the path with it
// does not exist. Indented code blocks are not recognised. An import is
// refused, its text left as is and a [Notice] added, when its path lies
// outside root and userDir (checked on the path as written and again on
// the real path, so a symlink cannot escape; the file is never opened),
// when it is not a regular text file (valid UTF-8 without NUL), when it
// would close a cycle (the notice names the chain) or nest too deep. A
// target that does not exist is left as is, with a notice when it looks
// like a path (has a '/', '.' or '~'); "@alice" or "@Override" stay
// silent. A file imported twice in one instruction file is included at
// its first occurrence only; later ones become "(see <rel> above)".
//
// The byte cap opts.MaxBytes (default [DefaultInstructionBytes]) is shared
// by the files in order. The file that exhausts it is cut on a line
// boundary (or a rune boundary when a single line is too long) and ends
// with "\n[truncated: N of M bytes shown; instruction files are capped at
// X bytes]"; files after it are dropped, each with a notice.
func loadInstructions(root, dir, userDir string, counter token.Counter, opts InstructionOptions) ([]Instruction, []Notice) {
	l := newInstrLoader(root, dir, userDir, counter, opts)
	remaining := l.maxBytes
	var out []Instruction
	seen := map[string]string{} // real path → path of the file listed
	for _, c := range l.candidates(dir) {
		in, full, ok := l.loadFile(c, remaining <= 0, seen)
		if !ok {
			continue
		}
		if len(in.Text) > remaining {
			in, ok = l.truncate(in, full, remaining)
			if !ok {
				continue
			}
			remaining = 0
		} else {
			remaining -= len(in.Text)
		}
		in.Tokens = l.counter.Count(in.Text)
		out = append(out, in)
	}
	return out, l.notes
}

// instrLoader holds one loadInstructions call's settings and notices.
type instrLoader struct {
	counter  token.Counter
	names    []string
	maxBytes int
	maxDepth int
	limit    int // expansion limit, bytes
	root     string
	realRoot string
	user     string // "" when there is no user folder
	realUser string
	home     string
	notes    []Notice
}

func newInstrLoader(root, dir, userDir string, counter token.Counter, opts InstructionOptions) *instrLoader {
	l := &instrLoader{counter: counter, names: opts.Names, maxBytes: opts.MaxBytes, maxDepth: opts.MaxImportDepth}
	if l.counter == nil {
		l.counter = token.Estimator{}
	}
	if len(l.names) == 0 {
		l.names = InstructionNames
	}
	if l.maxBytes <= 0 {
		l.maxBytes = DefaultInstructionBytes
	}
	if l.maxDepth <= 0 {
		l.maxDepth = DefaultImportDepth
	}
	l.limit = max(instrExpandFactor*l.maxBytes, instrMinExpand)
	l.root = instrAbs(root)
	if d := instrAbs(dir); !safefile.Within(l.root, d) {
		l.root = d
	}
	l.realRoot = instrRealOr(l.root)
	if userDir != "" {
		l.user = instrAbs(userDir)
		l.realUser = instrRealOr(l.user)
	}
	if h, err := os.UserHomeDir(); err == nil {
		l.home = h
	}
	return l
}

// instrAbs returns p absolute and clean (p itself when that fails).
func instrAbs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// instrRealOr returns p with symlinks resolved, else p.
func instrRealOr(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// confined reports whether p lies inside the project or the user folder:
// for a real path (symlinks resolved) against their real paths, for a path
// as written against both forms.
func (l *instrLoader) confined(p string, resolved bool) bool {
	bases := []string{l.realRoot, l.realUser}
	if !resolved {
		bases = append(bases, l.root, l.user)
	}
	for _, b := range bases {
		if b != "" && safefile.Within(b, p) {
			return true
		}
	}
	return false
}

// display names p for notices and markers: relative to the root or the
// user folder when inside one, else p.
func (l *instrLoader) display(p string) string {
	for _, b := range []string{l.root, l.realRoot, l.user, l.realUser} {
		if b != "" && safefile.Within(b, p) {
			if r, err := filepath.Rel(b, p); err == nil {
				return r
			}
		}
	}
	return p
}

func (l *instrLoader) notice(source, format string, args ...any) {
	l.notes = append(l.notes, Notice{Source: source, Message: fmt.Sprintf(format, args...)})
}

// instrCandidate is a path where an instruction file may be.
type instrCandidate struct {
	path  string
	rel   string
	scope Scope
}

// candidates lists the paths to look at, in order.
func (l *instrLoader) candidates(dir string) []instrCandidate {
	var cs []instrCandidate
	if l.user != "" {
		cs = append(cs, instrCandidate{filepath.Join(l.user, userInstructionName), userInstructionName, ScopeUser})
	}
	folders := []string{l.root}
	if rel, err := filepath.Rel(l.root, instrAbs(dir)); err == nil && rel != "." {
		f := l.root
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			f = filepath.Join(f, part)
			folders = append(folders, f)
		}
	}
	for _, f := range folders {
		for _, name := range l.names {
			if name == "" || (strings.ContainsAny(name, `/\`) && f != l.root) {
				continue
			}
			p := filepath.Join(f, filepath.FromSlash(name))
			rel, err := filepath.Rel(l.root, p)
			if err != nil {
				rel = p
			}
			scope := ScopeProject
			if filepath.Base(p) == "CLAUDE.local.md" {
				scope = ScopeLocal
			}
			cs = append(cs, instrCandidate{p, rel, scope})
		}
	}
	return cs
}

// loadFile reads one candidate and expands its imports (Tokens is left
// for the caller to count, after the cap); full is the size
// of the expanded text including what was not read. It reports false when
// the file is absent, empty, refused, or dropped (drop: the byte cap is
// exhausted; the file is named in a notice but not read).
func (l *instrLoader) loadFile(c instrCandidate, drop bool, seen map[string]string) (in Instruction, full int, ok bool) {
	fi, err := os.Stat(c.path)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			l.notice(c.path, "unreadable: %v", err)
		}
		return Instruction{}, 0, false
	}
	if !fi.Mode().IsRegular() {
		if !fi.IsDir() {
			l.notice(c.path, "skipped: not a regular file")
		}
		return Instruction{}, 0, false
	}
	resolved, err := filepath.EvalSymlinks(c.path)
	if err != nil {
		l.notice(c.path, "unreadable: %v", err)
		return Instruction{}, 0, false
	}
	if c.scope != ScopeUser && !l.confined(resolved, true) {
		l.notice(c.path, "refused: links outside the project to %s", resolved)
		return Instruction{}, 0, false
	}
	if first, ok := seen[resolved]; ok {
		l.notice(c.path, "skipped: same file as %s", first)
		return Instruction{}, 0, false
	}
	seen[resolved] = c.path
	if fi.Size() == 0 {
		return Instruction{}, 0, false
	}
	if drop {
		l.notice(c.path, "dropped: instruction files are capped at %d bytes", l.maxBytes)
		return Instruction{}, 0, false
	}
	text, tail, err := l.read(resolved)
	if err != nil {
		l.notice(c.path, "skipped: %v", err)
		return Instruction{}, 0, false
	}
	if strings.TrimSpace(text) == "" {
		return Instruction{}, 0, false
	}
	e := &instrExpansion{seen: map[string]string{resolved: c.rel}, tail: tail}
	l.expand(e, text, c.path, []string{resolved}, 0)
	in = Instruction{Path: c.path, Rel: c.rel, Scope: c.scope, Text: e.out.String(), Imports: e.imports}
	in.Bytes = len(in.Text)
	return in, in.Bytes + e.tail, true
}

// read returns the text of the regular file at p, read up to the
// expansion limit, and how many bytes were left unread. It fails when the
// file cannot be read, is not a regular file (a FIFO swapped in since the
// caller's check is not waited on: package safefile) or is not text
// (invalid UTF-8 or a NUL byte).
func (l *instrLoader) read(p string) (string, int, error) {
	f, err := safefile.Open(p, safefile.Options{})
	if err != nil {
		return "", 0, fmt.Errorf("unreadable: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(l.limit)+1))
	if err != nil {
		return "", 0, fmt.Errorf("unreadable: %w", err)
	}
	tail := 0
	if len(b) > l.limit {
		if fi, err := f.Stat(); err == nil {
			tail = int(fi.Size()) - l.limit
		}
		b = b[:l.limit]
		// The limit may split a rune; drop its start.
		for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
			if utf8.RuneStart(b[i]) {
				if !utf8.FullRune(b[i:]) {
					tail += len(b) - i
					b = b[:i]
				}
				break
			}
		}
	}
	if !utf8.Valid(b) || slices.Contains(b, 0) {
		return "", 0, errors.New("not a text file")
	}
	return strings.TrimPrefix(string(b), "\ufeff"), tail, nil
}

// truncate cuts in to fit the remaining bytes of the cap and marks it.
// It reports false when nothing of it fits (the file is then dropped).
func (l *instrLoader) truncate(in Instruction, full, remaining int) (Instruction, bool) {
	n := instrCutPoint(in.Text, remaining)
	if n == 0 {
		l.notice(in.Path, "dropped: instruction files are capped at %d bytes", l.maxBytes)
		return in, false
	}
	msg := fmt.Sprintf("truncated: %d of %d bytes shown; instruction files are capped at %d bytes", n, full, l.maxBytes)
	in.Text = in.Text[:n] + "\n[" + msg + "]"
	in.Bytes = len(in.Text)
	in.Truncated = true
	l.notice(in.Path, "%s", msg)
	return in, true
}

// instrCutPoint returns how many bytes of s to keep within limit bytes: up to the
// last line break that fits (without it and a preceding '\r'), else, when
// the first line alone is too long, the last rune boundary that fits.
func instrCutPoint(s string, limit int) int {
	if limit <= 0 {
		return 0
	}
	if len(s) <= limit {
		return len(s)
	}
	if i := strings.LastIndexByte(s[:limit+1], '\n'); i > 0 {
		return len(strings.TrimRight(s[:i], "\r"))
	}
	n := limit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// instrExpansion is the state of expanding one instruction file.
type instrExpansion struct {
	out     strings.Builder
	seen    map[string]string // real path → display name of its first inclusion
	imports []string
	tail    int // bytes of the top file not read (past the expansion limit)
}

// expand writes text, the content of file (whose real path ends chain),
// to e.out with its imports replaced, depth levels below the top file.
func (l *instrLoader) expand(e *instrExpansion, text, file string, chain []string, depth int) {
	fence := ""
	for len(text) > 0 {
		line, rest, nl := strings.Cut(text, "\n")
		text = rest
		switch {
		case fence != "":
			if closesFence(line, fence) {
				fence = ""
			}
			e.out.WriteString(line)
		case openFence(line) != "":
			fence = openFence(line)
			e.out.WriteString(line)
		default:
			l.expandLine(e, line, file, chain, depth)
		}
		if nl {
			e.out.WriteByte('\n')
		}
	}
}

// fenceIndent strips the up to three spaces a fence may be indented by.
func fenceIndent(line string) string {
	for i := 0; i < 3 && strings.HasPrefix(line, " "); i++ {
		line = line[1:]
	}
	return line
}

// fenceRun returns the leading run of c in s.
func fenceRun(s string, c byte) string {
	i := 0
	for i < len(s) && s[i] == c {
		i++
	}
	return s[:i]
}

// openFence returns the fence that line opens (a run of at least three
// backticks or tildes; a backtick fence's info string holds no backtick,
// as CommonMark says), else "".
func openFence(line string) string {
	line = fenceIndent(line)
	if line == "" || (line[0] != '`' && line[0] != '~') {
		return ""
	}
	run := fenceRun(line, line[0])
	if len(run) < 3 || (line[0] == '`' && strings.Contains(line[len(run):], "`")) {
		return ""
	}
	return run
}

// closesFence reports whether line closes fence: a run of the same
// character at least as long, then only spaces.
func closesFence(line, fence string) bool {
	line = fenceIndent(line)
	if line == "" || line[0] != fence[0] {
		return false
	}
	run := fenceRun(line, fence[0])
	return len(run) >= len(fence) && strings.Trim(line[len(run):], " \t\r") == ""
}

// expandLine writes one line outside code blocks, expanding its imports
// and leaving inline code spans alone. It is linear in the line's length,
// whatever its backticks.
func (l *instrLoader) expandLine(e *instrExpansion, line, file string, chain []string, depth int) {
	var ticks tickRuns
	if strings.IndexByte(line, '`') >= 0 {
		ticks = newTickRuns(line)
	}
	i, last := 0, 0
	for i < len(line) {
		switch c := line[i]; {
		case c == '`':
			n := len(fenceRun(line[i:], '`'))
			if j := ticks.closing(i+n, n); j >= 0 {
				i = j + n
			} else {
				i += n
			}
		case c == '@' && (i == 0 || importSpaceBefore(line[:i])):
			end := importEnd(line, i+1)
			e.out.WriteString(line[last:i])
			last = i
			if used, ok := l.importAt(e, line[i+1:end], file, chain, depth); ok {
				last = i + 1 + used
				i = last
			} else {
				i = end
			}
		default:
			i++
		}
	}
	e.out.WriteString(line[last:])
}

// tickRuns indexes a line's runs of backticks by length, so that finding
// the run that closes a code span is a cursor step, not a rescan.
type tickRuns struct {
	at     map[int][]int // run length → start offsets, increasing
	cursor map[int]int   // run length → index of the first run not yet passed
}

func newTickRuns(line string) tickRuns {
	t := tickRuns{at: map[int][]int{}, cursor: map[int]int{}}
	for i := 0; i < len(line); {
		if line[i] != '`' {
			i++
			continue
		}
		n := len(fenceRun(line[i:], '`'))
		t.at[n] = append(t.at[n], i)
		i += n
	}
	return t
}

// closing returns the offset of the first run of exactly n backticks
// starting at or after from, else -1. Calls must come with increasing
// from, as a left-to-right scan makes them.
func (t tickRuns) closing(from, n int) int {
	runs := t.at[n]
	k := t.cursor[n]
	for k < len(runs) && runs[k] < from {
		k++
	}
	t.cursor[n] = k
	if k < len(runs) {
		return runs[k]
	}
	return -1
}

// importSpaceBefore reports whether s ends with a white space rune.
func importSpaceBefore(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsSpace(r)
}

// importEnd returns where the path starting at line[start] ends: at white
// space (unless escaped as "\ ") or a backtick.
func importEnd(line string, start int) int {
	i := start
	for i < len(line) {
		if line[i] == '\\' && i+1 < len(line) && line[i+1] == ' ' {
			i += 2
			continue
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		if unicode.IsSpace(r) || r == '`' {
			break
		}
		i += size
	}
	return i
}

// importOutcome is what became of one @path.
type importOutcome int

const (
	importIncluded importOutcome = iota // content (or a "see above" marker) written
	importMissing                       // no such file: text left as is
	importRefused                       // refused (with a notice) or skipped: text left as is
)

// importAt tries the token raw (the text after '@') as an import from
// file. When included it reports how many bytes of raw were used (less
// than len(raw) when trailing punctuation was dropped).
func (l *instrLoader) importAt(e *instrExpansion, raw, file string, chain []string, depth int) (int, bool) {
	if raw == "" || raw[0] == '@' {
		return 0, false
	}
	tokens := []string{raw}
	trimmed := strings.TrimRight(raw, importTrailing)
	if trimmed != raw && trimmed != "" {
		tokens = append(tokens, trimmed)
	}
	for _, tok := range tokens {
		switch l.resolveImport(e, tok, file, chain, depth) {
		case importIncluded:
			return len(tok), true
		case importRefused:
			return 0, false
		}
	}
	if trimmed != "" && strings.ContainsAny(trimmed, `/.~\`) {
		l.notice(file, "import %s not found", trimmed)
	}
	return 0, false
}

// resolveImport resolves, checks and includes the import tok.
func (l *instrLoader) resolveImport(e *instrExpansion, tok, file string, chain []string, depth int) importOutcome {
	p := strings.ReplaceAll(tok, `\ `, " ")
	var abs string
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if l.home == "" {
			return importMissing
		}
		abs = filepath.Join(l.home, p[1:])
	case filepath.IsAbs(p):
		abs = filepath.Clean(p)
	default:
		abs = filepath.Join(filepath.Dir(file), p)
	}
	if !l.confined(abs, false) {
		l.notice(file, "import %s refused: outside the project", tok)
		return importRefused
	}
	fi, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			l.notice(file, "import %s unreadable: %v", tok, err)
			return importRefused
		}
		return importMissing
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return importMissing
	}
	if !l.confined(resolved, true) {
		l.notice(file, "import %s refused: outside the project", tok)
		return importRefused
	}
	if !fi.Mode().IsRegular() {
		l.notice(file, "import %s refused: not a regular file", tok)
		return importRefused
	}
	if i := slices.Index(chain, resolved); i >= 0 {
		names := make([]string, 0, len(chain)+1)
		for _, c := range chain {
			names = append(names, l.display(c))
		}
		names = append(names, l.display(resolved))
		l.notice(file, "import %s refused: cycle %s", tok, strings.Join(names, " -> "))
		return importRefused
	}
	if first, ok := e.seen[resolved]; ok {
		e.out.WriteString("(see " + first + " above)")
		return importIncluded
	}
	if depth+1 > l.maxDepth {
		l.notice(file, "import %s refused: imports nest at most %d levels", tok, l.maxDepth)
		return importRefused
	}
	if e.out.Len() > l.limit {
		// Far past the byte cap: this text will be cut before here.
		return importRefused
	}
	text, _, err := l.read(resolved)
	if err != nil {
		l.notice(file, "import %s refused: %v", tok, err)
		return importRefused
	}
	e.seen[resolved] = l.display(abs)
	e.imports = append(e.imports, abs)
	l.expand(e, strings.TrimRight(text, "\r\n"), abs, append(slices.Clip(chain), resolved), depth+1)
	return importIncluded
}
