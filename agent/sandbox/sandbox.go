package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// ErrUnavailable reports that no sandbox can run on this machine: bwrap
// is not installed, or the kernel or container refuses the namespaces it
// needs. Commands would run unconfined; the agent must ask before each.
var ErrUnavailable = errors.New("sandbox: unavailable")

// Secrets are the paths, relative to the home directory, that a sandbox
// masks even when the home directory is mounted back in part (the project
// inside it, Policy.ReadOnly): keys, cloud and registry credentials,
// tool configuration that holds tokens.
var Secrets = []string{
	".ssh", ".aws", ".config", ".gnupg", ".netrc", ".docker", ".kube",
	".azure", ".gcloud", ".npmrc", ".pypirc", ".git-credentials",
	".password-store", ".local/share/keyrings", ".cargo/credentials.toml",
	".terraform.d", ".vault-token",
}

// systemSecrets are files outside any home that a command never reads.
var systemSecrets = []string{"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssl/private"}

// Policy is what a sandboxed command may touch. The zero value, with Root
// set, is the default: writes to Root and a private /tmp only, no
// network, home hidden.
type Policy struct {
	// Root is the project directory, absolute: the one place outside the
	// temporary folder a command may write. Required.
	Root string
	// TempDir is mounted read-write at /tmp, so that files a command
	// leaves there are seen by the next. Optional. Defaults to an empty
	// tmpfs per command.
	TempDir string
	// Network lets commands reach the network (the CLI's
	// --allow-network). Optional. Defaults to none: only a loopback
	// interface of the sandbox's own.
	Network bool
	// Home is the user's home directory, hidden. Optional. Defaults to
	// os.UserHomeDir; /root and /home are hidden whatever it is.
	Home string
	// ReadOnly are paths hidden with the home directory that are mounted
	// back read-only (a Go module cache, a toolchain under the home).
	// A path under a [Secrets] entry stays masked. Optional.
	ReadOnly []string
	// Writable are paths outside Root that commands may write (a build
	// cache: Go's, shared with the user's builds, keeps a go test from
	// starting cold). Each is a place a command can leave something the
	// user's later builds read: keep the list short. A path under a
	// [Secrets] entry stays masked. Optional.
	Writable []string
	// Bwrap is the bwrap executable. Optional. Defaults to bwrap on PATH.
	Bwrap string
}

// Sandbox runs commands confined by a [Policy]. It is immutable and safe
// for concurrent use.
type Sandbox struct {
	bwrap string
	args  []string // bwrap's arguments before the command
	p     Policy
}

// New checks that a sandbox for p runs on this machine, by running true
// under it, and returns it. The error wraps [ErrUnavailable] and says why
// when bwrap is missing or refused (no user namespaces in a container,
// a kernel without them, a non-Linux system), or when Root is /.
func New(ctx context.Context, p Policy) (*Sandbox, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("%w: no sandbox on %s", ErrUnavailable, runtime.GOOS)
	}
	if p.Root == "" || !filepath.IsAbs(p.Root) {
		return nil, fmt.Errorf("sandbox: root %q is not an absolute path", p.Root)
	}
	if filepath.Clean(p.Root) == "/" {
		return nil, fmt.Errorf("%w: the project is /, which would leave nothing read-only", ErrUnavailable)
	}
	bin := p.Bwrap
	if bin == "" {
		bin = "bwrap"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("%w: bwrap not found (install bubblewrap): %w", ErrUnavailable, err)
	}
	s := &Sandbox{bwrap: path, p: p}
	s.args, err = s.build()
	if err != nil {
		return nil, err
	}
	probe, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(probe, path, append(append([]string{}, s.args...), "--", "true")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("%w: bwrap refused to start (user namespaces unavailable?): %s", ErrUnavailable, msg)
	}
	return s, nil
}

// Policy returns the policy s enforces, its defaults filled in.
func (s *Sandbox) Policy() Policy { return s.p }

// Command returns an exec.Cmd that runs name with args inside the
// sandbox, in Root. The caller sets its environment, output and process
// attributes; Dir is left empty (bwrap changes to Root itself).
func (s *Sandbox) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	a := make([]string, 0, len(s.args)+2+len(args))
	a = append(a, s.args...)
	a = append(a, "--", name)
	a = append(a, args...)
	return exec.CommandContext(ctx, s.bwrap, a...)
}

// String describes the confinement in one line, for the agent's banner.
func (s *Sandbox) String() string {
	net := "no network"
	if s.p.Network {
		net = "network allowed"
	}
	also := ""
	if len(s.p.Writable) > 0 {
		also = ", " + strings.Join(s.p.Writable, ", ")
	}
	return fmt.Sprintf("bubblewrap sandbox: writes only in %s%s and a private /tmp, %s, home and secrets hidden", s.p.Root, also, net)
}

// build returns bwrap's arguments for s.p, filling in its defaults. Mounts
// apply in order, each over the ones before.
func (s *Sandbox) build() ([]string, error) {
	p := &s.p
	p.Root = filepath.Clean(p.Root)
	if resolved, err := filepath.EvalSymlinks(p.Root); err == nil {
		p.Root = resolved
	}
	if fi, err := os.Stat(p.Root); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("sandbox: root %s is not a directory", p.Root)
	}
	if p.Home == "" {
		p.Home, _ = os.UserHomeDir()
	}
	a := []string{
		"--die-with-parent", "--new-session",
		"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--cap-drop", "ALL",
		"--ro-bind", "/", "/",
		"--dev", "/dev", "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
		"--proc", "/proc",
	}
	if !p.Network {
		a = append(a, "--unshare-net")
	}
	// /tmp first: the project, or the home, may lie below it.
	if p.TempDir != "" {
		a = append(a, "--bind", p.TempDir, "/tmp")
	} else {
		a = append(a, "--tmpfs", "/tmp")
	}
	// Hide the homes, then mount back what may be seen.
	var hidden []string
	for _, h := range []string{p.Home, "/root", "/home"} {
		if h == "" || !isDir(h) || h == "/" {
			continue
		}
		if resolved, err := filepath.EvalSymlinks(h); err == nil {
			h = resolved
		}
		if within(p.Root, h) {
			// The project is the home or holds it: hiding the home would
			// hide the project. The secrets are still masked below.
			continue
		}
		a = append(a, "--tmpfs", h)
		hidden = append(hidden, h)
	}
	for _, r := range p.ReadOnly {
		r = filepath.Clean(r)
		if !filepath.IsAbs(r) || !exists(r) {
			continue
		}
		a = append(a, "--ro-bind", r, r)
	}
	for _, w := range p.Writable {
		w = filepath.Clean(w)
		if !filepath.IsAbs(w) || !isDir(w) {
			continue
		}
		a = append(a, "--bind", w, w)
	}
	a = append(a, "--bind", p.Root, p.Root)
	// Secrets, over everything mounted back; never over the project
	// itself.
	var secrets []string
	for _, h := range append([]string{p.Home}, hidden...) {
		if h == "" {
			continue
		}
		for _, rel := range Secrets {
			secrets = append(secrets, filepath.Join(h, rel))
		}
	}
	secrets = append(secrets, systemSecrets...)
	hostKeys, _ := filepath.Glob("/etc/ssh/ssh_host_*_key")
	secrets = append(secrets, hostKeys...)
	seen := map[string]bool{}
	for _, sec := range secrets {
		if seen[sec] || within(p.Root, sec) {
			continue
		}
		seen[sec] = true
		fi, err := os.Lstat(sec)
		switch {
		case err != nil:
			continue
		case fi.IsDir():
			a = append(a, "--tmpfs", sec, "--remount-ro", sec)
		default:
			a = append(a, "--ro-bind", "/dev/null", sec)
		}
	}
	a = append(a, "--setenv", "TMPDIR", "/tmp", "--chdir", p.Root)
	return a, nil
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
