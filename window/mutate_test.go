package window_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/window"
	"github.com/google/go-cmp/cmp"
)

// sample is a window with every kind of unit:
//
//	0 system  1 first user  2 round a,b (a answered, user, b answered)
//	5 text    6 user        7 round c   9 dangling round d
func sample(t testing.TB) *window.Window {
	w := newWindow(t, window.Options{Budget: 10000})
	mustAdd(t, w,
		sys("system"), user("first"),
		calls("a", "b"), result("a", "A"), user("interrupt"), result("b", "B"),
		asst("text"), user("second"),
		calls("c"), result("c", "C"),
		calls("d"),
	)
	check(t, w)
	return w
}

func TestReplaceErrors(t *testing.T) {
	t.Parallel()
	renamed := calls("a", "b")
	renamed.Parts[1] = call("b", "bash", `{}`)
	reid := calls("a", "z")
	cases := []struct {
		name string
		i    int
		m    chat.Message
		err  error
	}{
		{"negative index", -1, user("x"), window.ErrRange},
		{"past the end", 11, user("x"), window.ErrRange},
		{"role change", 1, asst("x"), window.ErrInvalidMessage},
		{"tool becomes user", 3, user("x"), window.ErrInvalidMessage},
		{"call dropped", 2, calls("a"), window.ErrSplitRound},
		{"call added", 2, calls("a", "b", "c2"), window.ErrSplitRound},
		{"calls dropped entirely", 2, asst("no calls"), window.ErrSplitRound},
		{"call renamed", 2, renamed, window.ErrSplitRound},
		{"call id changed", 2, reid, window.ErrSplitRound},
		{"calls added to a text reply", 6, calls("e"), window.ErrSplitRound},
		{"result id changed", 3, result("b", "A"), window.ErrSplitRound},
		{"tool message without result", 3, chat.NewText(chat.RoleTool, "x"), window.ErrInvalidMessage},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := sample(t)
			before := snap(w)
			if err := w.Replace(tc.i, tc.m); !errors.Is(err, tc.err) {
				t.Fatalf("Replace(%d) = %v, want %v", tc.i, err, tc.err)
			}
			assertUnchanged(t, before, w)
		})
	}
}

func TestReplace(t *testing.T) {
	t.Parallel()
	w := sample(t)
	cases := []struct {
		i int
		m chat.Message
	}{
		{1, user("first, cut")},            // the pinned first user message may be cut
		{0, sys(strings.Repeat("s", 500))}, // and the system prompt grow
		{3, chat.NewToolResult("a", "read", "short", true)},
		{2, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "new"}, call("a", "read", `{"file_path":"x"}`), call("b", "read", `{}`)}}},
	}
	for _, tc := range cases {
		if err := w.Replace(tc.i, tc.m); err != nil {
			t.Fatalf("Replace(%d): %v", tc.i, err)
		}
		check(t, w)
		if d := cmp.Diff(tc.m, w.At(tc.i)); d != "" {
			t.Errorf("At(%d) after Replace (-want +got):\n%s", tc.i, d)
		}
	}
	// Pairing survives a replacement of the assistant message.
	mustAdd(t, w, result("d", "D"))
	check(t, w)
}

func TestRemoveErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		start, end int
		err        error
	}{
		{"negative start", -1, 1, window.ErrRange},
		{"end past the window", 9, 12, window.ErrRange},
		{"reversed", 5, 4, window.ErrRange},
		{"system prompt", 0, 1, window.ErrPinned},
		{"first user message", 1, 2, window.ErrPinned},
		{"span holding the first user message", 0, 7, window.ErrPinned},
		{"call without its results", 2, 3, window.ErrSplitRound},
		{"call and one of two results", 2, 4, window.ErrSplitRound},
		{"result without its call", 3, 4, window.ErrSplitRound},
		{"interrupting user and a result", 4, 6, window.ErrSplitRound},
		{"result and later messages", 9, 11, window.ErrSplitRound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := sample(t)
			before := snap(w)
			if err := w.Remove(tc.start, tc.end); !errors.Is(err, tc.err) {
				t.Fatalf("Remove(%d, %d) = %v, want %v", tc.start, tc.end, err, tc.err)
			}
			assertUnchanged(t, before, w)
		})
	}
	t.Run("note", func(t *testing.T) {
		t.Parallel()
		w := sample(t)
		i := w.SetNote("note")
		before := snap(w)
		if err := w.Remove(i, i+1); !errors.Is(err, window.ErrPinned) {
			t.Fatalf("Remove(note) = %v, want ErrPinned", err)
		}
		assertUnchanged(t, before, w)
	})
}

func TestRemove(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		start, end int
		left       int // messages left
	}{
		{"empty span", 4, 4, 11},
		{"the interrupted round", 2, 6, 7},
		{"a text reply", 6, 7, 10},
		{"round, reply, user, round", 2, 10, 3},
		{"everything unpinned", 2, 11, 2},
		{"the dangling call", 10, 11, 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := sample(t)
			want := append(w.Messages()[:tc.start:tc.start], w.Messages()[tc.end:]...)
			size := w.Tokens()
			for i := tc.start; i < tc.end; i++ {
				size -= w.TokensAt(i)
			}
			if err := w.Remove(tc.start, tc.end); err != nil {
				t.Fatalf("Remove(%d, %d): %v", tc.start, tc.end, err)
			}
			check(t, w)
			if d := cmp.Diff(want, w.Messages()); d != "" {
				t.Errorf("messages after Remove (-want +got):\n%s", d)
			}
			if w.Len() != tc.left || w.Tokens() != size {
				t.Errorf("Len, Tokens = %d, %d; want %d, %d", w.Len(), w.Tokens(), tc.left, size)
			}
			if got := w.Dropped().Messages; got != tc.end-tc.start {
				t.Errorf("Dropped().Messages = %d, want %d", got, tc.end-tc.start)
			}
		})
	}
}

func TestSetNote(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		msgs []chat.Message
		want int
	}{
		{"empty window", nil, 0},
		{"system only", []chat.Message{sys("s")}, 1},
		{"system and first user", []chat.Message{sys("s"), user("u"), asst("a"), user("u2")}, 2},
		{"first user only", []chat.Message{user("u"), asst("a")}, 1},
		{"assistant before the first user", []chat.Message{sys("s"), asst("hello"), user("u"), asst("a")}, 3},
		{"no system, assistant first", []chat.Message{asst("hello"), user("u")}, 2},
		{"no system, no user", []chat.Message{asst("a"), asst("b")}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWindow(t, window.Options{})
			mustAdd(t, w, tc.msgs...)
			if got := w.Note(); got != -1 {
				t.Fatalf("Note() before SetNote = %d, want -1", got)
			}
			i := w.SetNote("first note")
			check(t, w)
			if i != tc.want || w.Note() != tc.want {
				t.Fatalf("SetNote = %d, Note() = %d; want %d", i, w.Note(), tc.want)
			}
			if !w.IsNote(i) || !w.Pinned(i) || w.At(i).Role != chat.RoleUser || w.At(i).Text() != "first note" {
				t.Errorf("note at %d: IsNote %v, Pinned %v, %s %q", i, w.IsNote(i), w.Pinned(i), w.At(i).Role, w.At(i).Text())
			}
			n := w.Len()
			// A second call replaces the text in place.
			if j := w.SetNote("second, longer note"); j != i {
				t.Fatalf("second SetNote = %d, want %d", j, i)
			}
			check(t, w)
			if w.Len() != n || w.At(i).Text() != "second, longer note" {
				t.Errorf("second SetNote: Len %d (want %d), text %q", w.Len(), n, w.At(i).Text())
			}
			// Later messages do not move it.
			mustAdd(t, w, user("later"), asst("reply"))
			if w.Note() != i {
				t.Errorf("Note() = %d after adds, want %d", w.Note(), i)
			}
			check(t, w)
		})
	}
}

func TestSetNoteAfterRemove(t *testing.T) {
	t.Parallel()
	w := sample(t)
	if err := w.Remove(2, 10); err != nil {
		t.Fatal(err)
	}
	i := w.SetNote("removed 8 messages")
	check(t, w)
	want := []chat.Message{sys("system"), user("first"), user("removed 8 messages"), calls("d")}
	if d := cmp.Diff(want, w.Messages()); i != 2 || d != "" {
		t.Errorf("SetNote = %d (want 2); messages (-want +got):\n%s", i, d)
	}
	// Replace works on the note too, and keeps it pinned.
	if err := w.Replace(i, user("cut note")); err != nil {
		t.Fatal(err)
	}
	if !w.IsNote(i) || !w.Pinned(i) {
		t.Errorf("note lost its mark after Replace")
	}
	check(t, w)
}

func TestDropped(t *testing.T) {
	t.Parallel()
	patch := "*** Begin Patch\n*** Update File: src/a.go\n@@\n-x\n+y\n*** Add File: src/new.go\n+package x\n*** Delete File: old.go\n*** Update File: src/b.go\n*** Move to: src/c.go\n*** End Patch"
	patchArgs, _ := json.Marshal(map[string]string{"input": patch})
	w := newWindow(t, window.Options{})
	mustAdd(t, w, sys("s"), user("first"),
		chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
			call("1", "Read", `{"file_path":"/repo/main.go"}`),
			call("2", "Edit", `{"file_path":"/repo/main.go","old_string":"a","new_string":"b"}`),
			call("3", "apply_patch", string(patchArgs)),
		}},
		result("1", "..."), result("2", "ok"), result("3", "ok"),
		user("  "), // blank: counted, not kept
		asst("text"),
		chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
			call("4", "bash", `{"command":"ls"}`),
			call("5", "NotebookEdit", `{"notebook_path":"nb.ipynb"}`),
			call("6", "Read", `not json`),
		}},
		result("4", "x"), result("6", "y"), // 5 dangling
	)
	for i := range 12 {
		mustAdd(t, w, user(fmt.Sprintf("user %d %s", i, strings.Repeat("长", 400))))
	}
	mustAdd(t, w, asst("kept"))
	if err := w.Remove(2, w.Len()-1); err != nil {
		t.Fatal(err)
	}
	check(t, w)
	d := w.Dropped()
	var users []string
	for i := 4; i < 12; i++ {
		users = append(users, fmt.Sprintf("user %d %s…", i, strings.Repeat("长", window.MaxDroppedUserRunes-1-len(fmt.Sprintf("user %d ", i)))))
	}
	want := window.Dropped{
		Messages:          21,
		Rounds:            2,
		ToolCalls:         6,
		ToolResults:       5,
		Tools:             map[string]int{"Read": 2, "Edit": 1, "apply_patch": 1, "bash": 1, "NotebookEdit": 1},
		Files:             []string{"/repo/main.go", "src/a.go", "src/new.go", "old.go", "src/b.go", "src/c.go", "nb.ipynb"},
		UserMessages:      users,
		UserMessagesTotal: 13,
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("Dropped() (-want +got):\n%s", diff)
	}
	for _, u := range d.UserMessages {
		if n := utf8.RuneCountInString(u); n > window.MaxDroppedUserRunes || !utf8.ValidString(u) {
			t.Errorf("kept user message of %d runes (valid UTF-8: %v)", n, utf8.ValidString(u))
		}
	}
	// The tally is a copy.
	d.Tools["Read"] = 99
	d.Files[0] = "changed"
	d.UserMessages[0] = "changed"
	if diff := cmp.Diff(want, w.Dropped()); diff != "" {
		t.Errorf("Dropped() shares memory with the window (-want +got):\n%s", diff)
	}
}

func TestDroppedFilesCapped(t *testing.T) {
	t.Parallel()
	w := newWindow(t, window.Options{})
	mustAdd(t, w, user("u"))
	for i := range 30 {
		mustAdd(t, w, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{call(fmt.Sprint(i), "Read", fmt.Sprintf(`{"file_path":"f%02d.go"}`, i))}})
	}
	// f00 is used again last: it moves to the end.
	mustAdd(t, w, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{call("x", "Read", `{"file_path":"f00.go"}`)}})
	if err := w.Remove(1, w.Len()); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := 11; i < 30; i++ {
		want = append(want, fmt.Sprintf("f%02d.go", i))
	}
	want = append(want, "f00.go")
	if d := cmp.Diff(want, w.Dropped().Files); d != "" {
		t.Errorf("Dropped().Files (-want +got):\n%s", d)
	}
}

func TestSetDroppedAndAnchor(t *testing.T) {
	t.Parallel()
	w := newWindow(t, window.Options{})
	d := window.Dropped{Messages: 3, Tools: map[string]int{"bash": 2}, Files: []string{"a.go"}}
	w.SetDropped(d)
	d.Tools["bash"] = 99 // the window holds a copy
	got := w.Dropped()
	if got.Messages != 3 || got.Tools["bash"] != 2 || len(got.Files) != 1 {
		t.Fatalf("Dropped() = %+v after SetDropped", got)
	}
	a := token.Anchor{Reported: 1000, Counted: 900, Set: true}
	w.SetAnchor(a)
	if w.Anchor() != a {
		t.Fatalf("Anchor() = %+v, want %+v", w.Anchor(), a)
	}
	if size, ok := w.Anchored(); !ok || size != a.Size(w.Tokens()) {
		t.Fatalf("Anchored() = %d, %v; want %d, true", size, ok, a.Size(w.Tokens()))
	}
}
