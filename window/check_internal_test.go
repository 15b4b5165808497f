package window

import (
	"fmt"
	"slices"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/google/go-cmp/cmp"
)

// No violation is reachable through the exported API: every mutation that
// would break an invariant is refused (the external tests assert that).
// These tests corrupt a window's state directly, one invariant at a time,
// to show that Check would notice.

type lenCounter struct{}

func (lenCounter) Count(s string) int { return len(s) }
func (lenCounter) Name() string       { return "bytes" }

// corruptible returns a sound window:
//
//	0 system  1 user  2 assistant(a)  3 result(a)  4 assistant text  5 user  6 note
func corruptible(t *testing.T) *Window {
	t.Helper()
	w, err := New(Options{Counter: lenCounter{}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []chat.Message{
		chat.NewText(chat.RoleSystem, "system"),
		chat.NewText(chat.RoleUser, "first"),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "a", Name: "read", Arguments: []byte(`{}`)}}},
		chat.NewToolResult("a", "read", "content", false),
		chat.NewText(chat.RoleAssistant, "text"),
		chat.NewText(chat.RoleUser, "second"),
	}
	for _, m := range msgs {
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	w.SetNote("note") // inserted at 2
	if i := w.Note(); i != 2 {
		t.Fatalf("note at %d, want 2", i)
	}
	// Move the note to the end so the indexes above stay as documented.
	n := w.entries[2]
	w.entries = append(slices.Delete(w.entries, 2, 3), n)
	if vs := w.Check(); len(vs) != 0 {
		t.Fatalf("sound window: %v", vs)
	}
	return w
}

// drop removes entry i behind the window's back, keeping the total right.
func drop(w *Window, i int) {
	w.total -= w.entries[i].tokens
	w.entries = slices.Delete(w.entries, i, i+1)
}

func TestCheckDetects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		corrupt func(w *Window)
		want    []string
	}{
		{"sound", func(*Window) {}, nil},
		{"running total", func(w *Window) { w.total++ }, []string{InvariantAccounting}},
		{"cached count", func(w *Window) { w.entries[4].tokens += 3 }, []string{InvariantAccounting}},
		{"system prompt not first", func(w *Window) { w.systemSeq = w.entries[1].seq }, []string{InvariantSystemFirst}},
		{"system prompt moved", func(w *Window) { w.entries[0], w.entries[1] = w.entries[1], w.entries[0] }, []string{InvariantOrder, InvariantSystemFirst}},
		{"system prompt removed", func(w *Window) { drop(w, 0) }, []string{InvariantSystemFirst}},
		{"first user removed", func(w *Window) { drop(w, 1) }, []string{InvariantFirstUser}},
		{"order", func(w *Window) { w.entries[4], w.entries[5] = w.entries[5], w.entries[4] }, []string{InvariantOrder}},
		{"call removed", func(w *Window) { drop(w, 2) }, []string{InvariantOrphan}},
		{"result before its call", func(w *Window) { w.entries[2], w.entries[3] = w.entries[3], w.entries[2] }, []string{InvariantOrder, InvariantOrphan, InvariantRound}},
		{"result removed", func(w *Window) { drop(w, 3) }, []string{InvariantRound}},
		{"result id rewritten", func(w *Window) {
			w.entries[3].msg = chat.NewToolResult("b", "read", "content", false)
		}, []string{InvariantOrphan}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := corruptible(t)
			tc.corrupt(w)
			var got []string
			for _, v := range w.CheckFull() {
				if v.String() == "" {
					t.Errorf("empty Violation.String for %+v", v)
				}
				got = append(got, v.Invariant)
			}
			slices.Sort(got)
			got = slices.Compact(got)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("CheckFull() invariants (-want +got):\n%s\nviolations: %v", d, w.CheckFull())
			}
		})
	}
}

// TestCheckIncrementalDetects corrupts what was appended after a Check:
// the incremental Check, which walks only those entries, finds what the
// full walk finds.
func TestCheckIncrementalDetects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		append func(w *Window)
		want   string
	}{
		{"order", func(w *Window) {
			e := entry{msg: chat.NewText(chat.RoleUser, "late"), tokens: 4, seq: w.entries[3].seq}
			w.entries = append(w.entries, e)
			w.total += e.tokens
		}, InvariantOrder},
		{"result without its call", func(w *Window) {
			e := entry{msg: chat.NewToolResult("a", "read", "x", false), tokens: 1, seq: w.nextSeq, call: w.nextSeq + 100}
			w.nextSeq++
			w.entries = append(w.entries, e)
			w.total += e.tokens
		}, InvariantOrphan},
		{"result not counted by its round", func(w *Window) {
			call := entry{msg: chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "z", Name: "read", Arguments: []byte(`{}`)}}}, tokens: 1, seq: w.nextSeq}
			res := entry{msg: chat.NewToolResult("z", "read", "x", false), tokens: 1, seq: w.nextSeq + 1, call: w.nextSeq}
			w.nextSeq += 2
			w.entries = append(w.entries, call, res) // call.answered stays 0
			w.total += 2
		}, InvariantRound},
		{"accounting", func(w *Window) {
			w.entries = append(w.entries, entry{msg: chat.NewText(chat.RoleUser, "u"), tokens: 1, seq: w.nextSeq})
			w.nextSeq++
		}, InvariantAccounting},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := corruptible(t) // checked: the prefix is verified
			if w.chk.n != len(w.entries) || w.chk.stale {
				t.Fatalf("after Check: verified %d of %d (stale %v)", w.chk.n, len(w.entries), w.chk.stale)
			}
			tc.append(w)
			inc := w.Check()
			if full := w.CheckFull(); fmt.Sprint(inc) != fmt.Sprint(full) {
				t.Errorf("Check() = %v, CheckFull() = %v", inc, full)
			}
			found := false
			for _, v := range inc {
				found = found || v.Invariant == tc.want
			}
			if !found {
				t.Errorf("Check() = %v, want a %s violation", inc, tc.want)
			}
			// Once a violation is found the next Check walks everything.
			if !w.chk.stale {
				t.Error("a violation left the verified prefix in place")
			}
		})
	}
}
