package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/agent/sandbox"
)

// newSandbox returns a sandbox for p, skipping the test where none can
// run, except under CI=true, where bwrap is installed and its absence is
// a failure.
func newSandbox(t *testing.T, p sandbox.Policy) *sandbox.Sandbox {
	t.Helper()
	s, err := sandbox.New(t.Context(), p)
	if errors.Is(err, sandbox.ErrUnavailable) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and no sandbox (apt-get install -y bubblewrap): %v", err)
		}
		t.Skipf("no sandbox here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// run runs script with bash inside s and returns its combined output and
// error.
func run(t *testing.T, s *sandbox.Sandbox, script string) (string, error) {
	t.Helper()
	cmd := s.Command(t.Context(), "bash", "-c", script)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func TestSandboxWrites(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := t.TempDir()
	tmp := t.TempDir()
	s := newSandbox(t, sandbox.Policy{Root: root, TempDir: tmp})

	if out, err := run(t, s, "echo in > inside.txt && echo t > /tmp/t.txt && mkdir -p sub && echo x > sub/y"); err != nil {
		t.Fatalf("writes inside the project and /tmp: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(root, "inside.txt")); err != nil || string(b) != "in\n" {
		t.Errorf("inside.txt = %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(tmp, "t.txt")); err != nil || string(b) != "t\n" {
		t.Errorf("/tmp/t.txt in TempDir = %q, %v", b, err)
	}

	wd, _ := os.Getwd()
	for _, target := range []string{
		filepath.Join(outside, "x"), // another temporary folder: hidden under /tmp
		filepath.Join(wd, "sandbox-escape-test"),
		"/etc/agentctx-escape-test",
		"/usr/agentctx-escape-test",
	} {
		out, err := run(t, s, "echo x > "+target)
		if err == nil {
			t.Errorf("write to %s succeeded", target)
		}
		if !strings.Contains(out, "Read-only file system") && !strings.Contains(out, "No such file") && !strings.Contains(out, "Permission denied") {
			t.Errorf("write to %s: %q, want EROFS or EACCES", target, out)
		}
		if _, err := os.Stat(target); err == nil {
			t.Errorf("%s exists on the host", target)
			os.Remove(target)
		}
	}
	// Nothing a command does undoes the read-only mounts.
	out, err := run(t, s, "mount -o remount,rw / 2>&1; touch /etc/agentctx-escape-test")
	if err == nil {
		t.Errorf("remount and write succeeded: %s", out)
	}
	out, _ = run(t, s, "echo x > /dev/sda; echo $?")
	if !strings.HasSuffix(strings.TrimSpace(out), "1") {
		t.Errorf("write to /dev/sda: %q", out)
	}
}

func TestSandboxHidesHomeAndSecrets(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	root := t.TempDir()
	for _, f := range []string{".ssh/id_rsa", ".aws/credentials", ".config/gh/hosts.yml", "notes.txt"} {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("SECRET-"+f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := newSandbox(t, sandbox.Policy{Root: root, Home: home})
	for _, f := range []string{".ssh/id_rsa", ".aws/credentials", ".config/gh/hosts.yml", "notes.txt"} {
		out, err := run(t, s, "cat "+filepath.Join(home, f))
		if err == nil || strings.Contains(out, "SECRET") {
			t.Errorf("read %s: %q, %v; want it hidden", f, out, err)
		}
	}
	hostKeys, _ := filepath.Glob("/etc/ssh/ssh_host_*_key")
	for _, f := range append([]string{"/etc/shadow", "/root/.bash_history"}, hostKeys...) {
		if _, err := os.Stat(f); err != nil {
			continue
		}
		if out, err := run(t, s, "head -c 40 "+f); err == nil && out != "" {
			t.Errorf("read %s: %q", f, out)
		}
	}

	// A project inside the home is seen; the rest of the home, and its
	// secrets, are not.
	proj := filepath.Join(home, "src", "app")
	if err := os.MkdirAll(filepath.Join(proj, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "main.go"), []byte("package main"), 0o600); err != nil {
		t.Fatal(err)
	}
	s = newSandbox(t, sandbox.Policy{Root: proj, Home: home})
	if out, err := run(t, s, "cat main.go && echo ok > out.txt"); err != nil || !strings.Contains(out, "package main") {
		t.Errorf("project inside the home: %q, %v", out, err)
	}
	if out, err := run(t, s, "cat "+filepath.Join(home, ".ssh/id_rsa")+" "+filepath.Join(home, "notes.txt")); err == nil || strings.Contains(out, "SECRET") {
		t.Errorf("home around the project: %q, %v", out, err)
	}

	// The project is the home: it is seen, its secrets are not.
	s = newSandbox(t, sandbox.Policy{Root: home, Home: home})
	if out, err := run(t, s, "cat notes.txt"); err != nil || !strings.Contains(out, "SECRET-notes") {
		t.Errorf("project = home, notes.txt: %q, %v", out, err)
	}
	if out, err := run(t, s, "cat .ssh/id_rsa .aws/credentials"); err == nil || strings.Contains(out, "SECRET") {
		t.Errorf("project = home, secrets: %q, %v", out, err)
	}
}

func TestSandboxNetwork(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).AddrPort().Port()
	connect := "exec 3<>/dev/tcp/127.0.0.1/" + strconv.Itoa(int(port)) + " && cat <&3"
	root := t.TempDir()

	s := newSandbox(t, sandbox.Policy{Root: root})
	if out, err := run(t, s, connect); err == nil || strings.Contains(out, "hello") {
		t.Errorf("TCP connect without network: %q, %v; want refused", out, err)
	}
	if _, err := exec.LookPath("curl"); err == nil {
		if out, err := run(t, s, "curl -sS --max-time 5 http://127.0.0.1:"+strconv.Itoa(int(port))); err == nil || strings.Contains(out, "hello") {
			t.Errorf("curl without network: %q, %v; want refused", out, err)
		}
	}

	s = newSandbox(t, sandbox.Policy{Root: root, Network: true})
	if out, err := run(t, s, connect); err != nil || !strings.Contains(out, "hello") {
		t.Errorf("TCP connect with Network: %q, %v", out, err)
	}
}

func TestSandboxUnavailable(t *testing.T) {
	t.Parallel()
	_, err := sandbox.New(context.Background(), sandbox.Policy{Root: t.TempDir(), Bwrap: "agentctx-no-such-bwrap"})
	if !errors.Is(err, sandbox.ErrUnavailable) {
		t.Errorf("New with no bwrap = %v, want ErrUnavailable", err)
	}
	if _, err := sandbox.New(context.Background(), sandbox.Policy{Root: "/"}); !errors.Is(err, sandbox.ErrUnavailable) {
		t.Errorf("New with Root / = %v, want ErrUnavailable", err)
	}
	// A bwrap that refuses to start (no user namespaces) is unavailable too.
	fake := filepath.Join(t.TempDir(), "bwrap")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = sandbox.New(context.Background(), sandbox.Policy{Root: t.TempDir(), Bwrap: fake})
	if !errors.Is(err, sandbox.ErrUnavailable) || !strings.Contains(err.Error(), "No permissions") {
		t.Errorf("New with a refusing bwrap = %v, want ErrUnavailable naming why", err)
	}
}

// TestSandboxMounts: inside the sandbox, every mount a command can write
// is the project, /tmp, a tmpfs over a home, or part of the fresh /dev
// and /proc; everything else is read-only.
func TestSandboxMounts(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home, _ := os.UserHomeDir()
	s := newSandbox(t, sandbox.Policy{Root: root})
	out, err := run(t, s, "cat /proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{root: true, "/tmp": true, "/root": true, "/home": true, "/proc": true, home: true}
	rw := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		mnt, opts := f[4], strings.Split(f[5], ",")
		if opts[0] != "rw" {
			continue
		}
		rw++
		if !allowed[mnt] && mnt != "/dev" && !strings.HasPrefix(mnt, "/dev/") {
			t.Errorf("writable mount %s (%s)", mnt, f[5])
		}
	}
	if rw == 0 {
		t.Error("no writable mount: the project itself should be")
	}
}
