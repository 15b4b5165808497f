package compact_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
)

// megabyte returns about 1 MB of content built from unit(i).
func megabyte(unit func(i int) string) string {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		b.WriteString(unit(i))
	}
	return b.String()
}

// BenchmarkLimit1MB limits a 1 MB tool result of each kind at a 90 %
// full window.
func BenchmarkLimit1MB(b *testing.B) {
	items := make([]map[string]any, 0, 8000)
	for i := range 8000 {
		items = append(items, map[string]any{"file": fmt.Sprintf("src/%d.go", i), "line": i, "code": strings.Repeat("x", 90)})
	}
	js, err := json.Marshal(map[string]any{"matches": items})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, tool, content string
	}{
		{"search", "Grep", megabyte(func(i int) string {
			return fmt.Sprintf("src/pkg%d/file.go:%d:\tif err := run(%d); err != nil {\n", i, i, i)
		})},
		{"file", "Read", megabyte(func(i int) string { return fmt.Sprintf("%6d→\tline %d of the file, ünïcode ✅\n", i, i) })},
		{"json", "tool", string(js)},
		{"text", "Bash", megabyte(func(i int) string { return fmt.Sprintf("build step %d: compiling 🐛 package\n", i) })},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := chat.ToolResult{Content: c.content}
			b.SetBytes(int64(len(c.content)))
			b.ReportAllocs()
			for b.Loop() {
				if _, info := compact.LimitToolResult(r, c.tool, 0.9); !info.Cut {
					b.Fatal("not cut")
				}
			}
		})
	}
}
