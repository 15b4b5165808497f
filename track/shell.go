package track

import (
	"path"
	"strings"
)

// segment is one simple command of a shell line: its words (quotes
// removed) and the files its output is redirected to.
type segment struct {
	words []string
	outs  []string
	raw   string // the command's source text, trimmed
}

// shellSplit splits a shell command into simple commands on ;, &, &&,
// ||, |, parentheses and new lines, outside quotes. Here-document bodies
// are skipped. It is a tokenizer for classification, not a shell parser:
// it never fails.
func shellSplit(cmd string) []segment {
	var (
		segs    []segment
		cur     segment
		word    strings.Builder
		inWord  bool
		quote   byte
		nextOut bool
		nextIn  bool
		nextDoc bool
		heredoc []string
		start   int
		pos     int
	)
	endWord := func() {
		if !inWord {
			return
		}
		w := word.String()
		word.Reset()
		inWord = false
		switch {
		case nextOut:
			cur.outs = append(cur.outs, w)
			nextOut = false
		case nextDoc:
			heredoc = append(heredoc, strings.TrimPrefix(w, "-"))
			nextDoc = false
		case nextIn:
			nextIn = false
		default:
			cur.words = append(cur.words, w)
		}
	}
	endSeg := func() {
		endWord()
		if len(cur.words) > 0 || len(cur.outs) > 0 {
			cur.raw = strings.TrimSpace(cmd[start:min(pos, len(cmd))])
			segs = append(segs, cur)
		}
		start = min(pos+1, len(cmd))
		cur = segment{}
		nextOut, nextIn, nextDoc = false, false, false
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		pos = i
		if quote != 0 {
			switch {
			case c == quote:
				quote = 0
			case quote == '"' && c == '\\' && i+1 < len(cmd):
				i++
				word.WriteByte(cmd[i])
			default:
				word.WriteByte(c)
			}
			continue
		}
		switch c {
		case '\'', '"':
			quote, inWord = c, true
		case '\\':
			if i+1 < len(cmd) {
				i++
				if cmd[i] != '\n' {
					word.WriteByte(cmd[i])
					inWord = true
				}
			}
		case ' ', '\t', '\r':
			endWord()
		case '\n':
			endSeg()
			// Skip here-document bodies up to their delimiters.
			for _, delim := range heredoc {
				for i+1 < len(cmd) {
					j := strings.IndexByte(cmd[i+1:], '\n')
					var line string
					if j < 0 {
						line, i = cmd[i+1:], len(cmd)
					} else {
						line, i = cmd[i+1:i+1+j], i+1+j
					}
					if strings.TrimSpace(line) == delim {
						break
					}
				}
			}
			heredoc = heredoc[:0]
			start = min(i+1, len(cmd))
		case ';', '|', '(', ')', '`':
			endSeg()
		case '&':
			if i+1 < len(cmd) && cmd[i+1] == '>' {
				endWord()
				i++
				if i+1 < len(cmd) && cmd[i+1] == '>' {
					i++
				}
				nextOut = true
				continue
			}
			endSeg()
		case '>':
			// A word of digits right before '>' is a file descriptor.
			if inWord && isDigits(word.String()) {
				word.Reset()
				inWord = false
			}
			endWord()
			if i+1 < len(cmd) && cmd[i+1] == '>' {
				i++
			}
			if i+1 < len(cmd) && cmd[i+1] == '&' {
				// >&2: a descriptor, not a file.
				i++
				for i+1 < len(cmd) && (cmd[i+1] >= '0' && cmd[i+1] <= '9' || cmd[i+1] == '-') {
					i++
				}
				continue
			}
			nextOut = true
		case '<':
			endWord()
			if i+1 < len(cmd) && cmd[i+1] == '<' {
				i++
				if i+1 < len(cmd) && cmd[i+1] == '<' { // here-string
					i++
					nextIn = true
					continue
				}
				nextDoc = true
				continue
			}
			nextIn = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	pos = len(cmd)
	endSeg()
	return segs
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// shellAnalyze classifies each simple command of cmd into a.
func shellAnalyze(cmd string, a *analysis) {
	for _, s := range shellSplit(cmd) {
		for _, o := range s.outs {
			if o != "" && !strings.HasPrefix(o, "/dev/") && !strings.HasPrefix(o, "&") {
				a.writes = append(a.writes, write{o, "redirect"})
			}
		}
		w := s.words
		for len(w) > 0 && (strings.Contains(w[0], "=") && !strings.HasPrefix(w[0], "-") ||
			w[0] == "sudo" || w[0] == "time" || w[0] == "nohup" || w[0] == "env" || w[0] == "command" || w[0] == "exec") {
			w = w[1:]
		}
		if len(w) == 0 {
			continue
		}
		name := path.Base(w[0])
		if name == "git" && len(w) > 1 && w[1] == "grep" {
			name = "git grep"
		}
		switch name {
		case "cat", "head", "tail", "nl", "less", "more", "bat":
			a.reads = append(a.reads, operands(w[1:], name == "head" || name == "tail")...)
		case "sed":
			inPlace, quiet, script := false, false, false
			var files []string
			for i := 1; i < len(w); i++ {
				x := w[i]
				switch {
				case x == "-i" || strings.HasPrefix(x, "-i") && !strings.HasPrefix(x, "-in") || strings.HasPrefix(x, "--in-place"):
					inPlace = true
				case x == "-n" || x == "--quiet" || x == "--silent":
					quiet = true
				case x == "-e" || x == "-f":
					script = true
					i++
				case strings.HasPrefix(x, "-") && len(x) > 1:
					if strings.Contains(x, "i") {
						inPlace = true
					}
					if strings.Contains(x, "n") {
						quiet = true
					}
				case !script:
					script = true
				default:
					files = append(files, x)
				}
			}
			for _, f := range files {
				if inPlace {
					a.writes = append(a.writes, write{f, "edit"})
				} else if quiet {
					a.reads = append(a.reads, f)
				}
			}
		case "tee":
			for _, f := range operands(w[1:], false) {
				if !strings.HasPrefix(f, "/dev/") {
					a.writes = append(a.writes, write{f, "write"})
				}
			}
		case "rm":
			for _, f := range operands(w[1:], false) {
				a.writes = append(a.writes, write{f, "delete"})
			}
		case "grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "git grep":
			a.searches = append(a.searches, s.raw)
		}
	}
}

// operands returns the non-flag arguments; with numeric, the value after
// -n/-c (head, tail) is skipped too.
func operands(args []string, numeric bool) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		x := args[i]
		if x == "--" {
			return append(out, args[i+1:]...)
		}
		if strings.HasPrefix(x, "-") && len(x) > 1 {
			if numeric && (x == "-n" || x == "-c" || x == "--lines" || x == "--bytes") {
				i++
			}
			continue
		}
		if numeric && strings.HasPrefix(x, "+") {
			continue
		}
		out = append(out, x)
	}
	return out
}
