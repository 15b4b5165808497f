package agentctx_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/workmem"
)

// TestMemoryBlockTokens: the working memory's block and the tracker
// section's are counted from the counts BuildContext and SectionTokens
// made (token.AppendCount) rather than rendered and counted again; over
// rounds whose outputs end in awkward ways (trailing spaces, slashes,
// indented lines, non-ASCII), with compactions, every request's token
// table still equals an independent count of what is sent, and the
// working memory and the tracker's section are in it. Both encodings.
func TestMemoryBlockTokens(t *testing.T) {
	t.Parallel()
	for _, m := range []string{"gpt-4o", "gpt-4-turbo"} {
		t.Run(m, func(t *testing.T) {
			ctx := t.Context()
			e := openEngine(t, agentctx.Options{Dir: t.TempDir(), Model: m, Budget: 6000, NoWorkspace: true})
			if err := e.Add(ctx, chat.NewText(chat.RoleUser, "Find why the parser drops fields.")); err != nil {
				t.Fatal(err)
			}
			if _, err := e.AddFinding(workmem.Finding{Finding: "parse.go drops the last field\n/ends with a slash", Evidence: "parse.go:12", Importance: 8}); err != nil {
				t.Fatal(err)
			}
			endings := []string{"done   ", "/usr/bin/x\n/", "  indented\n  more", "上下文\n", "exit 1\n\n", "x.\n/y"}
			seen, seenTracker := false, false
			for i := range 40 {
				id := fmt.Sprintf("c%d", i)
				out := strings.Repeat(fmt.Sprintf("line %d of output\n", i), 20+i%7) + endings[i%len(endings)]
				if err := e.Add(ctx, call(id, "bash", fmt.Sprintf(`{"command":"cat f%d.txt"}`, i)),
					chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{ToolCallID: id, Content: out}}}); err != nil {
					t.Fatal(err)
				}
				req, err := e.Request(ctx)
				if err != nil {
					t.Fatal(err)
				}
				checkRequest(t, fmt.Sprintf("%s round %d", m, i), e, req, 0)
				for _, r := range req.Rows {
					seen = seen || r.Name == prompt.PartWorkingMemory && r.Tokens > 0
					seenTracker = seenTracker || r.Name == prompt.PartTracker && r.Tokens > 0
				}
			}
			if !seen {
				t.Error("no request carried the working memory")
			}
			if !seenTracker {
				t.Error("no request carried the tracker's section")
			}
		})
	}
}
