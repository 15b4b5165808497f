package transcript

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/agentctx/agentctx/chat"
)

// Aider chat history (.aider.chat.history.md) and LLM history
// (.aider.llm.history).
//
// Aider (github.com/Aider-AI/aider, aider/io.py) appends to
// .aider.chat.history.md a "# aider chat started at <time>" heading per
// run, each user input as "#### " lines, each model reply as plain
// markdown, and its own notices (files added, edits applied, "Tokens: …
// sent, … received.") as "> " lines; aider/utils.py
// split_chat_history_markdown is its own reader of the file. With
// --llm-history-file it also logs every request and reply: a
// "TO LLM <time>" line followed by the messages (aider/utils.py
// format_messages: "-------" before each message, every content line
// prefixed by the upper-case role), and a "LLM RESPONSE <time>" line
// followed by the reply's lines prefixed by "ASSISTANT ".

var (
	aiderStarted  = regexp.MustCompile(`^# aider chat started at (.*)$`)
	aiderLLMBlock = regexp.MustCompile(`^(TO LLM|LLM RESPONSE) (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\S*)\s*$`)
	// aiderTokens is aider's usage report (base_coder.py): counts under
	// 1,000 exact, then rounded to 0.1k below 10k and to 1k above.
	aiderTokens = regexp.MustCompile(`^Tokens: ([\d.]+k?) sent(?:, ([\d.]+k?) cache write)?(?:, ([\d.]+k?) cache hit)?, ([\d.]+k?) received\.`)
	aiderModel  = regexp.MustCompile(`^(?:Main )?[Mm]odel: (\S+)`)
)

// isAider reports whether data is an aider chat or LLM history: its
// first non-blank line is aider's "# aider chat started at" heading or a
// "TO LLM <time>" block header.
func isAider(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	first, _, _ := bytes.Cut(data, []byte{'\n'})
	first = bytes.TrimRight(first, " \t\r")
	return aiderStarted.Match(first) || (aiderLLMBlock.Match(first) && bytes.HasPrefix(first, []byte("TO LLM ")))
}

// readAider reads an aider chat history or LLM history (see
// [readAiderChat] and [readAiderLLM]).
func readAider(data []byte, name string) ([]*Trajectory, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	first := strings.TrimSpace(text)
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	if aiderLLMBlock.MatchString(strings.TrimSpace(first)) {
		return readAiderLLM(text, name)
	}
	return readAiderChat(text, name)
}

// readAiderChat reads .aider.chat.history.md: one trajectory per run
// (each "# aider chat started at" heading; aider does not carry a chat
// into the next run). Rules, after aider's own reader: consecutive
// "#### " lines are one user message (aider's trailing "  " line breaks
// removed); other lines are the model's reply, one assistant message per
// block between user inputs and notices; "> " lines are aider's notices
// and are not messages: "Tokens: A sent, B cache write, C cache hit, D
// received." gives the usage of the reply before it (prompt = A, split
// into input A−B−C, cache write B and cache read C; output D; aider
// rounds counts above 1,000 to 0.1k, above 10,000 to 1k), and
// "Model: NAME" or "Main model: NAME" the model. A user input that is an
// aider command is dropped, except /ask, /code, /architect and /context,
// whose text is sent; so is an answer to aider's questions ("Add file to
// the chat? … all"). The feedback of an edit aider could not apply (the
// notice after "The LLM did not conform to the edit format." and its
// URL, whose lines after the first are not quoted) is a user message:
// aider sends it to the model. The file does not record what aider sends besides
// (system prompt, repository map, file contents, lint and test output it
// feeds back): .aider.llm.history does.
func readAiderChat(text, name string) ([]*Trajectory, error) {
	var out []*Trajectory
	var t *Trajectory
	var user, reply []string
	kind := ' '
	flushReply := func() {
		if s := strings.TrimSpace(strings.Join(reply, "\n")); s != "" && t != nil {
			t.Messages = append(t.Messages, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: s}}, Model: t.Model})
		}
		reply = nil
	}
	flushUser := func() {
		if len(user) > 0 && t != nil {
			s, ok := aiderUserText(strings.Join(user, "\n"))
			switch {
			case ok && aiderConfirm.MatchString(s):
				aiderNonContext.count(t, "confirmation")
			case ok:
				t.Messages = append(t.Messages, chat.NewText(chat.RoleUser, s))
			default:
				aiderNonContext.count(t, "command")
			}
		}
		user = nil
	}
	flush := func() { flushUser(); flushReply() }
	// The feedback of an edit aider could not apply: the notice after
	// "The LLM did not conform to the edit format." and the URL, of one
	// or more lines (only the first is quoted; the last ends in aider's
	// "  " line break). Aider sends it to the model as the next user
	// message (base_coder.py apply_updates: reflected_message).
	expect, open := false, false
	var feedback []string
	endFeedback := func() {
		if s := strings.TrimSpace(strings.Join(feedback, "\n")); s != "" && t != nil {
			t.Messages = append(t.Messages, chat.NewText(chat.RoleUser, s))
		}
		feedback, open = nil, false
	}
	for _, line := range strings.Split(text, "\n") {
		if open {
			feedback = append(feedback, strings.TrimSuffix(line, "  "))
			if strings.HasSuffix(line, "  ") {
				endFeedback()
			}
			continue
		}
		if m := aiderStarted.FindStringSubmatch(strings.TrimRight(line, " \t")); m != nil {
			flush()
			t = &Trajectory{Index: len(out), Started: parseAiderTime(m[1])}
			out = append(out, t)
			kind = ' '
			continue
		}
		if t == nil {
			continue // before the first heading
		}
		switch {
		case strings.HasPrefix(line, "#### ") || line == "####":
			if kind != 'u' {
				flush()
			}
			kind = 'u'
			user = append(user, strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(line, "####"), " "), "  "))
		case strings.HasPrefix(line, "> ") || line == ">":
			flush()
			notice := strings.TrimSpace(strings.TrimPrefix(line, ">"))
			if expect && notice != "" && !strings.HasPrefix(notice, "http") {
				expect = false
				feedback = []string{notice}
				if open = !strings.HasSuffix(line, "  "); !open {
					endFeedback()
				}
				kind = '>'
				continue
			}
			if kind != '>' {
				aiderNonContext.count(t, "notice")
			}
			kind = '>'
			expect = expect || notice == aiderEditFailed
			aiderNotice(t, notice)
		default:
			if kind == 'u' {
				flushUser()
			}
			if kind == '>' && strings.TrimSpace(line) == "" {
				continue
			}
			kind = 'a'
			reply = append(reply, line)
		}
	}
	if open {
		endFeedback()
	}
	flush()
	if len(out) == 0 {
		return nil, &ParseError{File: name, Line: 1, Reason: `no "# aider chat started at" heading`}
	}
	return out, nil
}

// aiderEditFailed is the notice aider writes before the feedback of an
// edit it could not apply (aider/coders/base_coder.py, apply_updates).
const aiderEditFailed = "The LLM did not conform to the edit format."

// aiderConfirm matches the questions of aider's confirm_ask (aider/
// coders/base_coder.py, aider/commands.py, aider/main.py …), which a
// history may hold as a "#### " input with the answer: never sent.
var aiderConfirm = regexp.MustCompile(`^(Add (file|URL|command output) to the chat\?|Allow edits to file|Create new file\?|Attempt to fix (lint|test) errors\?|Edit the files\?|Run shell commands?\?|Try to proceed anyway\?|Run pip install\?|Install playwright\?|No git repo found)|\(Y\)es/\(N\)o`)

// aiderNonContext is what an aider chat history holds beside the
// conversation, never sent to the model: the known non-context kinds.
var aiderNonContext = nonContextTable{
	"confirmation": "the user's answer to one of aider's questions (Add file to the chat? …), written as a #### input",
	"notice":       `a block of aider's own "> " notices (files added, edits applied, token reports; read for usage and the model)`,
	"command":      "an aider command typed by the user (/add, /run, …), run by aider",
}

// aiderUserText returns the text a user input sends to the model, and
// false for an aider command that sends none.
func aiderUserText(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "/") {
		return s, s != "" && s != "<blank>"
	}
	cmd, rest, _ := strings.Cut(s, " ")
	switch cmd {
	case "/ask", "/code", "/architect", "/context":
		rest = strings.TrimSpace(rest)
		return rest, rest != ""
	}
	return "", false
}

// aiderNotice reads one "> " notice: a usage report for the last reply,
// or the model's name.
func aiderNotice(t *Trajectory, s string) {
	if m := aiderModel.FindStringSubmatch(s); m != nil && t.Model == "" {
		t.Model = m[1]
		return
	}
	m := aiderTokens.FindStringSubmatch(s)
	if m == nil || len(t.Messages) == 0 {
		return
	}
	last := &t.Messages[len(t.Messages)-1]
	if last.Role != chat.RoleAssistant || last.Usage != nil {
		return
	}
	sent, write, hit, recv := aiderCount(m[1]), aiderCount(m[2]), aiderCount(m[3]), aiderCount(m[4])
	u := chat.Usage{InputTokens: sent - write - hit, CacheWriteTokens: write, CacheReadTokens: hit, OutputTokens: recv}
	if u.InputTokens < 0 {
		u = chat.Usage{InputTokens: sent, OutputTokens: recv}
	}
	if !u.IsZero() {
		last.Usage = &u
	}
}

// aiderCount reads a count as aider formats it ("342", "2.4k", "12k").
func aiderCount(s string) int {
	k := strings.HasSuffix(s, "k")
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "k"), 64)
	if err != nil || f < 0 || f > 1e9 {
		return 0
	}
	if k {
		f *= 1000
	}
	return int(f + 0.5)
}

// parseAiderTime reads aider's heading time ("2025-01-31 10:20:30",
// local time without a zone, read as UTC).
func parseAiderTime(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05", strings.TrimSpace(s))
	if err != nil {
		return time.Time{}
	}
	return t
}

// aiderRoles are the roles format_messages writes, upper case.
var aiderRoles = map[string]chat.Role{
	"SYSTEM": chat.RoleSystem, "USER": chat.RoleUser, "ASSISTANT": chat.RoleAssistant,
}

// readAiderLLM reads .aider.llm.history: every request aider sent and
// every reply. Rules: each TO LLM block is the whole prompt of one model
// call and the LLM RESPONSE block after it the reply (one assistant
// message; a request without a reply, interrupted, has none). The
// messages of a prompt that extends the previous prompt and reply are
// appended; when a prompt does not (aider rebuilds the repository map,
// file contents and summarized history for every request), the part it
// shares with them is a [Compaction] whose Replacement is that shared
// prefix, and the rest is appended, so that [Trajectory].Messages holds
// every message sent and the replay follows the prompts as sent. The
// assistant messages of a prompt (aider's few-shot turns, the history it
// re-sends) are appended as user text, so that only the replies count as
// model calls; a Replacement keeps their role. Roles
// other than system, user and assistant are read as user text. The log
// records no usage and no model.
func readAiderLLM(text, name string) ([]*Trajectory, error) {
	t := &Trajectory{}
	md := meta{t: t}
	var cur []chat.Message // the last prompt and its reply
	var prompt []chat.Message
	var role chat.Role
	var body []string
	inPrompt, inReply := false, false
	endMessage := func() {
		if role != "" {
			prompt = append(prompt, chat.NewText(role, strings.Join(body, "\n")))
		}
		role, body = "", nil
	}
	endPrompt := func(ts time.Time) {
		endMessage()
		c := 0
		for c < len(prompt) && c < len(cur) && prompt[c].Role == cur[c].Role && prompt[c].Text() == cur[c].Text() {
			c++
		}
		if c < len(cur) {
			t.Compactions = append(t.Compactions, Compaction{At: len(t.Messages), Trigger: "aider", Replacement: append(make([]chat.Message, 0, c), prompt[:c]...)})
		}
		for _, m := range prompt[c:] {
			if m.Role == chat.RoleAssistant {
				m.Role = chat.RoleUser // aider's few-shot turns and re-sent history: no model call
			}
			t.Messages = append(t.Messages, m)
		}
		md.stamp(len(t.Messages), ts)
		cur, prompt = prompt, nil
	}
	var reply []string
	var replyTS time.Time
	endReply := func() {
		m := chat.NewText(chat.RoleAssistant, strings.Join(reply, "\n"))
		t.Messages = append(t.Messages, m)
		md.stamp(len(t.Messages), replyTS)
		cur = append(cur, m)
		reply = nil
	}
	var promptTS time.Time
	blocks := 0
	for _, line := range strings.Split(text, "\n") {
		if m := aiderLLMBlock.FindStringSubmatch(line); m != nil {
			if inPrompt {
				endPrompt(promptTS)
			}
			if inReply {
				endReply()
			}
			ts := parseTime(m[2])
			md.line("", "", ts)
			inPrompt, inReply = m[1] == "TO LLM", m[1] == "LLM RESPONSE"
			if inPrompt {
				promptTS = ts
			} else {
				replyTS = ts
			}
			blocks++
			continue
		}
		switch {
		case inPrompt:
			if line == "-------" {
				endMessage()
				continue
			}
			r, rest, _ := strings.Cut(line, " ")
			if cr, ok := aiderRoles[r]; ok && (role == "" || cr == role) {
				role = cr
				body = append(body, rest)
				continue
			}
			if role == "" {
				role = chat.RoleUser
			}
			body = append(body, line) // a continuation of a multi-line value
		case inReply:
			reply = append(reply, strings.TrimPrefix(strings.TrimPrefix(line, "ASSISTANT"), " "))
		}
	}
	if inPrompt {
		endPrompt(promptTS)
	}
	if inReply {
		for len(reply) > 0 && reply[len(reply)-1] == "" {
			reply = reply[:len(reply)-1] // the log's final newline
		}
		endReply()
	}
	if blocks == 0 {
		return nil, &ParseError{File: name, Line: 1, Reason: `no "TO LLM" block`}
	}
	md.finish(len(t.Messages))
	return []*Trajectory{t}, nil
}
