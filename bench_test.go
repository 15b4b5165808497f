package agentctx_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
)

// BenchmarkEngineStep is one step of a long session: a tool call and its
// result added, then the next request assembled (with compaction when it
// is due), in a session whose history already holds 10, 1,000 or 10,000
// messages (issue 15: the cost of a step must not grow with the history).
// Working memory, the limiter and reminders are on; no workspace, no
// store.
func BenchmarkEngineStep(b *testing.B) {
	for _, bc := range []struct{ messages, budget int }{
		{10, 16_000}, {1000, 16_000}, {10_000, 16_000},
		{10, 128_000}, {1000, 128_000}, {10_000, 128_000},
	} {
		budget := bc.budget
		b.Run(fmt.Sprintf("messages=%d/budget=%d", bc.messages, budget), func(b *testing.B) {
			ctx := context.Background()
			e, err := agentctx.Open(ctx, agentctx.Options{Model: "claude-sonnet-4-5", Budget: budget, NoWorkspace: true,
				Tools: []chat.ToolDef{{Name: "Read"}, {Name: "Bash"}}})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			out := strings.Repeat("func Parse(s string) (Node, error) { return parse(s) }\n", 40)
			step := 0
			add := func() {
				id := fmt.Sprintf("c%d", step)
				args := fmt.Sprintf(`{"file_path":"pkg%d/file%d.go"}`, step%7, step%50)
				if err := e.Add(ctx, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "Reading the next file."},
					chat.ToolCall{ID: id, Name: "Read", Arguments: []byte(args)}}},
					chat.NewToolResult(id, "Read", out, false)); err != nil {
					b.Fatal(err)
				}
				if _, err := e.Request(ctx); err != nil {
					b.Fatal(err)
				}
				step++
			}
			_ = e.Add(ctx, chat.NewText(chat.RoleUser, "Read the parser package and fix the bug."))
			for range bc.messages / 2 { // a step adds two messages
				add()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				add()
			}
		})
	}
}

// BenchmarkCallCost is the cost of one model call of a long session of
// short tool calls and results (the shape that grows a window to many
// messages): a call and its result added, the request built and the
// window's invariants checked, as `agentctx replay` does after every
// model call, in a window that already holds 100 to 100,000 messages and
// never compacts (a budget past the history, as with the 1M-token windows
// of current models). The per-call cost, ns/op and allocs/op, must stay
// flat across the sizes (within ±25 %).
func BenchmarkCallCost(b *testing.B) {
	for _, n := range []int{100, 1000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			ctx := context.Background()
			e, err := agentctx.Open(ctx, agentctx.Options{Model: "gemini-2.5-pro", Budget: 100_000_000, NoWorkspace: true,
				Tools: []chat.ToolDef{{Name: "bash"}}})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			step := 0
			add := func() {
				id := fmt.Sprintf("call_%d", step)
				if err := e.Add(ctx, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
					chat.ToolCall{ID: id, Name: "bash", Arguments: []byte(fmt.Sprintf(`{"command":"ls dir%d"}`, step%100))}}},
					chat.NewToolResult(id, "bash", fmt.Sprintf("file%d.go\nfile%d_test.go", step, step), false)); err != nil {
					b.Fatal(err)
				}
				step++
			}
			_ = e.Add(ctx, chat.NewText(chat.RoleUser, "List every directory."))
			for range n / 2 {
				add()
			}
			// The first check and request walk the history added
			// without them (the incremental check's and the request
			// buffer's one walk); the steps after are what is measured.
			if _, err := e.Request(ctx); err != nil {
				b.Fatal(err)
			}
			if vs := e.Check(); len(vs) > 0 {
				b.Fatal(vs)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				callCostStep(b, e, add)
			}
		})
	}
}

// callCostStep is one call of BenchmarkCallCost, a function of its own so
// that `valgrind --tool=callgrind --toggle-collect='*callCostStep'`
// counts the calls' instructions without the set-up.
//
//go:noinline
func callCostStep(b *testing.B, e *agentctx.Engine, add func()) {
	add()
	if _, err := e.Request(context.Background()); err != nil {
		b.Fatal(err)
	}
	if vs := e.Check(); len(vs) > 0 {
		b.Fatal(vs)
	}
}

// BenchmarkAddLargeResult is a model call whose tool result is large (a
// log of 20, 100 or 500 KiB, new each time, as a `cat` of a growing log
// gives): the call and its result added (the limiter counting the result
// whole to cut it to the window's room, the working memory describing it,
// the secrets scan), then the next request, at a 12,000-token budget.
// Counting the result dominates; CountLines counts a large text on
// several goroutines (GOMAXPROCS 2 or more), the other steps on one.
func BenchmarkAddLargeResult(b *testing.B) {
	logText := func(step, size int) string {
		var sb strings.Builder
		for i := 0; sb.Len() < size; i++ {
			fmt.Fprintf(&sb, "2026-11-29T10:%02d:%02d INFO server handled request id=%d path=/api/v1/items/%d status=200 took=%dms\n",
				i/60%60, i%60, i+step*100_000, i*7%1000, i%97)
		}
		return sb.String()[:size]
	}
	for _, size := range []int{20 << 10, 100 << 10, 500 << 10} {
		b.Run(fmt.Sprintf("KiB=%d", size>>10), func(b *testing.B) {
			ctx := context.Background()
			e, err := agentctx.Open(ctx, agentctx.Options{Model: "claude-sonnet-4-5", Budget: 12_000, NoWorkspace: true,
				Tools: []chat.ToolDef{{Name: "Bash"}}})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			if err := e.Add(ctx, chat.NewText(chat.RoleUser, "Look at the server log.")); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			step := 0
			for b.Loop() {
				b.StopTimer()
				out := logText(step, size)
				id := fmt.Sprintf("c%d", step)
				step++
				b.StartTimer()
				if err := e.Add(ctx, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "Reading the log."},
					chat.ToolCall{ID: id, Name: "Bash", Arguments: []byte(`{"command":"cat /var/log/server.log"}`)}}},
					chat.NewToolResult(id, "Bash", out, false)); err != nil {
					b.Fatal(err)
				}
				if _, err := e.Request(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
