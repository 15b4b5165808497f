package chat_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/agentctx/agentctx/chat"
)

func TestToolResultExitCode(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("line\n", 100)
	tests := []struct {
		name    string
		content string
		isError bool
		code    int
		ok      bool
		failed  bool
	}{
		{"claude code", "Exit code 2\nno such file", false, 2, true, true},
		{"mini-swe-agent", "<returncode>1</returncode>\n<output>x</output>", false, 1, true, true},
		{"codex", "Chunk ID: a\nProcess exited with code 0\nOutput:\nok", false, 0, true, false},
		{"openhands at the end", long + "[Command finished with exit code 127]", false, 127, true, true},
		{"openhands suffix", "x\n[The command completed with exit code 3.]", false, 3, true, true},
		{"json", `{"output":"x","exit_code":1}`, false, 1, true, true},
		{"none", "all good", false, 0, false, false},
		{"flag only", "boom", true, 0, false, true},
		{"code in the middle is not read", "a\nb\nc\nd\ne\nf\ng\nh\nExit code 1\n" + long, false, 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := chat.ToolResult{ToolCallID: "c", Content: tt.content, IsError: tt.isError}
			code, ok := r.ExitCode()
			if code != tt.code || ok != tt.ok || r.Failed() != tt.failed {
				t.Errorf("ExitCode() = %d, %v; Failed() = %v; want %d, %v, %v", code, ok, r.Failed(), tt.code, tt.ok, tt.failed)
			}
		})
	}
}

// TestFailedFor: exit code 1 of grep and its kin (no match) and of diff
// and cmp (differ) is not a failure when their command is the last of the
// line; exit 2 and above are, and so is exit 1 of anything else.
func TestFailedFor(t *testing.T) {
	t.Parallel()
	bash := func(cmd string) chat.ToolCall {
		b, _ := json.Marshal(map[string]string{"command": cmd})
		return chat.ToolCall{ID: "c", Name: "Bash", Arguments: b}
	}
	tests := []struct {
		name    string
		call    chat.ToolCall
		content string
		isError bool
		failed  bool
	}{
		{"grep no match", bash("grep -r foo ."), "Exit code 1", true, false},
		{"grep error", bash("grep -r foo nope/"), "Exit code 2\ngrep: nope/: No such file or directory", true, true},
		{"list, grep last", bash("cd x && grep foo"), "Exit code 1", true, false},
		{"pipeline into grep", bash("cat f.log | grep -i error"), "<returncode>1</returncode>\n<output>\n</output>", false, false},
		{"grep then something else", bash("grep foo f; false"), "Exit code 1", true, true},
		{"grep with redirections", bash("grep -rn TODO src 2>/dev/null"), "Exit code 1", true, false},
		{"rg", bash("rg --files-with-matches Parse"), "Process exited with code 1\nOutput:\n", false, false},
		{"git grep", bash("git grep -n Parse -- '*.go'"), "Exit code 1", true, false},
		{"git diff --exit-code", bash("git diff --exit-code"), "Exit code 1\ndiff --git a/x b/x", true, false},
		{"diff differ", bash("diff -u a.txt b.txt"), "[Command finished with exit code 1]", false, false},
		{"cmp differ", bash("env LC_ALL=C cmp a b"), "Exit code 1\na b differ: byte 1, line 1", true, false},
		{"diff trouble", bash("diff a missing"), "Exit code 2\ndiff: missing: No such file or directory", true, true},
		{"pytest", bash("pytest -x"), "Exit code 1\nFAILED test_x.py::test_a", true, true},
		{"grep in a quoted argument", bash(`echo "grep foo"`), "Exit code 1", true, true},
		{"codex argv", chat.ToolCall{Name: "shell", Arguments: json.RawMessage(`{"command":["bash","-lc","cd /repo && grep -n foo x.go"]}`)}, `{"output":"","exit_code":1}`, false, false},
		{"error flag without exit code", bash("grep foo"), "<tool_use_error>timeout</tool_use_error>", true, true},
		{"not a shell call", chat.ToolCall{Name: "Read", Arguments: json.RawMessage(`{"file_path":"grep"}`)}, "Exit code 1", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := chat.ToolResult{ToolCallID: "c", Content: tt.content, IsError: tt.isError}
			if got := r.FailedFor(tt.call); got != tt.failed {
				t.Errorf("FailedFor(%s) = %v, want %v", tt.call.Arguments, got, tt.failed)
			}
			code, ok := r.ExitCode()
			if got := r.FailedForExit(tt.call, code, ok); got != tt.failed {
				t.Errorf("FailedForExit(%s, %d, %v) = %v, want %v", tt.call.Arguments, code, ok, got, tt.failed)
			}
		})
	}
}

func TestToolCallCommand(t *testing.T) {
	t.Parallel()
	tests := []struct{ args, want string }{
		{`{"command":"ls -la"}`, "ls -la"},
		{`{"cmd":"make test"}`, "make test"},
		{`{"command":["bash","-lc","go test ./..."]}`, "go test ./..."},
		{`{"command":["git","status"]}`, "git status"},
		{`{"file_path":"a.go"}`, ""},
		{`"ls"`, ""},
		{`{`, ""},
		{``, ""},
	}
	for _, tt := range tests {
		if got := (chat.ToolCall{Arguments: json.RawMessage(tt.args)}).Command(); got != tt.want {
			t.Errorf("Command(%s) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// FuzzFailedFor: any command line and output are judged without a panic,
// and an exit code other than 1 is judged as Failed judges it.
func FuzzFailedFor(f *testing.F) {
	for _, s := range []string{"grep -r foo .", "cd x && grep foo", "cat f | grep x 2>&1", `echo "a|b" | rg 'x;y'`, "diff a b > out", "(grep x)", "grep \\", "'", "&>", "git grep"} {
		f.Add(s, "Exit code 1")
		f.Add(s, "Exit code 2")
	}
	f.Fuzz(func(t *testing.T, cmd, content string) {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		r := chat.ToolResult{Content: content, IsError: true}
		got := r.FailedFor(chat.ToolCall{Name: "Bash", Arguments: args})
		if code, ok := r.ExitCode(); (!ok || code != 1) && got != r.Failed() {
			t.Fatalf("FailedFor(%q, %q) = %v, Failed = %v", cmd, content, got, r.Failed())
		}
	})
}

// TestFailedForRemembered: the answer remembered for the last arguments
// never leaks to other arguments, in turn or from parallel goroutines,
// nor follows a caller that changes its arguments after asking.
func TestFailedForRemembered(t *testing.T) {
	t.Parallel()
	exit1 := chat.ToolResult{Content: "Exit code 1", IsError: true}
	grep := chat.ToolCall{Name: "Bash", Arguments: json.RawMessage(`{"command":"cd src && grep -rn TODO ."}`)}
	test := chat.ToolCall{Name: "Bash", Arguments: json.RawMessage(`{"command":"cd src && go test ./..."}`)}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				if exit1.FailedFor(grep) {
					t.Errorf("goroutine %d, turn %d: grep exiting 1 judged a failure", g, i)
					return
				}
				if !exit1.FailedFor(test) {
					t.Errorf("goroutine %d, turn %d: go test exiting 1 not judged a failure", g, i)
					return
				}
			}
		})
	}
	wg.Wait()
	args := []byte(`{"command":"grep -q x f"}`)
	call := chat.ToolCall{Name: "Bash", Arguments: args}
	if exit1.FailedFor(call) {
		t.Fatal("grep exiting 1 judged a failure")
	}
	copy(args[12:], "make") // "make -q x f"
	if !exit1.FailedFor(call) {
		t.Errorf("%s exiting 1: the answer remembered for grep was given", args)
	}
}

// TestExitCodeRemembered: the exit code remembered for the last content
// is never given for another, in turn or from parallel goroutines.
func TestExitCodeRemembered(t *testing.T) {
	t.Parallel()
	results := []struct {
		content string
		code    int
		ok      bool
	}{
		{"Exit code 2\nboom", 2, true},
		{"<returncode>0</returncode>\n<output>\nok\n</output>", 0, true},
		{"no code here", 0, false},
		{"Exit code 3\nboom", 3, true}, // the first's length, another code
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 300 {
				r := results[(g+i)%len(results)]
				if code, ok := (chat.ToolResult{Content: r.content}).ExitCode(); code != r.code || ok != r.ok {
					t.Errorf("ExitCode(%q) = %d, %v; want %d, %v", r.content, code, ok, r.code, r.ok)
					return
				}
			}
		})
	}
	wg.Wait()
}
