package agentconf

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Step names one move of the scripted model in the task. Every command the
// model runs carries the marker "agentconf-step:" followed by the step, so
// that the next request tells which step was played last.
type Step string

// The steps of the task, in the order the scripted model plays them. The
// large outputs are the steps "big-1" to "big-N" ([BigStep]).
const (
	StepRead       Step = "read"        // read calc.js
	StepTestBefore Step = "test-before" // run test.sh: it fails
	StepEdit       Step = "edit"        // fix the off-by-one in calc.js
	StepTestAfter  Step = "test-after"  // run test.sh again: it passes
	StepDone       Step = "done"        // the final text answer
	StepSummary    Step = "summary"     // a summary for the agent's own compaction
)

// BigSteps is the number of large tool outputs the scripted model asks for
// between the failing test and the fix: 16 outputs of 6,000 to 9,000
// tokens each (by [Count]), so that a session's requests grow from about
// 10,000 to about 130,000 tokens and most of them are far over a 20,000-token
// budget. A proxy that holds every request to the budget can then send
// upstream under 40% of the tokens the agent sent.
const BigSteps = 16

// BigStep returns the step of the n-th large output, "big-N", 1-based.
func BigStep(n int) Step { return Step(fmt.Sprintf("big-%d", n)) }

// bigN returns n for a step "big-N", else 0.
func bigN(s Step) int {
	var n int
	if _, err := fmt.Sscanf(string(s), "big-%d", &n); err != nil || string(BigStep(n)) != string(s) {
		return 0
	}
	return n
}

// bigCommand is the shell command of the n-th large output, each under the
// 30,000 characters above which Claude Code saves an output to a file and
// sends a 2 KB preview, and under Codex's 10,000-token output cap: 400
// lines of big.txt, 3,000 numbers of seq, or 400 lines of big.txt
// reversed, each from a different place.
func bigCommand(n int) string {
	start := 1 + n*137%2600
	switch n % 3 {
	case 1:
		return fmt.Sprintf("sed -n %d,%dp big.txt", start, start+399)
	case 2:
		return fmt.Sprintf("seq %d %d", n*10000+1, n*10000+3000)
	}
	return fmt.Sprintf("tac big.txt | sed -n %d,%dp", start, start+399)
}

// stepMarker prefixes the step name in every command the model runs.
const stepMarker = "agentconf-step:"

// progressMarker prefixes the last step played in the summaries the
// scripted model writes when an agent compacts its own history, so that
// the play goes on from the summary when the tool calls are gone.
const progressMarker = "agentconf-progress:"

// MaxSteps is the number of tool calls after which the scripted model gives
// up and answers with text, whatever the state: it bounds a run whose
// agent never returns the results the script expects. The task takes
// BigSteps+4.
const MaxSteps = BigSteps + 20

// ActionKind is what an [Action] does: read a file, run a shell command,
// edit a file, or answer with text.
type ActionKind int

// The kinds of [Action].
const (
	ActionRead ActionKind = iota
	ActionShell
	ActionEdit
	ActionFinal
)

// Action is the scripted model's next move, independent of the wire and of
// the agent's tool names, which each wire maps it to.
type Action struct {
	Step Step
	Kind ActionKind
	// Path is the absolute path of the file read or edited.
	Path string
	// Command is the shell command of ActionShell, with its step marker.
	// ShellRead is the shell form of ActionRead, for an agent without a
	// read tool.
	Command string
	// Old and New are the edit's replaced and replacing text; Patch is the
	// same edit in the apply_patch format; SedCommand as a shell command.
	Old, New, Patch, SedCommand string
	// Text is the final answer of ActionFinal; Thinking the model's
	// thought before any action.
	Text, Thinking string
}

// Task is the coding task the scripted model plays in a git repository.
// Safe for concurrent use (it is read-only after NewTask).
type Task struct {
	// Dir is the repository's absolute path.
	Dir string
}

const calcJS = `// total returns the sum of the numbers in xs.
function total(xs) {
  let s = 0;
  for (let i = 1; i < xs.length; i++) {
    s += xs[i];
  }
  return s;
}

module.exports = { total };
`

const testSh = `#!/bin/sh
# test.sh: exits 0 and prints PASS when total() is right.
cd "$(dirname "$0")" || exit 2
node -e '
const { total } = require("./calc.js");
const got = total([1, 2, 3, 4]);
if (got !== 10) { console.log("FAIL: total([1, 2, 3, 4]) = " + got + ", want 10"); process.exit(1); }
console.log("PASS");
'
`

const (
	bugLine   = "  for (let i = 1; i < xs.length; i++) {"
	fixedLine = "  for (let i = 0; i < xs.length; i++) { // agentconf-step:edit"
	// BigLines is the number of lines of big.txt.
	BigLines = 3000
)

// NewTask writes the task's repository in dir (which must exist and be
// empty) and commits it: calc.js with an off-by-one, test.sh that fails on
// it, and big.txt (3,000 lines, about 140 KB). It needs git on PATH.
func NewTask(ctx context.Context, dir string) (*Task, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("agentconf: task dir %s: %w", dir, err)
	}
	var big strings.Builder
	for i := 1; i <= BigLines; i++ {
		fmt.Fprintf(&big, "row %04d: alpha beta gamma delta epsilon zeta eta theta %04d\n", i, i*7%10000)
	}
	files := map[string]string{"calc.js": calcJS, "test.sh": testSh, "big.txt": big.String(), "README.md": "# calc\n\nRun `sh test.sh`.\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(abs, name), []byte(text), 0o755); err != nil {
			return nil, fmt.Errorf("agentconf: write task file: %w", err)
		}
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.email=agentconf@example.com", "-c", "user.name=agentconf", "add", "."},
		{"-c", "user.email=agentconf@example.com", "-c", "user.name=agentconf", "commit", "-q", "-m", "calc with a failing test"},
	} {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = abs
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("agentconf: git %s in %s: %w: %s", args[0], abs, err, out)
		}
	}
	return &Task{Dir: abs}, nil
}

// Passes runs test.sh in the repository (30 s at most) and reports whether
// it passed, with its output.
func (t *Task) Passes(ctx context.Context) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "test.sh")
	cmd.Dir = t.Dir
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return false, fmt.Sprintf("run test.sh: %v: %s", err, out)
	}
	return err == nil && strings.Contains(string(out), "PASS"), string(out)
}

// Classify returns the step of a tool call from its input (JSON arguments,
// a patch or code): the step marker when it has one, StepRead when it
// names calc.js, else "".
func Classify(input string) Step {
	if i := strings.Index(input, stepMarker); i >= 0 {
		rest := input[i+len(stepMarker):]
		end := strings.IndexFunc(rest, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') })
		if end < 0 {
			end = len(rest)
		}
		return Step(rest[:end])
	}
	if strings.Contains(input, "calc.js") {
		return StepRead
	}
	return ""
}

// Progress returns the step named by the last progress marker in a request
// body (a summary the scripted model wrote), or "".
func Progress(body []byte) Step {
	s := string(body)
	i := strings.LastIndex(s, progressMarker)
	if i < 0 {
		return ""
	}
	rest := s[i+len(progressMarker):]
	end := strings.IndexFunc(rest, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') })
	if end < 0 {
		end = len(rest)
	}
	return Step(rest[:end])
}

// Summary is the scripted model's answer to a compaction request (a new
// prompt after tool calls): what was done, with the progress marker of the
// last step, StepDone when the test passed after the fix.
func (t *Task) Summary(last Step, result string) string {
	if last == StepTestAfter && strings.Contains(result, "PASS") && !strings.Contains(result, "FAIL") {
		last = StepDone
	}
	return "<summary>\nThe user asked to fix the failing test (sh test.sh) in " + t.Dir + ". calc.js's total() started its loop at index 1. " +
		"The steps, in order: read, test-before, big-1 to big-" + fmt.Sprint(BigSteps) + ", edit, test-after; the last one done: " + string(last) + ".\n" +
		progressMarker + string(last) + "\n</summary>"
}

// Next returns the scripted model's next move given the step of the latest
// tool call in the request (or, when it has none, the step of its last
// progress marker, or ""), that call's result's text, and how many tool
// calls the request holds.
func (t *Task) Next(last Step, result string, calls int) Action {
	if calls >= MaxSteps {
		return t.final(StepDone, "I stopped after "+fmt.Sprint(calls)+" tool calls without finishing the task.")
	}
	switch n := bigN(last); {
	case last == StepDone:
		return t.final(StepDone, "Fixed the off-by-one in calc.js: the loop in total() now starts at index 0, and `sh test.sh` prints PASS.")
	case last == StepRead:
		return t.shell(StepTestBefore, "sh test.sh")
	case last == StepTestBefore:
		return t.shell(BigStep(1), bigCommand(1))
	case n > 0 && n < BigSteps:
		return t.shell(BigStep(n+1), bigCommand(n+1))
	case n >= BigSteps:
		return Action{
			Step: StepEdit, Kind: ActionEdit, Path: filepath.Join(t.Dir, "calc.js"),
			Old: bugLine, New: fixedLine,
			Patch:      "*** Begin Patch\n*** Update File: " + filepath.Join(t.Dir, "calc.js") + "\n@@ function total(xs) {\n   let s = 0;\n-" + bugLine + "\n+" + fixedLine + "\n*** End Patch\n",
			SedCommand: "sed -i 's/let i = 1; i < xs.length; i++) {$/let i = 0; i < xs.length; i++) { \\/\\/ fixed/' calc.js # " + stepMarker + string(StepEdit),
			Thinking:   "The loop starts at index 1, so the first number is skipped; start it at 0.",
		}
	case last == StepEdit:
		return t.shell(StepTestAfter, "sh test.sh")
	case last == StepTestAfter:
		if strings.Contains(result, "PASS") && !strings.Contains(result, "FAIL") {
			return t.final(StepDone, "Fixed the off-by-one in calc.js: the loop in total() now starts at index 0, and `sh test.sh` prints PASS.")
		}
		return t.final(StepDone, "The test still fails after my edit; I stop here.")
	}
	return Action{
		Step: StepRead, Kind: ActionRead, Path: filepath.Join(t.Dir, "calc.js"),
		Command:  "cat calc.js # " + stepMarker + string(StepRead),
		Thinking: "Let me read calc.js first.",
	}
}

func (t *Task) shell(s Step, cmd string) Action {
	return Action{Step: s, Kind: ActionShell, Command: cmd + " # " + stepMarker + string(s), Thinking: "Next: " + cmd + "."}
}

func (t *Task) final(s Step, text string) Action {
	return Action{Step: s, Kind: ActionFinal, Text: text, Thinking: "Done; time to report."}
}
