package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/token"
)

// testGitEnv isolates git, in the tests and in gitStatusEnv, from the
// machine's configuration.
var testGitEnv = []string{
	"GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
	"GIT_AUTHOR_NAME=Test", "GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=committer@example.com",
}

// needGit skips the test when git is not installed, except on CI, which
// has git: there the test fails.
func needGit(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("git is required on CI: %v", err)
		}
		tb.Skipf("git is not installed: %v", err)
	}
}

// git runs git in dir and returns its trimmed output; it fails the test
// on error.
func gitCmd(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = gitEnviron(testGitEnv)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// gitNewRepo makes a repository on branch in a new folder under t's temp
// folder and returns it.
func gitNewRepo(tb testing.TB, branch string) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "repo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	gitCmd(tb, dir, "init", "-q", "-b", branch)
	gitCmd(tb, dir, "config", "commit.gpgsign", "false")
	return dir
}

// commit writes file and commits it as author, returning the short hash.
func gitCommit(tb testing.TB, dir, author, file, msg string) string {
	tb.Helper()
	putTestFile(tb, filepath.Join(dir, file), msg+"\n")
	gitCmd(tb, dir, "add", file)
	gitCmd(tb, dir, "-c", "user.email="+author, "commit", "-q", "-m", msg)
	return gitCmd(tb, dir, "rev-parse", "--short", "HEAD")
}

func putTestFile(tb testing.TB, p, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// gitText assembles an expected block from its lines.
func gitText(lines ...string) string {
	return gitIntro + "\n" + strings.Join(lines, "\n")
}

func TestGitStatus(t *testing.T) {
	t.Parallel()
	needGit(t)
	tests := []struct {
		name string
		opts GitOptions
		// setup makes the repository and returns it and the expected text.
		setup     func(t *testing.T) (dir, want string)
		repo      bool
		wantNotes []string // notice messages, by prefix
	}{
		{
			name: "main with changes and own commits",
			repo: true,
			setup: func(t *testing.T) (string, string) {
				dir := gitNewRepo(t, "main")
				gitCmd(t, dir, "config", "user.email", "me@example.com")
				h1 := gitCommit(t, dir, "me@example.com", "a.txt", "one")
				h2 := gitCommit(t, dir, "other@example.com", "b.txt", "two")
				putTestFile(t, filepath.Join(dir, "a.txt"), "changed\n")
				putTestFile(t, filepath.Join(dir, "c.txt"), "new\n")
				putTestFile(t, filepath.Join(dir, "dir", "d.txt"), "new\n")
				return dir, gitText(
					"Current branch: main",
					gitMainPrefix+"main",
					"",
					"Status:",
					" M a.txt",
					"?? c.txt",
					"?? dir/",
					"",
					"Recent commits:",
					h2+" two",
					h1+" one",
					"",
					"Your recent commits:",
					h1+" one",
				)
			},
		},
		{
			name: "master is the main branch, no user email",
			repo: true,
			setup: func(t *testing.T) (string, string) {
				dir := gitNewRepo(t, "master")
				h1 := gitCommit(t, dir, "a@example.com", "a.txt", "one")
				gitCmd(t, dir, "checkout", "-q", "-b", "feature")
				h2 := gitCommit(t, dir, "a@example.com", "b.txt", "two")
				return dir, gitText(
					"Current branch: feature",
					gitMainPrefix+"master",
					"",
					"Status:",
					"(clean)",
					"",
					"Recent commits:",
					h2+" two",
					h1+" one",
				)
			},
		},
		{
			name: "origin HEAD names the main branch",
			repo: true,
			setup: func(t *testing.T) (string, string) {
				src := gitNewRepo(t, "main")
				h1 := gitCommit(t, src, "a@example.com", "a.txt", "one")
				gitCmd(t, src, "branch", "develop")
				base := t.TempDir()
				origin := filepath.Join(base, "origin.git")
				gitCmd(t, base, "clone", "-q", "--bare", src, origin)
				gitCmd(t, origin, "symbolic-ref", "HEAD", "refs/heads/develop")
				work := filepath.Join(base, "work")
				gitCmd(t, base, "clone", "-q", origin, work)
				gitCmd(t, work, "checkout", "-q", "main")
				return work, gitText(
					"Current branch: main",
					gitMainPrefix+"develop",
					"",
					"Status:",
					"(clean)",
					"",
					"Recent commits:",
					h1+" one",
				)
			},
		},
		{
			name: "remote branch main without origin HEAD",
			repo: true,
			setup: func(t *testing.T) (string, string) {
				src := gitNewRepo(t, "main")
				h1 := gitCommit(t, src, "a@example.com", "a.txt", "one")
				gitCmd(t, src, "branch", "develop")
				work := filepath.Join(t.TempDir(), "work")
				gitCmd(t, src, "clone", "-q", "-b", "develop", src, work)
				gitCmd(t, work, "remote", "set-head", "origin", "--delete")
				return work, gitText(
					"Current branch: develop",
					gitMainPrefix+"main",
					"",
					"Status:",
					"(clean)",
					"",
					"Recent commits:",
					h1+" one",
				)
			},
		},
		{
			name: "no candidate: the current branch",
			repo: true,
			setup: func(t *testing.T) (string, string) {
				dir := gitNewRepo(t, "work")
				h1 := gitCommit(t, dir, "a@example.com", "a.txt", "one")
				return dir, gitText(
					"Current branch: work",
					gitMainPrefix+"work",
					"",
					"Status:",
					"(clean)",
					"",
					"Recent commits:",
					h1+" one",
				)
			},
		},
		{
			name: "status and commits capped",
			repo: true,
			opts: GitOptions{MaxStatusLines: 3, Commits: 2},
			setup: func(t *testing.T) (string, string) {
				dir := gitNewRepo(t, "main")
				gitCmd(t, dir, "config", "user.email", "ME@example.com")
				gitCommit(t, dir, "me@example.com", "a.txt", "one")
				h2 := gitCommit(t, dir, "me@example.com", "b.txt", "two")
				h3 := gitCommit(t, dir, "me@example.com", "c.txt", "three")
				for _, f := range []string{"u1", "u2", "u3", "u4", "u5"} {
					putTestFile(t, filepath.Join(dir, f), "x\n")
				}
				return dir, gitText(
					"Current branch: main",
					gitMainPrefix+"main",
					"",
					"Status:",
					"?? u1",
					"?? u2",
					"?? u3",
					"… 2 more",
					"",
					"Recent commits:",
					h3+" three",
					h2+" two",
					"",
					"Your recent commits:",
					h3+" three",
					h2+" two",
				)
			},
		},
		{
			name: "user without commits of their own",
			repo: true,
			setup: func(t *testing.T) (string, string) {
				dir := gitNewRepo(t, "main")
				gitCmd(t, dir, "config", "user.email", "a.b@example.com")
				// "a.b" as a pattern would match "axb": the match is exact.
				h1 := gitCommit(t, dir, "axb@example.com", "a.txt", "one")
				return dir, gitText(
					"Current branch: main",
					gitMainPrefix+"main",
					"",
					"Status:",
					"(clean)",
					"",
					"Recent commits:",
					h1+" one",
					"",
					"Your recent commits:",
					"(none)",
				)
			},
		},
		{
			name: "detached HEAD",
			repo: true,
			setup: func(t *testing.T) (string, string) {
				dir := gitNewRepo(t, "main")
				h1 := gitCommit(t, dir, "a@example.com", "a.txt", "one")
				gitCommit(t, dir, "a@example.com", "b.txt", "two")
				gitCmd(t, dir, "checkout", "-q", "--detach", "HEAD~1")
				return dir, gitText(
					"Current branch: (detached at "+h1+")",
					gitMainPrefix+"main",
					"",
					"Status:",
					"(clean)",
					"",
					"Recent commits:",
					h1+" one",
				)
			},
		},
		{
			name: "no commits yet",
			repo: true,
			setup: func(t *testing.T) (string, string) {
				dir := gitNewRepo(t, "main")
				gitCmd(t, dir, "config", "user.email", "me@example.com")
				putTestFile(t, filepath.Join(dir, "x.txt"), "x\n")
				return dir, gitText(
					"Current branch: main",
					gitMainPrefix+"main",
					"",
					"Status:",
					"?? x.txt",
					"",
					"Recent commits:",
					gitNoCommits,
				)
			},
		},
		{
			name: "not a repository",
			repo: false,
			setup: func(t *testing.T) (string, string) {
				return t.TempDir(), gitNotRepo
			},
		},
		{
			name: "broken repository",
			repo: true,
			setup: func(t *testing.T) (string, string) {
				dir := t.TempDir()
				putTestFile(t, filepath.Join(dir, ".git", "HEAD"), "garbage\n")
				return dir, ""
			},
			wantNotes: []string{"git status failed: "},
		},
		{
			name: "timeout",
			repo: true,
			opts: GitOptions{Timeout: time.Nanosecond},
			setup: func(t *testing.T) (string, string) {
				return gitNewRepo(t, "main"), gitText("git status failed: timed out after 1ns")
			},
			wantNotes: []string{"git status failed: timed out after 1ns"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, want := tt.setup(t)
			counter := token.Estimator{}
			b, notes := gitStatusEnv(t.Context(), dir, tt.repo, counter, tt.opts, testGitEnv)
			if b.Name != BlockGit || b.Source != "git" {
				t.Errorf("name, source = %q, %q; want %q, git", b.Name, b.Source, BlockGit)
			}
			if want != "" {
				if diff := cmp.Diff(want, b.Text); diff != "" {
					t.Errorf("text (-want +got):\n%s", diff)
				}
			} else if !strings.HasPrefix(b.Text, gitIntro+"\n"+tt.wantNotes[0]) {
				t.Errorf("text = %q; want the failure %q", b.Text, tt.wantNotes[0])
			}
			if b.Tokens != counter.Count(b.Text) {
				t.Errorf("tokens = %d; want %d", b.Tokens, counter.Count(b.Text))
			}
			if len(notes) != len(tt.wantNotes) {
				t.Fatalf("notices = %v; want %q", notes, tt.wantNotes)
			}
			for i, n := range notes {
				if n.Source != "git" || !strings.HasPrefix(n.Message, tt.wantNotes[i]) {
					t.Errorf("notice %d = %v; want git: %s…", i, n, tt.wantNotes[i])
				}
			}
		})
	}
}

// TestGitStatusDeterministic checks that two runs give the same bytes:
// the block is part of a prompt prefix that must not change.
func TestGitStatusDeterministic(t *testing.T) {
	t.Parallel()
	needGit(t)
	dir := gitNewRepo(t, "main")
	gitCmd(t, dir, "config", "user.email", "me@example.com")
	for i, f := range []string{"a", "b", "c", "d", "e", "f"} {
		gitCommit(t, dir, "me@example.com", f, "commit "+f)
		if i%2 == 0 {
			putTestFile(t, filepath.Join(dir, f+".new"), "x\n")
		}
	}
	first, _ := gitStatusEnv(t.Context(), dir, true, token.Estimator{}, GitOptions{}, testGitEnv)
	for range 5 {
		again, _ := gitStatusEnv(t.Context(), dir, true, token.Estimator{}, GitOptions{}, testGitEnv)
		if diff := cmp.Diff(first, again); diff != "" {
			t.Fatalf("second run differs (-first +again):\n%s", diff)
		}
	}
	if got := strings.Count(first.Text, " commit "); got != 10 {
		t.Errorf("%d commit lines; want 5 recent + 5 own:\n%s", got, first.Text)
	}
}

// TestGitStatusEnvironment is not parallel: it changes the process's
// environment. Without git on PATH the block says so; a GIT_DIR set by a
// hook does not redirect git to another repository.
func TestGitStatusEnvironment(t *testing.T) {
	needGit(t)
	dir := gitNewRepo(t, "main")
	h := gitCommit(t, dir, "a@example.com", "a.txt", "one")

	t.Run("GIT_DIR ignored", func(t *testing.T) {
		t.Setenv("GIT_DIR", filepath.Join(t.TempDir(), "elsewhere"))
		b, notes := gitStatusEnv(t.Context(), dir, true, token.Estimator{}, GitOptions{}, testGitEnv)
		if len(notes) != 0 || !strings.Contains(b.Text, h+" one") {
			t.Errorf("text = %q, notices %v; want the repository's commit %s", b.Text, notes, h)
		}
	})
	t.Run("git missing", func(t *testing.T) {
		t.Setenv("PATH", "")
		counter := token.Estimator{}
		b, notes := gitStatus(t.Context(), dir, true, counter, GitOptions{})
		want := Block{Name: BlockGit, Source: "git", Text: gitNoGit, Tokens: counter.Count(gitNoGit)}
		if diff := cmp.Diff(want, b); diff != "" {
			t.Errorf("block (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]Notice{{Source: "git", Message: "git is not installed"}}, notes); diff != "" {
			t.Errorf("notices (-want +got):\n%s", diff)
		}
	})
}

func TestFindRoot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string // relative path → content; "/" suffix: folder
		start string            // relative to the temp folder
		want  string            // relative; "" means start itself, not a repo
	}{
		{"git folder, from a subfolder", map[string]string{"r/.git/HEAD": "ref: refs/heads/main\n", "r/a/b/": ""}, "r/a/b", "r"},
		{"git folder, at the root", map[string]string{"r/.git/HEAD": "ref: refs/heads/main\n"}, "r", "r"},
		{"git file (worktree)", map[string]string{"w/.git": "gitdir: /x/.git/worktrees/w\n", "w/sub/": ""}, "w/sub", "w"},
		{"nearest wins (submodule)", map[string]string{"r/.git/HEAD": "x", "r/m/.git": "gitdir: ../.git/modules/m\n", "r/m/s/": ""}, "r/m/s", "r/m"},
		{"git folder without HEAD", map[string]string{"r/.git/": "", "r/a/": ""}, "r/a", ""},
		{"other .git file", map[string]string{"r/.git": "hello\n", "r/a/": ""}, "r/a", ""},
		{"none", map[string]string{"r/a/": ""}, "r/a", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			for p, content := range tt.files {
				full := filepath.Join(base, filepath.FromSlash(p))
				if strings.HasSuffix(p, "/") {
					if err := os.MkdirAll(full, 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				}
				putTestFile(t, full, content)
			}
			start := filepath.Join(base, tt.start)
			if _, ok := findRoot(base); ok {
				t.Skipf("the temp folder %s is itself inside a git work tree", base)
			}
			got, ok := findRoot(start)
			want, wantOK := start, false
			if tt.want != "" {
				want, wantOK = filepath.Join(base, tt.want), true
			}
			if got != want || ok != wantOK {
				t.Errorf("findRoot = %q, %v; want %q, %v", got, ok, want, wantOK)
			}
		})
	}
}

func TestLineCap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		max       int
		writes    []string
		wantLines []string
		wantMore  int
	}{
		{"under", 3, []string{"a\nb\n"}, []string{"a", "b"}, 0},
		{"split writes", 3, []string{"a", "b\nc", "d\n"}, []string{"ab", "cd"}, 0},
		{"over", 2, []string{"a\nb\nc\nd\n"}, []string{"a", "b"}, 2},
		{"over, last line without newline", 2, []string{"a\nb\nc\n", "d"}, []string{"a", "b"}, 2},
		{"partial past the cap completed later", 1, []string{"a\nb", "b\nc"}, []string{"a"}, 2},
		{"empty", 2, nil, nil, 0},
		{"crlf", 2, []string{"a\r\nb\r\n"}, []string{"a", "b"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := &gitLineCap{max: tt.max}
			for _, w := range tt.writes {
				if n, err := l.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			l.finish()
			if diff := cmp.Diff(tt.wantLines, l.lines); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if l.more != tt.wantMore {
				t.Errorf("more = %d; want %d", l.more, tt.wantMore)
			}
		})
	}
}

// BenchmarkGitStatus measures the wall time of the git block on a small
// repository with changes: seven git processes, four at a time.
func BenchmarkGitStatus(b *testing.B) {
	needGit(b)
	dir := gitNewRepo(b, "main")
	gitCmd(b, dir, "config", "user.email", "me@example.com")
	for _, f := range []string{"a", "b", "c"} {
		gitCommit(b, dir, "me@example.com", f, "commit "+f)
	}
	putTestFile(b, filepath.Join(dir, "a"), "changed\n")
	b.ReportAllocs()
	for b.Loop() {
		blk, notes := gitStatusEnv(b.Context(), dir, true, token.Estimator{}, GitOptions{}, testGitEnv)
		if len(notes) != 0 || blk.Text == "" {
			b.Fatalf("notices %v", notes)
		}
	}
}
