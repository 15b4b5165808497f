package window

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/secret"
)

// Limits on what [Dropped] keeps, so that a compaction note stays small
// however long the session.
const (
	// MaxDroppedFiles is the most file paths [Dropped.Files] keeps.
	MaxDroppedFiles = 20
	// MaxDroppedUserMessages is the most user messages
	// [Dropped.UserMessages] keeps (the most recent).
	MaxDroppedUserMessages = 8
	// MaxDroppedUserRunes is the length in runes each kept user message is
	// cut to.
	MaxDroppedUserRunes = 300
)

// Dropped is the tally of what compaction removed from a window, from which
// the compaction note is written. Counts are of messages, rounds, tool
// calls and tool results.
type Dropped struct {
	Messages    int
	Rounds      int
	ToolCalls   int
	ToolResults int
	// Tools maps a tool name to the number of its calls removed.
	Tools map[string]int
	// Files lists file paths named in removed tool calls (the path-like
	// arguments of the tools in FORMATS.md's trajectories), least recently
	// used first, at most [MaxDroppedFiles].
	Files []string
	// UserMessages holds the removed user messages' text, redacted
	// ([secret.Redact]: the compaction note and the session's compact
	// boundary repeat it) and cut to [MaxDroppedUserRunes] runes, oldest
	// first, at most [MaxDroppedUserMessages] (the most recent ones).
	UserMessages []string
	// UserMessagesTotal counts every removed user message, kept or not.
	UserMessagesTotal int
}

func (d Dropped) clone() Dropped {
	d.Tools = maps.Clone(d.Tools)
	d.Files = slices.Clone(d.Files)
	d.UserMessages = slices.Clone(d.UserMessages)
	return d
}

func (d *Dropped) tally(es []entry) {
	for i := range es {
		m := es[i].msg
		d.Messages++
		switch m.Role {
		case chat.RoleAssistant:
			calls := 0
			for _, p := range m.Parts {
				c, ok := p.(chat.ToolCall)
				if !ok {
					continue
				}
				calls++
				if d.Tools == nil {
					d.Tools = map[string]int{}
				}
				d.Tools[c.Name]++
				for _, f := range ArgumentPaths(c.Arguments) {
					d.addFile(f)
				}
			}
			if calls > 0 {
				d.Rounds++
				d.ToolCalls += calls
			}
		case chat.RoleTool:
			d.ToolResults++
		case chat.RoleUser:
			d.UserMessagesTotal++
			t := strings.TrimSpace(m.Text())
			if t == "" {
				continue
			}
			d.UserMessages = append(d.UserMessages, cutRunes(secret.Redact(t), MaxDroppedUserRunes))
			if len(d.UserMessages) > MaxDroppedUserMessages {
				d.UserMessages = slices.Delete(d.UserMessages, 0, len(d.UserMessages)-MaxDroppedUserMessages)
			}
		}
	}
}

func (d *Dropped) addFile(f string) {
	if i := slices.Index(d.Files, f); i >= 0 {
		d.Files = slices.Delete(d.Files, i, i+1)
	}
	d.Files = append(d.Files, f)
	if len(d.Files) > MaxDroppedFiles {
		d.Files = slices.Delete(d.Files, 0, len(d.Files)-MaxDroppedFiles)
	}
}

func cutRunes(s string, n int) string {
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + "…"
		}
		count++
	}
	return s
}

// pathKeys are the argument names that hold a file path in the tools of
// the trajectories in FORMATS.md (Claude Code Read/Edit/Write file_path,
// NotebookEdit notebook_path, str_replace_editor path, seed 001's target,
// source and destination).
var pathKeys = []string{"file_path", "path", "notebook_path", "filePath", "filename", "target", "source", "destination"}

// patchPrefixes are the file headers of Codex's apply_patch format.
var patchPrefixes = []string{"*** Update File: ", "*** Add File: ", "*** Delete File: ", "*** Move to: "}

// ArgumentPaths returns the file paths named in a tool call's JSON
// arguments: string values under the path-like keys of the tools in the
// real trajectories (file_path, path, notebook_path, target, source,
// destination, …) and the file headers of a Codex apply_patch input. It
// returns nil for arguments that are not a JSON object.
func ArgumentPaths(args json.RawMessage) []string {
	if len(args) == 0 || args[0] != '{' {
		return nil
	}
	var obj map[string]any
	if json.Unmarshal(args, &obj) != nil {
		return nil
	}
	var out []string
	for _, k := range pathKeys {
		if s, ok := obj[k].(string); ok && s != "" && len(s) < 4096 && !strings.ContainsAny(s, "\n\x00") {
			out = append(out, s)
		}
	}
	if in, ok := obj["input"].(string); ok && strings.Contains(in, "*** Begin Patch") {
		for line := range strings.Lines(in) {
			line = strings.TrimRight(line, "\r\n")
			for _, p := range patchPrefixes {
				if f, ok := strings.CutPrefix(line, p); ok && f != "" {
					out = append(out, f)
				}
			}
		}
	}
	return out
}
