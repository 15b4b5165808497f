package cli

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/internal/sharedtest"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the README's generated sample outputs (TestReadmeSamples)")

// readmeSample marks a generated block in README.md: the line
// "<!-- sample: agentctx ARGS -->" followed by a fenced code block that
// holds what the command prints on the shared data (timings as "N ms");
// ARGS ending in " | tail -K" keeps the last K lines.
var readmeSample = regexp.MustCompile("(?m)^<!-- sample: agentctx (.+) -->\n```\n((?s:.*?))```\n")

// TestReadmeSamples runs each sample command of README.md on the shared
// data and checks that the README shows what it prints now: the samples
// never go stale. `go test ./internal/cli -run TestReadmeSamples
// -update-readme` rewrites them.
func TestReadmeSamples(t *testing.T) {
	sharedtest.Dir(t)
	// The commands run from the repository's root, as the README shows
	// them: ../shared/data is the shared data folder there.
	t.Chdir(filepath.Join("..", ".."))
	if st, err := os.Stat(filepath.Join("..", "shared", "data")); err != nil || !st.IsDir() {
		t.Skip("../shared/data is not beside the repository (AGENTCTX_SHARED_DATA points elsewhere)")
	}
	readme := "README.md"
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var failed []string
	out := readmeSample.ReplaceAllStringFunc(string(data), func(block string) string {
		m := readmeSample.FindStringSubmatch(block)
		n++
		cmd, tail, _ := strings.Cut(m[1], " | tail -")
		code, stdout, stderr := run(t, strings.Fields(cmd)...)
		if code != ExitOK {
			t.Errorf("agentctx %s: exit %d: %s", m[1], code, stderr)
			return block
		}
		got := normalizeSample(stdout)
		if k, err := strconv.Atoi(tail); err == nil {
			lines := strings.SplitAfter(got, "\n")
			got = strings.Join(lines[max(0, len(lines)-1-k):], "")
		}
		if got != m[2] {
			failed = append(failed, m[1])
		}
		return "<!-- sample: agentctx " + m[1] + " -->\n```\n" + got + "```\n"
	})
	if n == 0 {
		t.Fatal("README.md has no generated sample")
	}
	if *updateReadme {
		if err := os.WriteFile(readme, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, f := range failed {
		t.Errorf("README.md: the sample of `agentctx %s` is stale; run go test ./internal/cli -run TestReadmeSamples -update-readme", f)
	}
}

var (
	sampleTimingColumns = regexp.MustCompile(`\s+LOAD MS\s+PARSE MS\s+ENGINE MS\s+WALL MS\s*$`)
	sampleMillis        = regexp.MustCompile(`\b\d+ ms\b`)
)

// normalizeSample makes a command's output stable: the timing columns of
// a replay table dropped, and durations as "N ms".
func normalizeSample(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if loc := sampleTimingColumns.FindStringIndex(lines[0]); loc != nil {
		for i, l := range lines {
			if len(l) > loc[0] {
				l = l[:loc[0]]
			}
			lines[i] = strings.TrimRight(l, " ")
		}
	}
	for i, l := range lines {
		lines[i] = sampleMillis.ReplaceAllString(l, "N ms")
	}
	return strings.Join(lines, "\n") + "\n"
}
