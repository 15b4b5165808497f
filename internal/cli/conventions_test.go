package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/provider/providertest"
)

// useScriptedModel points the chat at a server that plays script on the
// OpenAI wire (gpt-4o), for the rest of the test, which must not be
// parallel.
func useScriptedModel(t *testing.T, script providertest.Script) {
	t.Helper()
	srv := providertest.NewOpenAI(providertest.Options{Script: script})
	t.Cleanup(srv.Close)
	t.Setenv("AGENTCTX_PROVIDER", "openai")
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL)
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("AGENTCTX_MODEL", "gpt-4o")
}

func TestVersionOf(t *testing.T) {
	t.Parallel()
	sys := runtime.GOOS + "/" + runtime.GOARCH
	tests := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"release", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/agentctx/agentctx", Version: "v1.2.3"}},
			"agentctx v1.2.3 (go1.26.8 " + sys + ")"},
		{"git checkout, modified", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261125102213-0123456789ab+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.time", Value: "2026-11-25T10:22:13Z"}, {Key: "vcs.modified", Value: "true"}, {Key: "GOOS", Value: "plan9"}, {Key: "GOARCH", Value: "arm"}}},
			"agentctx v0.0.0-20261125102213-0123456789ab+dirty (revision 0123456789abcdef, 2026-11-25T10:22:13Z, modified; go1.26.8 plan9/arm)"},
		{"no version", debug.BuildInfo{GoVersion: "go1.26.8"}, "agentctx (devel) (go1.26.8 " + sys + ")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := versionOf(&tt.info).String(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestVersionCommands: `agentctx version` and `agentctx --version` print
// the same line; --json one object.
func TestVersionCommands(t *testing.T) {
	t.Parallel()
	v := mustRun(t, ExitOK, "version")
	if !strings.HasPrefix(v, "agentctx ") || !strings.Contains(v, runtime.Version()) {
		t.Errorf("version: %q", v)
	}
	if f := mustRun(t, ExitOK, "--version"); f != v {
		t.Errorf("--version %q, version %q", f, v)
	}
	objs := jsonLines[buildVersion](t, mustRun(t, ExitOK, "version", "--json"))
	if len(objs) != 1 || objs[0].Go != runtime.Version() || objs[0].Version == "" {
		t.Errorf("version --json: %+v", objs)
	}
}

// TestVersionOfBinary builds agentctx in this git checkout and checks that
// the binary reports the commit it was built from. go stamps no VCS
// information in a git worktree (.git a file): there the test skips.
func TestVersionOfBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !fi.IsDir() {
		t.Skip("a git worktree: go stamps no VCS information")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "agentctx")
	// -buildvcs=true: GOFLAGS may turn the stamping off.
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "github.com/agentctx/agentctx/cmd/agentctx").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if v, rev := string(out), strings.TrimSpace(string(head)); !strings.Contains(v, "(revision "+rev+", ") {
		t.Errorf("--version %q lacks revision %s", v, rev)
	}
}

// TestCompletion: cobra's completion command writes each shell's script
// as cobra generates it.
func TestCompletion(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			out := mustRun(t, ExitOK, "completion", shell)
			var want bytes.Buffer
			root := newRoot(&env{stdout: &want, stderr: &want})
			var err error
			switch shell {
			case "bash":
				err = root.GenBashCompletionV2(&want, true)
			case "zsh":
				err = root.GenZshCompletion(&want)
			case "fish":
				err = root.GenFishCompletion(&want, true)
			case "powershell":
				err = root.GenPowerShellCompletionWithDesc(&want)
			}
			if err != nil {
				t.Fatal(err)
			}
			if out != want.String() || !strings.Contains(out, "agentctx") {
				t.Errorf("completion %s: %d bytes, want cobra's %d", shell, len(out), want.Len())
			}
		})
	}
	// The shell asks for completions through cobra's hidden command.
	if out := mustRun(t, ExitOK, "__complete", "sess"); !strings.Contains(out, "sessions") {
		t.Errorf("__complete sess: %q", out)
	}
}

// TestUsageErrorsByType: a wrong call exits 2, whatever cobra's message
// says, and a failure whose message reads like one of cobra's (a file
// named "accepts 1 arg") exits 1.
func TestUsageErrorsByType(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{"unknown command", []string{"frob"}, ExitUsage, `unknown command "frob" for "agentctx"`},
		{"suggestion", []string{"sesions"}, ExitUsage, "did you mean sessions?"},
		{"unknown subcommand", []string{"sessions", "frob"}, ExitUsage, `unknown command "frob" for "agentctx sessions"`},
		{"missing argument", []string{"sessions", "show"}, ExitUsage, "accepts 1 arg"},
		{"extra argument", []string{"inspect", "a", "b"}, ExitUsage, "accepts 1 arg"},
		{"argument to version", []string{"version", "x"}, ExitUsage, "unknown command"},
		{"unknown shell", []string{"completion", "tcsh"}, ExitUsage, "tcsh"},
		{"unknown flag", []string{"sessions", "list", "--frob"}, ExitUsage, "unknown flag"},
		{"bad flag value", []string{"inspect", "x", "--budget", "many"}, ExitUsage, "invalid argument"},
		{"failure named like a usage error", []string{"replay", filepath.Join(dir, "accepts 1 arg.jsonl")}, ExitError, "accepts 1 arg.jsonl"},
		{"failure named like an unknown command", []string{"replay", filepath.Join(dir, "unknown command")}, ExitError, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := run(t, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.inStderr) {
				t.Errorf("exit %d, want %d; stderr %q, want %q in it", code, tt.code, errOut, tt.inStderr)
			}
		})
	}
	if code, out, _ := run(t); code != ExitOK || !strings.Contains(out, "Available Commands") {
		t.Errorf("no arguments: exit %d, want 0 and the help:\n%s", code, out)
	}
}

// TestInterruptedExits130: after a SIGINT (the cancelled context main
// passes) every command exits 130, whether it stopped with the context's
// error, failed otherwise or ran to its end.
func TestInterruptedExits130(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	project := filepath.Join(dir, "proj")
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	file := claudeSession(t, dir, "5a1e0b7e-0000-4000-8000-00000000000c", project, "hello")
	home := t.TempDir()
	mustRun(t, ExitOK, "sessions", "import", "--home", home, file)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, args := range [][]string{
		{"version"},
		{"context", project},
		{"replay", file},
		{"inspect", file},
		{"inspect", "--home", home, "5a1e0b7e-0000-4000-8000-00000000000c"},
		{"report", file, "-o", filepath.Join(dir, "report.html")},
		{"compact", file, "--dry-run", "--summarizer", "extractive"},
		{"sessions", "list", "--home", home, "--all"},
		{"sessions", "show", "--home", home, "5a1e0b7e-0000-4000-8000-00000000000c"},
		{"sessions", "check", file},
		{"sessions", "import", "--home", t.TempDir(), file},
		{"sessions", "rm", "--home", t.TempDir(), "5a1e0b7e-0000-4000-8000-00000000000d"},
	} {
		t.Run(strings.Join(args[:min(2, len(args))], " "), func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			code := Main(ctx, args, strings.NewReader(""), &out, &errb)
			if code != ExitInterrupted || !strings.HasPrefix(errb.String(), "agentctx: ") {
				t.Errorf("exit %d, want %d; stderr %q", code, ExitInterrupted, errb.String())
			}
		})
	}
}

// TestTerminal runs agentctx in a real terminal (tmux): inspect colours
// its bars unless NO_COLOR is set, and a session whose text carries a
// window title (OSC 0) and a clear screen leaves the terminal's title and
// screen alone.
func TestTerminal(t *testing.T) {
	needTmux(t)
	bin := buildAgentctx(t)
	file, _ := hostileSession(t)
	home := t.TempDir()
	mustRun(t, ExitOK, "sessions", "import", "--home", home, file)
	env := []string{"TERM=xterm-256color", "AGENTCTX_HOME=" + home}
	colored := func(p *tmuxPane) string {
		return p.tmux("capture-pane", "-p", "-e", "-J", "-t", "main", "-S", "-1000")
	}

	p := tmuxStart(t, env, bin, "inspect", file)
	if code := p.exitStatus(10 * time.Second); code != 0 {
		t.Fatalf("inspect: status %d\n%s", code, p.screen())
	}
	if s := colored(p); !strings.Contains(s, "38;5;") {
		t.Errorf("inspect on a terminal is not coloured:\n%q", s)
	}
	p = tmuxStart(t, append(env, "NO_COLOR=1"), bin, "inspect", file)
	if code := p.exitStatus(10 * time.Second); code != 0 {
		t.Fatalf("NO_COLOR inspect: status %d\n%s", code, p.screen())
	}
	if s := colored(p); strings.Contains(s, "38;5;") {
		t.Errorf("NO_COLOR=1: inspect is coloured:\n%q", s)
	}

	p = tmuxStart(t, env, bin, "sessions", "show", "5a1e0b7e-0000-4000-8000-000000000001", "--full")
	if code := p.exitStatus(10 * time.Second); code != 0 {
		t.Fatalf("show: status %d\n%s", code, p.screen())
	}
	if title := p.tmux("display-message", "-p", "-t", "main", "#{pane_title}"); strings.Contains(title, "owned") {
		t.Errorf("the session set the terminal's title to %q", title)
	}
	if s := p.screen(); !strings.Contains(s, "session 5a1e0b7e") || !strings.Contains(s, `\u001b]0;owned\u0007`) {
		t.Errorf("the screen was cleared or the text not shown escaped:\n%s", s)
	}
}
