package jsonlstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// shortHash is what parseHead returns for a detached HEAD.
var shortHash = regexp.MustCompile(`^[0-9a-f]{12}$`)

// checkBranch asserts what a branch read from a project's HEAD may be: it
// is stored in the session's metadata and printed by `sessions list`, so
// it is one line of printable UTF-8 without white space (git's own rule
// for ref names, git-check-ref-format(1), forbids control characters and
// spaces).
func checkBranch(t *testing.T, head []byte, got string) {
	t.Helper()
	if !utf8.ValidString(got) {
		t.Fatalf("parseHead(%q) = %q: not UTF-8", head, got)
	}
	for _, r := range got {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			t.Fatalf("parseHead(%q) = %q holds %U", head, got, r)
		}
	}
}

// FuzzParseHead checks the reading of a project's .git/HEAD: any content
// gives a branch that checkBranch accepts, or a 12-digit hash, or "";
// a branch written back as a symbolic ref reads the same; and
// DetectGitBranch on a folder holding that HEAD says what parseHead says
// of its first maxGitFile bytes.
func FuzzParseHead(f *testing.F) {
	for _, s := range []string{
		"ref: refs/heads/main\n", "ref: refs/heads/feature/x-1\n", "ref:refs/heads/main", "ref: refs/remotes/origin/HEAD\n",
		"0123456789abcdef0123456789abcdef01234567\n", "0123456789ab", "0123456789AB\n", "ref: refs/heads/\n",
		"\r\nref: refs/heads/crlf\r\n", "", "garbage",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		got := parseHead(head)
		checkBranch(t, head, got)
		if got != "" && !shortHash.MatchString(got) {
			if again := parseHead([]byte("ref: refs/heads/" + got + "\n")); again != got {
				t.Fatalf("branch %q written back reads %q", got, again)
			}
		}
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, ".git"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".git", "HEAD"), head, 0o600); err != nil {
			t.Fatal(err)
		}
		want := parseHead(head[:min(len(head), maxGitFile)])
		if b := DetectGitBranch(dir); b != want {
			t.Fatalf("DetectGitBranch with HEAD %q = %q, want %q", head, b, want)
		}
	})
}

// FuzzParseGitdir checks the reading of a ".git" file (a linked work tree
// or a submodule): the path is one line without surrounding white space
// that reads the same when written back, and DetectGitBranch follows it
// (to a HEAD naming "main") exactly when it names that git folder.
func FuzzParseGitdir(f *testing.F) {
	for _, s := range []string{
		"gitdir: ../real\n", "gitdir: /abs/path/.git/worktrees/w\n", "gitdir:../real", "gitdir: \n",
		"gitdir: ../real\r\n", "  gitdir:   ../real  \nmore\n", "gitdir: ../re\x00al\n", "GITDIR: ../real\n", "", "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		got := parseGitdir(file)
		if strings.ContainsAny(got, "\n") || strings.TrimSpace(got) != got {
			t.Fatalf("parseGitdir(%q) = %q: not one trimmed line", file, got)
		}
		if got != "" {
			if again := parseGitdir([]byte("gitdir: " + got + "\n")); again != got {
				t.Fatalf("gitdir %q written back reads %q", got, again)
			}
		}
		root := t.TempDir()
		work, target := filepath.Join(root, "w"), filepath.Join(root, "real")
		for _, d := range []string{work, target} {
			if err := os.Mkdir(d, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(target, "HEAD"), []byte("ref: refs/heads/main\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, ".git"), file, 0o600); err != nil {
			t.Fatal(err)
		}
		b := DetectGitBranch(work)
		p := parseGitdir(file[:min(len(file), maxGitFile)])
		if p != "" && !filepath.IsAbs(p) {
			p = filepath.Join(work, p)
		}
		if names := p != "" && filepath.Clean(p) == target; names != (b == "main") {
			t.Fatalf(".git file %q: DetectGitBranch = %q, path %q", file, b, p)
		}
	})
}

// TestValidRefNameMatchesGit compares validRefName with
// `git check-ref-format` on names at the edges of its rules (skipped
// without git, except on CI).
func TestValidRefNameMatchesGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("git is required on CI: %v", err)
		}
		t.Skipf("git is not installed: %v", err)
	}
	for _, name := range []string{
		"refs/heads/main", "refs/heads/feature/x-1", "refs/heads/a.b", "refs/heads/ünï", "refs/heads/a@b",
		"refs/heads/a b", "refs/heads/a\tb", "refs/heads/a\x1bb", "refs/heads/a\x7fb", "refs/heads/a~1", "refs/heads/a^",
		"refs/heads/a:b", "refs/heads/a?", "refs/heads/a*", "refs/heads/a[b", `refs/heads/a\b`, "refs/heads/a..b",
		"refs/heads/a@{1}", "refs/heads//a", "/refs/heads/a", "refs/heads/a/", "refs/heads/a.", "refs/heads/.a",
		"refs/heads/a.lock", "refs/heads/a.lock/b", "@",
	} {
		err := exec.Command("git", "check-ref-format", name).Run()
		if got, want := validRefName(name), err == nil; got != want {
			t.Errorf("validRefName(%q) = %v, git check-ref-format says %v", name, got, want)
		}
	}
}
