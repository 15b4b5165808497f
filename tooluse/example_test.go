package tooluse_test

import (
	"encoding/json"
	"fmt"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/tooluse"
)

func ExampleClassify() {
	args, _ := json.Marshal(map[string]string{
		"command": `cd src && grep -rn "func Parse" . | head; sed -i 's/old/new/' parse.go 2>/dev/null`,
	})
	u := tooluse.Classify(chat.ToolCall{ID: "toolu_1", Name: "Bash", Arguments: args})
	fmt.Println(u.Kind, u.Agent)
	fmt.Printf("search %q in %v\n", u.Searches[0].Query, u.Searches[0].Paths)
	for _, w := range u.Writes {
		fmt.Println(w.Op, w.Path)
	}
	// Output:
	// shell claude-code
	// search "func Parse" in [src]
	// edit src/parse.go
}

func ExampleClassify_applyPatch() {
	patch := "*** Begin Patch\n*** Add File: hello.txt\n+Hello\n*** Update File: src/app.py\n@@\n-a\n+b\n*** Delete File: old.txt\n*** End Patch\n"
	args, _ := json.Marshal(map[string]string{"input": patch})
	u := tooluse.Classify(chat.ToolCall{ID: "call_1", Name: "apply_patch", Arguments: args})
	fmt.Println(u.Kind, u.Agent, u.Paths)
	// Output:
	// edit codex [hello.txt src/app.py old.txt]
}

func ExamplePairer() {
	var p tooluse.Pairer[int] // the value kept per call: a message index
	p.Call("call_a", 1)
	p.Call("call_a", 2) // ids repeat in real transcripts
	i, _ := p.Result("call_a")
	fmt.Println("answers message", i, "open:", p.Open())
	// Output:
	// answers message 2 open: [1]
}

func ExampleErrorLine() {
	out := "Exit code 1\n<tool_use_error>main.go:3:1: expected 'package', found 'EOF'</tool_use_error>\n"
	fmt.Println(tooluse.CutRunes(tooluse.ErrorLine(out), 30))
	// Output:
	// main.go:3:1: expected 'packag…
}
