package tools_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/agent/tools"
	"github.com/agentctx/agentctx/chat"
)

// TestPreview: the change a write or an edit would make, without making
// it; the tools' own refusals (outside the project, old_string not found)
// as errors.
func TestPreview(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.py"), []byte("x = 1\ny = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := tools.Env{Root: root}
	call := func(name string, args map[string]any) chat.ToolCall {
		b, _ := json.Marshal(args)
		return chat.ToolCall{ID: "c", Name: name, Arguments: b}
	}
	c, ok, err := tools.Preview(env, call("edit_file", map[string]any{"path": "a.py", "old_string": "y = 2", "new_string": "y = 3"}))
	if !ok || err != nil || c.Path != "a.py" || c.Before != "x = 1\ny = 2\n" || c.After != "x = 1\ny = 3\n" || c.Created {
		t.Errorf("edit: %+v %v %v", c, ok, err)
	}
	c, ok, err = tools.Preview(env, call("write_file", map[string]any{"path": "sub/new.txt", "content": "hi\n"}))
	if !ok || err != nil || !c.Created || c.After != "hi\n" || c.Path != "sub/new.txt" {
		t.Errorf("write: %+v %v %v", c, ok, err)
	}
	if _, ok, err := tools.Preview(env, call("write_file", map[string]any{"path": "../x", "content": ""})); !ok || !errors.Is(err, tools.ErrOutside) {
		t.Errorf("outside: %v %v", ok, err)
	}
	if _, _, err := tools.Preview(env, call("edit_file", map[string]any{"path": "a.py", "old_string": "z", "new_string": "w"})); err == nil {
		t.Error("edit of a missing string: no error")
	}
	if _, ok, _ := tools.Preview(env, call("read_file", map[string]any{"path": "a.py"})); ok {
		t.Error("read_file previewed")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.py")); string(b) != "x = 1\ny = 2\n" {
		t.Errorf("Preview changed the file: %q", b)
	}
	if _, err := os.Stat(filepath.Join(root, "sub")); err == nil {
		t.Error("Preview created a folder")
	}
}
