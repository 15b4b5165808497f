package track

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/transcript"
)

// BenchmarkRecordSection measures one tool call: Record, then Section, on
// a tracker already holding full lists.
func BenchmarkRecordSection(b *testing.B) {
	tr := New(Options{Stat: noStat})
	calls := make([]step, 64)
	for i := range calls {
		switch i % 4 {
		case 0:
			calls[i] = step{call("Read", map[string]any{"file_path": fmt.Sprintf("src/pkg%d/file%d.go", i%7, i)}), ok("package x\n\nimport \"fmt\"\nfunc main() {}\n")}
		case 1:
			calls[i] = step{call("Bash", map[string]any{"command": fmt.Sprintf("go test ./pkg%d/... && grep -rn foo . | head", i)}), bad("Exit code 1\n--- FAIL: TestX\nFAIL")}
		case 2:
			calls[i] = step{call("Grep", map[string]any{"pattern": fmt.Sprintf("func New%d", i)}), ok("src/a.go:12:func New()")}
		default:
			calls[i] = step{call("Edit", map[string]any{"file_path": fmt.Sprintf("src/pkg%d/file%d.go", i%7, i-3)}), ok("ok")}
		}
	}
	for _, s := range calls {
		tr.Record(s.c, s.r)
	}
	b.ReportAllocs()
	var c chat.ToolCall
	for i := 0; b.Loop(); i++ {
		s := calls[i%len(calls)]
		c = s.c
		tr.Record(c, s.r)
		_ = tr.Section()
	}
}

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
