package tools

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/agent/sandbox"
)

// sandboxed returns env with a sandbox over its root, skipping where none
// can run except under CI=true (bubblewrap is installed there).
func sandboxed(t *testing.T, env Env) Env {
	t.Helper()
	s, err := sandbox.New(t.Context(), sandbox.Policy{Root: env.Root})
	if errors.Is(err, sandbox.ErrUnavailable) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and no sandbox (apt-get install -y bubblewrap): %v", err)
		}
		t.Skipf("no sandbox here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	env.Sandbox = s
	return env
}

// TestRunCommandCredentials: printenv through run_command shows none of
// the agent's credentials, sandboxed or not. Not parallel: it sets the
// process's environment.
func TestRunCommandCredentials(t *testing.T) {
	secrets := map[string]string{
		"OPENAI_API_KEY": "sk-test-openai-0123456789", "ANTHROPIC_API_KEY": "sk-ant-test-0123456789",
		"AWS_SECRET_ACCESS_KEY": "aws-secret-0123456789", "GITHUB_TOKEN": "ghp_test0123456789",
		"DB_PASSWORD": "pw-0123456789", "AGENTCTX_API_KEY": "agentctx-key-0123456789",
		"HF_TOKEN": "hf_test0123456789",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("AGENTCTX_TEST_VISIBLE", "visible")
	t.Setenv("LANG_TEST_VISIBLE", "visible-lang")
	env := project(t, nil)
	envs := map[string]Env{"unconfined": env}
	if s, err := sandbox.New(t.Context(), sandbox.Policy{Root: env.Root}); err == nil {
		envs["sandboxed"] = Env{Root: env.Root, Sandbox: s}
	}
	for name, env := range envs {
		r := call(t, runCommand{env}, args{"command": "printenv; cat /proc/self/environ | tr '\\0' '\\n'"})
		check(t, r, false, "LANG_TEST_VISIBLE=visible-lang", "PATH=")
		for k, v := range secrets {
			if strings.Contains(r.Content, v) || strings.Contains(r.Content, k+"=") {
				t.Errorf("%s: %s visible to the command:\n%s", name, k, r.Content)
			}
		}
	}
}

// TestRunCommandLeavesNothing: what a command puts in the background (&,
// nohup, setsid, a double fork) is gone when run_command returns.
func TestRunCommandLeavesNothing(t *testing.T) {
	t.Parallel()
	env := project(t, nil)
	envs := []struct {
		name string
		env  func(t *testing.T) Env
	}{
		{"unconfined", func(*testing.T) Env { return env }},
		{"sandboxed", func(t *testing.T) Env { return sandboxed(t, env) }},
	}
	for _, e := range envs {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			env := e.env(t)
			// Distinct durations name the sleeps in the process table.
			base := 300 + float64(time.Now().UnixNano()%1000000)/1e7
			d := func(i int) string { return fmt.Sprintf("%.7f", base+float64(i)) }
			script := fmt.Sprintf("sleep %s & nohup sleep %s >/dev/null 2>&1 & setsid sleep %s & (setsid sh -c 'sleep %s &' &) ; disown -a; echo started",
				d(0), d(1), d(2), d(3))
			start := time.Now()
			r := call(t, runCommand{env}, args{"command": script})
			check(t, r, false, "started")
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("took %s", el)
			}
			// A process killed as run_command returns may take a moment
			// to die on a loaded machine: wait for it, a little (one left
			// running lives 300 s).
			for i := range 4 {
				pids := sleeping(d(i))
				for wait := 0; len(pids) > 0 && wait < 40; wait++ {
					time.Sleep(50 * time.Millisecond)
					pids = sleeping(d(i))
				}
				if len(pids) > 0 {
					t.Errorf("sleep %s (%d) still running 2 s after run_command returned: pids %v", d(i), i, pids)
				}
			}
		})
	}
}

// sleeping returns the pids of live processes whose command line holds
// "sleep arg" (zombies excluded).
func sleeping(arg string) []string {
	var pids []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte("sleep\x00"+arg)) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
			continue
		}
		pids = append(pids, e.Name())
	}
	return pids
}

// TestRunCommandSandboxed: run_command under a sandbox writes in the
// project and nowhere else.
func TestRunCommandSandboxed(t *testing.T) {
	t.Parallel()
	env := sandboxed(t, project(t, map[string]string{"a.txt": "a"}))
	outside := filepath.Join(t.TempDir(), "escape.txt")
	r := call(t, runCommand{env}, args{"command": "cat a.txt && echo b > b.txt && pwd"})
	check(t, r, false, "a", env.Root, "Exit code 0")
	if b, err := os.ReadFile(filepath.Join(env.Root, "b.txt")); err != nil || string(b) != "b\n" {
		t.Errorf("b.txt = %q, %v", b, err)
	}
	r = call(t, runCommand{env}, args{"command": "echo x > " + outside})
	check(t, r, true, "Exit code 1")
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("%s written from the sandbox", outside)
	}
	r = call(t, runCommand{env}, args{"command": "sleep 30", "timeout_seconds": 0.3})
	check(t, r, true, "timed out")
}
