package workmem_test

import (
	"encoding/json"
	"fmt"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/workmem"
)

func Example() {
	mem := workmem.New("Fix the crash in parse()", workmem.Options{})
	mem.StartRound("I will reproduce the crash first.")
	mem.SetPlanFromText("Plan:\n1. Reproduce the crash\n2. Patch parse()\n3. Run the tests")
	mem.AddAction(chat.ToolCall{ID: "c1", Name: "Bash", Arguments: json.RawMessage(`{"command":"go test ./parser"}`)})
	obs := mem.Observe(chat.ToolResult{ToolCallID: "c1", Content: "--- FAIL: TestParse\nexit code 1"})
	mem.EndRound("The test fails as reported.")
	_ = mem.MarkStep(0, workmem.StepDone)
	mem.AddFinding(workmem.Finding{Finding: "parse() indexes past the end on empty input", Evidence: "parser/parse.go:42", Importance: 9})

	fmt.Println(obs.ResultType, obs.KeyFacts)
	fmt.Print(mem.BuildContext(200))
	// Output:
	// error [exit code 1 error: --- FAIL: TestParse failing: --- FAIL: TestParse]
	// # Working memory
	//
	// ## Task
	// Fix the crash in parse()
	//
	// ## Key findings
	// - [9] parse() indexes past the end on empty input (parser/parse.go:42)
	//
	// ## Plan
	// 1. [x] Reproduce the crash
	// 2. [ ] Patch parse()
	// 3. [ ] Run the tests
	//
	// ## Recent rounds
	// ### Round 1
	// Thought: I will reproduce the crash first.
	// - call Bash {"command":"go test ./parser"}
	// - result Bash: error, 31 bytes; exit code 1; error: --- FAIL: TestParse; failing: --- FAIL: TestParse
	// ```
	// --- FAIL: TestParse
	// exit code 1
	// ```
	// Reflection: The test fails as reported.
}
