package session

import (
	"github.com/agentctx/agentctx/chat"
)

// Report is what [Check] found in a transcript: `agentctx sessions check`
// prints it, and with --json writes it in these snake_case names. Counts
// are of lines, entries and messages. Report is plain data.
type Report struct {
	// File is the transcript's path, when known.
	File string `json:"file,omitempty"`
	// Lines counts the non-blank lines read, damaged ones included.
	Lines int `json:"lines"`
	// Entries counts the entries decoded; Foreign those of a type agentctx
	// keeps verbatim ([Entry.Known] false), Sidechain the sub-agent lines,
	// Boundaries the compact boundaries.
	Entries    int `json:"entries"`
	Foreign    int `json:"foreign"`
	Sidechain  int `json:"sidechain"`
	Boundaries int `json:"boundaries"`
	// Messages counts the messages of the resolved conversation, before
	// and after compact boundaries ([Messages] of [Resolve]).
	Messages int `json:"messages"`
	// Abandoned counts the entries (foreign ones aside) on branches the
	// conversation left, as after a Claude Code rewind: expected, not a
	// problem.
	Abandoned int `json:"abandoned"`
	// Problems lists every defect found, by byte offset, warnings
	// included.
	Problems []Problem `json:"problems"`
	// Warnings counts the Problems that are warnings ([Problem.Warning]):
	// torn writes that reading recovered from.
	Warnings int `json:"warnings"`
}

// OK reports whether the transcript has no problem but warnings
// ([Problem.Warning]: a torn write a crash left, which loading recovers
// from). Every other problem, including the ones loading works around
// (Repaired), makes it not OK: `sessions check --repair` fixes those.
func (r Report) OK() bool { return len(r.Problems) == r.Warnings }

// SetFile sets the report's File and the File of each problem that names
// none: [Check] cannot know the file of the problems it finds itself.
func (r *Report) SetFile(path string) {
	r.File = path
	for i := range r.Problems {
		if r.Problems[i].File == "" {
			r.Problems[i].File = path
		}
	}
}

// Check validates a transcript: entries as [Read] returned them, in file
// order, and the problems Read reported (torn and malformed lines, entries
// after a torn line). It adds, each naming its line, byte offset and uuid:
//
//   - the chain's problems ([Resolve]): dangling parents, cycles, null
//     parents mid-file, duplicate uuids;
//   - incomplete compact boundaries ([Live]);
//   - messages that cannot be decoded ([Messages]);
//   - orphan tool results: a tool result (agentctx's tool_result entry or
//     a Claude Code tool_result block) whose call id has no unanswered call
//     before it in the conversation since the last compact boundary.
//
// Report.File is the File of the read problems when they name one; use
// [Report.SetFile] otherwise. Check runs in O(n) time and never fails.
func Check(entries []Entry, readProblems []Problem) Report {
	return check(entries, readProblems, rawEnd)
}

// check is [Check] with the ends of the entries' lines given by end.
func check(entries []Entry, readProblems []Problem, end lineEnd) Report {
	rep := Report{Entries: len(entries)}
	for i := range entries {
		e := &entries[i]
		if !e.Known() {
			rep.Foreign++
		}
		if e.IsSidechain {
			rep.Sidechain++
		}
		if e.IsBoundary() {
			rep.Boundaries++
		}
	}
	rep.Lines = countLines(entries, readProblems)

	r := newResolver(entries)
	r.walk()
	resolved := r.result()
	rep.Abandoned = r.abandoned

	ps := append([]Problem(nil), readProblems...)
	ps = append(ps, r.problems()...)
	_, lps := live(resolved, end)
	ps = append(ps, lps...)

	c := newConverter()
	for i := range resolved {
		c.add(i, &resolved[i])
	}
	c.finish()
	rep.Messages = len(c.out)
	ps = append(ps, c.probs...)
	ps = append(ps, orphans(resolved, c.out)...)

	sortProblems(ps)
	rep.Problems = ps
	for _, p := range ps {
		if p.Warning() {
			rep.Warnings++
		}
	}
	for _, p := range readProblems {
		if p.File != "" {
			rep.SetFile(p.File)
			break
		}
	}
	return rep
}

// countLines counts the lines entries and skipped lines were read from: a
// glued entry shares its line with the torn bytes before it.
func countLines(entries []Entry, readProblems []Problem) int {
	seen := map[int]bool{}
	known := true
	for i := range entries {
		known = known && entries[i].Line > 0
		seen[entries[i].Line] = true
	}
	for _, p := range readProblems {
		known = known && p.Line > 0
		seen[p.Line] = true
	}
	if known {
		return len(seen)
	}
	n := len(entries)
	for _, p := range readProblems {
		if p.Kind == ProblemMalformed || (p.Kind == ProblemTornLine && !p.Repaired) {
			n++
		}
	}
	return n
}

// orphans reports the tool results of msgs (converted from entries) that
// answer no unanswered call before them since the last compact boundary.
func orphans(entries []Entry, msgs []convMsg) []Problem {
	var ps []Problem
	open := map[string]int{}
	k := 0
	for i := range entries {
		if entries[i].IsBoundary() {
			clear(open)
		}
		for ; k < len(msgs) && msgs[k].entry == i; k++ {
			m := msgs[k].msg
			switch m.Role {
			case chat.RoleAssistant:
				for _, p := range m.Parts {
					if tc, ok := p.(chat.ToolCall); ok {
						open[tc.ID]++
					}
				}
			case chat.RoleTool:
				for _, p := range m.Parts {
					tr, ok := p.(chat.ToolResult)
					if !ok {
						continue
					}
					if open[tr.ToolCallID] > 0 {
						open[tr.ToolCallID]--
						continue
					}
					ps = append(ps, entryProblem(&entries[i], ProblemOrphanResult, false,
						"tool result for call %q answers no call before it since the last compact boundary", tr.ToolCallID))
				}
			}
		}
	}
	return ps
}
