package session

// History returns entries without the snapshots compaction wrote: after
// each compact boundary, the message entries that restate the window as
// compaction left it ([CompactMetadata].Messages of them; Claude Code's
// convention, Messages 0, is the isCompactSummary entry alone). What
// remains is every message as it entered the session, in order, with the
// boundaries kept where they were: the conversation as the agent had it
// before any compaction, which a replay can run again ([Messages] turns it
// into messages). entries should be resolved ([Resolve]) and loaded whole
// (LoadOptions.All). The result shares the entries' memory.
func History(entries []Entry) []Entry {
	out := make([]Entry, 0, len(entries))
	skip, summary := 0, false
	for i := range entries {
		e := &entries[i]
		if e.IsBoundary() {
			skip, summary = 0, true
			if m := e.CompactMetadata; m != nil && m.Messages > 0 {
				skip, summary = m.Messages, false
			}
			out = append(out, *e)
			continue
		}
		if summary && e.IsCompactSummary {
			summary = false
			continue
		}
		if skip > 0 && !e.IsSidechain && bearsMessage(e) {
			skip--
			continue
		}
		out = append(out, *e)
	}
	return out
}
