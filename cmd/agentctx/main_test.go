package main

import (
	"errors"
	"go/version"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestGoDirective: go.mod asks for the lowest Go its requirements allow
// (the highest go line among them), not a patch release that would force
// every embedder's toolchain.
func TestGoDirective(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-m", "-f", "{{if .Main}}main {{end}}{{.GoVersion}}", "all").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	var main, need string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if v, ok := strings.CutPrefix(line, "main "); ok {
			main = v
		} else if line != "" && version.Compare("go"+line, "go"+need) > 0 {
			need = line
		}
	}
	if main == "" || need == "" || main != need {
		t.Errorf("go.mod declares go %s; its requirements need go %s: declare that", main, need)
	}
}

// TestSecondInterruptEnds: a command that does not stop on the first
// SIGINT (replay blocked opening a FIFO that no one writes) ends on the
// second, as a program does on Ctrl-C.
func TestSecondInterruptEnds(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT, no FIFO")
	}
	fifo := filepath.Join(t.TempDir(), "blocked.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "agentctx")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "replay", fifo)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Skipf("replay of a FIFO no longer blocks (%v): nothing to interrupt", err)
	case <-time.After(time.Second):
	}
	for i := range 2 {
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			time.Sleep(300 * time.Millisecond)
		}
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("replay ended with %v, want the SIGINT's status", err)
		}
		ws, ok := ee.Sys().(syscall.WaitStatus)
		if !(ok && ws.Signaled() && ws.Signal() == syscall.SIGINT) && ee.ExitCode() != 130 {
			t.Errorf("replay ended with %v, want killed by SIGINT or exit 130", err)
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("two SIGINTs did not end the command")
	}
}
