package session

// SpanText returns the text of the summarized span id, from the last
// compact boundary among entries that keeps it, and true; false when none
// keeps it (load with LoadOptions.All to search the whole session). O(n).
func SpanText(entries []Entry, id string) (string, bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		if m := entries[i].CompactMetadata; m != nil && m.Span != nil && m.Span.ID == id {
			return m.Span.Text, true
		}
	}
	return "", false
}

// Spans returns the summarized spans the compact boundaries among entries
// keep, in the order written; a later boundary keeping an id already seen
// replaces its text in place.
func Spans(entries []Entry) []Span {
	var out []Span
	at := map[string]int{}
	for i := range entries {
		m := entries[i].CompactMetadata
		if m == nil || m.Span == nil {
			continue
		}
		if j, ok := at[m.Span.ID]; ok {
			out[j] = *m.Span
			continue
		}
		at[m.Span.ID] = len(out)
		out = append(out, *m.Span)
	}
	return out
}
