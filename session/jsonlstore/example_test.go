package jsonlstore_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/window"
)

// The README's embedding path: a session recorded as the agent works,
// compacted on the way, then resumed by another process (here, another
// Store on the same folder) with the window it had.
func Example() {
	ctx := context.Background()
	home, _ := os.MkdirTemp("", "agentctx-example")
	defer os.RemoveAll(home)

	store, err := jsonlstore.Open(jsonlstore.Options{Root: home})
	if err != nil {
		panic(err)
	}
	sess, err := store.Create(ctx, session.Session{Project: "/src/app"})
	if err != nil {
		panic(err)
	}
	rec := session.NewRecorder(store, sess.ID)
	opts := window.Options{Budget: 1500}
	w, _ := window.New(opts)
	strategy := &compact.Tiered{}
	add := func(m chat.Message) {
		if err := w.Add(m); err != nil {
			panic(err)
		}
		if err := rec.Add(ctx, m); err != nil {
			panic(err)
		}
	}
	add(chat.NewText(chat.RoleUser, "Why does the parser test fail?"))
	for i := range 12 {
		records, err := strategy.Compact(ctx, w) // before each model call
		if err != nil {
			panic(err)
		}
		if len(records) > 0 {
			if err := rec.Compacted(ctx, w, session.CompactMetadata{Trigger: "auto", PreTokens: records[0].TokensBefore}); err != nil {
				panic(err)
			}
		}
		id := fmt.Sprint("call_", i)
		add(chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.ToolCall{ID: id, Name: "Read", Arguments: []byte(`{"file_path":"parser.go"}`)},
		}})
		add(chat.NewToolResult(id, "Read", strings.Repeat("func parse() {}\n", 40), false))
	}
	_ = store.Close() // the agent exits

	other, _ := jsonlstore.Open(jsonlstore.Options{Root: home})
	defer other.Close()
	tr, err := other.Load(ctx, sess.ID, session.LoadOptions{})
	if err != nil {
		panic(err)
	}
	resumed, problems, err := session.Restore(tr.Entries, opts)
	if err != nil {
		panic(err)
	}
	fmt.Println("same window:", resumed.Len() == w.Len() && resumed.Tokens() == w.Tokens(), "problems:", len(problems))
	fmt.Println("starts at a compact boundary:", tr.Entries[0].IsBoundary())
	// Output:
	// same window: true problems: 0
	// starts at a compact boundary: true
}
