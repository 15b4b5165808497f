package prompt_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/reminder"
	"github.com/agentctx/agentctx/window"
)

// TestBufferMatchesFresh assembles a request after every step of a
// session (calls, results, user turns, a compaction's Remove and note, a
// rehydration block that comes and goes, tails injected into a user
// message or appended after a result) with a Buffer and without one: the
// requests must be equal, Kept must name messages shared in memory with
// the previous request and unchanged, and the previous request's
// messages before its last must be left as they were.
func TestBufferMatchesFresh(t *testing.T) {
	t.Parallel()
	c := counter(t)
	w, err := window.New(window.Options{Counter: c, Budget: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var buf prompt.Buffer
	var prev []chat.Message  // the previous buffered request's messages
	var saved []chat.Message // a copy of them
	rehydration := ""
	steps := 0
	assemble := func(tail []reminder.Reminder) {
		t.Helper()
		steps++
		in := prompt.Input{Static: prompt.Static{Text: "You are a coding agent."}, Rehydration: rehydration,
			Window: w, Reminders: tail, Counter: c}
		fresh := prompt.Assemble(in)
		in.Buffer = &buf
		got := prompt.Assemble(in)
		if fresh.Kept != 0 {
			t.Fatalf("step %d: Kept %d without a Buffer", steps, fresh.Kept)
		}
		if !reflect.DeepEqual(got.Messages, fresh.Messages) {
			t.Fatalf("step %d: buffered messages differ:\n%v\n%v", steps, got.Messages, fresh.Messages)
		}
		g, f := *got, *fresh
		g.Messages, f.Messages, g.Kept = nil, nil, 0
		if !reflect.DeepEqual(g, f) {
			t.Fatalf("step %d: buffered request differs:\n%+v\n%+v", steps, g, f)
		}
		if got.Kept > 0 {
			if got.Kept > len(prev) || &got.Messages[0] != &prev[0] {
				t.Fatalf("step %d: Kept %d, but the previous request had %d messages elsewhere", steps, got.Kept, len(prev))
			}
			if !reflect.DeepEqual(got.Messages[:got.Kept], saved[:got.Kept]) {
				t.Fatalf("step %d: the first %d messages are not the previous request's", steps, got.Kept)
			}
		}
		if len(prev) > 0 && !reflect.DeepEqual(prev[:len(prev)-1], saved[:len(saved)-1]) {
			t.Fatalf("step %d: the previous request's messages before its last changed", steps)
		}
		if cap(got.Messages) != len(got.Messages) {
			t.Fatalf("step %d: request messages have room (cap %d, len %d): an append would write into the Buffer", steps, cap(got.Messages), len(got.Messages))
		}
		prev, saved = got.Messages, slices.Clone(got.Messages)
	}
	pressure := []reminder.Reminder{{Kind: "pressure", Text: "The context is filling up."}}
	add := func(m chat.Message) {
		t.Helper()
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	add(chat.NewText(chat.RoleUser, "Fix the parser."))
	assemble(nil)
	assemble(pressure) // injected into the user message
	assemble(pressure) // a retry
	for i := range 40 {
		id := fmt.Sprintf("c%d", i)
		add(chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: id, Name: "Read", Arguments: []byte(`{"file_path":"a.go"}`)}}})
		add(chat.NewToolResult(id, "Read", fmt.Sprintf("line %d", i), false))
		switch i % 5 {
		case 0:
			assemble(nil)
		case 1:
			assemble(pressure) // appended after the result
		case 2:
			add(chat.NewText(chat.RoleUser, fmt.Sprintf("Now step %d.", i)))
			assemble(pressure) // injected into the user message
			assemble(nil)      // the user message put back
		case 3:
			if i%10 == 3 {
				// A compaction: the oldest round goes, the note comes.
				start := 1
				for w.At(start).Role != chat.RoleAssistant {
					start++
				}
				if err := w.Remove(start, start+2); err != nil {
					t.Fatal(err)
				}
				w.SetNote(fmt.Sprintf("Compacted %d.", i))
				rehydration = fmt.Sprintf("Recent files: a.go (%d)", i)
			} else {
				rehydration = ""
			}
			assemble(pressure)
		case 4:
			assemble(pressure)
			assemble(pressure)
		}
	}
}
