package tooluse

import (
	"path"
	"strings"
	"sync"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// MaxShellBytes is the longest shell command, in bytes, that [Classify]
// parses: a longer one is cut at its last new line before the limit (or
// at the limit), so that a pathological command costs bounded time. 64
// KiB holds any command an agent writes by hand; a longer one is a
// here-document that [Use.Command] still holds whole.
const MaxShellBytes = 64 << 10

// maxShellDepth bounds the nesting of scripts run by bash -c, sh -c and
// here-documents fed to a shell.
const maxShellDepth = 4

// word is one shell word after quote removal. lit reports that it is
// fully literal: no parameter, command or arithmetic expansion, no
// unquoted glob or brace list; only a literal word names a file.
type word struct {
	text string
	lit  bool
}

// simple is one simple command: its words (assignments removed), the
// body of a here-document or here-string it reads, its source text, and
// whether it reads a pipe.
type simple struct {
	words   []word
	redirs  []redir // the fallback splitter's; the parser's are read from the AST
	heredoc string
	src     string
	piped   bool
}

// shellState reads the simple commands of one shell command into b.
type shellState struct {
	b *builder
	// dir is the directory relative paths are joined to: "" for the
	// agent's own; dirUnknown after a cd whose target is not literal.
	dir     string
	unknown bool
	depth   int
	src     string // the script being walked, for commands' source text
}

var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// shell reads a shell command into b and records it as the command.
func (b *builder) shell(cmd string) {
	b.u.Command = cmd
	s := &shellState{b: b}
	s.script(cmd)
}

// argv reads an argv array (Codex shell): a shell's -c script, or the
// words themselves, which need no parsing.
func (b *builder) argv(argv []string) {
	if len(argv) == 0 {
		return
	}
	b.u.Command = strings.Join(argv, " ")
	s := &shellState{b: b}
	if script, ok := shellScript(argv); ok {
		b.u.Command = script
		s.script(script)
		return
	}
	words := make([]word, len(argv))
	for i, a := range argv {
		words[i] = word{a, true}
	}
	s.simple(simple{words: words, src: b.u.Command})
}

// shellScript returns the script of argv when argv runs a shell with -c
// (bash -lc "…", sh -c "…", /bin/zsh -c "…").
func shellScript(argv []string) (string, bool) {
	if len(argv) < 3 || !isShell(path.Base(argv[0])) {
		return "", false
	}
	for i := 1; i < len(argv)-1; i++ {
		a := argv[i]
		if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			return "", false
		}
		if strings.Contains(a, "c") {
			return argv[i+1], true
		}
	}
	return "", false
}

func isShell(name string) bool {
	switch name {
	case "bash", "sh", "zsh", "dash", "ksh":
		return true
	}
	return false
}

// script parses cmd and reads its simple commands; a command the parser
// rejects is split by splitShell.
func (s *shellState) script(cmd string) {
	if len(cmd) > MaxShellBytes {
		cut := cmd[:MaxShellBytes]
		if i := strings.LastIndexByte(cut, '\n'); i > 0 {
			cut = cut[:i]
		}
		cmd = cut
	}
	if strings.TrimSpace(cmd) == "" {
		return
	}
	if words, ok := plainWords(cmd); ok {
		s.simple(simple{words: words, src: strings.TrimSpace(cmd)})
		return
	}
	s.parsed(cmd)
}

// parsed is script for a command that is not plain (plainWords).
func (s *shellState) parsed(cmd string) {
	f, ok := parse(cmd)
	if !ok {
		for _, c := range splitShell(cmd) {
			s.simple(c)
		}
		return
	}
	saved := s.src
	s.src = cmd
	s.stmts(f.Stmts)
	s.src = saved
}

// plainWords returns the words of cmd when it is one simple command the
// parser would read as literal words alone, without parsing it: only
// letters, digits, blanks and - _ . / : , + @ % ^ = [ ] * ? (no quote,
// escape, expansion, separator, redirection, comment, brace or tilde),
// a first word that is neither a keyword nor a declaration the parser
// reads apart (if, for, export, …) nor an assignment (no =, no [ but
// first).
// Such commands ("ls -la src", "git status", "go test ./...") are most
// of what agents run; FuzzPlainWords checks them against the parser.
func plainWords(cmd string) ([]word, bool) {
	var buf [8]word // most plain commands have few words: no allocation
	words := buf[:0]
	start := -1 // the current word's start
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		if c == ' ' || c == '\t' {
			if start >= 0 {
				words = append(words, word{text: cmd[start:i]})
				start = -1
			}
			continue
		}
		if !plainByte[c] {
			return nil, false
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		words = append(words, word{text: cmd[start:]})
	}
	// A first word holding = or, after its first byte, [ may be an
	// assignment (a=1, a[i]=1), which the parser reads apart.
	if len(words) == 0 || strings.IndexByte(words[0].text, '=') >= 0 || strings.IndexByte(words[0].text[1:], '[') >= 0 ||
		shellKeywords[words[0].text] {
		return nil, false
	}
	out := make([]word, len(words))
	for i, w := range words {
		out[i] = word{w.text, !hasGlob(w.text)}
	}
	return out, true
}

// plainByte marks the bytes of plain commands (plainWords); none of 128
// and above.
var plainByte = func() (t [256]bool) {
	for c := range rune(utf8.RuneSelf) {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune("-_./:,+@%^=[]*?", c)
	}
	return t
}()

// shellKeywords are the words that, first in a command, make the parser
// read something other than a simple command: bash's reserved words and
// its declaration and let builtins.
var shellKeywords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "for": true, "in": true, "while": true, "until": true,
	"do": true, "done": true, "case": true, "esac": true, "function": true, "select": true, "time": true, "coproc": true,
	"declare": true, "local": true, "export": true, "readonly": true, "typeset": true, "nameref": true, "let": true,
	"[[": true, "]]": true,
}

// parse parses a bash script; ok is false on a syntax error. A panic in
// the parser, which it is not known to have, is a syntax error too.
func parse(cmd string) (f *syntax.File, ok bool) {
	p := parsers.Get().(*syntax.Parser)
	defer func() {
		if recover() != nil {
			f, ok = nil, false
			return // the parser may be in a bad state: do not reuse it
		}
		parsers.Put(p)
	}()
	f, err := p.Parse(strings.NewReader(cmd), "")
	return f, err == nil
}

func (s *shellState) stmts(ss []*syntax.Stmt) {
	for _, st := range ss {
		s.stmt(st, false)
	}
}

// scoped walks ss in a subshell: a cd there ends with it.
func (s *shellState) scoped(ss []*syntax.Stmt) {
	dir, unknown := s.dir, s.unknown
	s.stmts(ss)
	s.dir, s.unknown = dir, unknown
}

func (s *shellState) stmt(st *syntax.Stmt, piped bool) {
	if st == nil {
		return
	}
	switch c := st.Cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		s.call(c, st, piped)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			dir, unknown := s.dir, s.unknown
			s.stmt(c.X, piped)
			s.dir, s.unknown = dir, unknown
			s.stmt(c.Y, true)
			s.dir, s.unknown = dir, unknown
		} else {
			s.stmt(c.X, piped)
			s.stmt(c.Y, piped)
		}
	case *syntax.Subshell:
		s.scoped(c.Stmts)
	case *syntax.Block:
		s.stmts(c.Stmts)
	default: // if, while, for, case, functions, [[ ]], declarations, …
		s.nested(c)
	}
	s.redirects(st.Redirs)
}

// nested walks a node for the statements and substitutions inside it.
func (s *shellState) nested(n syntax.Node) {
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			s.stmt(x, false)
			return false
		case *syntax.CmdSubst:
			s.scoped(x.Stmts)
			return false
		case *syntax.ProcSubst:
			s.scoped(x.Stmts)
			return false
		}
		return true
	})
}

func (s *shellState) call(c *syntax.CallExpr, st *syntax.Stmt, piped bool) {
	for _, a := range c.Assigns {
		if a.Value == nil || !plain(a.Value) {
			s.nested(a)
		}
	}
	sc := simple{piped: piped, src: s.source(st), words: make([]word, 0, len(c.Args))}
	for _, w := range c.Args {
		if !plain(w) {
			s.nested(w)
		}
		sc.words = append(sc.words, wordOf(w))
	}
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				sc.heredoc = wordOf(r.Hdoc).text
			}
		case syntax.WordHdoc:
			if r.Word != nil {
				sc.heredoc = wordOf(r.Word).text
			}
		case syntax.RdrIn:
			sc.piped = true // reads a file, not the files it names
		}
	}
	s.simple(sc)
}

// source returns the statement's text, without its redirections'
// here-document bodies (which follow the line), trimmed.
func (s *shellState) source(st *syntax.Stmt) string {
	from, to := int(st.Pos().Offset()), int(st.End().Offset())
	if from < 0 || to > len(s.src) || from >= to {
		return ""
	}
	return strings.TrimSpace(s.src[from:to])
}

func (s *shellState) redirects(rs []*syntax.Redirect) {
	for _, r := range rs {
		if r.Word != nil {
			s.nested(r.Word)
		}
		if r.Hdoc != nil {
			s.nested(r.Hdoc)
		}
		if r.Word == nil {
			continue
		}
		w := wordOf(r.Word)
		switch r.Op {
		case syntax.RdrOut, syntax.RdrClob, syntax.RdrAll, syntax.RdrAllClob:
			s.write(w, OpWrite)
		case syntax.AppOut, syntax.AppClob, syntax.AppAll, syntax.AppAllClob:
			s.write(w, OpEdit)
		case syntax.RdrIn, syntax.RdrInOut:
			s.read(w)
		case syntax.DplOut:
			// ">&file" sends both streams to file; ">&2" and ">&-" are
			// descriptors.
			if w.text != "-" && !isDigits(w.text) {
				s.write(w, OpWrite)
			}
		}
	}
}

func isDigits(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}

// join returns the path w names, joined to the directory a cd chose; ""
// when w names no file.
func (s *shellState) join(w word) string {
	if !w.lit || w.text == "" || w.text == "-" {
		return ""
	}
	p := w.text
	if s.dir == "" || s.unknown || path.IsAbs(p) || strings.HasPrefix(p, "~") {
		return p
	}
	return path.Join(s.dir, p)
}

func (s *shellState) read(w word) {
	if p := s.join(w); p != "" {
		s.b.read(p)
	}
}

func (s *shellState) write(w word, op Op) {
	if p := s.join(w); p != "" {
		s.b.write(p, op)
	}
}

// cd changes the directory later relative paths are joined to.
func (s *shellState) cd(args []word) {
	var target word
	for _, a := range args {
		if a.lit && strings.HasPrefix(a.text, "-") && a.text != "-" {
			continue // -P, -L
		}
		target = a
		break
	}
	if !target.lit || target.text == "" || target.text == "-" || strings.HasPrefix(target.text, "~") {
		s.unknown = true
		return
	}
	if s.unknown && !path.IsAbs(target.text) {
		return
	}
	s.unknown = false
	if s.dir == "" || path.IsAbs(target.text) {
		s.dir = path.Clean(target.text)
	} else {
		s.dir = path.Join(s.dir, target.text)
	}
}

// plain reports whether a word holds only literal text and quotes: no
// substitution to walk.
func plain(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// wordOf resolves a word as the shell would, quotes and escapes removed.
func wordOf(w *syntax.Word) word {
	if w == nil {
		return word{}
	}
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && strings.IndexByte(l.Value, '\\') < 0 {
			return word{l.Value, !hasGlob(l.Value)}
		}
	}
	var sb strings.Builder
	lit := true
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			if hasGlob(x.Value) {
				lit = false
			}
			unescape(&sb, x.Value, false)
		case *syntax.SglQuoted:
			if x.Dollar {
				ansiC(&sb, x.Value)
			} else {
				sb.WriteString(x.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					unescape(&sb, l.Value, true)
				} else {
					lit = false
				}
			}
		default:
			lit = false
		}
	}
	return word{sb.String(), lit}
}

// unescape writes the value of literal source text: outside quotes a
// backslash escapes any character; inside double quotes only $, `, ",
// \ and a new line. A backslash before a new line is a line
// continuation and writes nothing.
func unescape(sb *strings.Builder, v string, dquoted bool) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' || i+1 == len(v) {
			sb.WriteByte(c)
			continue
		}
		n := v[i+1]
		switch {
		case n == '\n':
			i++
		case !dquoted || n == '$' || n == '`' || n == '"' || n == '\\':
			sb.WriteByte(n)
			i++
		default:
			sb.WriteByte(c)
		}
	}
}

// ansiC writes the value of a $'…' string: the common escapes resolved,
// others kept as written.
func ansiC(sb *strings.Builder, v string) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' || i+1 == len(v) {
			sb.WriteByte(c)
			continue
		}
		i++
		switch v[i] {
		case 'n':
			sb.WriteByte('\n')
		case 't':
			sb.WriteByte('\t')
		case 'r':
			sb.WriteByte('\r')
		case '\\', '\'', '"', '?':
			sb.WriteByte(v[i])
		default:
			sb.WriteByte('\\')
			sb.WriteByte(v[i])
		}
	}
}

// hasGlob reports whether unquoted literal text holds an unescaped glob
// (*, ?, [ with a later ]) or brace list ({a,b}, {1..3}).
func hasGlob(v string) bool {
	brace := false
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(v[i+1:], ']') >= 0 {
				return true
			}
		case '{':
			brace = true
		case ',':
			if brace {
				return true
			}
		case '.':
			if brace && i+1 < len(v) && v[i+1] == '.' {
				return true
			}
		}
	}
	return false
}
