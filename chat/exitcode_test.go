package chat_test

import (
	"strings"
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
