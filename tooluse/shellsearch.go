package tooluse

import (
	"slices"
	"strings"
)

// gitCmd reads git's global options (-C DIR changes directory for the
// command) and the subcommands that touch files.
func gitCmd(s *shellState, c *simple, args []word) {
	dir, unknown := s.dir, s.unknown
	defer func() { s.dir, s.unknown = dir, unknown }()
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].text, "-") {
		switch args[i].text {
		case "-C":
			if i+1 < len(args) {
				s.cd(args[i+1 : i+2])
			}
			i++
		case "-c", "--git-dir", "--work-tree", "--namespace":
			i++
		}
		i++
	}
	if i >= len(args) {
		return
	}
	sub, rest := args[i].text, args[i+1:]
	switch sub {
	case "grep":
		grepCmd(grepFlags, true)(s, c, rest)
	case "diff", "blame", "annotate":
		for _, p := range gitPaths(rest) {
			s.read(p)
		}
	case "checkout", "restore":
		for _, p := range gitPaths(rest) {
			s.write(p, OpWrite)
		}
	case "rm":
		opts, ops := parseArgs(rest, flags{})
		if has(opts, "cached") {
			return
		}
		for _, o := range ops {
			s.write(o, OpDelete)
		}
	case "mv":
		copyCmd(true)(s, c, rest)
	case "apply":
		_, ops := parseArgs(rest, flags{short: "pC", long: []string{"directory", "exclude", "include", "whitespace"}})
		for _, o := range ops {
			s.read(o)
		}
		if len(ops) == 0 {
			s.diffFiles(c.heredoc)
		}
	}
}

// gitPaths returns the operands of a git subcommand that are paths: all
// of them after "--", and before it those that look like files (an
// extension, no "..", no ":") rather than revisions.
func gitPaths(args []word) []word {
	var out []word
	for i, a := range args {
		if a.text == "--" && a.lit {
			return append(out, args[i+1:]...)
		}
		t := a.text
		if strings.HasPrefix(t, "-") || strings.Contains(t, "..") || strings.Contains(t, ":") || !hasExt(t) {
			continue
		}
		out = append(out, a)
	}
	return out
}

var (
	grepFlags = flags{short: "efmABCdDX", long: []string{"regexp", "file", "max-count", "after-context", "before-context", "context", "include", "exclude", "exclude-dir", "exclude-from", "label", "devices", "directories", "binary-files", "group-separator"}}
	rgFlags   = flags{short: "efmABCgtTjMrEd", long: []string{"regexp", "file", "max-count", "after-context", "before-context", "context", "glob", "iglob", "type", "type-not", "threads", "max-columns", "replace", "encoding", "max-depth", "sort", "sortr", "type-add", "pre", "pre-glob", "ignore-file", "max-filesize", "path-separator", "context-separator", "field-match-separator", "color", "colors", "engine"}}
	agFlags   = flags{short: "ABCGgm", long: []string{"after", "before", "context", "file-search-regex", "ignore", "ignore-dir", "depth", "max-count", "pager"}}
)

// grepCmd reads grep, rg, ag, ack and git grep: the pattern (-e, or the
// first operand; -f reads patterns from a file) and the files or
// directories searched. A file searched (an operand with an extension)
// is also read. Without operands, a recursive search (-r, or rg, ag,
// ack, git grep) searches ".", and one reading a pipe or stdin is a
// filter: no search.
func grepCmd(f flags, recursive bool) command {
	return func(s *shellState, c *simple, args []word) {
		opts, ops := parseArgs(args, f)
		for _, v := range values(opts, "f", "file") {
			s.read(v)
		}
		var q string
		e := values(opts, "e", "regexp")
		switch {
		case len(e) > 0:
			q = e[0].text
		case f.short == agFlags.short && len(values(opts, "g")) > 0:
			q = values(opts, "g")[0].text // ag -g PATTERN lists files by name
		case has(opts, "f", "file", "files"):
			// patterns from a file, or rg --files: a listing
		case len(ops) > 0:
			q, ops = ops[0].text, ops[1:]
		}
		recursive := recursive || has(opts, "r", "R", "recursive", "dereference-recursive")
		var dirs []string
		for _, o := range ops {
			if p := s.join(o); p != "" {
				dirs = append(dirs, p)
				if hasExt(p) && !strings.ContainsAny(p, "*?[") { // not a pathspec
					s.b.read(p)
				}
			}
		}
		if len(ops) == 0 {
			if !recursive || c.piped {
				return
			}
			dirs = append(dirs, s.here())
		}
		s.b.search(q, dirs, c.src)
	}
}

// here is the directory a command without operands searches: "." or the
// directory a cd chose.
func (s *shellState) here() string {
	if s.dir == "" || s.unknown {
		return "."
	}
	return s.dir
}

// findCmd reads find: the starting points before the expression, the
// first name test (-name, -iname, -path, -ipath, -wholename, -regex,
// -iregex) as the query, and the commands of -exec and -execdir (their
// {} names no file).
func findCmd(s *shellState, c *simple, args []word) {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].text, "-") && len(args[i].text) == 2 && strings.Contains("HLP", args[i].text[1:]) {
		i++
	}
	var dirs []string
	for ; i < len(args); i++ {
		t := args[i].text
		if strings.HasPrefix(t, "-") || t == "(" || t == "!" || t == ")" {
			break
		}
		if p := s.join(args[i]); p != "" {
			dirs = append(dirs, p)
		}
	}
	if len(dirs) == 0 {
		dirs = append(dirs, s.here())
	}
	q := ""
	for ; i < len(args); i++ {
		switch args[i].text {
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex":
			if i+1 < len(args) && q == "" {
				q = args[i+1].text
			}
			i++
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].text != ";" && args[j].text != "+" {
				j++
			}
			inner := slices.Clone(args[i+1 : j])
			for k := range inner {
				if strings.Contains(inner[k].text, "{}") {
					inner[k].lit = false
				}
			}
			s.simple(simple{words: inner, src: c.src, piped: true})
			i = j
		}
	}
	s.b.search(q, dirs, c.src)
}

// fdCmd reads fd: the pattern, then the directories searched; -x and -X
// run a command on the results.
func fdCmd(s *shellState, c *simple, args []word) {
	for i, a := range args {
		if a.text == "-x" || a.text == "--exec" || a.text == "-X" || a.text == "--exec-batch" {
			inner := slices.Clone(args[i+1:])
			for k := range inner {
				if strings.Contains(inner[k].text, "{") {
					inner[k].lit = false
				}
			}
			s.simple(simple{words: inner, src: c.src, piped: true})
			args = args[:i]
			break
		}
	}
	opts, ops := parseArgs(args, flags{short: "etdEjScoB", long: []string{"extension", "type", "max-depth", "min-depth", "exact-depth", "exclude", "threads", "size", "changed-within", "changed-before", "owner", "color", "base-directory", "search-path", "ignore-file", "max-results"}})
	q := ""
	if len(ops) > 0 {
		q, ops = ops[0].text, ops[1:]
	}
	var dirs []string
	for _, o := range append(values(opts, "search-path"), ops...) {
		if p := s.join(o); p != "" {
			dirs = append(dirs, p)
		}
	}
	if len(dirs) == 0 {
		dirs = append(dirs, s.here())
	}
	s.b.search(q, dirs, c.src)
}
