package tooluse

import (
	"path"
	"slices"
	"strings"
)

// unwrap skips assignments and wrapper commands (sudo, env, xargs, …) to
// the command they run.
func (s *shellState) unwrap(w []word, c *simple) []word {
	for len(w) > 0 {
		t := w[0].text
		if isAssign(w[0]) {
			w = w[1:]
			continue
		}
		switch path.Base(t) {
		case "sudo":
			w = skipOpts(w[1:], flags{short: "ugpCDhrtTU", long: []string{"user", "group", "prompt"}}, false)
		case "env":
			w = skipOpts(w[1:], flags{short: "uCS", long: []string{"unset", "chdir", "split-string"}}, true)
		case "time", "nohup", "command", "exec", "builtin", "then", "do", "else":
			w = skipOpts(w[1:], flags{}, false)
		case "nice":
			w = skipOpts(w[1:], flags{short: "n", long: []string{"adjustment"}}, false)
		case "stdbuf":
			w = skipOpts(w[1:], flags{short: "ioe", long: []string{"input", "output", "error"}}, false)
		case "timeout":
			w = skipOpts(w[1:], flags{short: "ks", long: []string{"kill-after", "signal"}}, false)
			if len(w) > 0 {
				w = w[1:] // the duration
			}
		case "xargs":
			rest := skipOpts(w[1:], flags{short: "aEdIiLlnPs", long: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "max-lines", "replace", "eof"}}, false)
			if len(rest) == 0 {
				return nil
			}
			w = rest
			c.piped = true
		default:
			return w
		}
	}
	return w
}

// isAssign reports whether a word is NAME=value.
func isAssign(w word) bool {
	name, _, ok := strings.Cut(w.text, "=")
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// skipOpts drops leading options (and, with assigns, NAME=value words).
func skipOpts(w []word, f flags, assigns bool) []word {
	for len(w) > 0 {
		t := w[0].text
		switch {
		case t == "--":
			return w[1:]
		case assigns && isAssign(w[0]):
			w = w[1:]
		case len(t) > 1 && t[0] == '-':
			n := 1
			if f.takesValue(t) {
				n = 2
			}
			w = w[min(n, len(w)):]
		default:
			return w
		}
	}
	return w
}

// flags lists a command's options that take a value: short letters, and
// long names (given as "--name value"; "--name=value" needs no entry).
type flags struct {
	short string
	long  []string
}

// takesValue reports whether option word t takes the next word as its
// value.
func (f flags) takesValue(t string) bool {
	if strings.HasPrefix(t, "--") {
		return !strings.Contains(t, "=") && slices.Contains(f.long, t[2:])
	}
	for i := 1; i < len(t); i++ {
		if strings.IndexByte(f.short, t[i]) >= 0 {
			return i == len(t)-1
		}
	}
	return false
}

// opt is one option given: its name (a letter, or a long name) and value.
type opt struct {
	name  string
	value word
}

// parseArgs splits a command's arguments into options and operands, the
// getopt way: options may be clustered (-rn), a value may be attached
// (-n20, --lines=20) or follow (-n 20), and "--" ends the options.
// Words that are not literal are operands.
func parseArgs(args []word, f flags) (opts []opt, operands []word) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		switch {
		case !a.lit && !strings.HasPrefix(t, "-"):
			operands = append(operands, a)
		case t == "--":
			return opts, append(operands, args[i+1:]...)
		case strings.HasPrefix(t, "--"):
			name, val, ok := strings.Cut(t[2:], "=")
			o := opt{name: name}
			if ok {
				o.value = word{val, a.lit}
			} else if slices.Contains(f.long, name) && i+1 < len(args) {
				i++
				o.value = args[i]
			}
			opts = append(opts, o)
		case len(t) > 1 && t[0] == '-':
			for j := 1; j < len(t); j++ {
				o := opt{name: t[j : j+1]}
				if strings.IndexByte(f.short, t[j]) >= 0 {
					if j+1 < len(t) {
						o.value = word{t[j+1:], a.lit}
					} else if i+1 < len(args) {
						i++
						o.value = args[i]
					}
					opts = append(opts, o)
					break
				}
				opts = append(opts, o)
			}
		default:
			operands = append(operands, a)
		}
	}
	return opts, operands
}

// has reports whether any of names was given.
func has(opts []opt, names ...string) bool {
	for _, o := range opts {
		if slices.Contains(names, o.name) {
			return true
		}
	}
	return false
}

// values returns the values of the options named names.
func values(opts []opt, names ...string) []word {
	var out []word
	for _, o := range opts {
		if slices.Contains(names, o.name) && o.value.text != "" {
			out = append(out, o.value)
		}
	}
	return out
}
