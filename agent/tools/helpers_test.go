package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
)

// project makes a temporary project holding files (path → content).
func project(t *testing.T, files map[string]string) Env {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Env{Root: root}
}

// call runs tool with args marshalled to JSON.
func call(t *testing.T, tool Tool, args any) chat.ToolResult {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	c := chat.ToolCall{ID: "call_1", Name: tool.Def().Name, Arguments: raw}
	r := tool.Run(t.Context(), c)
	if r.ToolCallID != "call_1" || r.ToolName != c.Name {
		t.Errorf("result names %q/%q, want call_1/%s", r.ToolCallID, r.ToolName, c.Name)
	}
	return r
}

// check compares a result with the wanted error flag and substrings.
func check(t *testing.T, r chat.ToolResult, wantErr bool, want ...string) {
	t.Helper()
	if r.IsError != wantErr {
		t.Errorf("IsError = %v, want %v; content:\n%s", r.IsError, wantErr, r.Content)
	}
	for _, w := range want {
		if !strings.Contains(r.Content, w) {
			t.Errorf("content lacks %q:\n%s", w, r.Content)
		}
	}
}

type args = map[string]any
