package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// Repair returns a repaired copy of entries, which are in file order as
// [Read] returned them, and one Repaired problem per fix, naming the
// entry's line, byte offset and uuid. The copy is in file order and holds
// every entry but the boundary of a compaction cut short before any of
// its snapshot; write it with [MarshalLine]. It fixes:
//
//   - every compaction cut short that [Live] reports (a compact boundary
//     followed by fewer message entries than its metadata announces, as
//     when a crash or a truncation stopped the snapshot's write): a
//     boundary that no message entry follows is dropped (the history
//     before it is whole); otherwise it is completed, its metadata
//     announcing the message entries that follow it. The entries after
//     the boundary are never dropped: where the snapshot was cut at the
//     end of a line, they cannot be told apart from later appends.
//
// and then, on the walk set of [Resolve]:
//
//   - every broken link (a parentUuid naming no entry, naming an entry
//     written later, which is how a cycle forms, or null on an entry that
//     is not the first and not a compact boundary): relinked to the
//     previous entry of the walk set in file order, or made null on the
//     first entry;
//   - duplicate uuids: every entry after the first with a uuid gets a
//     fresh one ([NewID]), and each parentUuid or logicalParentUuid that
//     resolved to it ([Resolve]: the latest entry with the uuid written
//     before the linking one) is changed to the fresh uuid, so that the
//     repaired chain is the one Resolve walked.
//
// Side-chain entries and entries without a uuid are left as they are; in
// a file of side-chain entries only (a sub-agent's transcript), parents
// that name no entry are too: they are in the main session's file. A changed entry's Raw is patched in
// place of its "uuid", "parentUuid" and "logicalParentUuid" values (found
// by a walk over the top-level keys, matched as encoding/json matches
// them), every other byte kept, so that foreign lines, and Claude Code
// lines with fields the Entry struct does not hold, survive the rewrite.
// After Repair, [Check] finds no dangling parent, cycle or duplicate uuid.
// The input is not modified.
func Repair(entries []Entry) ([]Entry, []Problem) {
	entries, ps := fixIncomplete(entries)
	out := slices.Clone(entries)
	r := newResolver(entries)
	n := len(r.set)
	uuids := make([]string, n)
	for p, i := range r.set {
		uuids[p] = entries[i].UUID
		if r.dupOf[p] >= 0 {
			uuids[p] = newUUID()
			ps = append(ps, entryProblem(&entries[i], ProblemDuplicateUUID, true, "uuid %q is also used by %s; given the fresh uuid %s", entries[i].UUID, r.name(r.dupOf[p]), uuids[p]))
		}
	}
	prev := func(p int) (string, string) {
		if p == 0 {
			return "", "made null: nothing is written before it"
		}
		return uuids[p-1], "relinked to the previous entry, " + uuids[p-1]
	}
	for p, i := range r.set {
		e := &out[i]
		parent, logical := e.ParentUUID, e.LogicalParentUUID
		switch r.kind[p] {
		case linkBack:
			parent = uuids[r.parent[p]]
		case linkNull:
			if p > 0 && !e.IsBoundary() {
				var how string
				parent, how = prev(p)
				ps = append(ps, entryProblem(e, ProblemDanglingParent, true, "null parentUuid on an entry that is not the first: %s", how))
			}
		case linkForward:
			var how string
			parent, how = prev(p)
			ps = append(ps, entryProblem(e, ProblemCycle, true, "parentUuid %q names an entry written after it (a cycle, or a link that cannot be trusted): %s", e.ParentUUID, how))
		case linkDangling:
			if r.side {
				break // a sub-agent's links into its main session
			}
			var how string
			parent, how = prev(p)
			ps = append(ps, entryProblem(e, ProblemDanglingParent, true, "parentUuid %q names no entry: %s", e.ParentUUID, how))
		}
		if q := r.logical[p]; q >= 0 {
			logical = uuids[q]
		}
		if parent == e.ParentUUID && logical == e.LogicalParentUUID && uuids[p] == e.UUID {
			continue
		}
		set := map[string]json.RawMessage{}
		if uuids[p] != e.UUID {
			set["uuid"] = jsonString(uuids[p])
		}
		if parent != e.ParentUUID {
			set["parentUuid"] = json.RawMessage("null")
			if parent != "" {
				set["parentUuid"] = jsonString(parent)
			}
		}
		if logical != e.LogicalParentUUID {
			set["logicalParentUuid"] = jsonString(logical)
		}
		e.UUID, e.ParentUUID, e.LogicalParentUUID = uuids[p], parent, logical
		if len(e.Raw) > 0 {
			raw, err := patchKeys(e.Raw, set)
			if err != nil {
				raw = nil // re-encoded from the fields by MarshalLine
			}
			e.Raw = raw
		}
	}
	sortProblems(ps)
	return out, ps
}

// fixIncomplete returns entries with the compactions cut short that
// [Live] reports completed or dropped, and one Repaired problem per
// compaction (see [Repair]). Entries is returned as is when there is none.
func fixIncomplete(entries []Entry) ([]Entry, []Problem) {
	bs := boundaries(entries, rawEnd)
	start := lastComplete(bs)
	var (
		ps      []Problem
		drop    = map[int]bool{}
		patched []Entry
	)
	for _, b := range bs {
		if b.at < start || b.complete() {
			continue
		}
		e := &entries[b.at]
		if b.have == 0 {
			drop[b.at] = true
			ps = append(ps, entryProblem(e, ProblemIncompleteBoundary, true,
				"compact boundary announces %d message entries but none follows it (a compaction cut short): dropped; the history before it is whole", b.want))
			continue
		}
		// The entries counted after the boundary are the snapshot's
		// or, when it was cut at a line's end, perhaps later appends
		// (a torn line after them does not tell which): keep them
		// all, and let the boundary announce what is there.
		if patched == nil {
			patched = slices.Clone(entries)
		}
		f := &patched[b.at]
		cm := *f.CompactMetadata
		cm.Messages = b.have
		f.CompactMetadata = &cm
		if len(f.Raw) > 0 {
			v, err := json.Marshal(cm)
			if err == nil {
				f.Raw, err = patchKeys(f.Raw, map[string]json.RawMessage{"compactMetadata": v})
			}
			if err != nil {
				f.Raw = nil // re-encoded from the fields by MarshalLine
			}
		}
		ps = append(ps, entryProblem(e, ProblemIncompleteBoundary, true,
			"compact boundary announces %d message entries but only %d follow it (a compaction cut short): completed, it now announces %d", b.want, b.have, b.have))
	}
	if patched != nil {
		entries = patched
	}
	if len(drop) == 0 {
		return entries, ps
	}
	kept := make([]Entry, 0, len(entries)-len(drop))
	for i := range entries {
		if !drop[i] {
			kept = append(kept, entries[i])
		}
	}
	return kept, ps
}

// jsonString encodes s as a JSON string.
func jsonString(s string) json.RawMessage {
	b, _ := jsonx.MarshalNoEscape(s) // a string always encodes
	return b
}

// errNotObject reports a line that patchKeys cannot patch.
var errNotObject = errors.New("not a JSON object")

// patchKeys returns a copy of the JSON object raw in which the value of
// each top-level key matching a name of set (matched as encoding/json
// matches keys: exactly or else case-insensitively, every occurrence) is
// replaced by set's value; a name raw lacks is added first in the object.
// Every other byte is kept. Keys are found by a token walk
// (json.Decoder.InputOffset gives where each value ends).
func patchKeys(raw []byte, set map[string]json.RawMessage) ([]byte, error) {
	type span struct {
		start, end int64
		val        json.RawMessage
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	open := dec.InputOffset()
	var spans []span
	found := map[string]bool{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := kt.(string)
		if !ok {
			return nil, errNotObject
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		end := dec.InputOffset()
		for name, val := range set {
			if jsonFold(key) == jsonFold(name) {
				spans = append(spans, span{end - int64(len(v)), end, val})
				found[name] = true
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(raw) + 64)
	b.Write(raw[:open])
	names := make([]string, 0, len(set))
	for name := range set {
		if !found[name] {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	empty := len(bytes.TrimSpace(raw[open:])) == 1 // "}" alone
	for k, name := range names {
		fmt.Fprintf(&b, "%s:%s", jsonString(name), set[name])
		if k < len(names)-1 || !empty {
			b.WriteByte(',')
		}
	}
	at := open
	for _, s := range spans {
		b.Write(raw[at:s.start])
		b.Write(s.val)
		at = s.end
	}
	b.Write(raw[at:])
	return b.Bytes(), nil
}

// jsonFold folds a key the way encoding/json does when it matches an
// object key to a struct field case-insensitively: ASCII letters to upper
// case, other runes to the smallest rune of their case-folding orbit.
func jsonFold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b.WriteRune(r)
			continue
		}
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		b.WriteRune(r)
	}
	return b.String()
}
