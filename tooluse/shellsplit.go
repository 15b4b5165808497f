package tooluse

import "strings"

// redir is a redirection the fallback splitter found: its target and
// whether it writes (op) or reads (read).
type redir struct {
	target word
	op     Op
	read   bool
}

// splitShell is the fallback for a command the parser rejects (an
// unterminated quote, a stray "fi"): a tokenizer, not a parser, that
// never fails. It splits cmd into simple commands at ;, &, &&, |, ||,
// (, ), `, and new lines outside quotes; splits each into words with
// quotes and backslash escapes removed as the shell would (an
// unterminated quote runs to the end); drops leading keywords (if, then,
// do, {, !, …) so that "then sed -i …" is sed; reads the redirections
// >, >>, &>, < and their targets (a digit word before > is a
// descriptor, >&2 too); and takes a here-document's body (up to its
// delimiter line) or a here-string as the command's input. A word with
// $, an unquoted glob or a brace list is not literal and names no file.
func splitShell(cmd string) []simple {
	t := splitter{cmd: cmd}
	t.run()
	return t.out
}

type splitter struct {
	cmd     string
	out     []simple
	cur     simple
	redirs  []redir
	word    strings.Builder
	inWord  bool
	lit     bool
	start   int
	piped   bool
	next    int      // what the next word is: 0 a word, 1 a redirect target, 2 a here-doc delimiter, 3 a here-string
	nextOp  Op       // for next == 1
	nextRd  bool     // for next == 1: a read
	pending []string // here-document delimiters waiting for the line's end
	docIdx  []int    // index in out (or -1: cur) of each pending here-doc's command
}

func (t *splitter) run() {
	t.lit = true
	cmd := t.cmd
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch c {
		case '\'':
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				j = len(cmd) - i - 1
			}
			t.word.WriteString(cmd[i+1 : i+1+j])
			t.inWord = true
			i += j + 1
		case '"':
			i = t.dquote(i + 1)
		case '\\':
			if i+1 < len(cmd) {
				i++
				if cmd[i] != '\n' {
					t.word.WriteByte(cmd[i])
					t.inWord = true
				}
			}
		case ' ', '\t', '\r':
			t.endWord()
		case '\n':
			t.endCmd(i, false)
			i = t.heredocs(i)
		case ';', '(', ')', '`':
			t.endCmd(i, false)
		case '|':
			t.endCmd(i, i+1 >= len(cmd) || cmd[i+1] != '|')
			if i+1 < len(cmd) && (cmd[i+1] == '|' || cmd[i+1] == '&') {
				i++
			}
		case '&':
			if i+1 < len(cmd) && cmd[i+1] == '>' {
				t.endWord()
				i++
				t.next, t.nextOp, t.nextRd = 1, OpWrite, false
				if i+1 < len(cmd) && cmd[i+1] == '>' {
					i++
					t.nextOp = OpEdit
				}
				continue
			}
			t.endCmd(i, false)
			if i+1 < len(cmd) && cmd[i+1] == '&' {
				i++
			}
		case '>':
			if t.inWord && t.next == 0 && isDigits(t.word.String()) {
				t.word.Reset()
				t.inWord = false
			}
			t.endWord()
			t.next, t.nextOp, t.nextRd = 1, OpWrite, false
			if i+1 < len(cmd) && cmd[i+1] == '>' {
				i++
				t.nextOp = OpEdit
			}
			if i+1 < len(cmd) && cmd[i+1] == '|' {
				i++
			}
			if i+1 < len(cmd) && cmd[i+1] == '&' { // >&2, >&-: a descriptor
				i++
				for i+1 < len(cmd) && (cmd[i+1] >= '0' && cmd[i+1] <= '9' || cmd[i+1] == '-') {
					i++
				}
				t.next = 0
			}
		case '<':
			if t.inWord && t.next == 0 && isDigits(t.word.String()) {
				t.word.Reset()
				t.inWord = false
			}
			t.endWord()
			switch {
			case strings.HasPrefix(cmd[i:], "<<<"):
				i += 2
				t.next = 3
			case strings.HasPrefix(cmd[i:], "<<"):
				i++
				t.next = 2
			default:
				t.next, t.nextRd = 1, true
				t.cur.piped = true
			}
		default:
			if c == '$' || c == '*' || c == '?' || c == '[' || c == '{' && strings.ContainsAny(cmd[i:], ",}") && i+1 < len(cmd) && cmd[i+1] != ' ' {
				t.lit = false
			}
			t.word.WriteByte(c)
			t.inWord = true
		}
	}
	t.endCmd(len(cmd), false)
}

// dquote reads a double-quoted string from i (after the quote) and
// returns the index of its closing quote.
func (t *splitter) dquote(i int) int {
	cmd := t.cmd
	t.inWord = true
	for ; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == '"':
			return i
		case c == '\\' && i+1 < len(cmd) && strings.IndexByte("$`\"\\\n", cmd[i+1]) >= 0:
			i++
			if cmd[i] != '\n' {
				t.word.WriteByte(cmd[i])
			}
		default:
			if c == '$' || c == '`' {
				t.lit = false
			}
			t.word.WriteByte(c)
		}
	}
	return i
}

func (t *splitter) endWord() {
	if !t.inWord {
		return
	}
	w := word{t.word.String(), t.lit}
	t.word.Reset()
	t.inWord, t.lit = false, true
	switch t.next {
	case 1:
		t.redirs = append(t.redirs, redir{target: w, op: t.nextOp, read: t.nextRd})
	case 2:
		t.pending = append(t.pending, strings.TrimLeft(w.text, "-"))
		t.docIdx = append(t.docIdx, -1)
	case 3:
		t.cur.heredoc = w.text
	default:
		if len(t.cur.words) == 0 && keyword(w.text) {
			break
		}
		t.cur.words = append(t.cur.words, w)
	}
	t.next = 0
}

// keyword reports whether a word is a reserved word or brace that may
// start a simple command's text without being the command.
func keyword(s string) bool {
	switch s {
	case "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "esac", "{", "}", "!", "time":
		return true
	}
	return false
}

// endCmd ends the simple command at byte end; pipe says a pipe follows.
func (t *splitter) endCmd(end int, pipe bool) {
	t.endWord()
	t.next = 0
	c := t.cur
	c.piped = c.piped || t.piped
	c.src = strings.TrimSpace(t.cmd[t.start:min(end, len(t.cmd))])
	if len(c.words) > 0 || len(t.redirs) > 0 {
		for k := range t.docIdx {
			if t.docIdx[k] == -1 {
				t.docIdx[k] = len(t.out)
			}
		}
		t.out = append(t.out, c)
		t.out[len(t.out)-1].words = append([]word(nil), c.words...)
		t.flushRedirs()
	}
	t.cur = simple{}
	t.piped = pipe
	t.start = min(end+1, len(t.cmd))
}

// flushRedirs turns the redirections read so far into a command of
// their own, after the one they belong to.
func (t *splitter) flushRedirs() {
	if len(t.redirs) == 0 {
		return
	}
	last := &t.out[len(t.out)-1]
	last.redirs = append(last.redirs, t.redirs...)
	t.redirs = nil
}

// heredocs skips the bodies of the here-documents opened on the line
// that ended at i, giving each to its command; it returns the index of
// the last byte skipped.
func (t *splitter) heredocs(i int) int {
	for k, delim := range t.pending {
		var body strings.Builder
		for i+1 < len(t.cmd) {
			rest := t.cmd[i+1:]
			line, _, found := strings.Cut(rest, "\n")
			i += len(line) + 1
			if !found {
				i = len(t.cmd) - 1
			}
			if strings.TrimSpace(line) == delim {
				break
			}
			body.WriteString(line)
			body.WriteByte('\n')
		}
		if j := t.docIdx[k]; j >= 0 && j < len(t.out) {
			t.out[j].heredoc = body.String()
		}
	}
	t.pending, t.docIdx = t.pending[:0], t.docIdx[:0]
	t.start = min(i+1, len(t.cmd))
	return i
}
