package tools

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
)

func TestRunCommand(t *testing.T) {
	t.Parallel()
	env := project(t, map[string]string{"here.txt": "x"})
	small := env
	small.OutputBytes = 200
	tests := []struct {
		name     string
		env      Env
		args     args
		wantErr  bool
		want     []string
		wantCode int
		notWant  string
	}{
		{"ok", env, args{"command": "echo hello"}, false, []string{"hello\nExit code 0"}, 0, ""},
		{"runs in root", env, args{"command": "cat here.txt"}, false, []string{"x\nExit code 0"}, 0, ""},
		{"exit code", env, args{"command": "echo oops >&2; exit 3"}, true, []string{"oops\nExit code 3"}, 3, ""},
		{"interleaved", env, args{"command": "echo a; echo b >&2; echo c"}, false, []string{"a\nb\nc\n"}, 0, ""},
		{"capped head and tail", small, args{"command": "seq 1 10000"}, false, []string{"1\n2\n", "10000\n", "bytes of output cut", "Exit code 0"}, 0, "\n5000\n"},
		{"timeout", env, args{"command": "sleep 30", "timeout_seconds": 0.2}, true, []string{"timed out", "killed"}, -1, ""},
		{"timeout kills the group", env, args{"command": "sleep 30 & sleep 30; wait", "timeout_seconds": 0.2}, true, []string{"timed out"}, -1, ""},
		{"background child keeps no hold", env, args{"command": "sleep 2 > /dev/null 2>&1 & echo started"}, false, []string{"started\nExit code 0"}, 0, ""},
		{"background child holding the pipe", env, args{"command": "sleep 2 & echo started"}, false, []string{"started\nExit code 0"}, 0, ""},
		{"no command", env, args{}, true, []string{"command is required"}, 0, ""},
		{"bad timeout", env, args{"command": "true", "timeout_seconds": -1}, true, []string{"timeout_seconds"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			r := call(t, runCommand{tt.env}, tt.args)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %s", d)
			}
			check(t, r, tt.wantErr, tt.want...)
			if tt.notWant != "" && strings.Contains(r.Content, tt.notWant) {
				t.Errorf("content holds %q", tt.notWant)
			}
			if len(tt.want) > 0 && strings.Contains(tt.want[len(tt.want)-1], "Exit code") || tt.wantCode != 0 {
				if code, ok := r.ExitCode(); !ok || code != tt.wantCode {
					t.Errorf("ExitCode() = %d, %v; want %d", code, ok, tt.wantCode)
				}
			}
			if tt.env.OutputBytes > 0 && len(r.Content) > tt.env.OutputBytes+200 {
				t.Errorf("content is %d bytes, cap %d", len(r.Content), tt.env.OutputBytes)
			}
		})
	}
}

func TestRunCommandCancel(t *testing.T) {
	t.Parallel()
	env := project(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	r := runCommand{env}.Run(ctx, chat.ToolCall{ID: "c", Name: "run_command", Arguments: []byte(`{"command":"sleep 30 & sleep 30; echo never"}`)})
	if d := time.Since(start); d > time.Second {
		t.Errorf("cancelled command returned after %s, want under 1s", d)
	}
	check(t, r, true, "cancelled", "Exit code -1")
	if strings.Contains(r.Content, "never") {
		t.Error("the command ran on")
	}
}

func TestHeadTail(t *testing.T) {
	t.Parallel()
	w := &headTail{limit: 10}
	for i := 0; i < 1000; i++ {
		if n, err := w.Write([]byte("abcdefghij")); n != 10 || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	got := w.String()
	if !strings.HasPrefix(got, "abcde\n") || !strings.HasSuffix(got, "\nfghij") || !strings.Contains(got, "9990 bytes of output cut") {
		t.Errorf("String() = %q", got)
	}
	w = &headTail{limit: 10}
	if _, err := w.Write([]byte("short")); err != nil {
		t.Fatal(err)
	}
	if w.String() != "short" {
		t.Errorf("String() = %q, want short", w.String())
	}
}

func TestRunCommandKillsGroup(t *testing.T) {
	t.Parallel()
	env := project(t, nil)
	r := call(t, runCommand{env}, args{"command": "sleep 30 & echo $! > pid; wait", "timeout_seconds": 0.3})
	check(t, r, true, "timed out")
	b, err := os.ReadFile(filepath.Join(env.Root, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("background sleep %d survived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
