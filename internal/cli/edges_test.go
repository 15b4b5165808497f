package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/transcript"
)

// TestMissingFile: a path that does not exist, given where a FILE or a
// session id goes, is "no such file" naming it, with one exit code
// everywhere: 1, as replay answers a missing transcript and every command
// a missing session (it was "invalid session id …: holds a path
// separator", exit 2, and "neither a file nor a session id", exit 1).
func TestMissingFile(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, path := range []string{filepath.Join(t.TempDir(), "missing", "x.jsonl"), "missing/x.jsonl", "x-missing.jsonl"} {
		for _, args := range [][]string{
			{"inspect", path, "--home", home},
			{"report", path, "-o", filepath.Join(t.TempDir(), "r.html"), "--home", home},
			{"compact", path, "--dry-run", "--home", home},
			{"sessions", "show", path, "--home", home},
			{"sessions", "check", path, "--home", home},
			{"replay", path},
		} {
			code, _, errOut := run(t, args...)
			if code != ExitError || !strings.Contains(errOut, "no such file") || !strings.Contains(errOut, path) {
				t.Errorf("%s: exit %d, stderr %q; want exit %d and \"no such file\" naming %s", strings.Join(args[:len(args)-2], " "), code, errOut, ExitError, path)
			}
		}
	}
}

// TestBudgetNotPositive: a zero or negative --budget is a usage error in
// every command that has the flag (0 silently meant "the default", which
// leaving the flag out already says).
func TestBudgetNotPositive(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(file, []byte(`{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"0", "-5"} {
		for _, args := range [][]string{
			{"replay", file},
			{"report", file, "-o", filepath.Join(dir, "r.html")},
			{"inspect", file, "--home", home},
			{"compact", file, "--dry-run", "--home", home},
			{"context", dir},
			{"chat", dir, "-p", "hi", "--home", home},
			{"proxy", "--upstream", "http://127.0.0.1:1"},
			{"eval", file},
		} {
			// A command that took the budget would go on to serve or
			// call a model: the deadline stops it (a failure, not a hang).
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			var out, errb bytes.Buffer
			code := Main(ctx, append(args, "--budget", b), strings.NewReader(""), &out, &errb)
			cancel()
			errOut := errb.String()
			if code != ExitUsage || !strings.Contains(errOut, "--budget "+b+": want a positive number of tokens") {
				t.Errorf("%s --budget %s: exit %d, stderr %q; want a usage error (%d) naming --budget", args[0], b, code, errOut, ExitUsage)
			}
		}
	}
}

// TestCheckJSONRepairedTruthful: `sessions check --json` says "repaired"
// only when --repair was given and repaired something (it printed
// "repaired": true on every problem that loading works around, with
// nothing written). Without --repair that flag is "recovered".
func TestCheckJSONRepairedTruthful(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "s.jsonl")
	lines := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n" +
		`{"type":"assistant","uuid":"a1","parentUuid":"gone","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"ok"}]}}` + "\n"
	if err := os.WriteFile(file, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	type problem struct {
		Kind      string `json:"kind"`
		Recovered bool   `json:"recovered"`
		Repaired  *bool  `json:"repaired"`
	}
	type report struct {
		Problems []problem `json:"problems"`
	}
	var plain struct {
		Report   report          `json:"report"`
		Repaired json.RawMessage `json:"repaired"`
	}
	code, out, errOut := run(t, "sessions", "check", "--json", file)
	if code != ExitError {
		t.Fatalf("exit %d, stderr %q; want %d (a dangling parent)", code, errOut, ExitError)
	}
	if err := json.Unmarshal([]byte(out), &plain); err != nil {
		t.Fatal(err)
	}
	if len(plain.Repaired) > 0 || len(plain.Report.Problems) != 1 {
		t.Fatalf("without --repair: %s; want one problem and no repaired section", out)
	}
	if p := plain.Report.Problems[0]; p.Repaired != nil || !p.Recovered {
		t.Errorf("without --repair the problem says repaired %v, recovered %v; want no repaired key, recovered true: %s", p.Repaired, p.Recovered, out)
	}

	var fixed struct {
		Report   report `json:"report"`
		Repaired struct {
			Fixes []problem `json:"fixes"`
		} `json:"repaired"`
	}
	code, out, errOut = run(t, "sessions", "check", "--json", "--repair", "--out", filepath.Join(dir, "fixed.jsonl"), file)
	if code != ExitOK {
		t.Fatalf("--repair: exit %d, stderr %q", code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &fixed); err != nil {
		t.Fatal(err)
	}
	if f := fixed.Repaired.Fixes; len(f) != 1 || f[0].Repaired == nil || !*f[0].Repaired {
		t.Errorf("--repair: fixes %+v; want the relinked parent marked repaired: %s", f, out)
	}
	if p := fixed.Report.Problems; len(p) != 1 || p[0].Repaired != nil {
		t.Errorf("--repair: the original's report %+v marks a problem repaired; the copy was: %s", p, out)
	}
}

// TestImportTitleAndTimes: an imported session is titled with the run's
// first real request, not the harness's wrapper around it (a SWE-agent
// demonstration, its "ISSUE:" template, mini-swe-agent's
// <pr_description> with its lead-in), and its times are the run's: the
// transcript's timestamps, else the file's modification time, never the
// import's "just now". Files built after each harness's template, with
// made-up tasks.
func TestImportTitleAndTimes(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), t.TempDir()
	swe := filepath.Join(dir, "task.traj")
	mini := filepath.Join(dir, "task.traj.json")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(swe, `{"environment":"swe_main","trajectory":[],"info":{},"history":[
{"role":"system","content":"SETTING: You are an autonomous programmer.","agent":"primary"},
{"role":"user","content":"Here is a demonstration of how to correctly accomplish this task.\nIt is included to show you how to correctly use the interface.\n--- DEMONSTRATION ---\nISSUE:\nan old issue\n","agent":"primary","is_demo":true},
{"role":"user","content":"We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\nTimeDelta loses precision\nHi there!\n\nINSTRUCTIONS:\nsolve it","agent":"primary"},
{"role":"assistant","content":"Let me look.\n`+"```\\nls\\n```"+`","agent":"primary"},
{"role":"user","content":"a.py","agent":"primary"}]}`)
	ran := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(swe, ran, ran); err != nil {
		t.Fatal(err)
	}
	write(mini, `{"info":{"exit_status":"Submitted"},"trajectory_format":"mini-swe-agent-1.1","messages":[
{"role":"system","content":"You are a helpful assistant."},
{"role":"user","content":"<pr_description>\nConsider the following PR description:\nto_json fails on invalid tags\n</pr_description>\n\n<instructions>\n# Task Instructions\n</instructions>"},
{"role":"assistant","content":"Looking.","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}],"extra":{"timestamp":1775795111.779}},
{"role":"tool","tool_call_id":"c1","content":"<returncode>0</returncode>","extra":{"returncode":0,"timestamp":1775795112.112}},
{"role":"assistant","content":"Done.","extra":{"timestamp":1775795114.703}}]}`)
	if code, _, errOut := run(t, "sessions", "import", "--home", home, swe, mini); code != ExitOK {
		t.Fatalf("import: exit %d, stderr %q", code, errOut)
	}
	code, out, errOut := run(t, "sessions", "list", "--all", "--json", "--home", home)
	if code != ExitOK {
		t.Fatalf("list: exit %d, stderr %q", code, errOut)
	}
	type listed struct {
		Title        string    `json:"title"`
		Created      time.Time `json:"created"`
		LastActivity time.Time `json:"last_activity"`
		Origin       string    `json:"origin"`
	}
	got := map[string]listed{}
	for line := range strings.Lines(out) {
		var s listed
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		got[filepath.Base(s.Origin)] = s
	}
	first, last := time.UnixMilli(1775795111779).UTC(), time.UnixMilli(1775795114703).UTC()
	for name, want := range map[string]listed{
		"task.traj":      {Title: "TimeDelta loses precision", Created: ran, LastActivity: ran},
		"task.traj.json": {Title: "to_json fails on invalid tags", Created: first, LastActivity: last},
	} {
		s := got[name]
		if s.Title != want.Title || !s.Created.Equal(want.Created) || !s.LastActivity.Equal(want.LastActivity) {
			t.Errorf("%s: title %q, created %v, active %v; want %q, %v, %v", name, s.Title, s.Created, s.LastActivity, want.Title, want.Created, want.LastActivity)
		}
	}
}

// TestPlurals: counts of one take the singular ("TOTAL (1
// trajectories)" and "1 warnings" were printed).
func TestPlurals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "s.jsonl")
	session := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}` + "\n" +
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":10,"output_tokens":2}}}` + "\n"
	if err := os.WriteFile(good, []byte(session), 0o644); err != nil {
		t.Fatal(err)
	}
	// Two files, one unreadable: the table has one trajectory.
	bad := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(bad, []byte("not a transcript\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, _ := run(t, "replay", good, bad, "--budget", "8000")
	if !strings.Contains(out, "TOTAL (1 trajectory)") {
		t.Errorf("replay of one readable file of two: no \"TOTAL (1 trajectory)\":\n%s", out)
	}
	_, out, _ = run(t, "replay", good, "--budget", "8000")
	if !strings.Contains(out, "vs provider  1 call with usage") {
		t.Errorf("replay: no \"1 call with usage\":\n%s", out)
	}
	torn := filepath.Join(dir, "torn.jsonl")
	if err := os.WriteFile(torn, []byte(session+`{"type":"assistant","uuid":"a2","par`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "sessions", "check", torn)
	if code != ExitOK || !strings.Contains(out, "1 warning (1 torn-line)") {
		t.Errorf("check of a torn tail: exit %d, stderr %q, no \"1 warning (1 torn-line)\":\n%s", code, errOut, out)
	}
}

// TestHelpNamesOwnFlags: a command's help mentions -v only when the
// command has it (report's help said reminders are listed with -v, a
// flag report lacks: the text came with the flags it shares with
// replay).
func TestHelpNamesOwnFlags(t *testing.T) {
	t.Parallel()
	var sink bytes.Buffer
	root := newRoot(&env{stdout: &sink, stderr: &sink})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		var help bytes.Buffer
		c.SetOut(&help)
		if err := c.Help(); err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(help.String(), "-v,", "")
		if c.Flags().ShorthandLookup("v") == nil && regexp.MustCompile(`(^|[\s(;,])-v\b`).MatchString(text) {
			t.Errorf("%s --help mentions -v, which it lacks:\n%s", c.CommandPath(), help.String())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// TestCompletionValues: shell completion offers the registered compaction
// strategies for --strategy, the transcript formats for --format (and
// import's --from), and the stored sessions' ids (with their titles)
// where a command takes one (it offered nothing).
func TestCompletionValues(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	st, s := createStored(t, home)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	strategies := strings.Join(compact.Names(), "\n")
	var formats []string
	for _, f := range transcript.Formats() {
		formats = append(formats, string(f))
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--strategy", ""}, strategies},
		{[]string{"report", "--strategy", ""}, strategies},
		{[]string{"replay", "--format", ""}, strings.Join(formats, "\n")},
		{[]string{"eval", "--format", "co"}, "codex\ncopilot-cli"},
		{[]string{"sessions", "import", "--from", "claude"}, "claude-code"},
		{[]string{"inspect", "--home", home, ""}, s.ID},
		{[]string{"report", "--home", home, ""}, s.ID},
		{[]string{"compact", "--home", home, ""}, s.ID},
		{[]string{"sessions", "show", "--home", home, ""}, s.ID},
		{[]string{"sessions", "check", "--home", home, ""}, s.ID},
		{[]string{"sessions", "rm", "--home", home, ""}, s.ID},
		{[]string{"chat", "--home", home, "--resume", ""}, s.ID},
	} {
		code, out, errOut := run(t, append([]string{"__complete"}, tc.args...)...)
		var got []string
		for line := range strings.Lines(out) {
			line = strings.TrimSuffix(line, "\n")
			if strings.HasPrefix(line, ":") {
				break
			}
			id, _, _ := strings.Cut(line, "\t")
			got = append(got, id)
		}
		if code != ExitOK || strings.Join(got, "\n") != tc.want {
			t.Errorf("complete %q: exit %d, stderr %q, offered %q; want %q", tc.args, code, errOut, got, tc.want)
		}
	}
}
