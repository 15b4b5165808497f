package jsonlstore

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agentctx/agentctx/internal/safefile"
)

// maxGitFile bounds how much of a .git file or HEAD is read, in bytes;
// real ones are under 100 bytes.
const maxGitFile = 4 << 10

// DetectGitBranch returns the git branch checked out in dir or the nearest
// folder above it that holds a ".git": the branch name of HEAD's
// "ref: refs/heads/<name>", the first 12 hex digits of the commit when
// HEAD is detached, or "" outside a repository, when HEAD cannot be read
// or when it names no valid ref (git's rules: the branch is one line of
// printable UTF-8 without spaces). A ".git" file ("gitdir: <path>", a
// worktree or submodule) is followed. It reads regular files only, never
// waiting on a FIFO or a device, and never runs git: seed 001 ran `git
// rev-parse` for every saved message; the store calls this once per
// session, in Create. Safe for concurrent use.
func DetectGitBranch(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		dotgit := filepath.Join(dir, ".git")
		if st, err := os.Stat(dotgit); err == nil {
			gitdir := dotgit
			if !st.IsDir() {
				gitdir = readGitdir(dotgit)
				if gitdir == "" {
					return ""
				}
			}
			return headBranch(filepath.Join(gitdir, "HEAD"))
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// readGitdir returns the folder a ".git" file points to ("gitdir: <path>",
// relative to the file's folder), or "".
func readGitdir(file string) string {
	p := parseGitdir(readSmall(file))
	if p != "" && !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(file), p)
	}
	return p
}

// parseGitdir returns the path a ".git" file's content b names (its first
// line, "gitdir: <path>", the path trimmed of white space), or "" when b
// does not start so.
func parseGitdir(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("gitdir:"))
	if !ok {
		return ""
	}
	return strings.TrimSpace(string(rest))
}

// headBranch reads a HEAD file: the branch of a symbolic ref, a short
// commit hash when detached, else "".
func headBranch(file string) string {
	return parseHead(readSmall(file))
}

// parseHead returns what a HEAD file's content b says is checked out: the
// branch of a symbolic ref, a short commit hash when detached, else "". A
// ref that is not a valid ref name ([validRefName]; git itself refuses
// such a HEAD) gives "": the branch is stored and printed.
func parseHead(b []byte) string {
	b = bytes.TrimSpace(b)
	if ref, ok := bytes.CutPrefix(b, []byte("ref:")); ok {
		ref = bytes.TrimSpace(ref)
		if !validRefName(string(ref)) {
			return ""
		}
		name, ok := bytes.CutPrefix(ref, []byte("refs/heads/"))
		if !ok {
			return string(ref)
		}
		return string(name)
	}
	if len(b) >= 12 && isHex(b) {
		return string(b[:12])
	}
	return ""
}

// validRefName reports whether ref follows git's rules for ref names
// (git-check-ref-format(1)): no ASCII control character, space, "~^:?*[\",
// "..", "@{" or "//"; no component that starts with "." or ends with
// ".lock"; not "@"; not starting with "/" nor ending with "/" or ".".
// It also requires UTF-8, which git does not: the name is stored in JSON.
func validRefName(ref string) bool {
	if ref == "" || ref == "@" || !utf8.ValidString(ref) || strings.HasPrefix(ref, "/") ||
		strings.HasSuffix(ref, "/") || strings.HasSuffix(ref, ".") ||
		strings.ContainsAny(ref, " ~^:?*[\\\x7f") || strings.Contains(ref, "..") ||
		strings.Contains(ref, "@{") || strings.Contains(ref, "//") {
		return false
	}
	for _, c := range []byte(ref) {
		if c < 0x20 {
			return false
		}
	}
	for part := range strings.SplitSeq(ref, "/") {
		if strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return false
		}
	}
	return true
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// readSmall reads at most maxGitFile bytes of file; nil on any error. Only
// a regular file is read, and it is opened without blocking (package
// safefile): a FIFO, or a link to one or to /dev/stdin, named .git or
// HEAD would otherwise hang Create.
func readSmall(file string) []byte {
	b, _, err := safefile.ReadFile(file, maxGitFile, safefile.Options{})
	if err != nil {
		return nil
	}
	return b
}
