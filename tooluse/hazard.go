package tooluse

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Hazard is one reason a shell command is asked about before it runs,
// even when the user allowed every command (agentctx chat --yes): a
// command whose effect is destructive or runs code nobody read.
type Hazard struct {
	// Reason says what the command would do, in a few words ("rm -r
	// outside the project").
	Reason string
	// Source is the part of the command that does it, trimmed; the whole
	// command when it could not be parsed.
	Source string
}

// HazardOptions is what [Hazards] resolves paths against. The zero value
// resolves relative paths against an unknown directory: only absolute
// paths are placed.
type HazardOptions struct {
	// Root is the project directory, absolute. Paths inside it are the
	// project's; a relative path is joined to it (or to a literal cd's
	// target). Optional.
	Root string
	// Home is the user's home directory, absolute: what ~ and $HOME
	// stand for. Optional: without it they are outside every project.
	Home string
}

// Hazards reads a shell command (bash syntax, mvdan.cc/sh/v3) and returns
// what in it must be asked about even under --yes, in source order; nil
// when nothing is. The rules:
//
//   - a shell or interpreter reading a pipe (curl … | sh, wget -O- |
//     sudo bash, … | python3 -), a process substitution (bash <(curl
//     …), source <(…)), or a script built at run time (sh -c "$(…)",
//     eval "$x");
//   - rm of / or the home directory; rm -r (or -R, --recursive) of a path
//     outside the project, of the project itself, or of a path that
//     cannot be known before it runs ($VAR, xargs, find's {});
//     --no-preserve-root;
//   - find with -delete, or -exec/-execdir/-ok running rm, shred or
//     unlink;
//   - chmod, chown or chgrp of / or the home directory, or recursive
//     outside the project;
//   - a write to a device (> /dev/sda, dd of=/dev/…, tee /dev/…, cp …
//     /dev/…; /dev/null, /dev/stdout, /dev/tty and the like are not
//     devices here); mkfs and its kin (mke2fs, mkswap, wipefs, fdisk,
//     parted, blkdiscard); shred of a device;
//   - a fork bomb: a function that calls itself in a pipe or the
//     background (:(){ :|:& };:);
//   - git push --force (-f, --force-with-lease, a +refspec); kill -1 (every
//     process); shutdown, reboot, halt, poweroff;
//   - a command the parser cannot read.
//
// Wrappers are seen through: sudo, doas, env, nohup, setsid, time, nice,
// ionice, timeout, stdbuf, command, builtin, exec, busybox, chroot and
// xargs; bash -c, sh -c and eval with literal scripts are read as
// commands in turn, up to 4 levels deep. A literal cd moves the
// directory later relative paths are joined to. Hazards is a pure
// function, safe for concurrent use; a command over [MaxShellBytes] is a
// hazard itself.
func Hazards(command string, o HazardOptions) []Hazard {
	if strings.TrimSpace(command) == "" {
		return nil
	}
	h := &hazards{o: o, dir: path.Clean(o.Root)}
	if o.Root == "" {
		h.dirUnknown = true
	}
	if len(command) > MaxShellBytes {
		h.add("a command too long to read", command)
		return h.out
	}
	h.script(command)
	return h.out
}

type hazards struct {
	o          HazardOptions
	dir        string
	dirUnknown bool
	depth      int
	src        string
	out        []Hazard
}

func (h *hazards) add(reason, src string) {
	src = strings.TrimSpace(src)
	for _, x := range h.out {
		if x.Reason == reason && x.Source == src {
			return
		}
	}
	h.out = append(h.out, Hazard{Reason: reason, Source: src})
}

// addAt records a hazard whose source is node's text.
func (h *hazards) addAt(reason string, n syntax.Node) {
	from, to := int(n.Pos().Offset()), int(n.End().Offset())
	src := h.src
	if from >= 0 && to <= len(h.src) && from < to {
		src = h.src[from:to]
	}
	h.add(reason, src)
}

func (h *hazards) script(cmd string) {
	f, ok := parse(cmd)
	if !ok {
		h.add("a command the shell parser cannot read", cmd)
		return
	}
	saved := h.src
	h.src = cmd
	syntax.Walk(f, h.visit)
	h.src = saved
}

// nested reads a script a command runs (bash -c, eval).
func (h *hazards) nested(script string, at syntax.Node) {
	if h.depth >= maxShellDepth {
		h.addAt("shells nested too deep to read", at)
		return
	}
	dir, unknown := h.dir, h.dirUnknown
	h.depth++
	h.script(script)
	h.depth--
	h.dir, h.dirUnknown = dir, unknown
}

func (h *hazards) visit(n syntax.Node) bool {
	switch x := n.(type) {
	case *syntax.FuncDecl:
		h.funcDecl(x)
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			if c := firstCall(x.Y); c != nil && h.readsStdin(c.Args) {
				h.addAt("a pipe into a shell or interpreter, which runs what the command before it prints", x)
			}
		}
	case *syntax.Stmt:
		h.stdin(x)
	case *syntax.CallExpr:
		h.call(x.Args, x)
	case *syntax.Redirect:
		switch x.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob,
			syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut, syntax.DplOut:
			if x.Word != nil && h.device(x.Word) {
				h.addAt("a write to a device", x)
			}
		}
	}
	return true
}

// stdin finds a shell fed a script from a process substitution (bash <
// <(curl …)) or one built when it runs (bash <<< "$(curl …)").
func (h *hazards) stdin(st *syntax.Stmt) {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || !h.readsStdin(c.Args) {
		return
	}
	for _, r := range st.Redirs {
		switch {
		case r.Op == syntax.RdrIn && procSubst(r.Word):
			h.addAt("a shell running the output of a process substitution", st)
		case r.Op == syntax.WordHdoc && r.Word != nil && !plain(r.Word):
			h.addAt("a shell running a script built when it runs", st)
		}
	}
}

// firstCall returns the simple command that reads a pipe's input: the
// first of a pipeline.
func firstCall(st *syntax.Stmt) *syntax.CallExpr {
	if st == nil {
		return nil
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		return c
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			return firstCall(c.X)
		}
	}
	return nil
}

// lit returns w's text when w is fully literal (nil: not literal).
func lit(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	x := wordOf(w)
	return x.text, x.lit
}

// name returns the base name of a command word, "" when not literal.
func name(w *syntax.Word) string {
	t, ok := lit(w)
	if !ok {
		return ""
	}
	return path.Base(t)
}

// wrapperArgs are the options of wrappers that take a separate argument.
var wrapperArgs = map[string]string{
	"sudo": "ugpChDrtU", "doas": "uC", "env": "uCS", "timeout": "sk", "nice": "n",
	"ionice": "cnp", "stdbuf": "ioe", "exec": "a", "setsid": "", "nohup": "",
	"time": "fo", "command": "", "builtin": "", "busybox": "", "chroot": "", "unbuffer": "",
}

// unwrap drops wrapper commands (sudo, env, timeout …) from args and
// returns the command they run.
func unwrap(args []*syntax.Word) []*syntax.Word {
	for len(args) > 0 {
		n := name(args[0])
		opts, ok := wrapperArgs[n]
		if !ok {
			return args
		}
		args = args[1:]
		for len(args) > 0 {
			t, isLit := lit(args[0])
			if !isLit {
				break
			}
			if t == "--" {
				args = args[1:]
				break
			}
			if n == "env" && strings.Contains(t, "=") && !strings.HasPrefix(t, "-") {
				args = args[1:]
				continue
			}
			if len(t) < 2 || t[0] != '-' {
				break
			}
			args = args[1:]
			if len(t) == 2 && strings.IndexByte(opts, t[1]) >= 0 && len(args) > 0 {
				args = args[1:]
			}
		}
		switch n {
		case "timeout", "chroot":
			if len(args) > 0 {
				args = args[1:] // the duration, the new root
			}
		case "command":
			// command -v and -V look a name up; they run nothing.
		}
	}
	return args
}

var shells = map[string]bool{"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "ash": true, "mksh": true, "tcsh": true, "csh": true}

var interpreters = map[string]bool{
	"python": true, "python2": true, "python3": true, "perl": true, "ruby": true, "node": true,
	"nodejs": true, "php": true, "lua": true, "Rscript": true, "osascript": true, "pwsh": true,
}

// readsStdin reports whether a command run at the end of a pipe runs
// the pipe as a program: a shell or interpreter without a script of its
// own (no -c, -e, no script operand, or "-" or -s).
func (h *hazards) readsStdin(args []*syntax.Word) bool {
	args = unwrap(args)
	if len(args) == 0 {
		return false
	}
	n := name(args[0])
	if !shells[n] && !interpreters[n] && !isVersioned(n) {
		return false
	}
	for _, a := range args[1:] {
		t, ok := lit(a)
		if !ok {
			return false
		}
		switch {
		case t == "-" || t == "-s" || t == "--":
			return true
		case strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t[1:], "c"),
			(interpreters[n] || isVersioned(n)) && strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.ContainsAny(t[1:], "eEm"):
			return false // an inline script or a module: reads no program from the pipe
		case strings.HasPrefix(t, "-"):
		default:
			return false // a script file
		}
	}
	return true
}

// isVersioned reports python3.12, perl5.36 and the like.
func isVersioned(n string) bool {
	for p := range interpreters {
		if strings.HasPrefix(n, p) && strings.Trim(n[len(p):], "0123456789.") == "" {
			return true
		}
	}
	return false
}

// procSubst reports a word that is a process substitution, <(…).
func procSubst(w *syntax.Word) bool {
	if w == nil || len(w.Parts) != 1 {
		return false
	}
	_, ok := w.Parts[0].(*syntax.ProcSubst)
	return ok
}

var diskTools = map[string]bool{
	"mkfs": true, "mke2fs": true, "mkswap": true, "wipefs": true, "fdisk": true, "sfdisk": true,
	"cfdisk": true, "gdisk": true, "sgdisk": true, "parted": true, "blkdiscard": true,
}

// call reads one simple command. A nil word in args is one whose value
// is unknown before it runs (find's {}, what xargs appends).
func (h *hazards) call(args []*syntax.Word, at syntax.Node) {
	args = unwrap(args)
	if len(args) == 0 {
		return
	}
	n := name(args[0])
	rest := args[1:]
	switch {
	case shells[n]:
		for i, a := range rest {
			t, ok := lit(a)
			if ok && strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "c") {
				if i+1 >= len(rest) {
					return
				}
				if script, ok := lit(rest[i+1]); ok {
					h.nested(script, at)
				} else {
					h.addAt("a shell running a script built when it runs", at)
				}
				return
			}
			if procSubst(a) {
				h.addAt("a shell running the output of a process substitution", at)
				return
			}
			if !ok || !strings.HasPrefix(t, "-") {
				return
			}
		}
	case n == "source" || n == ".":
		if len(rest) > 0 && procSubst(rest[0]) {
			h.addAt("a shell running the output of a process substitution", at)
		}
	case n == "eval":
		var sb strings.Builder
		for _, a := range rest {
			t, ok := lit(a)
			if !ok {
				h.addAt("eval of a script built when it runs", at)
				return
			}
			sb.WriteString(t)
			sb.WriteByte(' ')
		}
		h.nested(sb.String(), at)
	case n == "cd":
		h.cd(rest)
	case n == "rm":
		h.rm(rest, at)
	case n == "find":
		h.find(rest, at)
	case n == "xargs":
		h.xargs(rest, at)
	case n == "chmod" || n == "chown" || n == "chgrp":
		h.chmod(n, rest, at)
	case n == "dd":
		for _, a := range rest {
			if t, ok := lit(a); ok && strings.HasPrefix(t, "of=") && isDevice(t[3:]) {
				h.addAt("dd to a device", at)
			}
		}
	case diskTools[n] || strings.HasPrefix(n, "mkfs."):
		h.addAt(n+": formats or wipes a disk", at)
	case n == "shred" || n == "tee" || n == "cp" || n == "mv" || n == "install" || n == "truncate":
		for _, a := range rest {
			if h.device(a) {
				h.addAt("a write to a device", at)
				return
			}
		}
		if n == "mv" {
			for _, a := range operands(rest) {
				if h.place(a) == placeTop {
					h.addAt("mv of / or the home directory", at)
					return
				}
			}
		}
	case n == "git":
		h.git(rest, at)
	case n == "kill":
		for i, a := range rest {
			if t, ok := lit(a); ok && t == "-1" && i > 0 {
				h.addAt("kill -1: signals every process", at)
				return
			}
		}
	case n == "shutdown" || n == "reboot" || n == "halt" || n == "poweroff":
		h.addAt(n+" of the machine", at)
	case n == "systemctl":
		for _, a := range rest {
			if t, _ := lit(a); t == "poweroff" || t == "reboot" || t == "halt" {
				h.addAt("systemctl "+t+" of the machine", at)
			}
		}
	}
}

// operands returns the words of args that are not options (up to "--",
// after which all are); unknown words are operands.
func operands(args []*syntax.Word) []*syntax.Word {
	var out []*syntax.Word
	dash := false
	for _, a := range args {
		t, ok := lit(a)
		if !dash && ok && t == "--" {
			dash = true
			continue
		}
		if !dash && ok && strings.HasPrefix(t, "-") && t != "-" {
			continue
		}
		out = append(out, a)
	}
	return out
}

// recursive reports -r, -R or --recursive among args' options.
func recursive(args []*syntax.Word) bool {
	for _, a := range args {
		t, ok := lit(a)
		if !ok {
			continue
		}
		if t == "--" {
			return false
		}
		if t == "--recursive" {
			return true
		}
		if strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.ContainsAny(t, "rR") {
			return true
		}
	}
	return false
}

func (h *hazards) rm(args []*syntax.Word, at syntax.Node) {
	for _, a := range args {
		if t, ok := lit(a); ok && t == "--no-preserve-root" {
			h.addAt("rm --no-preserve-root", at)
			return
		}
	}
	rec := recursive(args)
	for _, a := range operands(args) {
		switch p := h.place(a); {
		case p == placeTop:
			h.addAt("rm of / or the home directory", at)
			return
		case rec && p == placeProject:
			h.addAt("rm -r of the whole project", at)
			return
		case rec && (p == placeOutside || p == placeUnknown):
			h.addAt("rm -r outside the project or of a path known only when it runs", at)
			return
		}
	}
}

func (h *hazards) find(args []*syntax.Word, at syntax.Node) {
	for i := 0; i < len(args); i++ {
		t, _ := lit(args[i])
		switch t {
		case "-delete":
			h.addAt("find -delete", at)
		case "-exec", "-execdir", "-ok", "-okdir":
			var sub []*syntax.Word
			for i++; i < len(args); i++ {
				t, _ := lit(args[i])
				if t == ";" || t == "+" {
					break
				}
				if t == "{}" {
					sub = append(sub, nil)
					continue
				}
				sub = append(sub, args[i])
			}
			if c := unwrap(sub); len(c) > 0 {
				if n := name(c[0]); n == "rm" || n == "shred" || n == "unlink" {
					h.addAt("find -exec "+n, at)
					continue
				}
			}
			h.call(sub, at)
		}
	}
}

// xargsArgs are xargs options that take a separate argument.
const xargsArgs = "IinLlPsdEa"

func (h *hazards) xargs(args []*syntax.Word, at syntax.Node) {
	for len(args) > 0 {
		t, ok := lit(args[0])
		if !ok || len(t) < 2 || t[0] != '-' {
			break
		}
		args = args[1:]
		if t == "--" {
			break
		}
		if len(t) == 2 && strings.IndexByte(xargsArgs, t[1]) >= 0 && len(args) > 0 {
			args = args[1:]
		}
	}
	if len(args) == 0 {
		return
	}
	// What xargs appends is known only when it runs.
	h.call(append(args[:len(args):len(args)], nil), at)
}

func (h *hazards) chmod(n string, args []*syntax.Word, at syntax.Node) {
	rec := recursive(args)
	ops := operands(args)
	ref := false
	for _, a := range args {
		if t, _ := lit(a); strings.HasPrefix(t, "--reference") {
			ref = true
		}
	}
	if !ref && len(ops) > 0 {
		ops = ops[1:] // the mode or owner
	}
	for _, a := range ops {
		switch p := h.place(a); {
		case p == placeTop:
			h.addAt(n+" of / or the home directory", at)
			return
		case rec && (p == placeOutside || p == placeUnknown):
			h.addAt("recursive "+n+" outside the project", at)
			return
		}
	}
}

func (h *hazards) git(args []*syntax.Word, at syntax.Node) {
	i := 0
	for i < len(args) {
		t, ok := lit(args[i])
		if !ok || !strings.HasPrefix(t, "-") {
			break
		}
		i++
		if t == "-C" || t == "-c" {
			i++
		}
	}
	if i >= len(args) {
		return
	}
	if t, _ := lit(args[i]); t != "push" {
		return
	}
	for _, a := range args[i+1:] {
		t, ok := lit(a)
		if !ok {
			continue
		}
		if t == "--force" || t == "--force-with-lease" || strings.HasPrefix(t, "--force-with-lease=") || t == "--mirror" ||
			(strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "f")) ||
			(strings.HasPrefix(t, "+") && len(t) > 1) {
			h.addAt("git push --force", at)
			return
		}
	}
}

func (h *hazards) funcDecl(f *syntax.FuncDecl) {
	if f.Name == nil {
		return
	}
	self := f.Name.Value
	calls, spawns := false, false
	syntax.Walk(f.Body, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CallExpr:
			if len(x.Args) > 0 && name(x.Args[0]) == self {
				calls = true
			}
		case *syntax.Stmt:
			if x.Background {
				spawns = true
			}
		case *syntax.BinaryCmd:
			if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
				spawns = true
			}
		}
		return true
	})
	if calls && spawns {
		h.addAt("a fork bomb: a function that starts copies of itself", f)
	}
}

func (h *hazards) cd(args []*syntax.Word) {
	ops := operands(args)
	if len(ops) == 0 {
		if h.o.Home != "" {
			h.dir, h.dirUnknown = path.Clean(h.o.Home), false
		} else {
			h.dirUnknown = true
		}
		return
	}
	p, whole, known := h.resolve(ops[0])
	if !whole || !known {
		h.dirUnknown = true
		return
	}
	h.dir, h.dirUnknown = p, false
}

// place is where a path operand lies.
type place int

const (
	placeInside  place = iota // inside the project, not the project itself
	placeProject              // the project directory itself
	placeOutside              // outside the project, not / or the home
	placeTop                  // / or the home directory (or above it)
	placeUnknown              // known only when the command runs
)

// resolve returns the path w names, cleaned and absolute. whole is false
// when w holds a glob or an expansion: p is then the directory its
// literal prefix names, the one whose entries it matches. known is false
// when even that cannot be told (a leading $VAR, a relative path after a
// cd to an unknown place, ~user).
func (h *hazards) resolve(w *syntax.Word) (p string, whole, known bool) {
	if w == nil {
		return "", false, false
	}
	var sb strings.Builder
	whole = true
	expansion := false
parts:
	for i, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			v := x.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				rest := v[1:]
				if rest != "" && rest[0] != '/' {
					return "", false, false // ~user
				}
				if h.o.Home == "" {
					return "", false, false
				}
				sb.WriteString(h.o.Home)
				v = rest
			}
			if g := globAt(v); g >= 0 {
				unescape(&sb, v[:g], false)
				whole = false
				break parts
			}
			unescape(&sb, v, false)
		case *syntax.SglQuoted:
			sb.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				switch y := q.(type) {
				case *syntax.Lit:
					unescape(&sb, y.Value, true)
				case *syntax.ParamExp:
					if !h.home(y, &sb) {
						whole, expansion = false, true
						break parts
					}
				default:
					whole, expansion = false, true
					break parts
				}
			}
		case *syntax.ParamExp:
			if !h.home(x, &sb) {
				whole, expansion = false, true
				break parts
			}
		default:
			whole, expansion = false, true
			break parts
		}
	}
	s := sb.String()
	if !whole {
		// The directory whose entries the pattern matches.
		i := strings.LastIndexByte(s, '/')
		if i < 0 {
			if expansion {
				return "", false, false
			}
			s = ""
		} else {
			s = s[:i+1]
		}
	}
	if s == "" && whole {
		return "", whole, false
	}
	if !path.IsAbs(s) {
		if h.dirUnknown {
			return "", whole, false
		}
		s = path.Join(h.dir, s)
	}
	return path.Clean(s), whole, true
}

// home writes $HOME's value for a plain $HOME or ${HOME}; false for any
// other expansion.
func (h *hazards) home(pe *syntax.ParamExp, sb *strings.Builder) bool {
	if pe.Param == nil || pe.Param.Value != "HOME" || h.o.Home == "" || pe.Exp != nil || pe.Repl != nil || pe.Slice != nil || pe.Index != nil || pe.Length || pe.Excl {
		return false
	}
	sb.WriteString(h.o.Home)
	return true
}

// globAt returns the index of the first unescaped glob character in a
// literal, or -1.
func globAt(v string) int {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return i
		case '{':
			if strings.IndexByte(v[i:], ',') >= 0 || strings.Contains(v[i:], "..") {
				return i
			}
		}
	}
	return -1
}

// place says where the path w names lies.
func (h *hazards) place(w *syntax.Word) place {
	p, whole, known := h.resolve(w)
	if !known {
		return placeUnknown
	}
	// / or the home, or a directory above the home (/home); for a
	// pattern, the directory whose entries it matches, which is as bad.
	if home := path.Clean(h.o.Home); p == "/" || (h.o.Home != "" && (p == home || within(home, p))) {
		return placeTop
	}
	if h.o.Root == "" {
		return placeOutside
	}
	root := path.Clean(h.o.Root)
	switch {
	case p == root && whole:
		return placeProject
	case p == root || within(p, root):
		return placeInside
	}
	return placeOutside
}

// within reports whether p lies strictly below dir.
func within(p, dir string) bool {
	if dir == "/" {
		return p != "/"
	}
	return strings.HasPrefix(p, dir+"/")
}

// devices that are no disk: writing them is harmless.
var harmlessDevices = map[string]bool{
	"/dev/null": true, "/dev/zero": true, "/dev/full": true, "/dev/stdout": true, "/dev/stderr": true,
	"/dev/stdin": true, "/dev/tty": true, "/dev/random": true, "/dev/urandom": true, "/dev/ptmx": true,
}

// isDevice reports whether a literal path is a device other than the
// harmless ones.
func isDevice(p string) bool {
	p = path.Clean(p)
	if !strings.HasPrefix(p, "/dev/") || harmlessDevices[p] {
		return false
	}
	for _, d := range []string{"/dev/fd/", "/dev/shm/", "/dev/pts/", "/dev/mqueue/"} {
		if strings.HasPrefix(p, d) {
			return false
		}
	}
	return true
}

// device reports whether w names a device (or a path under /dev whose
// rest is known only when it runs).
func (h *hazards) device(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	t, ok := lit(w)
	if ok {
		if isDigits(t) || t == "-" {
			return false
		}
		if !path.IsAbs(t) && !h.dirUnknown {
			t = path.Join(h.dir, t)
		}
		return isDevice(t)
	}
	p, _, known := h.resolve(w)
	return known && (p == "/dev" || isDevice(p))
}
