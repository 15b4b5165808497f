package tools_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentctx/agentctx/agent/tools"
	"github.com/agentctx/agentctx/chat"
)

// The agent offers each tool's Def to the model, asks before AccessWrite
// and AccessExec tools run, and adds each Run's result to the Engine.
func ExampleDefault() {
	root, err := os.MkdirTemp("", "project")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.26\n"), 0o644); err != nil {
		panic(err)
	}
	byName := map[string]tools.Tool{}
	for _, t := range tools.Default(tools.Env{Root: root}) {
		byName[t.Def().Name] = t
	}
	ctx := context.Background()
	r := byName["read_file"].Run(ctx, chat.ToolCall{ID: "1", Name: "read_file", Arguments: []byte(`{"path":"go.mod","start_line":3}`)})
	fmt.Print(r.Content)
	r = byName["read_file"].Run(ctx, chat.ToolCall{ID: "2", Name: "read_file", Arguments: []byte(`{"path":"../secret"}`)})
	fmt.Println(r.IsError)
	r = byName["run_command"].Run(ctx, chat.ToolCall{ID: "3", Name: "run_command", Arguments: []byte(`{"command":"grep -c module go.mod; exit 2"}`)})
	fmt.Println(r.Content, r.IsError, byName["run_command"].Access() == tools.AccessExec)
	// Output:
	//      3	go 1.26
	// true
	// 1
	// Exit code 2 true true
}
