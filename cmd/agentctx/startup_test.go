package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// builtBinary builds agentctx once per test process into a temporary
// folder and returns its path; BenchmarkStartup's cleanup removes the
// folder.
var builtBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "agentctx-bench-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "agentctx")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", &buildError{err: err, out: out}
	}
	return bin, nil
})

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + string(e.out) }

// BenchmarkStartup measures whole processes of the built binary (issue
// 15's start-up target: a one-message replay in at most 20 ms): `--help`,
// which loads no vocabulary, and a replay of a one-call OpenAI message
// array, which loads the o200k vocabulary, reads the file and replays it.
// ns/op is the wall time of one process, fork and exec included.
func BenchmarkStartup(b *testing.B) {
	bin, err := builtBinary()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(filepath.Dir(bin)) })
	one := filepath.Join(b.TempDir(), "one.json")
	msgs := `[{"role":"user","content":"List the files."},{"role":"assistant","content":"There are none."}]`
	if err := os.WriteFile(one, []byte(msgs), 0o600); err != nil {
		b.Fatal(err)
	}
	home := b.TempDir()
	for _, bc := range []struct {
		name string
		args []string
	}{
		{"help", []string{"--help"}},
		{"replay-one-message", []string{"replay", one, "--model", "gpt-4o"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(bin, bc.args...)
				cmd.Env = append(os.Environ(), "AGENTCTX_HOME="+home, "XDG_CONFIG_HOME="+home)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %v\n%s", bc.args, err, out)
				}
			}
		})
	}
}
