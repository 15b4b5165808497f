package loadgen

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
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

// ticksPerSecond is the unit of /proc/PID/stat's times: Linux reports
// them in ticks of 1/100 s on every architecture (USER_HZ, proc(5)).
const ticksPerSecond = 100

// CPU is a process's CPU time: in user space and in the kernel on its
// behalf (its system calls, page faults).
type CPU struct{ User, System time.Duration }

// Total is User + System.
func (c CPU) Total() time.Duration { return c.User + c.System }

// CPU returns the CPU time the process has used so far (10 ms
// resolution): see [processCPU].
func (p *Proc) CPU() (CPU, error) { return processCPU(p.cmd.Process.Pid) }

// processCPU returns the CPU time process pid has used so far, read from
// its /proc/PID/stat with prometheus/procfs (utime and stime, proc(5)).
// Errors: procfs's, wrapped (not Linux, or the process is gone).
func processCPU(pid int) (CPU, error) {
	pr, err := procfs.NewProc(pid)
	if err != nil {
		return CPU{}, fmt.Errorf("loadgen: CPU time of process %d: %w", pid, err)
	}
	st, err := pr.Stat()
	if err != nil {
		return CPU{}, fmt.Errorf("loadgen: CPU time of process %d: %w", pid, err)
	}
	tick := time.Second / ticksPerSecond
	return CPU{User: time.Duration(st.UTime) * tick, System: time.Duration(st.STime) * tick}, nil
}
