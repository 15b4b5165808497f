package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/agentctx/agentctx/agent/tools"
	"github.com/agentctx/agentctx/chat"
)

// What the chat reads: chzyer/readline has no bracketed paste and ends a
// line at every newline, so the chat turns the terminal's bracketed paste
// (xterm's "Bracketed Paste Mode": ESC[?2004h asks the terminal to wrap a
// paste in ESC[200~ … ESC[201~) into one line before the editor sees it:
// a newline inside a paste, and Alt-Enter (ESC CR) anywhere, become
// pasteNL, a tab inside a paste pasteTab, shown as such on the prompt
// line and turned back when the line is read (unmarkLine).

const (
	// pasteNL stands for a newline in the line being edited.
	pasteNL = '⏎'
	// pasteTab stands for a pasted tab (the editor completes on tab).
	pasteTab = '⇥'
	// bracketedPasteOn and bracketedPasteOff switch the terminal's
	// bracketed paste mode.
	bracketedPasteOn  = "\x1b[?2004h"
	bracketedPasteOff = "\x1b[?2004l"
	pasteStart        = "\x1b[200~"
	pasteEnd          = "\x1b[201~"
)

// pasteReader is the chat's standard input as the line editor reads it:
// see above. Not safe for concurrent use (the editor reads from one
// goroutine).
type pasteReader struct {
	r io.Reader
	// keyMode, when set, turns the keys y, n, a, 1 to 9 and Enter into
	// Enter, keeping the key in key, and drops every other key but
	// Ctrl-C: the permission question's and the /rewind picker's one-key
	// answer. expand is set by Ctrl-O,
	// which becomes Enter. The editor must see Enter itself, or it
	// goes on reading the terminal after the line. Optional.
	keyMode *atomic.Bool
	key     *atomic.Int32
	expand  *atomic.Bool

	in      bool   // inside a paste
	lastCR  bool   // the last byte of the paste was a CR
	pending []byte // bytes read, not yet decided (a sequence's start)
	out     []byte // bytes decided, not yet returned
	err     error
}

// escSeqs are the sequences pasteReader acts on.
var escSeqs = []string{pasteStart, pasteEnd, "\x1b\r", "\x1b\n"}

func (p *pasteReader) Read(b []byte) (int, error) {
	for len(p.out) == 0 {
		if p.err != nil {
			if len(p.pending) > 0 {
				p.out, p.pending = p.pending, nil
				break
			}
			return 0, p.err
		}
		buf := make([]byte, 4096)
		n, err := p.r.Read(buf)
		p.pending = append(p.pending, buf[:n]...)
		p.err = err
		p.scan()
	}
	n := copy(b, p.out)
	p.out = p.out[n:]
	return n, nil
}

// scan moves what pending decides to out, keeping a sequence's start
// that more bytes will decide.
func (p *pasteReader) scan() {
	b := p.pending
	i := 0
	for i < len(b) {
		c := b[i]
		if c == 0x1b {
			rest := b[i:]
			matched, partial := "", false
			for _, s := range escSeqs {
				switch {
				case bytes.HasPrefix(rest, []byte(s)):
					matched = s
				case len(rest) < len(s) && bytes.HasPrefix([]byte(s), rest):
					partial = true
				}
			}
			switch {
			case matched == pasteStart:
				p.in, p.lastCR = true, false
				i += len(matched)
				continue
			case matched == pasteEnd:
				p.in = false
				i += len(matched)
				continue
			case matched != "":
				p.out = append(p.out, string(pasteNL)...)
				i += len(matched)
				continue
			case partial && p.err == nil:
				p.pending = append([]byte(nil), rest...)
				return
			}
			if p.in {
				i++ // no escape sequence inside a paste
				continue
			}
		}
		if !p.in && p.keyMode != nil && p.keyMode.Load() {
			switch c {
			case 'y', 'Y', 'n', 'N', 'a', 'A':
				p.key.Store(int32(c | 0x20))
				p.out = append(p.out, '\r')
			case '1', '2', '3', '4', '5', '6', '7', '8', '9', '\r':
				// The /rewind picker's choices; Enter cancels it.
				p.key.Store(int32(c))
				p.out = append(p.out, '\r')
			case 0x03:
				p.out = append(p.out, c)
			}
			i++
			continue
		}
		if !p.in && c == ctrlO && p.expand != nil {
			p.expand.Store(true)
			p.out = append(p.out, '\r')
			i++
			continue
		}
		if p.in {
			switch {
			case c == '\r':
				p.out = append(p.out, string(pasteNL)...)
			case c == '\n' && !p.lastCR:
				p.out = append(p.out, string(pasteNL)...)
			case c == '\n':
			case c == '\t':
				p.out = append(p.out, string(pasteTab)...)
			case c < 0x20 || c == 0x7f:
				// Other control bytes would be editing keys.
			default:
				p.out = append(p.out, c)
			}
			p.lastCR = c == '\r'
			i++
			continue
		}
		p.out = append(p.out, c)
		i++
	}
	p.pending = nil
}

// unmarkLine turns the marks of pasteReader back into newlines and tabs.
func unmarkLine(s string) string {
	return strings.NewReplacer(string(pasteNL), "\n", string(pasteTab), "\t").Replace(s)
}

// mentionRE finds @path mentions: an @ at a word's start, then a path.
var mentionRE = regexp.MustCompile(`(?:^|\s)@([^\s@]+)`)

// attachMentions reads the files the message's @path mentions name with
// the read_file tool, confined to the project (even under
// --allow-outside), and returns the message with their contents appended, and the
// paths attached. A path the tool refuses (outside the project, a
// folder) is an error naming it: nothing is sent. A mention of a file
// that does not exist (an e-mail handle, @latest) stays text.
func (r *repl) attachMentions(ctx context.Context, msg string) (string, []string, error) {
	ms := mentionRE.FindAllStringSubmatch(msg, -1)
	if len(ms) == 0 {
		return msg, nil, nil
	}
	// Confined to the project even under --allow-outside.
	env := r.s.env
	env.AllowOutside = false
	var read tools.Tool
	for _, t := range tools.Default(env) {
		if t.Def().Name == "read_file" {
			read = t
		}
	}
	if read == nil {
		return msg, nil, nil
	}
	var b strings.Builder
	b.WriteString(msg)
	var paths []string
	seen := map[string]bool{}
	for _, m := range ms {
		p := strings.TrimRight(m[1], ".,;:!?)")
		if seen[p] || p == "" {
			continue
		}
		seen[p] = true
		args, _ := json.Marshal(map[string]string{"path": p})
		res := read.Run(ctx, chat.ToolCall{ID: "mention", Name: "read_file", Arguments: args})
		if res.IsError {
			if strings.Contains(res.Content, "no such file") || strings.Contains(res.Content, "does not exist") {
				continue
			}
			return "", nil, fmt.Errorf("@%s: %s; nothing was sent", p, strings.TrimPrefix(strings.SplitN(strings.TrimSpace(res.Content), "\n", 2)[0], "Error: "))
		}
		fmt.Fprintf(&b, "\n\n<file path=%q attached by the user>\n%s\n</file>", p, strings.TrimRight(res.Content, "\n"))
		paths = append(paths, p)
	}
	return b.String(), paths, nil
}

// shellCommand runs the user's !command through the run_command tool
// (the agent's sandbox, its timeout and output cap), shows its output's
// head and tail, and keeps it for the next turn's message.
func (r *repl) shellCommand(ctx context.Context, command string) {
	run := r.s.tool("run_command")
	if run == nil {
		r.println(r.paint("31", "error: ") + "no run_command tool")
		return
	}
	args, _ := json.Marshal(map[string]string{"command": command})
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.mu.Lock()
	r.cancel = cancel
	r.mu.Unlock()
	r.write(r.paint("35", "! ") + r.paint("1", escapeTerm(command)))
	r.openCall = true
	res := run.Run(cctx, chat.ToolCall{ID: "user-shell", Name: "run_command", Arguments: args})
	r.mu.Lock()
	r.cancel = nil
	r.mu.Unlock()
	what := r.paint("2", sizeWord(len(res.Content)))
	if res.IsError {
		what = r.paint("31", "error") + r.paint("2", " · "+sizeWord(len(res.Content)))
	}
	r.closeCall(what)
	r.showOutput(res.Content)
	r.lastOutput = res.Content
	r.shellContext = append(r.shellContext, fmt.Sprintf("I ran `%s` myself; its output:\n```\n%s\n```", command, strings.TrimRight(res.Content, "\n")))
	r.println(r.paint("2", "  (the output goes to the model with your next message)"))
}
