package transcript

import (
	"maps"
	"slices"
)

// Known non-context: what an agent writes to its transcript but never
// sends to the model (progress lines, request blobs, undo snapshots, the
// tool list recorded beside the conversation, the CLI's own notices).
// Each reader lists the kinds its agent writes in one table (ccNonContext,
// cxNonContext, …, registered in nonContextTables); the reader counts each
// record of such a kind in [Trajectory].NonContext. They are neither
// dropped content ([Trajectory].Dropped: conversation the reader could
// not map) nor malformed lines ([Trajectory].Problems): a reading that
// skipped only known non-context lost nothing of the conversation.

// nonContextTable maps a kind of record to why it is not context, for
// the README's per-format tables and [NonContextKinds].
type nonContextTable map[string]string

// count records one item of kind in t.NonContext when kind is in the
// table, and reports whether it was.
func (tab nonContextTable) count(t *Trajectory, kind string) bool {
	if _, ok := tab[kind]; !ok {
		return false
	}
	if t.NonContext == nil {
		t.NonContext = map[string]int{}
	}
	t.NonContext[kind]++
	return true
}

// nonContextTables is each format's table; a format without one records
// nothing beside its conversation that its reader skips.
var nonContextTables = map[Format]nonContextTable{
	FormatClaudeCode: ccNonContext,
	FormatCodex:      cxNonContext,
	FormatCopilotCLI: cpNonContext,
	FormatGeminiCLI:  gmNonContext,
	FormatAider:      aiderNonContext,
}

// NonContextKinds returns the kinds of records of format f that its
// reader skips as known non-context, sorted, each with why (a sentence
// fragment); nil for a format that has none. The map is a fresh copy.
func NonContextKinds(f Format) map[string]string {
	return maps.Clone(nonContextTables[f])
}

// nonContextNames returns the kinds of tab, sorted.
func nonContextNames(tab nonContextTable) []string {
	return slices.Sorted(maps.Keys(tab))
}
