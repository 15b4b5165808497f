package proxy

import (
	"path/filepath"
	"strings"

	"github.com/agentctx/agentctx/chat"
)

// projectMarkers are the lines in which agents state their working
// directory, each followed by the path: Claude Code's environment block
// ("Primary working directory: /p" in 2.1, "Working directory: /p"
// before), Codex CLI's <environment_context> ("<cwd>/p</cwd>"), Gemini
// CLI's session context ("- **Workspace Directories:**" then "  - /p",
// and "I'm currently working in the directory: /p" before). Read from
// requests the agents sent to a recording server (Claude Code 2.1.328,
// Codex CLI 0.169.0, Gemini CLI 0.61.0).
var projectMarkers = []struct{ before, after string }{
	{"Primary working directory: ", "\n"},
	{"<cwd>", "</cwd>"},
	{"Workspace Directories:**\n", "\n"},
	{"I'm currently working in the directory: ", "\n"},
	{"Working directory: ", "\n"},
}

// projectScan is how many of a conversation's first messages projectOf
// reads: agents state their directory at the start (Claude Code in a
// system message after the first user message).
const projectScan = 8

// projectOf returns the agent's working directory as its request states
// it, "" when none does: the system prompt, then the system and user
// messages among the first projectScan, in order.
func projectOf(c *conversation) string {
	if p := findProject(c.system); p != "" {
		return p
	}
	for i, m := range c.msgs {
		if i >= projectScan {
			break
		}
		if m.Role != chat.RoleSystem && m.Role != chat.RoleUser {
			continue
		}
		if p := findProject(m.Text()); p != "" {
			return p
		}
	}
	return ""
}

// findProject returns the first absolute, clean path a marker of
// projectMarkers introduces in text.
func findProject(text string) string {
	for _, mk := range projectMarkers {
		i := strings.Index(text, mk.before)
		if i < 0 {
			continue
		}
		rest := text[i+len(mk.before):]
		if j := strings.Index(rest, mk.after); j >= 0 {
			rest = rest[:j]
		}
		rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), "- "))
		if rest != "" && filepath.IsAbs(rest) && !strings.ContainsAny(rest, "\x00\n") {
			return filepath.Clean(rest)
		}
	}
	return ""
}
