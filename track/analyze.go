package track

import (
	"slices"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/jsonx"
	"github.com/agentctx/agentctx/tooluse"
)

type write struct{ path, op string }

// analysis is what one tool call reads, writes and searches (failureKey
// names it when it fails).
type analysis struct {
	reads    []string
	writes   []write
	searches []string
}

// analyze reads a call, given u, its [tooluse.Classify]: its reads, its
// writes with their operations, its searches (a shell search by the
// simple command that searched, a search tool by its query, a web search
// by its query).
func analyze(call chat.ToolCall, u tooluse.Use) analysis {
	a := analysis{reads: u.Reads}
	for _, w := range u.Writes {
		a.writes = append(a.writes, write{w.Path, w.Op.String()})
	}
	for _, s := range u.Searches {
		q := listEnd(s.Command)
		if q == "" {
			q = s.Query
		}
		if q == "" {
			q = u.Command
		}
		// find -exec grep is two searches of one command: one entry.
		if q != "" && !slices.Contains(a.searches, q) {
			a.searches = append(a.searches, q)
		}
	}
	switch u.Kind {
	case tooluse.KindWeb:
		if u.Query != "" {
			a.searches = append(a.searches, u.Query)
		}
	case tooluse.KindList:
		// Listing a folder is a search of its path.
		if p := stringArg(call, "path"); p != "" {
			a.searches = append(a.searches, p)
		}
	}
	return a
}

// listEnd returns a simple command as written without the list
// operator (";" or "&") that may end it: "grep -q x a.py;" in an if
// condition. An escaped ";" (find's "-exec … \;") stays.
func listEnd(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	if strings.HasSuffix(cmd, ";") && !strings.HasSuffix(cmd, `\;`) || strings.HasSuffix(cmd, "&") && !strings.HasSuffix(cmd, "&&") {
		cmd = strings.TrimSpace(cmd[:len(cmd)-1])
	}
	return cmd
}

// stringArg returns the trimmed string argument key of call, or "".
func stringArg(call chat.ToolCall, key string) string {
	args := map[string]any{} // for a nil map the fast decoder makes one of 64 entries
	if jsonx.Unmarshal(call.Arguments, &args) != nil {
		return ""
	}
	s, _ := args[key].(string)
	return strings.TrimSpace(s)
}

// failureKey names a failed call: its command (a shell command, a
// SWE-agent text action as written), or the tool's name, its action and
// its first path, query or URL.
func failureKey(call chat.ToolCall, u tooluse.Use) string {
	if u.Command != "" {
		return strings.TrimSpace(u.Command)
	}
	key := call.Name
	if u.Action != "" {
		key += " " + u.Action
	}
	switch {
	case len(u.Paths) > 0:
		key += " " + u.Paths[0]
	case u.Query != "":
		key += " " + u.Query
	default:
		if url := stringArg(call, "url"); url != "" {
			key += " " + url
		}
	}
	return strings.TrimSpace(key)
}
