package cli

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/agentctx/agentctx/internal/sharedtest"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the README's generated sample outputs (TestReadmeSamples)")

// readmeSample marks a generated block in README.md or a page of docs/: the line
// "<!-- sample: agentctx ARGS -->" followed by a fenced code block that
// holds what the command prints on the shared data (timings as "N ms");
// ARGS ending in " | tail -K" keeps the last K lines.
var readmeSample = regexp.MustCompile("(?m)^<!-- sample: agentctx (.+) -->\n```\n((?s:.*?))```\n")

// TestReadmeSamples runs each sample command of README.md and docs/*.md on
// the shared data and checks that the pages show what it prints now: the
// samples never go stale. `go test ./internal/cli -run TestReadmeSamples
// -update-readme` rewrites them.
func TestReadmeSamples(t *testing.T) {
	sharedtest.Dir(t)
	// The commands run from the repository's root, as the README shows
	// them: ../shared/data is the shared data folder there.
	t.Chdir(filepath.Join("..", ".."))
	if st, err := os.Stat(filepath.Join("..", "shared", "data")); err != nil || !st.IsDir() {
		t.Skip("../shared/data is not beside the repository (AGENTCTX_SHARED_DATA points elsewhere)")
	}
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, file := range append([]string{"README.md"}, docs...) {
		total += checkSamples(t, file)
	}
	if total == 0 {
		t.Fatal("neither README.md nor docs/ has a generated sample")
	}
}

// checkSamples runs the sample commands of one Markdown file and checks
// (or with -update-readme rewrites) their outputs; it returns how many
// samples the file has.
func checkSamples(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
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
			t.Errorf("%s: agentctx %s: exit %d: %s", file, m[1], code, stderr)
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
	if *updateReadme {
		if out != string(data) {
			if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	for _, f := range failed {
		t.Errorf("%s: the sample of `agentctx %s` is stale; run go test ./internal/cli -run TestReadmeSamples -update-readme", file, f)
	}
	return n
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

// mdLink is a Markdown link's target: [text](target), outside code.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocLinks checks every relative link of the README, CONTRIBUTING,
// CHANGELOG and docs/ pages: the file it names exists, and a #fragment
// names a heading of that file (GitHub's anchors: lower case, spaces as
// '-', punctuation other than '-' and '_' left out).
func TestDocLinks(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{"README.md", "CONTRIBUTING.md", "CHANGELOG.md"}, docs...)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(file string) map[string]bool {
		if a, ok := anchors[file]; ok {
			return a
		}
		a := map[string]bool{}
		data, err := os.ReadFile(file)
		if err == nil {
			fence := false
			for _, l := range strings.Split(string(data), "\n") {
				if strings.HasPrefix(l, "```") {
					fence = !fence
				}
				if fence || !strings.HasPrefix(l, "#") {
					continue
				}
				a[githubAnchor(strings.TrimLeft(l, "# "))] = true
			}
		}
		anchors[file] = a
		return a
	}
	n := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		fence := false
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "```") {
				fence = !fence
			}
			if fence {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				n++
				path, frag, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), path)
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s:%d: link to %s: no such file", file, i+1, target)
						continue
					}
				}
				if frag != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[frag] {
					t.Errorf("%s:%d: link to %s: no heading with that anchor in %s", file, i+1, target, dest)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no relative link found: the checker reads nothing")
	}
}

// githubAnchor returns the anchor GitHub gives a heading.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestReplayJSONKeysDocumented: every key `replay --json` prints for the
// shared data is named (backquoted) in docs/replay.md, where each is
// explained once.
func TestReplayJSONKeysDocumented(t *testing.T) {
	sharedtest.Dir(t)
	t.Chdir(filepath.Join("..", ".."))
	if st, err := os.Stat(filepath.Join("..", "shared", "data")); err != nil || !st.IsDir() {
		t.Skip("../shared/data is not beside the repository")
	}
	doc, err := os.ReadFile(filepath.Join("docs", "replay.md"))
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "replay", filepath.Join("..", "shared", "data"), "--json")
	if code != ExitOK {
		t.Fatalf("replay --json: exit %d: %s", code, stderr)
	}
	keys := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("not a JSON object: %.200s", line)
		}
		for k := range obj {
			keys[k] = true
		}
	}
	if len(keys) < 10 {
		t.Fatalf("only %d keys read: %v", len(keys), keys)
	}
	for k := range keys {
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("replay --json prints %q, which docs/replay.md does not document", k)
		}
	}
}
