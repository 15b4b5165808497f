package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Build builds the agentctx command of the module at moduleDir into
// out (go build), for [Start]. Errors: the build's, with its output.
func Build(ctx context.Context, moduleDir, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/agentctx")
	cmd.Dir = moduleDir
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("loadgen: go build: %w\n%s", err, b)
	}
	return nil
}

// Proc is one `agentctx serve` or `agentctx proxy` process on loopback.
type Proc struct {
	// URL is the server's base URL ("http://127.0.0.1:PORT").
	URL string
	cmd *exec.Cmd
	// done is closed when the process has exited; err is then its
	// exit error.
	done chan struct{}
	err  error
}

// StartTimeout bounds how long [Start] waits for a server to listen.
const StartTimeout = 30 * time.Second

// Start runs `bin serve --listen 127.0.0.1:0 --store store --home home`
// and returns once it listens (it prints its address). The server's log
// (stderr: JSON access records) goes to log. Errors: the process did
// not start, or exited or said nothing within [StartTimeout].
func Start(bin, store, home string, log io.Writer) (*Proc, error) {
	return start(bin, log, "serve", "--listen", "127.0.0.1:0", "--store", store, "--home", home)
}

// StartProxy runs `bin proxy --upstream upstream --listen 127.0.0.1:0
// --store store --home home --budget budget` (a fleet's proxy when store
// is a PostgreSQL URL) and returns once it listens, as [Start] does.
func StartProxy(bin, upstream, store, home string, budget int, log io.Writer) (*Proc, error) {
	return start(bin, log, "proxy", "--upstream", upstream, "--listen", "127.0.0.1:0", "--store", store, "--home", home,
		"--budget", fmt.Sprint(budget))
}

// start runs bin with args and waits for its "listening on URL" line.
func start(bin string, log io.Writer, args ...string) (*Proc, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "AGENTCTX_TOKENS_FILE=", "AGENTCTX_STORE=")
	cmd.Stderr = log
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("loadgen: start %s: %w", bin, err)
	}
	p := &Proc{cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), "listening on "); ok {
				u, _, _ := strings.Cut(rest, " ")
				addr <- strings.TrimSuffix(u, ",")
			}
		}
		_, _ = io.Copy(io.Discard, out)
		p.err = cmd.Wait()
		close(p.done)
	}()
	select {
	case u := <-addr:
		p.URL = u
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("loadgen: %s %s exited before listening: %w", bin, args[0], p.err)
	case <-time.After(StartTimeout):
		_ = cmd.Process.Kill()
		<-p.done
		return nil, fmt.Errorf("loadgen: %s %s did not listen within %v", bin, args[0], StartTimeout)
	}
}

// Kill ends the server with SIGKILL, as a crash would, and waits for
// the process to be gone.
func (p *Proc) Kill() error {
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	<-p.done
	return nil
}

// Stop ends the server with SIGTERM (a graceful shutdown: requests in
// flight finish, sessions are closed) and waits up to timeout before
// killing it. Errors: the process exited with an error, or had to be
// killed.
func (p *Proc) Stop(timeout time.Duration) error {
	select {
	case <-p.done:
		return nil // killed before, or exited on its own: Wait said why
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("loadgen: server %s did not stop within %v", p.URL, timeout)
	}
}

// userHZ is the unit of /proc/PID/stat's times: Linux reports them in
// ticks of 1/100 s on every architecture (USER_HZ, proc(5)).
const userHZ = 100

// CPU is a process's CPU time: in user space and in the kernel on its
// behalf (its system calls, page faults).
type CPU struct{ User, System time.Duration }

// Total is User + System.
func (c CPU) Total() time.Duration { return c.User + c.System }

// CPU returns the CPU time the process has used so far (10 ms
// resolution), read from /proc/PID/stat (proc(5): utime and stime, its
// 14th and 15th fields). Errors: the file cannot be read (not Linux, or
// the process is gone) or is not in that form.
func (p *Proc) CPU() (CPU, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return CPU{}, fmt.Errorf("loadgen: server CPU time: %w", err)
	}
	return statCPU(b)
}

// statCPU returns utime and stime of a /proc/PID/stat line. The command
// name (the 2nd field) is in parentheses and may hold spaces and ")":
// the fields are counted from its last ")".
func statCPU(stat []byte) (CPU, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return CPU{}, fmt.Errorf("loadgen: /proc stat %.60q: no command name", stat)
	}
	f := strings.Fields(string(stat[i+1:])) // from the 3rd field, state
	const utime = 14 - 3
	if len(f) <= utime+1 {
		return CPU{}, fmt.Errorf("loadgen: /proc stat %.60q: %d fields after the name, want %d", stat, len(f), utime+2)
	}
	var ticks [2]time.Duration
	for k, s := range f[utime : utime+2] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return CPU{}, fmt.Errorf("loadgen: /proc stat: CPU time %q is not a count of ticks", s)
		}
		ticks[k] = time.Duration(n) * time.Second / userHZ
	}
	return CPU{User: ticks[0], System: ticks[1]}, nil
}
