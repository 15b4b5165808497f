package report

import (
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/secret"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/agentctx/agentctx/transcript"
)

// Caps on the story's texts, in runes: the task and the outcome are
// shown whole up to [MaxStoryRunes]; an action's detail (a command, a
// query) up to [MaxDetailRunes].
const (
	MaxStoryRunes  = 600
	MaxDetailRunes = 120
)

// Action is one tool call the agent made in a model call's reply, as the
// report's timeline shows it ([tooluse.Classify]'s reading).
type Action struct {
	// Tool is the tool's name; Kind what it does ("read", "edit",
	// "shell", …: [tooluse.Kind]).
	Tool string `json:"tool"`
	Kind string `json:"kind"`
	// Detail is the command or query, redacted and cut to
	// [MaxDetailRunes] runes; "" for a call that reads or writes files
	// only.
	Detail string `json:"detail,omitempty"`
	// Read and Wrote are the files the call reads and writes.
	Read  []string `json:"read,omitempty"`
	Wrote []string `json:"wrote,omitempty"`
}

// File is one file the session read or wrote: the calls (numbers from 1)
// of its first and last use and how many reads and writes named it.
type File struct {
	Path   string `json:"path"`
	Reads  int    `json:"reads"`
	Writes int    `json:"writes"`
	First  int    `json:"first"`
	Last   int    `json:"last"`
}

// tell sets rep's story from tr: the task (the first user message's
// request, [session.RequestText]), the outcome (the last assistant
// message's text), each call's actions, the files used, and the calls
// before which the transcript itself recorded a compaction. Texts are
// redacted ([secret.Redact]).
func tell(rep *Report, tr *transcript.Trajectory) {
	for _, m := range tr.Messages {
		if m.Role != chat.RoleUser {
			continue
		}
		if t := session.RequestText(strings.TrimSpace(m.Text())); t != "" {
			rep.Task = tooluse.CutRunes(secret.Redact(t), MaxStoryRunes)
			break
		}
	}
	for i := len(tr.Messages) - 1; i >= 0; i-- {
		m := tr.Messages[i]
		if t := strings.TrimSpace(m.Text()); m.Role == chat.RoleAssistant && t != "" {
			rep.Outcome = tooluse.CutRunes(secret.Redact(t), MaxStoryRunes)
			break
		}
	}
	files := map[string]*File{}
	use := func(p string, call int, write bool) {
		f := files[p]
		if f == nil {
			f = &File{Path: p, First: call}
			files[p] = f
			rep.Files = append(rep.Files, f)
		}
		f.Last = call
		if write {
			f.Writes++
		} else {
			f.Reads++
		}
	}
	for k := range rep.Calls {
		c := &rep.Calls[k]
		if c.Step < 1 || c.Step > len(tr.Messages) {
			continue
		}
		for _, tc := range tr.Messages[c.Step-1].ToolCalls() {
			u := tooluse.Classify(tc)
			a := Action{Tool: tc.Name, Kind: u.Kind.String(), Read: u.Reads}
			for _, w := range u.Writes {
				a.Wrote = append(a.Wrote, w.Path)
			}
			switch {
			case u.Command != "":
				a.Detail = u.Command
			case u.Query != "":
				a.Detail = u.Query
			}
			a.Detail = tooluse.CutRunes(secret.Redact(strings.Join(strings.Fields(a.Detail), " ")), MaxDetailRunes)
			for _, p := range a.Read {
				use(p, c.N, false)
			}
			for _, p := range a.Wrote {
				use(p, c.N, true)
			}
			c.Actions = append(c.Actions, a)
		}
	}
	// The transcript's own compactions: before the first call whose
	// reply comes after the compaction's first message.
	for _, tc := range tr.Compactions {
		for _, c := range rep.Calls {
			if c.Step-1 >= tc.At {
				rep.Recorded = append(rep.Recorded, c.N)
				break
			}
		}
	}
}
