package agentctx_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
)

// TestRehydrateSkipsFIFO: a file the agent read that is now a FIFO (or a
// link to one) is left out of the rehydration block instead of blocking
// the compaction for ever; a regular file read is still rehydrated.
func TestRehydrateSkipsFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ok.go"), []byte("package ok\n// REHYDRATED\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pipe.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	e := openEngine(t, agentctx.Options{Dir: dir, Model: "gpt-4o", Budget: 20_000, NoWorkspace: true})
	msgs := []chat.Message{chat.NewText(chat.RoleUser, "Look at the files.")}
	for i, name := range []string{"ok.go", "pipe.go", "link.go"} {
		id := string(rune('a' + i))
		msgs = append(msgs, call(id, "read_file", `{"path":"`+name+`"}`),
			chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{ToolCallID: id, Content: strings.Repeat("text\n", 50)}}},
			chat.NewText(chat.RoleAssistant, "Read "+name+"."))
	}
	if err := e.Add(ctx, msgs...); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.Compact(ctx, "")
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Compact blocked on a FIFO")
	}
	if r := e.Rehydration(); !strings.Contains(r, "REHYDRATED") || strings.Contains(r, "pipe.go") {
		t.Errorf("rehydration block:\n%s", r)
	}
}
