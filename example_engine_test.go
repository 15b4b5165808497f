package agentctx_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
)

// fakeModel stands in for a provider adapter (provider/openai,
// provider/anthropic): it reads a file twice, then answers.
type fakeModel struct{ calls int }

func (m *fakeModel) Name() string { return "fake/model" }

func (m *fakeModel) Send(_ context.Context, req provider.Request) (*provider.Response, error) {
	m.calls++
	if m.calls <= 2 {
		id := fmt.Sprintf("call_%d", m.calls)
		return &provider.Response{Message: chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.ToolCall{ID: id, Name: "Read", Arguments: []byte(`{"file_path":"parser.go"}`)},
		}}}, nil
	}
	return &provider.Response{Message: chat.NewText(chat.RoleAssistant, "Fixed: Parse now accepts empty input.")}, nil
}

// Example is the path an agent author needs: open an engine, add the
// user's request, then loop: ask the engine for the request (it compacts
// first when needed and always fits the budget), send it, add the reply
// and the tool results. A failed call is retried by asking for the request
// again; a "prompt is too long" goes to RecoverOverflow; recall_output
// calls are answered by the engine.
func Example() {
	ctx := context.Background()
	e, err := agentctx.Open(ctx, agentctx.Options{
		Model:        "claude-sonnet-4-5",
		Budget:       20_000,
		SystemPrompt: "You are a coding agent.",
		Tools:        []chat.ToolDef{{Name: "Read", Description: "Read a file."}, agentctx.RecallTool()},
		NoWorkspace:  true, // an agent leaves it on: tree, git, AGENTS.md, README
		// Store: a session.Store (jsonlstore.Open) makes the session durable.
	})
	if err != nil {
		panic(err)
	}
	defer e.Close()

	var llm provider.Model = &fakeModel{}
	_ = e.Add(ctx, chat.NewText(chat.RoleUser, "Fix the parser."))
	for {
		req, err := e.Request(ctx)
		if err != nil {
			panic(err)
		}
		resp, err := llm.Send(ctx, req.Provider())
		if errors.Is(err, provider.ErrContextOverflow) {
			if req, err = e.RecoverOverflow(ctx, err); err == nil {
				resp, err = llm.Send(ctx, req.Provider())
			}
		}
		if err != nil {
			panic(err) // or: ask e.Request again and retry
		}
		_ = e.Add(ctx, resp.Message)
		calls := resp.Message.ToolCalls()
		if len(calls) == 0 {
			fmt.Println("answer:", resp.Message.Text())
			break
		}
		for _, c := range calls {
			if c.Name == agentctx.RecallToolName {
				_ = e.Add(ctx, chat.Message{Role: chat.RoleTool, Parts: []chat.Part{e.HandleRecall(ctx, c)}})
				continue
			}
			out := strings.Repeat("func Parse(s string) (Node, error) { … }\n", 10) // run the tool
			_ = e.Add(ctx, chat.NewToolResult(c.ID, c.Name, out, false))
		}
		// The request: static system prompt, the history, and a tail of
		// <system-reminder>s after the tool results when there is one
		// (reminders; once compaction removed rounds, the tracker's
		// list of their reads, edits and failures).
		fmt.Printf("request: %d messages, fits %v\n", len(req.Messages), req.Over == 0)
	}
	// The window still shows both reads: the tracker repeats nothing.
	fmt.Printf("tracker section: %q\n", e.TrackerSection())
	// Output:
	// request: 2 messages, fits true
	// request: 4 messages, fits true
	// answer: Fixed: Parse now accepts empty input.
	// tracker section: ""
}
