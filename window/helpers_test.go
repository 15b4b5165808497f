package window_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/window"
	"github.com/google/go-cmp/cmp"
)

// byteCounter counts one token per byte, so that expected sizes can be
// worked out by hand: a text message of n bytes costs
// PerMessage + RoleTokens + n under the default overhead.
type byteCounter struct{}

func (byteCounter) Count(s string) int { return len(s) }
func (byteCounter) Name() string       { return "bytes" }

func newWindow(t testing.TB, opts window.Options) *window.Window {
	t.Helper()
	if opts.Counter == nil {
		opts.Counter = byteCounter{}
	}
	w, err := window.New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return w
}

func sys(s string) chat.Message  { return chat.NewText(chat.RoleSystem, s) }
func user(s string) chat.Message { return chat.NewText(chat.RoleUser, s) }
func asst(s string) chat.Message { return chat.NewText(chat.RoleAssistant, s) }

// calls returns an assistant message with one "read" call per id, each
// reading the file id+".go".
func calls(ids ...string) chat.Message {
	m := chat.Message{Role: chat.RoleAssistant}
	for _, id := range ids {
		m.Parts = append(m.Parts, chat.ToolCall{ID: id, Name: "read", Arguments: json.RawMessage(fmt.Sprintf(`{"file_path":%q}`, id+".go"))})
	}
	return m
}

func call(id, name, args string) chat.ToolCall {
	return chat.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func result(id, content string) chat.Message { return chat.NewToolResult(id, "read", content, false) }

func mustAdd(t testing.TB, w *window.Window, msgs ...chat.Message) {
	t.Helper()
	for i, m := range msgs {
		if err := w.Add(m); err != nil {
			t.Fatalf("Add #%d (%s): %v", i, m.Role, err)
		}
	}
}

// check fails t unless w reports no violation and its accounting equals a
// recount from scratch of its messages.
func check(t testing.TB, w *window.Window) {
	t.Helper()
	checkExcept(t, w, "")
}

// checkExcept is check, tolerating violations of the invariant skip.
func checkExcept(t testing.TB, w *window.Window, skip string) {
	t.Helper()
	full := w.CheckFull()
	// The incremental Check finds what the full walk finds.
	if inc := w.Check(); fmt.Sprint(inc) != fmt.Sprint(full) {
		t.Fatalf("Check() = %v, CheckFull() = %v", inc, full)
	}
	for _, v := range full {
		if v.Invariant != skip {
			t.Fatalf("Check: %v", full)
		}
	}
	want := token.Messages(w.Counter(), w.Overhead(), w.Messages()) + w.Reserved()
	if got := w.Tokens(); got != want {
		t.Fatalf("Tokens() = %d, recount = %d", got, want)
	}
	for i := range w.Len() {
		if got, want := w.TokensAt(i), w.Count(w.At(i)); got != want {
			t.Fatalf("TokensAt(%d) = %d, recount = %d", i, got, want)
		}
	}
}

// snapshot is everything observable about a window, to assert that a
// failed operation changed nothing.
type snapshot struct {
	Messages []chat.Message
	Tokens   int
	Anchored int
	Note     int
	Units    []window.Unit
	Dropped  window.Dropped
}

func snap(w *window.Window) snapshot {
	a, _ := w.Anchored()
	return snapshot{Messages: w.Messages(), Tokens: w.Tokens(), Anchored: a, Note: w.Note(), Units: w.Units(), Dropped: w.Dropped()}
}

func assertUnchanged(t testing.TB, before snapshot, w *window.Window) {
	t.Helper()
	after := snap(w)
	if reflect.DeepEqual(before, after) {
		return
	}
	if d := cmp.Diff(before, after); d != "" {
		t.Fatalf("failed operation changed the window (-before +after):\n%s", d)
	}
}

func assertUnits(t testing.TB, w *window.Window, want []window.Unit) {
	t.Helper()
	if d := cmp.Diff(want, w.Units()); d != "" {
		t.Fatalf("Units() mismatch (-want +got):\n%s", d)
	}
}
