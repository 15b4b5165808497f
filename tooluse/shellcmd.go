package tooluse

import (
	"path"
	"slices"
	"strings"
)

// This file holds what tooluse knows of the commands agents run, from
// their manual pages (GNU coreutils, grep, sed, findutils, git, ripgrep's
// --help). Each command's flags that take a value are listed so that the
// value is not taken for a file ("grep -A 3 foo a.go", "head -n 20 f").
//
//   reads:    cat tac nl less more bat wc file stat md5sum sha1sum sha256sum
//             xxd hexdump od strings head tail cut sort uniq diff cmp comm
//             paste jq yq awk sed (without -i) source . python node ruby
//             php bash sh (a script file) go run (.go files) gofmt (-l/-d)
//             and the files grep, rg, ag and ack search
//   writes:   tee (-a edits) touch mkdir (create) rm rmdir unlink (delete)
//             truncate cp and mv (the destination; a mv source is deleted)
//             sed -i perl -i awk -i inplace yq -i gofmt -w (edit) patch
//             sort -o uniq's output curl -o wget -O, and apply_patch,
//             git apply and patch fed a patch in a here-document
//   git:      diff and blame read; checkout and restore (files) write; rm
//             deletes; mv moves; grep searches; apply reads its patch
//   searches: grep egrep fgrep rg ag ack git grep find fd (the query, and
//             the directories or files searched; grep of a pipe is a
//             filter, not a search)
//
// Searches and git are read in shellsearch.go, options in shellargs.go.
// Wrappers are skipped to the command they run: sudo, env, time, nohup,
// nice, timeout, command, exec, stdbuf, xargs (whose command reads a
// pipe), and find's -exec.

// simple reads one simple command.
func (s *shellState) simple(c simple) {
	for _, r := range c.redirs {
		if r.read {
			s.read(r.target)
		} else if !strings.HasPrefix(r.target.text, "&") {
			s.write(r.target, r.op)
		}
	}
	w := s.unwrap(c.words, &c)
	if len(w) == 0 || !w[0].lit {
		return
	}
	name := path.Base(w[0].text)
	args := w[1:]
	if strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy") {
		name = "python"
	}
	if f, ok := shellCommands[name]; ok {
		f(s, &c, args)
	}
}

type command func(s *shellState, c *simple, args []word)

// shellCommands maps a command's base name to how it is read.
var shellCommands map[string]command

func init() {
	shellCommands = map[string]command{
		"cd":    func(s *shellState, _ *simple, a []word) { s.cd(a) },
		"pushd": func(s *shellState, _ *simple, a []word) { s.cd(a) },

		"cat": reads(flags{}), "tac": reads(flags{short: "s", long: []string{"separator"}}),
		"nl":   reads(flags{short: "bdfhilnsvw"}),
		"less": reads(flags{short: "bhjkopPtTxyz"}), "more": reads(flags{}),
		"bat": reads(flags{short: "lrHmp", long: []string{"language", "line-range", "highlight-line", "map-syntax", "theme", "style", "tabs", "terminal-width", "wrap"}}),
		"wc":  reads(flags{}), "file": reads(flags{short: "mfF"}), "stat": reads(flags{short: "cf", long: []string{"format", "printf"}}),
		"md5sum": reads(flags{}), "sha1sum": reads(flags{}), "sha256sum": reads(flags{}), "shasum": reads(flags{short: "a"}),
		"xxd": reads(flags{short: "cglsoC"}), "hexdump": reads(flags{short: "enNsf"}), "od": reads(flags{short: "AjNStw"}),
		"strings": reads(flags{short: "ntTe"}),
		"head":    headTail, "tail": headTail,
		"cut":   reads(flags{short: "bcdf", long: []string{"bytes", "characters", "delimiter", "fields", "output-delimiter"}}),
		"paste": reads(flags{short: "d"}), "comm": reads(flags{}), "fold": reads(flags{short: "w"}),
		"column": reads(flags{short: "cstoNWRHO"}), "expand": reads(flags{short: "t"}),
		"diff":   reads(flags{short: "UCxXIFLD", long: []string{"exclude", "exclude-from", "ignore-matching-lines", "label", "from-file", "to-file", "width", "tabsize", "horizon-lines"}}),
		"cmp":    cmpCmd,
		"source": reads(flags{}), ".": reads(flags{}),
		"sort": sortCmd, "uniq": uniqCmd,
		"jq": jqCmd, "yq": yqCmd,
		"awk": awkCmd, "gawk": awkCmd, "mawk": awkCmd, "nawk": awkCmd,
		"sed": sedCmd, "gsed": sedCmd, "perl": perlCmd,
		"python": interp(flags{short: "WXQ"}, "c", "m"),
		"node":   interp(flags{short: "r", long: []string{"require", "import", "loader"}}, "e", "p", "eval", "print"),
		"ruby":   interp(flags{short: "IrEC"}, "e"),
		"php":    interp(flags{short: "cdfz"}, "r"),
		"bash":   shellCmd, "sh": shellCmd, "zsh": shellCmd, "dash": shellCmd, "ksh": shellCmd,
		"go": goCmd, "gofmt": gofmtCmd,
		"tee":   teeCmd,
		"touch": touchCmd,
		"mkdir": changes(flags{short: "m", long: []string{"mode", "context"}}, OpCreate),
		"rm":    changes(flags{}, OpDelete), "rmdir": changes(flags{}, OpDelete), "unlink": changes(flags{}, OpDelete),
		"truncate": truncateCmd,
		"cp":       copyCmd(false), "mv": copyCmd(true), "install": copyCmd(false),
		"patch": patchCmd,
		"apply_patch": func(s *shellState, c *simple, a []word) {
			p := c.heredoc
			if len(a) > 0 && a[0].text != "" {
				p = a[0].text
			}
			for _, w := range patchFiles(p) {
				s.write(word{w.Path, true}, w.Op)
			}
		},
		"curl": outputCmd(flags{short: "odHXuAeEFmTwKrxyzbcCD", long: []string{"output", "data", "header", "request", "user", "user-agent", "referer", "form", "max-time", "upload-file", "write-out", "config", "range", "proxy", "cookie", "cookie-jar"}}, "o", "output"),
		"wget": outputCmd(flags{short: "OoPaeUTtwQ", long: []string{"output-document", "output-file", "directory-prefix", "user-agent", "tries", "timeout", "wait"}}, "O", "output-document"),
		"git":  gitCmd,
		"grep": grepCmd(grepFlags, false), "egrep": grepCmd(grepFlags, false), "fgrep": grepCmd(grepFlags, false),
		"rg": grepCmd(rgFlags, true), "ag": grepCmd(agFlags, true), "ack": grepCmd(grepFlags, true),
		"find": findCmd, "fd": fdCmd, "fdfind": fdCmd,
	}
}

// reads reads every operand of a command as a file.
func reads(f flags) command {
	return func(s *shellState, _ *simple, args []word) {
		_, ops := parseArgs(args, f)
		for _, o := range ops {
			s.read(o)
		}
	}
}

// changes writes every operand with op.
func changes(f flags, op Op) command {
	return func(s *shellState, _ *simple, args []word) {
		_, ops := parseArgs(args, f)
		for _, o := range ops {
			s.write(o, op)
		}
	}
}

// headTail reads head and tail: -n and -c take a value; "-20" and "+5"
// are counts.
func headTail(s *shellState, _ *simple, args []word) {
	_, ops := parseArgs(args, flags{short: "ncs", long: []string{"lines", "bytes", "sleep-interval", "pid"}})
	for _, o := range ops {
		if strings.HasPrefix(o.text, "+") {
			continue
		}
		s.read(o)
	}
}

func cmpCmd(s *shellState, _ *simple, args []word) {
	_, ops := parseArgs(args, flags{short: "in", long: []string{"ignore-initial", "bytes"}})
	for _, o := range ops[:min(2, len(ops))] {
		s.read(o)
	}
}

func sortCmd(s *shellState, _ *simple, args []word) {
	opts, ops := parseArgs(args, flags{short: "ktoST", long: []string{"key", "field-separator", "output", "buffer-size", "temporary-directory", "files0-from"}})
	for _, o := range ops {
		s.read(o)
	}
	for _, v := range values(opts, "o", "output") {
		s.write(v, OpWrite)
	}
}

func uniqCmd(s *shellState, _ *simple, args []word) {
	_, ops := parseArgs(args, flags{short: "fsw", long: []string{"skip-fields", "skip-chars", "check-chars"}})
	if len(ops) > 0 {
		s.read(ops[0])
	}
	if len(ops) > 1 {
		s.write(ops[1], OpWrite)
	}
}

// jqCmd reads jq: the first operand is the filter unless -f gives it;
// the rest are input files. --arg and --argjson take two values;
// --slurpfile and --rawfile read their second.
func jqCmd(s *shellState, _ *simple, args []word) {
	var rest []word
	for i := 0; i < len(args); i++ {
		switch args[i].text {
		case "--arg", "--argjson":
			i += 2
			continue
		case "--slurpfile", "--rawfile":
			if i+2 < len(args) {
				s.read(args[i+2])
			}
			i += 2
			continue
		case "--args", "--jsonargs":
			args = args[:i] // the rest are positional values, not files
		}
		if i < len(args) {
			rest = append(rest, args[i])
		}
	}
	opts, ops := parseArgs(rest, flags{short: "fL", long: []string{"from-file", "indent"}})
	from := values(opts, "f", "from-file")
	for _, v := range from {
		s.read(v)
	}
	if len(from) == 0 && len(ops) > 0 {
		ops = ops[1:]
	}
	for _, o := range ops {
		s.read(o)
	}
}

// yqCmd reads mikefarah's yq: an optional eval subcommand, the
// expression, then files; -i edits them in place.
func yqCmd(s *shellState, _ *simple, args []word) {
	opts, ops := parseArgs(args, flags{short: "oIpe", long: []string{"output-format", "input-format", "indent", "expression"}})
	if len(ops) > 0 && (ops[0].text == "e" || ops[0].text == "eval" || ops[0].text == "ea" || ops[0].text == "eval-all") {
		ops = ops[1:]
	}
	if len(ops) > 0 && !has(opts, "e", "expression") {
		ops = ops[1:]
	}
	inPlace := has(opts, "i", "inplace")
	for _, o := range ops {
		if inPlace {
			s.write(o, OpEdit)
		} else {
			s.read(o)
		}
	}
}

// awkCmd reads awk: the program is the first operand unless -f names a
// program file; NAME=value operands are assignments; gawk's -i inplace
// edits the files.
func awkCmd(s *shellState, _ *simple, args []word) {
	opts, ops := parseArgs(args, flags{short: "Fvfi", long: []string{"field-separator", "assign", "file", "include"}})
	progs := values(opts, "f", "file")
	for _, v := range progs {
		s.read(v)
	}
	if len(progs) == 0 && len(ops) > 0 {
		ops = ops[1:]
	}
	inPlace := false
	for _, v := range values(opts, "i", "include") {
		inPlace = inPlace || v.text == "inplace"
	}
	for _, o := range ops {
		if isAssign(o) {
			continue
		}
		if inPlace {
			s.write(o, OpEdit)
		} else {
			s.read(o)
		}
	}
}

// sedCmd reads sed: the script is the first operand unless -e or -f
// gives it; -i (-i.bak, --in-place, BSD -i ”) edits the files, which
// are read otherwise.
func sedCmd(s *shellState, _ *simple, args []word) {
	inPlace, script := false, false
	var files []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		switch {
		case a.lit && t == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case a.lit && strings.HasPrefix(t, "--"):
			name, _, eq := strings.Cut(t[2:], "=")
			switch name {
			case "in-place":
				inPlace = true
			case "expression", "file":
				script = true
				if !eq {
					i++
				}
			case "line-length":
				if !eq {
					i++
				}
			}
		case a.lit && len(t) > 1 && t[0] == '-':
		cluster:
			for j := 1; j < len(t); j++ {
				switch t[j] {
				case 'i':
					inPlace = true
					if j == len(t)-1 && i+1 < len(args) && args[i+1].lit && args[i+1].text == "" {
						i++ // BSD sed -i '': an empty suffix
					}
					break cluster
				case 'e', 'f', 'l':
					if t[j] != 'l' {
						script = true
					}
					if j == len(t)-1 {
						i++
					}
					break cluster
				}
			}
		case !script:
			script = true
		default:
			files = append(files, a)
		}
	}
	for _, f := range files {
		if inPlace {
			s.write(f, OpEdit)
		} else {
			s.read(f)
		}
	}
}

// perlCmd reads perl: -i edits the files of -p/-n; without -e the first
// operand is a script, read.
func perlCmd(s *shellState, _ *simple, args []word) {
	inPlace, loop, prog := false, false, false
	var ops []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if !a.lit || len(t) < 2 || t[0] != '-' {
			ops = append(ops, a)
			continue
		}
		if t == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
	cluster:
		for j := 1; j < len(t); j++ {
			switch t[j] {
			case 'i':
				inPlace = true
				break cluster
			case 'p', 'n':
				loop = true
			case 'e', 'E':
				prog = true
				if j == len(t)-1 {
					i++
				}
				break cluster
			case 'I', 'M', 'm':
				if j == len(t)-1 && t[j] == 'I' {
					i++
				}
				break cluster
			case 'l', '0':
				break cluster
			}
		}
	}
	if !prog && len(ops) > 0 {
		s.read(ops[0])
		ops = ops[1:]
	}
	if !loop && !inPlace {
		return
	}
	for _, o := range ops {
		if inPlace {
			s.write(o, OpEdit)
		} else {
			s.read(o)
		}
	}
}

// interp reads an interpreter: its first operand is a script file, read,
// unless an inline option (-c, -e, -m, …) gives the program. Options end
// at the script: "python x.py -c 3" runs x.py.
func interp(f flags, inline ...string) command {
	return func(s *shellState, _ *simple, args []word) {
		for i := 0; i < len(args); i++ {
			a := args[i]
			t := a.text
			if !a.lit || !strings.HasPrefix(t, "-") || t == "-" {
				s.read(a)
				return
			}
			if t == "--" {
				if i+1 < len(args) {
					s.read(args[i+1])
				}
				return
			}
			if strings.HasPrefix(t, "--") {
				name, _, eq := strings.Cut(t[2:], "=")
				if slices.Contains(inline, name) {
					return
				}
				if !eq && slices.Contains(f.long, name) {
					i++
				}
				continue
			}
			for j := 1; j < len(t); j++ {
				if slices.Contains(inline, t[j:j+1]) {
					return
				}
				if strings.IndexByte(f.short, t[j]) >= 0 {
					if j == len(t)-1 {
						i++ // the value follows
					}
					break
				}
			}
		}
	}
}

// shellCmd reads bash and sh: -c runs its script (read as a shell
// command in turn); otherwise the first operand is a script file, read,
// or a here-document is the script.
func shellCmd(s *shellState, c *simple, args []word) {
	for i, a := range args {
		t := a.text
		if a.lit && strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "c") {
			if i+1 < len(args) && args[i+1].lit {
				s.nestedScript(args[i+1].text)
			}
			return
		}
		if a.lit && (t == "-o" || t == "-O" || t == "+o" || t == "+O") {
			continue
		}
		if !strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "+") {
			if i > 0 && (args[i-1].text == "-o" || args[i-1].text == "-O" || args[i-1].text == "+o" || args[i-1].text == "+O") {
				continue
			}
			s.read(a)
			return
		}
	}
	if c.heredoc != "" {
		s.nestedScript(c.heredoc)
	}
}

// nestedScript reads a script run by a shell the command starts, in a
// subshell of its own.
func (s *shellState) nestedScript(script string) {
	if s.depth >= maxShellDepth {
		return
	}
	dir, unknown := s.dir, s.unknown
	s.depth++
	s.script(script)
	s.depth--
	s.dir, s.unknown = dir, unknown
}

// goCmd reads "go run": its .go operands, up to the first that is not.
func goCmd(s *shellState, _ *simple, args []word) {
	if len(args) == 0 || args[0].text != "run" {
		return
	}
	_, ops := parseArgs(args[1:], flags{short: "Cop", long: []string{"exec", "tags", "ldflags", "gcflags", "mod", "modfile", "overlay", "pgo", "C"}})
	for _, o := range ops {
		if !strings.HasSuffix(o.text, ".go") {
			return
		}
		s.read(o)
	}
}

func gofmtCmd(s *shellState, _ *simple, args []word) {
	opts, ops := parseArgs(args, flags{short: "r"})
	for _, o := range ops {
		if has(opts, "w") {
			s.write(o, OpEdit)
		} else {
			s.read(o)
		}
	}
}

func teeCmd(s *shellState, _ *simple, args []word) {
	opts, ops := parseArgs(args, flags{long: []string{"output-error"}})
	op := OpWrite
	if has(opts, "a", "append") {
		op = OpEdit
	}
	for _, o := range ops {
		s.write(o, op)
	}
}

func touchCmd(s *shellState, _ *simple, args []word) {
	opts, ops := parseArgs(args, flags{short: "dtr", long: []string{"date", "reference", "time"}})
	for _, v := range values(opts, "r", "reference") {
		s.read(v)
	}
	for _, o := range ops {
		s.write(o, OpCreate)
	}
}

func truncateCmd(s *shellState, _ *simple, args []word) {
	opts, ops := parseArgs(args, flags{short: "sro", long: []string{"size", "reference"}})
	for _, v := range values(opts, "r", "reference") {
		s.read(v)
	}
	for _, o := range ops {
		s.write(o, OpWrite)
	}
}

// copyCmd reads cp, install and mv: the destination (the last operand,
// or -t's directory) is written; sources are read (cp) or deleted (mv).
func copyCmd(move bool) command {
	return func(s *shellState, _ *simple, args []word) {
		opts, ops := parseArgs(args, flags{short: "tSmog", long: []string{"target-directory", "suffix", "mode", "owner", "group"}})
		dest := values(opts, "t", "target-directory")
		if len(dest) == 0 {
			if len(ops) < 2 {
				return
			}
			dest, ops = ops[len(ops)-1:], ops[:len(ops)-1]
		}
		for _, o := range ops {
			if move {
				s.write(o, OpDelete)
			} else {
				s.read(o)
			}
		}
		s.write(dest[0], OpWrite)
	}
}

// patchCmd reads patch: "patch FILE PATCHFILE" edits FILE and reads
// PATCHFILE; -i reads the patch file, -o writes the output; a
// here-document patch names its files in its "+++ " headers.
func patchCmd(s *shellState, c *simple, args []word) {
	opts, ops := parseArgs(args, flags{short: "pidrBDFoVYzgx", long: []string{"input", "directory", "reject-file", "output", "strip", "prefix", "fuzz", "suffix"}})
	for _, v := range values(opts, "i", "input") {
		s.read(v)
	}
	for _, v := range values(opts, "o", "output") {
		s.write(v, OpWrite)
	}
	if len(ops) > 0 {
		s.write(ops[0], OpEdit)
	}
	if len(ops) > 1 {
		s.read(ops[1])
	}
	if len(ops) == 0 {
		s.diffFiles(c.heredoc)
	}
}

// diffFiles edits the files a unified diff's "+++ " headers name (the
// "b/" prefix of git diffs dropped; /dev/null, a deletion, skipped).
func (s *shellState) diffFiles(diff string) {
	for line := range strings.Lines(diff) {
		rest, ok := strings.CutPrefix(line, "+++ ")
		if !ok {
			continue
		}
		p, _, _ := strings.Cut(strings.TrimSpace(rest), "\t")
		p = strings.TrimPrefix(p, "b/")
		s.write(word{p, true}, OpEdit)
	}
}

// outputCmd writes the file a download command's output option names.
func outputCmd(f flags, names ...string) command {
	return func(s *shellState, _ *simple, args []word) {
		opts, _ := parseArgs(args, f)
		for _, v := range values(opts, names...) {
			if v.text != "-" {
				s.write(v, OpWrite)
			}
		}
	}
}
