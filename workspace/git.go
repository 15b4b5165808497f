package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentctx/agentctx/internal/safefile"
	"github.com/agentctx/agentctx/token"
)

// Defaults of [GitOptions] and the bound on concurrent git processes.
const (
	defaultGitCommits     = 5
	defaultGitStatusLines = 50
	defaultGitTimeout     = 5 * time.Second
	// gitParallel bounds the git processes run at once by one gitStatus.
	gitParallel = 4
	// gitOutputCap bounds the bytes kept from one command's output (the
	// porcelain status is streamed and capped by lines instead).
	gitOutputCap = 64 << 10
)

// Texts of the git status block. The wording is fixed so that the static
// part of a prompt is byte-identical from session to session when nothing
// changed (seed 004's gitStatus).
const (
	gitIntro      = "This is the git status at the start of the session. It does not update during the session."
	gitNotRepo    = "Not a git repository."
	gitNoGit      = "The git status is unknown: git is not installed."
	gitMainPrefix = "Main branch (you will usually use this for PRs): "
	gitNoCommits  = "(no commits yet)"
)

// gitMainCandidates are the branch names tried, in order, when the remote
// does not name its default branch (refs/remotes/origin/HEAD).
var gitMainCandidates = []string{"main", "master", "trunk", "develop"}

// gitDropEnv are the variables removed from the environment git runs in:
// each would make git describe another repository than the folder asked
// about (they are set, for instance, while a git hook runs).
var gitDropEnv = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY"}

// findRoot returns the top of the git work tree holding dir: the nearest
// folder, dir itself or an ancestor, that holds a .git folder (with a HEAD
// file, as git requires) or a .git file starting "gitdir:" (worktrees and
// submodules). Without one it returns dir and false. It runs no
// subprocess and reads at most a few bytes per folder.
func findRoot(dir string) (string, bool) {
	d := filepath.Clean(dir)
	for {
		if isGitMarker(filepath.Join(d, ".git")) {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir, false
		}
		d = parent
	}
}

// isGitMarker reports whether p is a .git folder holding HEAD, or a .git
// file pointing to one ("gitdir: <path>").
func isGitMarker(p string) bool {
	fi, err := os.Stat(p)
	if err != nil {
		return false
	}
	if fi.IsDir() {
		head, err := os.Stat(filepath.Join(p, "HEAD"))
		return err == nil && head.Mode().IsRegular()
	}
	f, err := safefile.Open(p, safefile.Options{})
	if err != nil {
		return false // not a regular file (a FIFO is not waited on), or unreadable
	}
	defer f.Close()
	var buf [7]byte
	n, _ := f.Read(buf[:])
	return string(buf[:n]) == "gitdir:"
}

// gitStatus builds the git status block for dir (seed 004's gitStatus):
// the current branch, the main branch, the porcelain status capped at
// opts.MaxStatusLines, the last opts.Commits commits and the last
// opts.Commits of the configured user.email. Outside a repository (repo
// false) the block says "Not a git repository." and no process is run.
// Without git, or when a command fails or times out, the block says so
// and a [Notice] is returned; it never fails. Independent commands run
// concurrently, at most four at once, each bounded by opts.Timeout.
func gitStatus(ctx context.Context, dir string, repo bool, counter token.Counter, opts GitOptions) (Block, []Notice) {
	return gitStatusEnv(ctx, dir, repo, counter, opts, nil)
}

// gitStatusEnv is gitStatus with extra environment variables for git
// (tests use it to isolate git from the machine's configuration).
func gitStatusEnv(ctx context.Context, dir string, repo bool, counter token.Counter, opts GitOptions, extraEnv []string) (Block, []Notice) {
	finish := func(text string, notes []Notice) (Block, []Notice) {
		return Block{Name: BlockGit, Source: "git", Text: text, Tokens: counter.Count(text)}, notes
	}
	if !repo {
		return finish(gitNotRepo, nil)
	}
	bin, err := exec.LookPath("git")
	if err != nil {
		return finish(gitNoGit, []Notice{{Source: "git", Message: "git is not installed"}})
	}
	if opts.Commits <= 0 {
		opts.Commits = defaultGitCommits
	}
	if opts.MaxStatusLines <= 0 {
		opts.MaxStatusLines = defaultGitStatusLines
	}
	if opts.Timeout <= 0 {
		opts.Timeout = defaultGitTimeout
	}
	r := &gitRunner{bin: bin, dir: dir, env: gitEnviron(extraEnv), timeout: opts.Timeout, sem: make(chan struct{}, gitParallel)}
	res := r.collect(ctx, opts)
	text, notes := res.render(opts)
	return finish(text, notes)
}

// gitEnviron returns the environment git runs in: the process's, without
// [gitDropEnv], plus extra, plus the settings that keep git quiet and
// predictable: no optional locks (a status must not block the user's own
// git), the C locale (stable wording), never a terminal prompt.
func gitEnviron(extra []string) []string {
	base := os.Environ()
	env := make([]string, 0, len(base)+len(extra)+3)
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, d := range gitDropEnv {
			if name == d {
				drop = true
				break
			}
		}
		if !drop {
			env = append(env, kv)
		}
	}
	env = append(env, extra...)
	return append(env, "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
}

// gitRunner runs git commands in one folder, at most cap(sem) at once.
type gitRunner struct {
	bin     string
	dir     string
	env     []string
	timeout time.Duration
	sem     chan struct{}
}

// gitRun is the outcome of one git command.
type gitRun struct {
	// code is the exit code, or -1 when the command did not run to
	// completion (not started, killed, timed out).
	code int
	// failure describes a run that did not end with code 0: the first
	// line of stderr, else the error.
	failure string
}

// run runs git with args, writing its stdout to out.
func (r *gitRunner) run(ctx context.Context, out io.Writer, args ...string) gitRun {
	select {
	case r.sem <- struct{}{}:
	case <-ctx.Done():
		return gitRun{code: -1, failure: ctx.Err().Error()}
	}
	defer func() { <-r.sem }()
	cctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	full := append([]string{
		"--no-pager", "-C", r.dir,
		// Stable, readable output whatever the user's configuration; no
		// fsmonitor hook (a repository's config could name any program).
		"-c", "core.quotePath=false", "-c", "color.ui=false",
		"-c", "log.showSignature=false", "-c", "core.fsmonitor=false",
	}, args...)
	cmd := exec.CommandContext(cctx, r.bin, full...)
	cmd.Env = r.env
	cmd.Stdout = out
	var stderr gitCapBuffer
	stderr.max = 4 << 10
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if err == nil {
		return gitRun{code: 0}
	}
	res := gitRun{code: -1}
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.Exited() {
		res.code = exit.ExitCode()
	}
	switch {
	case cctx.Err() != nil && ctx.Err() == nil:
		res.failure = "timed out after " + r.timeout.String()
	case ctx.Err() != nil:
		res.failure = ctx.Err().Error()
	default:
		line, _, _ := strings.Cut(strings.TrimSpace(string(stderr.b)), "\n")
		res.failure = strings.TrimSpace(line)
		if res.failure == "" {
			res.failure = err.Error()
		}
	}
	return res
}

// output runs git and returns its stdout, trimmed of trailing newlines.
func (r *gitRunner) output(ctx context.Context, args ...string) (string, gitRun) {
	var out gitCapBuffer
	out.max = gitOutputCap
	res := r.run(ctx, &out, args...)
	return strings.TrimRight(string(out.b), "\r\n"), res
}

// gitFacts is what the git commands found.
type gitFacts struct {
	branch    string // current branch; "" when detached or unknown
	branchRun gitRun
	head      string // short hash of HEAD; "" when there are no commits
	headRun   gitRun
	originHd  string // origin's default branch, from refs/remotes/origin/HEAD
	refs      map[string]bool
	status    *gitLineCap
	statusRun gitRun
	log       string
	logRun    gitRun
	email     string
	emailRun  gitRun
	mine      string
	mineRun   gitRun
}

// collect runs the commands, concurrently where they are independent.
func (r *gitRunner) collect(ctx context.Context, opts GitOptions) *gitFacts {
	f := &gitFacts{status: &gitLineCap{max: opts.MaxStatusLines}, refs: map[string]bool{}}
	n := strconv.Itoa(opts.Commits)
	var wg sync.WaitGroup
	goRun := func(fn func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn()
		}()
	}
	goRun(func() {
		// user.email first: the user's own commits wait for it.
		f.email, f.emailRun = r.output(ctx, "config", "--get", "user.email")
		if f.emailRun.code != 0 || f.email == "" {
			return
		}
		f.mine, f.mineRun = r.output(ctx, "log", "--format=%h %s", "-n", n,
			"--regexp-ignore-case", "--fixed-strings", "--author=<"+f.email+">")
	})
	goRun(func() {
		f.statusRun = r.run(ctx, f.status, "status", "--porcelain=v1", "--untracked-files=normal")
		f.status.finish()
	})
	goRun(func() { f.log, f.logRun = r.output(ctx, "log", "--format=%h %s", "-n", n) })
	goRun(func() { f.branch, f.branchRun = r.output(ctx, "symbolic-ref", "--quiet", "--short", "HEAD") })
	goRun(func() { f.head, f.headRun = r.output(ctx, "rev-parse", "--quiet", "--verify", "--short", "HEAD") })
	goRun(func() {
		ref, res := r.output(ctx, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD")
		if res.code == 0 {
			f.originHd = strings.TrimPrefix(ref, "refs/remotes/origin/")
		}
	})
	goRun(func() {
		args := []string{"for-each-ref", "--format=%(refname)"}
		for _, b := range gitMainCandidates {
			args = append(args, "refs/heads/"+b, "refs/remotes/origin/"+b)
		}
		out, res := r.output(ctx, args...)
		if res.code != 0 {
			return
		}
		for _, l := range strings.Split(out, "\n") {
			f.refs[strings.TrimSpace(l)] = true
		}
	})
	wg.Wait()
	return f
}

// render writes the block's text from the facts, and a notice for each
// command that failed.
func (f *gitFacts) render(opts GitOptions) (string, []Notice) {
	var notes []Notice
	fail := func(what string, res gitRun) string {
		msg := "git " + what + " failed: " + res.failure
		notes = append(notes, Notice{Source: "git", Message: msg})
		return msg
	}
	var b strings.Builder
	b.WriteString(gitIntro)
	b.WriteByte('\n')
	if f.statusRun.code != 0 {
		// Without a status the rest says nothing reliable either (a broken
		// or untrusted repository): report the one failure.
		b.WriteString(fail("status", f.statusRun))
		return b.String(), notes
	}
	hasCommits := f.headRun.code == 0 && f.head != ""
	switch {
	case f.branchRun.code == 0 && f.branch != "":
		b.WriteString("Current branch: " + f.branch + "\n")
	case f.branchRun.code == 1 && hasCommits:
		b.WriteString("Current branch: (detached at " + f.head + ")\n")
	case f.branchRun.code == 1:
		b.WriteString("Current branch: (detached)\n")
	default:
		b.WriteString("Current branch: (unknown: " + fail("symbolic-ref", f.branchRun) + ")\n")
	}
	if m := f.mainBranch(); m != "" {
		b.WriteString(gitMainPrefix + m + "\n")
	}
	b.WriteString("\nStatus:\n")
	switch {
	case len(f.status.lines) == 0 && f.status.more == 0:
		b.WriteString("(clean)")
	default:
		b.WriteString(strings.Join(f.status.lines, "\n"))
		if f.status.more > 0 {
			fmt.Fprintf(&b, "\n… %d more", f.status.more)
		}
	}
	b.WriteString("\n\nRecent commits:\n")
	switch {
	case f.headRun.code == 1:
		b.WriteString(gitNoCommits)
		return b.String(), notes
	case f.logRun.code != 0:
		b.WriteString(fail("log", f.logRun))
	default:
		b.WriteString(f.log)
	}
	switch {
	case f.emailRun.code == 1 || (f.emailRun.code == 0 && f.email == ""):
		// user.email unset: no section.
	case f.emailRun.code != 0:
		fail("config", f.emailRun)
	case f.mineRun.code != 0:
		b.WriteString("\n\nYour recent commits:\n" + fail("log --author", f.mineRun))
	case f.mine == "":
		b.WriteString("\n\nYour recent commits:\n(none)")
	default:
		b.WriteString("\n\nYour recent commits:\n" + f.mine)
	}
	return b.String(), notes
}

// mainBranch returns the branch pull requests usually target: origin's
// default branch, else the first of [gitMainCandidates] that exists
// locally or on origin, else the current branch ("" when detached).
func (f *gitFacts) mainBranch() string {
	if f.originHd != "" {
		return f.originHd
	}
	for _, b := range gitMainCandidates {
		if f.refs["refs/heads/"+b] || f.refs["refs/remotes/origin/"+b] {
			return b
		}
	}
	if f.branchRun.code == 0 {
		return f.branch
	}
	return ""
}

// gitCapBuffer is a writer that keeps the first max bytes written and
// discards the rest, so that a runaway command cannot exhaust memory. The
// cut never splits a UTF-8 sequence.
type gitCapBuffer struct {
	b    []byte
	max  int
	full bool // the cap was reached: nothing more is kept
}

// Write keeps what fits and reports everything written.
func (c *gitCapBuffer) Write(p []byte) (int, error) {
	if !c.full {
		c.b, c.full = appendCapped(c.b, p, c.max)
	}
	return len(p), nil
}

// gitMaxLine bounds the bytes kept of one line of the porcelain status.
const gitMaxLine = 4 << 10

// appendCapped appends to b what of p fits in limit bytes in all, and
// reports whether some of p did not fit. The cut never splits a UTF-8
// sequence, so that the kept bytes are the same however the output was
// split into writes, and valid UTF-8 stays valid.
func appendCapped(b, p []byte, limit int) ([]byte, bool) {
	room := limit - len(b)
	if len(p) <= room {
		return append(b, p...), false
	}
	b = append(b, p[:room]...)
	// Drop an incomplete sequence at the end: the last rune start within
	// utf8.UTFMax bytes, when the bytes from it are not a full rune.
	for i := 1; i <= min(utf8.UTFMax, len(b)); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				b = b[:len(b)-i]
			}
			break
		}
	}
	return b, true
}

// gitLineCap is a writer that keeps the first max lines written and counts
// the others, streaming: a status of a million untracked files costs a
// count, not a million strings.
type gitLineCap struct {
	max     int
	lines   []string
	cur     []byte // the line being written, while under max
	curFull bool   // cur holds gitMaxLine bytes of its line: the rest is dropped
	more    int    // complete lines past max
	partial bool   // a line past max has no newline yet
}

// Write splits p into lines; it never fails.
func (l *gitLineCap) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(l.lines) >= l.max {
			l.more += bytes.Count(p, []byte{'\n'})
			l.partial = p[len(p)-1] != '\n'
			return n, nil
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.add(p)
			return n, nil
		}
		l.add(p[:i])
		l.lines = append(l.lines, strings.TrimRight(string(l.cur), "\r"))
		l.cur, l.curFull = l.cur[:0], false
		p = p[i+1:]
	}
	return n, nil
}

// add appends p to the line being written, up to gitMaxLine bytes.
func (l *gitLineCap) add(p []byte) {
	if !l.curFull {
		l.cur, l.curFull = appendCapped(l.cur, p, gitMaxLine)
	}
}

// finish accounts for a last line without a newline.
func (l *gitLineCap) finish() {
	if len(l.cur) > 0 {
		l.lines = append(l.lines, strings.TrimRight(string(l.cur), "\r"))
		l.cur = nil
	}
	if l.partial {
		l.more++
		l.partial = false
	}
}
