package session

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/agentctx/agentctx/chat"
)

// Observe updates s's metadata from e, an entry just appended to or read
// from s's transcript, in file order. Every store calls it, so that
// metadata is computed one way:
//
//   - Entries counts every entry; LastActivity is the latest timestamp;
//   - a compact boundary counts in Compactions (unless a fork's or a
//     rewind's: [TriggerFork], [TriggerRewind]), restarts Messages at 0
//     and, when its metadata records postTokens, sets PromptTokens to it
//     (the usage before it describes a context that is gone);
//   - every other entry that holds a message adds 1 to Messages (a Claude
//     Code response written over several lines counts each line);
//   - Title, while empty, is set from the first user message that a
//     person typed: not a compaction summary, not tool results, not a
//     Claude Code meta line (isMeta) or command echo ("<command-",
//     "<local-command", "Caveat:", "<system-reminder>",
//     "<task-notification>", "[Request interrupted"), cut by [Title];
//   - Model is set from each assistant message that names one (Claude
//     Code's synthetic lines excepted), and PromptTokens from each
//     non-zero usage ([chat.Usage.PromptTokens]) whose counts are
//     plausible (none negative or above [chat.MaxCallTokens]).
//
// Side-chain entries (a sub-agent's lines) count in Entries and
// LastActivity only. Observe decodes only what it needs of a message and
// never fails: an undecodable message is counted and otherwise ignored.
// It is not safe for concurrent use on the same Session.
func (s *Session) Observe(e Entry) {
	s.Entries++
	if e.Timestamp.After(s.LastActivity) {
		s.LastActivity = e.Timestamp.UTC()
	}
	if e.IsSidechain {
		return
	}
	if e.IsBoundary() {
		if m := e.CompactMetadata; m == nil || (m.Trigger != TriggerFork && m.Trigger != TriggerRewind) {
			s.Compactions++
		}
		s.Messages = 0
		if m := e.CompactMetadata; m != nil && m.PostTokens > 0 {
			s.PromptTokens = m.PostTokens
		}
		return
	}
	if !bearsMessage(&e) {
		return
	}
	s.Messages++
	switch e.Type {
	case TypeAssistant:
		var p struct {
			Model string          `json:"model"`
			Usage json.RawMessage `json:"usage"`
		}
		if decodeLoose(e.Message, &p) != nil || p.Model == syntheticModel {
			return
		}
		if p.Model != "" {
			s.Model = p.Model
		}
		if isObject(p.Usage) {
			var u usageCounts
			if decodeLoose(p.Usage, &u) == nil && u.valid() {
				if n := u.promptTokens(); n > 0 {
					s.PromptTokens = n
				}
			}
		}
	case TypeUser:
		if s.Title != "" || e.IsCompactSummary || bytes.Contains(e.Raw, []byte(`"isMeta":true`)) {
			return
		}
		msgs, _, err := e.decode()
		if err != nil {
			return
		}
		for _, m := range msgs {
			if m.Role != chat.RoleUser {
				continue
			}
			t := RequestText(m.Text())
			if t == "" || notTyped(t) {
				continue
			}
			s.Title = Title(t)
			return
		}
	}
}

// PromptText returns what a person typed in a user message's text: the
// text without the tagged blocks agents put before or around it
// (<system-reminder>…</system-reminder>, Codex's <environment_context>,
// Gemini CLI's <session_context>, SWE-agent's <uploaded_files>, Claude
// Code's <command-name>: any "<name …>" at the start of a line closed by
// "</name>"), trimmed. It returns "" when nothing else is left.
func PromptText(text string) string {
	var b strings.Builder
	rest := text
	for rest != "" {
		i := tagStart(rest)
		if i < 0 {
			b.WriteString(rest)
			break
		}
		name := tagName(rest[i+1:])
		end := strings.Index(rest[i:], "</"+name+">")
		if end < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		rest = rest[i+end+len("</"+name+">"):]
	}
	return strings.TrimSpace(b.String())
}

// taskTags are the tags of blocks that hold the task itself in the
// prompts of benchmark harnesses: OpenHands' <issue_description>,
// mini-swe-agent's <pr_description>, SWE-bench templates' <issue> and
// <problem_statement>, and <task>.
var taskTags = []string{"issue_description", "pr_description", "problem_statement", "issue", "task"}

// demoLeads start a message that shows the model an example run rather
// than asking anything (SWE-agent's demonstration template).
var demoLeads = []string{"Here is a demonstration of how to correctly accomplish this task"}

// RequestText returns the request a user message's text makes, for a
// session's title: the first of
//   - the text of a block tagged as holding the task ([taskTags]: the
//     harness's instructions around it are not the request);
//   - else what a person typed ([PromptText]: the text without the
//     context blocks agents wrap around it);
//
// with its leading lines that end in ":" left out (lead-ins that
// announce what follows: "Consider the following PR description:",
// SWE-agent's "…Here's the issue text:" and "ISSUE:"). A harness's
// demonstration ([demoLeads]) is no request: "". It returns "" when
// nothing is left.
func RequestText(text string) string {
	t := ""
	for _, name := range taskTags {
		if inner, ok := tagged(text, name); ok {
			t = inner
			break
		}
	}
	if t == "" {
		t = PromptText(text)
	}
	for _, d := range demoLeads {
		if strings.HasPrefix(t, d) {
			return ""
		}
	}
	for t != "" {
		line, rest, _ := strings.Cut(t, "\n")
		if l := strings.TrimSpace(line); l != "" && !strings.HasSuffix(l, ":") {
			break
		}
		t = strings.TrimSpace(rest)
	}
	return t
}

// tagged returns the trimmed text of the first block <name>…</name> of
// text whose opening tag starts a line, and whether there is one with
// text.
func tagged(text, name string) (string, bool) {
	open := "<" + name + ">"
	for off := 0; ; {
		i := strings.Index(text[off:], open)
		if i < 0 {
			return "", false
		}
		i += off
		off = i + len(open)
		if i > 0 && text[i-1] != '\n' {
			continue
		}
		end := strings.Index(text[off:], "</"+name+">")
		if end < 0 {
			return "", false
		}
		if t := strings.TrimSpace(text[off : off+end]); t != "" {
			return t, true
		}
	}
}

// tagStart returns the offset of the first "<name" that starts a line of
// s (s's start included) and is followed by ">" or a space, else -1.
func tagStart(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] != '<' || (i > 0 && s[i-1] != '\n') {
			continue
		}
		if n := tagName(s[i+1:]); n != "" && i+1+len(n) < len(s) && (s[i+1+len(n)] == '>' || s[i+1+len(n)] == ' ') {
			return i
		}
	}
	return -1
}

// tagName returns the tag name s starts with: letters, digits, '_' and
// '-', starting with a letter.
func tagName(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (i > 0 && (('0' <= c && c <= '9') || c == '_' || c == '-')) {
			continue
		}
		return s[:i]
	}
	return s
}

// notTyped reports whether a user message's text is something Claude
// Code wrote in the user's name rather than what the user typed.
func notTyped(t string) bool {
	for _, p := range []string{"<command-", "<local-command", "Caveat:", "<system-reminder>", "<task-notification>", "[Request interrupted"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// bearsMessage reports whether e records a message: a user, assistant or
// system entry with a message (not a compact boundary), a tool_use entry
// with its tool, a tool_result entry with its result. It is what
// [CompactMetadata.Messages] counts.
func bearsMessage(e *Entry) bool {
	switch e.Type {
	case TypeUser, TypeAssistant, TypeSystem:
		return !e.IsBoundary() && !isNull(e.Message)
	case TypeToolUse:
		return e.Tool != nil
	case TypeToolResult:
		return e.ToolResult != nil
	}
	return false
}
