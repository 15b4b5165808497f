package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/report"
)

var reportDataRE = regexp.MustCompile(`(?s)<script type="application/json" id="report-data">(.*?)</script>`)

// readReport returns the report the page at path embeds.
func readReport(t *testing.T, path string) report.Report {
	t.Helper()
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := reportDataRE.FindSubmatch(page)
	if m == nil {
		t.Fatalf("%s holds no report data", path)
	}
	var rep report.Report
	if err := json.Unmarshal(m[1], &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestReport writes the page of a transcript file and of the session a
// replay saved of it: the same calls and compactions, as replay counts
// them.
func TestReport(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	file := filepath.Join(sharedtest.Dir(t), "claude-code", "tool_heavy.jsonl")
	var res struct {
		SessionID   string         `json:"session_id"`
		ModelCalls  int            `json:"model_calls"`
		Compactions map[string]int `json:"compactions"`
	}
	out := mustRun(t, ExitOK, "replay", "--save", "--home", home, "--project", "/work/p", "--budget", "1000", "--json", file)
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	levels := 0
	for _, n := range res.Compactions {
		levels += n
	}
	if levels == 0 {
		t.Fatalf("replay under 1,000 tokens did not compact: %s", out)
	}

	page := filepath.Join(dir, "file.html")
	out = mustRun(t, ExitOK, "report", file, "--budget", "1000", "-o", page)
	if !strings.HasPrefix(out, "wrote "+page+": ") {
		t.Errorf("stdout %q", out)
	}
	// claude-opus-4-6 has a price: the cost line follows the token line.
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], "cost $") ||
		!strings.Contains(lines[1], " without (claude-opus-4-6 list price as of 20") {
		t.Errorf("want a cost line after the token line: %q", out)
	}
	rep := readReport(t, page)
	if len(rep.Calls) != res.ModelCalls || len(rep.Compactions) != levels || rep.Budget != 1000 || rep.Format != "claude-code" {
		t.Errorf("file report: %d calls, %d compactions, budget %d, format %q; replay: %d calls, %d levels",
			len(rep.Calls), len(rep.Compactions), rep.Budget, rep.Format, res.ModelCalls, levels)
	}

	page = filepath.Join(dir, "session.html")
	mustRun(t, ExitOK, "report", "--home", home, res.SessionID, "-o", page)
	rep = readReport(t, page)
	if len(rep.Calls) != res.ModelCalls || len(rep.Compactions) != levels || rep.Budget != 1000 || rep.Format != "session" {
		t.Errorf("session report: %d calls, %d compactions, budget %d, format %q; replay: %d calls, %d levels",
			len(rep.Calls), len(rep.Compactions), rep.Budget, rep.Format, res.ModelCalls, levels)
	}
}

func TestReportErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(sharedtest.Dir(t), "claude-code", "short.jsonl")
	for _, tt := range []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{"no output", []string{"report", file}, ExitUsage, "-o FILE is required"},
		{"index out of range", []string{"report", file, "--index", "3", "-o", filepath.Join(dir, "x.html")}, ExitUsage, "holds 1 trajectories"},
		{"negative index", []string{"report", file, "--index", "-1", "-o", filepath.Join(dir, "x.html")}, ExitUsage, "--index"},
		{"unknown session", []string{"report", "--home", dir, "5a1e0b7e-0000-4000-8000-00000000000c", "-o", filepath.Join(dir, "x.html")}, ExitError, "5a1e0b7e"},
		{"unwritable output", []string{"report", file, "-o", filepath.Join(dir, "no", "such", "dir", "x.html")}, ExitError, "no such file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := run(t, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.inStderr) {
				t.Errorf("exit %d, want %d; stderr %q, want %q in it", code, tt.code, errOut, tt.inStderr)
			}
		})
	}
}
