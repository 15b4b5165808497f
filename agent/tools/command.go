package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentctx/agentctx/agent/sandbox"
	"github.com/agentctx/agentctx/chat"
)

// MaxCommandTimeout is the longest timeout_seconds run_command accepts.
const MaxCommandTimeout = 10 * time.Minute

type runCommand struct{ env Env }

func (runCommand) Def() chat.ToolDef {
	return chat.ToolDef{
		Name:        "run_command",
		Description: "Run a shell command (bash -c) in the project root. stdout and stderr are interleaved; long output keeps its head and tail. The result ends with the exit code.",
		Parameters: schema(map[string]any{
			"command":         prop("string", "The shell command."),
			"timeout_seconds": prop("number", "Kill the command after this many seconds. Optional. Defaults to the agent's command timeout; at most 600."),
		}, "command"),
	}
}

func (runCommand) Access() Access { return AccessExec }

func (t runCommand) Run(ctx context.Context, call chat.ToolCall) chat.ToolResult {
	var a struct {
		Command        string  `json:"command"`
		TimeoutSeconds float64 `json:"timeout_seconds"`
	}
	if err := decode(call, &a); err != nil {
		return fail(call, "%v", err)
	}
	if strings.TrimSpace(a.Command) == "" {
		return fail(call, "command is required")
	}
	if a.TimeoutSeconds < 0 {
		return fail(call, "timeout_seconds must be positive")
	}
	timeout := t.env.commandTimeout()
	if a.TimeoutSeconds > 0 {
		timeout = min(time.Duration(a.TimeoutSeconds*float64(time.Second)), MaxCommandTimeout)
	}
	if err := ctx.Err(); err != nil {
		return fail(call, "cancelled before it started: %v", err)
	}
	shell := "bash"
	if _, err := exec.LookPath(shell); err != nil {
		shell = "sh"
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var cmd *exec.Cmd
	if t.env.Sandbox != nil {
		cmd = t.env.Sandbox.Command(runCtx, shell, "-c", a.Command)
	} else {
		cmd = exec.CommandContext(runCtx, shell, "-c", a.Command)
		cmd.Dir = t.env.Root
	}
	// Credentials stay with the agent; the tag finds what the command
	// leaves running.
	tag := commandTag()
	cmd.Env = append(sandbox.Environ(os.Environ()), tag)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The whole process group: the shell and everything it started.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	// Nothing a command starts outlives it: its process group, then what
	// left the group (setsid, a double fork) by its tag.
	defer func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group may be gone already
		}
		killTagged(tag)
	}()
	// A grandchild that escaped the group could hold the pipe open.
	cmd.WaitDelay = 500 * time.Millisecond
	out := &headTail{limit: t.env.outputBytes()}
	cmd.Stdout = out
	cmd.Stderr = out
	start := time.Now()
	err := cmd.Run()
	text := out.String()
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	code := 0
	var exitErr *exec.ExitError
	switch {
	case runCtx.Err() != nil:
		why := "cancelled"
		if ctx.Err() == nil {
			why = fmt.Sprintf("timed out after %s", timeout)
		}
		return fail(call, "%s[command %s and was killed after %s]\nExit code -1", text, why, time.Since(start).Round(time.Millisecond))
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		return fail(call, "run %s: %v", shell, err)
	}
	res := ok(call, fmt.Sprintf("%sExit code %d", text, code))
	res.IsError = code != 0
	return res
}

// commandTag returns an environment entry unique to one command run.
func commandTag() string {
	var b [8]byte
	rand.Read(b[:])
	return "AGENTCTX_COMMAND_ID=" + hex.EncodeToString(b[:])
}

// headTail is an io.Writer that keeps the first and last limit/2 bytes of
// what it is given and counts the rest. Safe for concurrent use.
type headTail struct {
	mu    sync.Mutex
	limit int
	head  []byte
	tail  []byte
	total int
}

func (w *headTail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n0 := len(p)
	w.total += n0
	half := w.limit / 2
	if room := half - len(w.head); room > 0 {
		n := min(room, len(p))
		w.head = append(w.head, p[:n]...)
		p = p[n:]
	}
	w.tail = append(w.tail, p...)
	if keep := w.limit - half; len(w.tail) > 2*keep+1024 {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-keep:]...)
	}
	return n0, nil
}

func (w *headTail) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	keep := w.limit - w.limit/2
	tail := w.tail
	if len(tail) > keep {
		tail = tail[len(tail)-keep:]
	}
	dropped := w.total - len(w.head) - len(tail)
	if dropped <= 0 {
		return string(w.head) + string(tail)
	}
	return fmt.Sprintf("%s\n[… %d bytes of output cut: showing the first %d and last %d of %d bytes …]\n%s", w.head, dropped, len(w.head), len(tail), w.total, tail)
}
