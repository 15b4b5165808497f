package secret

import (
	"slices"
	"strings"
)

// MarkerPrefix starts every marker [Redact] writes: a marker is
// MarkerPrefix, the span's kind (kinds joined by "+" when adjacent spans
// of different kinds were merged) and "]".
const MarkerPrefix = "[REDACTED "

// Redact returns text with every span [Find] reports replaced by a marker
// naming its kind, "[REDACTED github_token]", and every other occurrence
// of a found secret's value replaced too (a value found once is a secret
// wherever it stands, even glued to a word where Find would not report
// it). Adjacent spans are merged into one marker.
//
// The output never contains a value Find reports in text, and Find
// reports nothing in it, so Redact is idempotent: removing a secret can
// expose another (an anchor right after a redacted key was glued to it),
// and Redact then scans its output again, until Find reports nothing.
// Markers are never part of a span (their brackets and space end every
// pattern), so each further scan removes bytes of text and the loop ends;
// one scan is the rule, two when a secret was found. It is linear in
// len(text) per scan (BenchmarkRedact), returns text itself, without
// allocating, when nothing is found, never panics, and is safe for
// concurrent use.
func Redact(text string) string {
	spans := Find(text)
	for spans != nil {
		text = replace(text, spans)
		spans = Find(text)
	}
	return text
}

// replace writes text with spans (sorted, disjoint) replaced by markers,
// then replaces the other occurrences of their values.
func replace(text string, spans []Span) string {
	var b strings.Builder
	b.Grow(len(text))
	var values []string
	seen := map[string]bool{}
	last := 0
	for i := 0; i < len(spans); {
		first, s := i, spans[i]
		end := s.Offset + s.Length
		kinds := []string{s.Kind}
		for i++; i < len(spans) && spans[i].Offset == end; i++ {
			end = spans[i].Offset + spans[i].Length
			if k := spans[i].Kind; !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
		b.WriteString(text[last:s.Offset])
		b.WriteString(marker(strings.Join(kinds, "+")))
		for _, v := range spans[first:i] {
			if val := text[v.Offset : v.Offset+v.Length]; !seen[val] {
				seen[val] = true
				values = append(values, val, marker(v.Kind))
			}
		}
		last = end
	}
	b.WriteString(text[last:])
	out := b.String()
	// Other occurrences are rare: look for a few values one by one (no
	// copy when there is none); for many, one replacer pass over all of
	// them, which stays linear however many secrets there are.
	if len(values) <= 2*maxSearched {
		found := false
		for i := 0; i < len(values) && !found; i += 2 {
			found = strings.Contains(out, values[i])
		}
		if !found {
			return out
		}
	}
	return strings.NewReplacer(values...).Replace(out)
}

// maxSearched is the most distinct values replace looks for one by one.
const maxSearched = 8

func marker(kind string) string { return MarkerPrefix + kind + "]" }
