package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider/providertest"
)

// The scripted Go task: a module whose Sum skips the last element, and a
// test that catches it.
const (
	goTaskBug  = "for i := 0; i < len(xs)-1; i++ {"
	goTaskFix  = "for i := 0; i < len(xs); i++ {"
	goTaskDone = "Fixed: Sum skipped the last element; go test passes now."
)

// newGoTask creates the task's project: a Go module with one failing
// test. It skips the test without a go command (CI has one).
func newGoTask(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to run the project's tests")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/calc\n\ngo 1.22\n",
		"calc.go": "// Package calc adds numbers.\npackage calc\n\n// Sum returns the sum of xs.\nfunc Sum(xs []int) int {\n\ts := 0\n\t" +
			goTaskBug + "\n\t\ts += xs[i]\n\t}\n\treturn s\n}\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) {\n\tif got := Sum([]int{1, 2, 3}); got != 6 {\n\t\tt.Fatalf(\"Sum = %d, want 6\", got)\n\t}\n}\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// goTaskScript plays the task as a model would, deciding each step from
// the last tool result the request carries (a pure function of the
// request): list the files, read calc.go, plan, run the tests, see them
// fail, note the finding, fix the loop, run the tests again, see them
// pass, answer. A result that is not what the step expects ends the task
// with a text saying so, which the tests look for.
func goTaskScript(r providertest.Request) providertest.Reply {
	call := func(id, name, args string) providertest.Reply {
		return providertest.Reply{ToolCalls: []chat.ToolCall{{ID: id, Name: name, Arguments: json.RawMessage(args)}}}
	}
	var res chat.ToolResult
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role != chat.RoleAssistant; i-- {
		if x, ok := r.Messages[i].ToolResult(); ok && res.ToolCallID == "" {
			res = x
		}
	}
	unexpected := func() providertest.Reply {
		return providertest.Reply{Text: "UNEXPECTED result of " + res.ToolName + ": " + res.Content}
	}
	switch res.ToolCallID {
	case "":
		rep := call("ls", "list_files", `{}`)
		rep.Text = "Let me look at the project."
		return rep
	case "ls":
		if !strings.Contains(res.Content, "calc.go") {
			return unexpected()
		}
		return call("read", "read_file", `{"path":"calc.go"}`)
	case "read":
		if !strings.Contains(res.Content, goTaskBug) {
			return unexpected()
		}
		return call("plan", "todo_write", `{"todos":[{"content":"Run the tests","status":"in_progress"},{"content":"Fix Sum","status":"pending"},{"content":"Run the tests again","status":"pending"}]}`)
	case "plan":
		return call("test1", "run_command", `{"command":"go test ./..."}`)
	case "test1":
		if !strings.Contains(res.Content, "FAIL") || !strings.Contains(res.Content, "Sum = 3, want 6") {
			return unexpected()
		}
		return call("note", "note_finding", `{"finding":"Sum skips the last element: its loop stops at len(xs)-1","evidence":"calc.go:7","importance":4,"category":"bug"}`)
	case "note":
		args, _ := json.Marshal(map[string]string{"path": "calc.go", "old_string": goTaskBug, "new_string": goTaskFix})
		rep := call("edit", "edit_file", string(args))
		rep.Text = "The loop stops one element early."
		return rep
	case "edit":
		if res.IsError {
			return unexpected()
		}
		return call("test2", "run_command", `{"command":"go test ./..."}`)
	case "test2":
		if res.IsError || !strings.Contains(res.Content, "ok") || strings.Contains(res.Content, "FAIL") {
			return unexpected()
		}
		return providertest.Reply{Text: goTaskDone}
	}
	return unexpected()
}

// checkGoTaskFixed checks that the project's code is fixed and its tests
// pass.
func checkGoTaskFixed(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "calc.go"))
	if err != nil || !strings.Contains(string(b), goTaskFix) || strings.Contains(string(b), goTaskBug) {
		t.Errorf("calc.go is not fixed (%v):\n%s", err, b)
	}
	cmd := exec.Command("go", "test", "./...")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go test in the project: %v\n%s", err, out)
	}
}

// sessionFile returns a file holding the lines of stored session id of
// the default store in home, as stored.
func sessionFile(t *testing.T, home, id string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), id+".jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(storedLines(t, home, id), "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestChatScriptedTask runs the scripted Go task in print mode through
// both wire formats (streamed, as the adapters call them), with text and
// JSON output: the repository ends fixed, the stored session holds the
// task, the failing and the passing test runs and the answer, and the
// model saw every tool result.
func TestChatScriptedTask(t *testing.T) {
	for _, wire := range []providertest.Wire{providertest.WireOpenAI, providertest.WireAnthropic} {
		for _, asJSON := range []bool{false, true} {
			name := string(wire) + "/text"
			if asJSON {
				name = string(wire) + "/json"
			}
			t.Run(name, func(t *testing.T) {
				srv := providertest.New(providertest.Options{Wire: wire, Script: withSummaries(goTaskScript)})
				defer srv.Close()
				t.Setenv("AGENTCTX_PROVIDER", string(wire))
				if wire == providertest.WireAnthropic {
					t.Setenv("ANTHROPIC_BASE_URL", srv.BaseURL)
					t.Setenv("ANTHROPIC_API_KEY", "test")
					t.Setenv("AGENTCTX_MODEL", "claude-sonnet-4-5")
				} else {
					t.Setenv("OPENAI_BASE_URL", srv.BaseURL)
					t.Setenv("OPENAI_API_KEY", "test")
					t.Setenv("AGENTCTX_MODEL", "gpt-4o")
				}
				home := t.TempDir()
				t.Setenv("AGENTCTX_HOME", home)
				dir := newGoTask(t)

				args := []string{"chat", dir, "-p", "make the tests pass", "--yes"}
				if asJSON {
					args = append(args, "--json")
				}
				code, out, errOut := run(t, args...)
				if code != 0 || strings.Contains(out, "UNEXPECTED") {
					t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
				}
				checkGoTaskFixed(t, dir)

				id := ""
				if asJSON {
					kinds := map[string]int{}
					sc := bufio.NewScanner(strings.NewReader(out))
					sc.Buffer(nil, 1<<20)
					for sc.Scan() {
						var ev struct {
							Kind      string `json:"kind"`
							SessionID string `json:"session_id"`
							Result    struct {
								Text       string `json:"text"`
								StopReason string `json:"stop_reason"`
							} `json:"result"`
						}
						if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
							t.Fatalf("not JSON: %q: %v", sc.Text(), err)
						}
						kinds[ev.Kind]++
						if ev.Kind == "result" {
							id = ev.SessionID
							if ev.Result.Text != goTaskDone || ev.Result.StopReason != "done" {
								t.Errorf("result = %+v", ev.Result)
							}
						}
					}
					// Seven tool calls, eight model calls.
					if kinds["tool_call"] != 7 || kinds["tool_result"] != 7 || kinds["usage"] != 8 || kinds["turn_end"] != 1 || kinds["text_delta"] < 3 || kinds["result"] != 1 {
						t.Errorf("events %v", kinds)
					}
				} else {
					if strings.TrimSpace(out) != goTaskDone {
						t.Errorf("printed %q, want the final answer alone", out)
					}
					_, list, _ := run(t, "sessions", "list", "--project", dir, "--json")
					ss := jsonLines[struct {
						ID string `json:"id"`
					}](t, list)
					if len(ss) != 1 {
						t.Fatalf("sessions list: %d sessions, want 1: %s", len(ss), list)
					}
					id = ss[0].ID
				}

				// The session, as stored, in order.
				b, err := os.ReadFile(sessionFile(t, home, id))
				if err != nil {
					t.Fatal(err)
				}
				body := string(b)
				order := []string{"make the tests pass", `Sum = 3, want 6`, "FAIL", `"name":"edit_file"`, "ok  \\texample.com/calc", goTaskDone}
				at := 0
				for _, want := range order {
					i := strings.Index(body[at:], want)
					if i < 0 {
						t.Fatalf("the session does not hold %q after offset %d:\n%s", want, at, body)
					}
					at += i
				}
				if code, out, _ := run(t, "sessions", "check", id); code != 0 {
					t.Errorf("sessions check: %d\n%s", code, out)
				}

				// The model got each result back: the last request holds
				// all seven.
				reqs := srv.Requests()
				last := reqs[len(reqs)-1]
				results := 0
				for _, m := range last.Messages {
					if _, ok := m.ToolResult(); ok {
						results++
					}
				}
				if len(reqs) != 8 || results != 7 {
					t.Errorf("%d requests, the last with %d tool results; want 8 and 7", len(reqs), results)
				}
			})
		}
	}
}
