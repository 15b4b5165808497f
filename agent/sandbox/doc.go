// Package sandbox confines the commands of agentctx's coding agent
// (run_command, package agent/tools) with the operating system rather
// than a deny list, in the manner of Codex's workspace-write mode and
// Claude Code's sandboxed Bash tool.
//
// # Mechanism
//
// On Linux a command runs under bubblewrap (bwrap, Debian package
// bubblewrap), the sandbox Flatpak and Claude Code use. bubblewrap was
// chosen over Landlock because it confines more with one well-kept
// tool: mount namespaces hide paths outright (the home directory, which
// Landlock can only deny file by file once rules allow its parent),
// a network namespace removes the network (Landlock's TCP rules need ABI
// 4, kernel 6.7, and leave UDP and Unix sockets open), and a PID
// namespace ends every process a command started when it returns. It
// needs either root or unprivileged user namespaces; [New] probes it by
// running a command under the same arguments, so a container without
// user namespaces is detected at start and reported as
// [ErrUnavailable].
//
// # What a command sees
//
//   - The file system read-only (bwrap --ro-bind / /), except Root
//     (read-write) and a private temporary folder mounted at /tmp
//     (Policy.TempDir, or a tmpfs), with TMPDIR set to /tmp.
//   - The home directory, /root and /home replaced by empty tmpfs mounts
//     (writable, discarded when the command ends), so ~/.ssh, ~/.aws,
//     ~/.config and every other file there is unreadable; Root is mounted
//     back when it lies inside them. Paths in Policy.ReadOnly (a module
//     cache, say) are mounted back read-only, those in Policy.Writable
//     (a build cache) read-write.
//   - [Secrets] masked even when they lie inside Root's tree: ~/.ssh,
//     ~/.aws, ~/.config, ~/.gnupg, ~/.netrc, ~/.docker, ~/.kube and
//     others, and /etc/shadow, /etc/gshadow, /etc/sudoers,
//     /etc/ssl/private and the SSH host keys.
//   - A fresh /dev (null, zero, random, tty …, no disks), read-only but
//     for /dev/shm, and a fresh /proc.
//   - No network (a network namespace with only loopback) unless
//     Policy.Network.
//   - No capabilities (--cap-drop ALL), even when the agent runs as root:
//     a command cannot remount what it was given read-only.
//   - Its own session (--new-session: no TIOCSTI into the agent's
//     terminal) and PID namespace: every process it leaves behind is
//     killed when it returns, and bwrap dies with the agent
//     (--die-with-parent).
//
// The environment is filtered separately, with or without a sandbox:
// [Environ] removes credentials.
//
// # Concurrency
//
// A [Sandbox] is immutable after [New] and safe for concurrent use.
package sandbox
