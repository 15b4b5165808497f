package session_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/session"
)

// boundaryLine is a compact boundary announcing n message entries.
func boundaryLine(t testing.TB, uuid, logical string, n int) string {
	t.Helper()
	l, err := session.MarshalLine(session.Entry{UUID: uuid, LogicalParentUUID: logical, SessionID: "s1",
		Type: session.TypeSystem, Subtype: session.SubtypeCompactBoundary,
		CompactMetadata: &session.CompactMetadata{Trigger: "auto", Messages: n}})
	if err != nil {
		t.Fatal(err)
	}
	return string(l)
}

// TestRepairIncompleteCompaction repairs compactions cut short: a
// boundary without any of its snapshot is dropped, one with part of it is
// completed; no message entry is ever dropped, and the repaired
// transcript checks OK (its torn line, a warning, dropped by the writer of
// the copy).
func TestRepairIncompleteCompaction(t *testing.T) {
	t.Parallel()
	a, b := our(t, 0, "a", ""), our(t, 1, "b", "a")
	for _, tt := range []struct {
		name  string
		data  string
		want  []string // uuids of the repaired copy, in file order
		fixed int      // incomplete-boundary fixes
	}{
		{"boundary alone at the end", string(lines(a, b, boundaryLine(t, "k", "b", 2))), []string{"a", "b"}, 1},
		{"boundary then a torn line then appends", string(lines(a, b, boundaryLine(t, "k", "b", 2), `{"uuid":"s","par`, our(t, 3, "x", "k"))), []string{"a", "b", "x"}, 1},
		{"part of the snapshot", string(lines(a, b, boundaryLine(t, "k", "b", 3), our(t, 2, "s", "k"))), []string{"a", "b", "k", "s"}, 1},
		{"part of the snapshot then appends", string(lines(a, b, boundaryLine(t, "k", "b", 3), our(t, 2, "s", "k"), our(t, 3, "x", "s"))), []string{"a", "b", "k", "s", "x"}, 1},
		{"complete", string(lines(a, b, boundaryLine(t, "k", "b", 1), our(t, 2, "s", "k"))), []string{"a", "b", "k", "s"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			es, _ := read(t, "s.jsonl", []byte(tt.data))
			fixed, fixes := session.Repair(es)
			if diff := cmp.Diff(tt.want, uuids(fixed)); diff != "" {
				t.Errorf("repaired uuids (-want +got):\n%s", diff)
			}
			n := 0
			for _, p := range fixes {
				if p.Kind == session.ProblemIncompleteBoundary {
					n++
				}
			}
			if n != tt.fixed {
				t.Errorf("%d incomplete-boundary fixes, want %d: %v", n, tt.fixed, fixes)
			}
			es2, rps := read(t, "r.jsonl", marshalAll(t, fixed))
			if rep := session.Check(es2, rps); !rep.OK() || len(rep.Problems) != 0 {
				t.Errorf("the repaired copy: %v", rep.Problems)
			}
		})
	}
}
