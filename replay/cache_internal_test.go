package replay

import (
	"fmt"
	"slices"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/reminder"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/window"
)

// TestCacheSimKept feeds the cache simulation the requests of a Buffer
// (shared memory, Kept) and, as the oracle, copies of them compared in
// full: every call must read the same tokens from the cache, through
// tails injected into a user message or appended after a result,
// retries, and compactions.
func TestCacheSimKept(t *testing.T) {
	t.Parallel()
	c, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	w, err := window.New(window.Options{Counter: c, Budget: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var buf prompt.Buffer
	var fast, full cacheSim
	hits := 0
	call := func(tail []reminder.Reminder) {
		t.Helper()
		req := prompt.Assemble(prompt.Input{Static: prompt.Static{Text: "You are a coding agent."}, Window: w,
			Reminders: tail, Counter: c, Buffer: &buf})
		own := req.Request
		own.Messages = slices.Clone(own.Messages)
		got := fast.add(req.Request, req.Kept, req.Tokens, req.CachedTokens)
		want := full.add(own, 0, req.Tokens, req.CachedTokens)
		if got != want {
			t.Fatalf("call %d: %d tokens read from the cache, want %d", full.tokens, got, want)
		}
		if got > 0 {
			hits++
		}
	}
	add := func(m chat.Message) {
		t.Helper()
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	pressure := []reminder.Reminder{{Kind: "pressure", Text: "The context is filling up."}}
	add(chat.NewText(chat.RoleUser, "Fix the parser."))
	call(nil)
	call(pressure)
	call(pressure)
	call(nil)
	for i := range 30 {
		id := fmt.Sprintf("c%d", i)
		add(chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: id, Name: "Read", Arguments: []byte(`{"file_path":"a.go"}`)}}})
		add(chat.NewToolResult(id, "Read", fmt.Sprintf("line %d", i), false))
		switch i % 4 {
		case 0:
			call(nil)
		case 1:
			call(pressure)
		case 2:
			add(chat.NewText(chat.RoleUser, fmt.Sprintf("Now step %d.", i)))
			call(pressure)
			call(nil)
		case 3:
			start := 1
			for w.At(start).Role != chat.RoleAssistant {
				start++
			}
			if err := w.Remove(start, start+2); err != nil {
				t.Fatal(err)
			}
			w.SetNote(fmt.Sprintf("Compacted %d.", i))
			call(pressure)
		}
	}
	if hits < 10 || fast.read != full.read {
		t.Fatalf("%d hits, %d / %d tokens read: the script does not exercise the cache", hits, fast.read, full.read)
	}
}
