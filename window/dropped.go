package window

import (
	"github.com/agentctx/agentctx/tooluse"
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
	// Files lists the files removed tool calls read or write
	// ([tooluse.Use.Paths]) and the files and directories they searched
	// ([tooluse.Search.Paths]), least recently used first, at most
	// [MaxDroppedFiles].
	Files []string
	// UserMessages holds the removed user messages' text, redacted
	// ([secret.Redact]: the compaction note and the session's compact
	// boundary repeat it) and cut to [MaxDroppedUserRunes] runes, the
	// last an ellipsis when cut ([tooluse.CutRunes]), oldest
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

func (d *Dropped) tally(es []entry, classify func(chat.ToolCall) tooluse.Use) {
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
				u := classify(c)
				for _, f := range u.Paths {
					d.addFile(f)
				}
				for _, s := range u.Searches {
					for _, f := range s.Paths {
						d.addFile(f)
					}
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
			d.UserMessages = append(d.UserMessages, tooluse.CutRunes(secret.Redact(t), MaxDroppedUserRunes))
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
