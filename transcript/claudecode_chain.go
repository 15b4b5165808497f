package transcript

import (
	"bytes"
	"slices"
	"time"
)

// The active chain of a Claude Code main session: which message lines
// Claude Code itself sends, in which order.
//
// Claude Code's loader (sessionStorage's loadTranscriptFile and
// buildConversationChain, in the published CLI) keeps the lines of type
// user, assistant, system and attachment by uuid; a legacy progress line
// is bridged (a line whose parentUuid names one takes the progress
// line's own parent). A leaf is the nearest user or assistant line at or
// above a line no other line names as parent; the newest leaf (by
// timestamp) is the conversation, read by following parentUuid up to
// the root. A post-pass (recoverOrphanedParallelToolResults) puts back
// what the single-parent walk leaves out of parallel tool calls: the
// other lines of an on-chain response (the same message.id) and the
// tool_result lines whose parent is one of them, after the response's
// last on-chain line, each group in timestamp order.
//
// Where this reader differs, and why:
//   - Leaves of equal timestamps go to the later line (Claude Code keeps
//     the first of its map): an interruption writes its tool results and
//     "[Request interrupted by user…]" in one millisecond, and the line
//     written last is the one the conversation went on from.
//   - At a compact boundary (parentUuid null) the walk goes on along its
//     logicalParentUuid: Claude Code sends only what follows the
//     boundary, but a trajectory keeps the history before it, with the
//     compaction marked ([Trajectory].Compactions).
//   - The lines of the chain are read in the order they were written
//     (a line written again keeps its first place, as in Claude Code's
//     map), not with the recovered lines after the response's last
//     on-chain line: the written order is the order of the response's
//     blocks, as the model sent them and as the run sent them back.
//
// Files without that chain (a message line without uuid, or no line
// naming a parent in the file) are read in file order.

// ccChain holds the message lines of a main session until the file is
// read, and the uuid graph of its lines.
type ccChain struct {
	recs     []*ccRecord       // deferred lines (user, assistant, compact boundary), in file order
	replaced []bool            // recs[i] was replaced by a later line of its uuid
	nodes    []ccNode          // lines with a uuid, by first appearance
	byUUID   map[string]int    // uuid -> index in nodes
	bridge   map[string]string // progress line uuid -> its parentUuid
	noUUID   bool              // a user or assistant line has no uuid: file order
}

// ccNode is one line of the graph.
type ccNode struct {
	uuid, parent, logical string
	msgID                 string // assistant lines: message.id
	ts                    time.Time
	rec                   int // index in recs, or -1 for a line that is only a link (a CLI notice)
	kind                  byte
	result                bool // a user line holding a tool_result block
}

const (
	ccNodeOther byte = iota
	ccNodeUser
	ccNodeAssistant
	ccNodeBoundary
)

func newCCChain() *ccChain {
	return &ccChain{byUUID: map[string]int{}, bridge: map[string]string{}}
}

// deferred reports whether r is a line whose place the chain decides.
func ccDeferred(r *ccRecord) bool {
	return r.Type == "user" || r.Type == "assistant" || (r.Type == "system" && r.Subtype == "compact_boundary")
}

// note records line r of the main session: a deferred line is kept, a
// progress line bridges, and other transcript lines (system notices,
// attachments) become links of the graph.
func (c *ccChain) note(r *ccRecord) {
	if r.Type == "progress" {
		if r.UUID != "" {
			c.bridge[r.UUID] = r.ParentUUID
		}
		return
	}
	rec := -1
	if ccDeferred(r) {
		rec = len(c.recs)
		if r.Message != nil {
			// The decoder leaves raw values in the line's buffer,
			// which the next line reuses.
			for i := range r.Message.Content.blocks {
				bl := &r.Message.Content.blocks[i]
				bl.Input = bytes.Clone(bl.Input)
			}
		}
		c.recs = append(c.recs, r)
		c.replaced = append(c.replaced, false)
		if r.UUID == "" && r.Type != "system" {
			c.noUUID = true
		}
	} else if r.Type != "system" && r.Type != "attachment" {
		return
	}
	if r.UUID == "" {
		return
	}
	n := ccNode{uuid: r.UUID, parent: r.ParentUUID, logical: r.LogicalParentUUID, ts: parseTime(r.Timestamp), rec: rec}
	switch {
	case r.Type == "user":
		n.kind = ccNodeUser
		if r.Message != nil {
			n.result = slices.ContainsFunc(r.Message.Content.blocks, func(b ccBlock) bool { return b.Type == "tool_result" })
		}
	case r.Type == "assistant":
		n.kind = ccNodeAssistant
		if r.Message != nil {
			n.msgID = r.Message.ID
		}
	case rec >= 0:
		n.kind = ccNodeBoundary
	}
	if i, ok := c.byUUID[r.UUID]; ok {
		// A later line of the same uuid replaces the earlier one in
		// its place, as in Claude Code's map.
		if old := c.nodes[i].rec; old >= 0 {
			c.replaced[old] = true
		}
		c.nodes[i] = n
		return
	}
	c.byUUID[r.UUID] = len(c.nodes)
	c.nodes = append(c.nodes, n)
}

// resolve returns the parent uuid p stands for: p itself, or, when p is
// a progress line, the nearest parent above it that is not one.
func (c *ccChain) resolve(p string) string {
	for range len(c.bridge) + 1 {
		q, ok := c.bridge[p]
		if !ok {
			return p
		}
		p = q
	}
	return "" // a cycle of progress lines
}

// parentOf returns the index of node i's parent, or -1 at a root or a
// parent the file does not hold. join follows a compact boundary's
// logicalParentUuid.
func (c *ccChain) parentOf(i int, join bool) int {
	n := &c.nodes[i]
	p := c.resolve(n.parent)
	if p == "" && join && n.kind == ccNodeBoundary {
		p = c.resolve(n.logical)
	}
	if j, ok := c.byUUID[p]; ok && p != "" {
		return j
	}
	return -1
}

// linked reports whether some line names a parent the file holds.
func (c *ccChain) linked() bool {
	for i := range c.nodes {
		if c.parentOf(i, false) >= 0 {
			return true
		}
	}
	return false
}

// order returns the deferred lines in the order Claude Code sends them
// (see the comment at the top of the file), and whether that order came
// from the chain: false means file order (no uuid chain in the file).
func (c *ccChain) order() ([]int, bool) {
	if c.noUUID || !c.linked() {
		out := make([]int, len(c.recs))
		for i := range out {
			out[i] = i
		}
		return out, false
	}
	leaf := c.newestLeaf()
	if leaf < 0 {
		return nil, true
	}
	seen := make([]bool, len(c.nodes))
	var chain []int
	for i := leaf; i >= 0 && !seen[i]; i = c.parentOf(i, true) {
		seen[i] = true
		chain = append(chain, i)
	}
	c.recoverParallel(chain, seen)
	// The lines of the chain in the order they were written (the
	// order of their first line, for a uuid written again).
	var out []int
	for i, ok := range seen {
		if r := c.nodes[i].rec; ok && r >= 0 {
			out = append(out, r)
		}
	}
	return out, true
}

// newestLeaf returns the node of the newest leaf, or -1 when there is
// none.
func (c *ccChain) newestLeaf() int {
	named := make([]bool, len(c.nodes))
	for i := range c.nodes {
		if p := c.parentOf(i, false); p >= 0 {
			named[p] = true
		}
	}
	walked := make([]bool, len(c.nodes))
	best := -1
	for i := range c.nodes {
		if named[i] {
			continue
		}
		// Up from a terminal line to the nearest message line; a walk
		// that meets a line walked before has found its leaf already.
		for j := i; j >= 0 && !walked[j]; j = c.parentOf(j, false) {
			walked[j] = true
			if k := c.nodes[j].kind; k != ccNodeUser && k != ccNodeAssistant {
				continue
			}
			if best < 0 || !c.nodes[j].ts.Before(c.nodes[best].ts) && (j > best || c.nodes[j].ts.After(c.nodes[best].ts)) {
				best = j
			}
			break
		}
	}
	return best
}

// recoverParallel marks as seen the lines of parallel tool calls the
// walk left out: the other lines of each on-chain response (the same
// message.id) and the tool results answering any of them.
func (c *ccChain) recoverParallel(chain []int, seen []bool) {
	ids := map[string]bool{} // message.id of the on-chain responses
	for _, i := range chain {
		if n := c.nodes[i]; n.kind == ccNodeAssistant && n.msgID != "" {
			ids[n.msgID] = true
		}
	}
	if len(ids) == 0 {
		return
	}
	members := map[string]bool{} // uuid of every line of those responses
	for i, n := range c.nodes {
		if n.kind == ccNodeAssistant && ids[n.msgID] {
			seen[i] = true
			members[n.uuid] = true
		}
	}
	for i, n := range c.nodes {
		if n.kind == ccNodeUser && n.result && members[c.resolve(n.parent)] {
			seen[i] = true
		}
	}
}
