package track

import (
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/transcript"
)

// BenchmarkRecordLargest records the tool calls and results of the shared
// data's largest Claude Code session (2.9 MB) and renders the section
// before each assistant message, as the Engine does for each request.
func BenchmarkRecordLargest(b *testing.B) {
	trs, err := transcript.ReadFile(filepath.Join(sharedtest.Dir(b), sharedtest.BigClaudeCode), transcript.Options{})
	if err != nil {
		b.Fatal(err)
	}
	c, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	msgs := trs[0].Messages
	b.ReportAllocs()
	for b.Loop() {
		t := New(Options{Counter: token.NewCache(c, 1024), Stat: noStat, MaxTokens: DefaultMaxTokens})
		calls := map[string]chat.ToolCall{}
		for _, m := range msgs {
			switch m.Role {
			case chat.RoleAssistant:
				t.SectionTokens()
				for _, call := range m.ToolCalls() {
					calls[call.ID] = call
				}
			case chat.RoleTool:
				if r, ok := m.ToolResult(); ok {
					t.Record(calls[r.ToolCallID], r)
				}
			}
		}
	}
}
