package session

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentctx/agentctx/chat"
)

// Resolve returns the conversation entries record: the entries of the
// parentUuid tree that the last entry's line of descent runs through, in
// file order (a sound chain's order: a parent is always written before its
// children), with what it found wrong on the way.
//
// The walk set is every entry with a uuid that is not a side-chain entry
// (entries without a uuid, such as Claude Code's file-history-snapshot
// lines, are left out); a file of side-chain entries only (a Claude Code
// sub-agent's transcript) is walked as its own conversation, its parents
// that name no entry not reported (they are in the main session's file).
// From the last entry of the walk set, the walk follows parentUuid links
// back:
//
//   - A link names the latest entry with that uuid written before the
//     linking entry, or when there is none the latest after it, so that a
//     duplicated uuid resolves the way an append-only writer meant it.
//     Each duplicate is reported as [ProblemDuplicateUUID].
//   - At a compact boundary (null parent by design) the walk goes on
//     through its logicalParentUuid when that names an earlier entry, or
//     else to the entry before it: the boundary does not end the
//     conversation; [Live] says where the live part starts.
//   - A parent that is missing ([ProblemDanglingParent]), a link back to
//     an entry already walked ([ProblemCycle]), or a null parent on an
//     entry that is not the first of the walk set ([ProblemDanglingParent])
//     is reported, Repaired, and the walk goes on with the closest earlier
//     entry in file order not yet walked: a damaged chain never makes
//     resume return a fraction of the session (Claude Code's most reported
//     resume bug). A missing parent with nothing before it in the file is
//     not reported: the link points out of the file (a session continued
//     or forked from another one, a side chain's parent), and nothing is
//     lost. A missing parent off the walked line is reported too.
//
// The walk stops at the first entry of the walk set (or at a break with
// nothing before it). Entries off the walked line are then taken back in
// when they hang off the conversation without starting a branch of their
// own: Claude Code writes each tool result as a child of the line holding
// its tool_use, and each further block of a response as a child of the
// previous one, so parallel tool calls fork the tree without leaving the
// conversation. Such an entry joins when its parent is in the conversation
// (or missing: lost to damage) and it is not a user prompt (a user message
// that is not only tool results), not an assistant line of another
// response, and not a duplicate of an entry in the conversation. What is
// left are branches the conversation abandoned (Claude Code rewinds and
// edits fork the tree; the last entry's line is the live one): not
// problems, counted in [Report].Abandoned.
//
// Resolve runs in O(n) time with maps; the entries share their fields with
// the input. Problems name line, byte offset and uuid; their File is empty.
func Resolve(entries []Entry) ([]Entry, []Problem) {
	r := newResolver(entries)
	r.walk()
	return r.result(), r.problems()
}

// link says how a walk-set entry's parentUuid resolved.
type link int8

const (
	linkNull     link = iota // null parent
	linkBack                 // to an entry written before it
	linkForward              // to an entry written after it
	linkDangling             // to no entry
)

// resolver holds the parentUuid tree of a list of entries.
type resolver struct {
	es  []Entry
	set []int // indexes in es of the walk set, in file order
	// Per position in set:
	parent  []int  // position of the resolved parent, -1 for none
	kind    []link // how the parent resolved
	logical []int  // a boundary's resolved logicalParentUuid, -1 for none
	dupOf   []int  // the position of the previous entry with the same uuid, -1
	live    []bool // in the conversation
	visited []bool // walked
	free    []int  // union-find: the largest unwalked position <= p is find(p)

	// side is true when the walk set is side-chain entries: a sub-agent's
	// file, whose first lines name parents in the main session's file.
	side bool

	walkProbs []Problem
	abandoned int
}

func newResolver(es []Entry) *resolver {
	r := &resolver{es: es}
	for pass := 0; pass < 2 && len(r.set) == 0; pass++ {
		r.side = pass == 1
		for i := range es {
			if es[i].UUID != "" && es[i].IsSidechain == r.side {
				r.set = append(r.set, i)
			}
		}
	}
	n := len(r.set)
	r.parent = make([]int, n)
	r.kind = make([]link, n)
	r.logical = make([]int, n)
	r.dupOf = make([]int, n)
	latest := make(map[string]int, n)
	type pending struct {
		p       int
		logical bool
	}
	var later []pending
	for p, i := range r.set {
		e := &es[i]
		r.parent[p], r.logical[p], r.dupOf[p] = -1, -1, -1
		switch q, ok := latest[e.ParentUUID]; {
		case e.ParentUUID == "":
			r.kind[p] = linkNull
		case ok:
			r.parent[p], r.kind[p] = q, linkBack
		default:
			r.kind[p] = linkDangling
			later = append(later, pending{p, false})
		}
		if e.IsBoundary() && e.LogicalParentUUID != "" {
			if q, ok := latest[e.LogicalParentUUID]; ok {
				r.logical[p] = q
			} else {
				later = append(later, pending{p, true})
			}
		}
		if q, ok := latest[e.UUID]; ok {
			r.dupOf[p] = q
		}
		latest[e.UUID] = p
	}
	for _, l := range later {
		e := &es[r.set[l.p]]
		if l.logical {
			if q, ok := latest[e.LogicalParentUUID]; ok {
				r.logical[l.p] = q
			}
			continue
		}
		if q, ok := latest[e.ParentUUID]; ok {
			r.parent[l.p], r.kind[l.p] = q, linkForward
		}
	}
	return r
}

// find returns the largest unwalked position <= p, or -1.
func (r *resolver) find(p int) int {
	root := p
	for root >= 0 && r.free[root] != root {
		root = r.free[root]
	}
	for p >= 0 && r.free[p] != p { // path compression
		next := r.free[p]
		r.free[p] = root
		p = next
	}
	return root
}

// walk follows the chain from the last entry and then takes back the
// entries that hang off it.
func (r *resolver) walk() {
	n := len(r.set)
	r.visited = make([]bool, n)
	r.live = make([]bool, n)
	r.free = make([]int, n)
	for p := range r.free {
		r.free[p] = p
	}
	for cur := n - 1; cur >= 0; {
		r.visited[cur], r.live[cur] = true, true
		r.free[cur] = cur - 1
		e := &r.es[r.set[cur]]
		next := -1
		switch {
		case e.IsBoundary():
			if lp := r.logical[cur]; lp >= 0 && lp < cur && !r.visited[lp] {
				next = lp
			} else {
				next = r.find(cur - 1)
			}
		case r.kind[cur] == linkNull:
			if cur > 0 {
				next = r.find(cur - 1)
				r.walkProblem(cur, ProblemDanglingParent, "null parentUuid on an entry that is not the first; continued with %s", r.name(next))
			}
		case r.kind[cur] == linkDangling:
			next = r.find(cur - 1)
			// A dangling link on the first entry points out of the file
			// (a session forked or continued from another file, a side
			// chain's parent): nothing before it is lost.
			if !r.side && next >= 0 {
				r.walkProblem(cur, ProblemDanglingParent, "parentUuid %q names no entry; continued with %s", e.ParentUUID, r.name(next))
			}
		case r.visited[r.parent[cur]]:
			next = r.find(cur - 1)
			r.walkProblem(cur, ProblemCycle, "parentUuid %q leads back to %s, already in the chain; continued with %s", e.ParentUUID, r.name(r.parent[cur]), r.name(next))
		default:
			next = r.parent[cur]
		}
		cur = next
	}
	r.attach()
}

// attach takes back, in file order, the unwalked entries that hang off the
// conversation without starting a branch, and counts the abandoned ones.
func (r *resolver) attach() {
	var ids map[string]bool // message ids of the walked assistant lines
	liveUUID := make(map[string]bool)
	for p, i := range r.set {
		if r.visited[p] {
			liveUUID[r.es[i].UUID] = true
		}
	}
	for p, i := range r.set {
		if r.visited[p] {
			continue
		}
		e := &r.es[i]
		par := r.parent[p]
		if r.kind[p] == linkDangling && !r.side {
			r.walkProblem(p, ProblemDanglingParent, "parentUuid %q names no entry (off the chain from the last entry); kept in file order", e.ParentUUID)
		}
		// A missing parent may have been lost to damage: what hangs off
		// it without starting a branch is kept.
		parentLive := r.kind[p] == linkDangling || (r.kind[p] != linkNull && r.live[par])
		ok := parentLive && !liveUUID[e.UUID] && !e.IsBoundary()
		if ok {
			switch e.Type {
			case TypeUser:
				ok = toolResultsOnly(e)
			case TypeAssistant:
				if ids == nil {
					ids = map[string]bool{}
					for q, j := range r.set {
						if r.visited[q] && r.es[j].Type == TypeAssistant {
							if id := messageID(&r.es[j]); id != "" {
								ids[id] = true
							}
						}
					}
				}
				id := messageID(e)
				ok = id != "" && ids[id]
			}
		}
		if ok {
			r.live[p] = true
		} else if e.Known() && !liveUUID[e.UUID] {
			r.abandoned++
		}
	}
}

// result returns the conversation's entries in file order.
func (r *resolver) result() []Entry {
	out := make([]Entry, 0, len(r.set))
	for p, i := range r.set {
		if r.live[p] {
			out = append(out, r.es[i])
		}
	}
	return out
}

// problems returns the duplicate uuids and the walk's problems, sorted by
// offset.
func (r *resolver) problems() []Problem {
	ps := slices.Clone(r.walkProbs)
	for p, q := range r.dupOf {
		if q >= 0 {
			e := &r.es[r.set[p]]
			ps = append(ps, entryProblem(e, ProblemDuplicateUUID, true, "uuid is also used by %s; a parentUuid names the latest entry with it written before the linking entry", r.name(q)))
		}
	}
	sortProblems(ps)
	return ps
}

func (r *resolver) walkProblem(p int, kind ProblemKind, format string, args ...any) {
	r.walkProbs = append(r.walkProbs, entryProblem(&r.es[r.set[p]], kind, true, format, args...))
}

// name describes the entry at position p for a problem's detail.
func (r *resolver) name(p int) string {
	if p < 0 {
		return "nothing (the start of the file)"
	}
	e := &r.es[r.set[p]]
	if e.Line > 0 {
		return fmt.Sprintf("the entry at line %d (%s)", e.Line, e.UUID)
	}
	return fmt.Sprintf("entry %s (byte %d)", e.UUID, e.Offset)
}

// sortProblems orders problems by byte offset, then line, keeping the
// order of equal ones.
func sortProblems(ps []Problem) {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Offset, b.Offset), cmp.Compare(a.Line, b.Line))
	})
}

// toolResultsOnly reports whether a user entry holds only tool results
// (a Claude Code user line of tool_result blocks, or a message of role
// tool): it answers calls instead of starting a turn.
func toolResultsOnly(e *Entry) bool {
	var p struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if isNull(e.Message) || decodeLoose(e.Message, &p) != nil {
		return false
	}
	if p.Role == string(chat.RoleTool) {
		return true
	}
	var blocks []struct {
		Type string `json:"type"`
	}
	if decodeLoose(p.Content, &blocks) != nil || len(blocks) == 0 {
		return false
	}
	for _, b := range blocks {
		if b.Type != "tool_result" {
			return false
		}
	}
	return true
}

// messageID returns the id of e's message ("" when it has none).
func messageID(e *Entry) string {
	var p struct {
		ID string `json:"id"`
	}
	if isNull(e.Message) || decodeLoose(e.Message, &p) != nil {
		return ""
	}
	return p.ID
}

// Live returns the index in entries of the last complete compact boundary,
// where the live context starts, or 0 when there is none. entries are in
// file or conversation order ([Resolve]); the boundary's own snapshot
// follows it in both.
//
// A boundary is complete when at least [CompactMetadata].Messages entries
// holding a message (side-chain entries aside) follow it before the next
// boundary: the window as the
// compaction left it was written whole. Messages 0 is Claude Code's
// convention (the summary alone follows) and always complete. An
// incomplete boundary is a compaction whose write a crash cut short: the
// window before it is still whole in the entries before it, so loading
// steps back to the previous boundary. Each incomplete boundary at or
// after the returned index is reported as [ProblemIncompleteBoundary],
// naming its line and byte offset. A store that started reading at the
// last boundary's offset learns from such a problem that it must read
// from the previous boundary.
//
// Only entries on the lines right after the boundary count: a snapshot is
// one write, so a torn line among them (or any other gap in the file's
// byte offsets) marks the snapshot incomplete for good, and entries
// appended after a crash are never counted as the torn snapshot's.
// Entries built in memory (no Raw) have no offsets and are counted in
// order. [Restore] skips the entries of an incomplete boundary.
func Live(entries []Entry) (int, []Problem) {
	return live(entries, rawEnd)
}

// live is [Live] with the ends of the entries' lines given by end.
func live(entries []Entry, end lineEnd) (int, []Problem) {
	bs := boundaries(entries, end)
	start := lastComplete(bs)
	var ps []Problem
	for _, b := range bs {
		if b.at >= start && !b.complete() {
			e := &entries[b.at]
			ps = append(ps, entryProblem(e, ProblemIncompleteBoundary, true,
				"compact boundary announces %d message entries but only %d follow it (a compaction cut short); the window before it is used", b.want, b.have))
		}
	}
	return max(start, 0), ps
}

// lastComplete returns the entry index of the last complete boundary of
// bs, or -1.
func lastComplete(bs []boundary) int {
	for k := len(bs) - 1; k >= 0; k-- {
		if bs[k].complete() {
			return bs[k].at
		}
	}
	return -1
}

// boundary is a compact boundary in a list of entries: its index, the
// message entries its metadata announces and those that follow it before
// the next boundary.
type boundary struct {
	at, want, have int
	gap            bool // a line break in the file cut the snapshot short
}

func (b boundary) complete() bool { return b.have >= b.want }

// boundaries lists the compact boundaries of entries in order.
func boundaries(entries []Entry, end lineEnd) []boundary {
	var bs []boundary
	for i := range entries {
		e := &entries[i]
		if e.IsBoundary() {
			want := 0
			if m := e.CompactMetadata; m != nil {
				want = max(m.Messages, 0)
			}
			bs = append(bs, boundary{at: i, want: want})
			continue
		}
		if len(bs) == 0 {
			continue
		}
		b := &bs[len(bs)-1]
		if b.gap || b.have >= b.want {
			continue
		}
		if !adjacentBy(end, &entries[i-1], e) {
			// A snapshot is written in one write, so its lines are
			// adjacent in the file; a gap (a torn line, then later
			// appends) means the write was cut short, whatever follows.
			b.gap = true
			continue
		}
		if !e.IsSidechain && bearsMessage(e) {
			b.have++
		}
	}
	return bs
}

// adjacent reports whether next's line starts right after prev's line in
// the file. Entries not read from a file (no Raw) count as adjacent: there
// is no offset to compare.
func adjacent(prev, next *Entry) bool {
	return adjacentBy(rawEnd, prev, next)
}

// lineEnd returns the byte offset where e's line ends in its file (its
// newline's offset, less a carriage return), or false when e was not read
// from a file.
type lineEnd func(e *Entry) (int64, bool)

// rawEnd is the lineEnd of entries that hold their line in Raw.
func rawEnd(e *Entry) (int64, bool) {
	if e.Raw == nil {
		return 0, false
	}
	return e.Offset + int64(len(e.Raw)), true
}

// adjacentBy is [adjacent] with the ends of lines given by end.
func adjacentBy(end lineEnd, prev, next *Entry) bool {
	pe, ok := end(prev)
	if !ok {
		return true
	}
	if _, ok := end(next); !ok {
		return true
	}
	// The line's newline, and a carriage return that DecodeLine trimmed.
	return next.Offset == pe+1 || next.Offset == pe+2
}
