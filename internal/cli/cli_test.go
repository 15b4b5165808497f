package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/internal/sharedtest"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(t.Context(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestReplayJSONContract(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Dir(t)
	code, out, errOut := run(t, "replay", "--json", "--budget", "8000", dir)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	want := []string{"file", "format", "model", "budget", "messages", "model_calls", "peak_prompt_tokens",
		"calls_over_budget", "invariant_violations", "compactions", "tokens_removed", "wall_ms", "usage_diff",
		"summaries_per_call", "summary_escalations"}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	lines := 0
	for sc.Scan() {
		lines++
		var obj map[string]any
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
			t.Fatalf("line %d is not a JSON object: %v", lines, err)
		}
		for _, k := range want {
			if _, ok := obj[k]; !ok {
				t.Errorf("line %d: missing key %q", lines, k)
			}
		}
		if obj["calls_over_budget"].(float64) != 0 || obj["invariant_violations"].(float64) != 0 {
			t.Errorf("%v: over budget %v, violations %v", obj["file"], obj["calls_over_budget"], obj["invariant_violations"])
		}
		if obj["budget"].(float64) != 8000 {
			t.Errorf("budget = %v, want 8000", obj["budget"])
		}
	}
	if lines < 10 {
		t.Errorf("got %d trajectories, want one line per trajectory (at least 10)", lines)
	}
}

func TestReplaySummary(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedtest.Dir(t), "claude-code", "short.jsonl")
	code, out, errOut := run(t, "replay", file, "-v")
	if code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	for _, s := range []string{"model", "budget", "model calls", "peak prompt", "over budget", "invariant violations", "compactions", "vs provider", "step", "role"} {
		if !strings.Contains(out, s) {
			t.Errorf("summary lacks %q:\n%s", s, out)
		}
	}
}

// The summary-loop case: at 2,500 tokens a SWE-agent trajectory made 10
// summaries in 12 model calls; the single-file summary and --json give
// the summaries per call, now at most one in 3 after the first.
func TestReplaySummariesPerCall(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedtest.Dir(t), "swe-agent", "pydicom__pydicom-1458.traj")
	args := []string{"replay", file, "--budget", "2500", "--strategy", "summarize", "--summarizer", "extractive", "--strict"}
	code, out, errOut := run(t, args...)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if !strings.Contains(out, "per call)") || !strings.Contains(out, "summaries declined") {
		t.Errorf("summary lacks the summaries per call and the guard's line:\n%s", out)
	}
	code, out, errOut = run(t, append(args, "--json")...)
	if code != ExitOK {
		t.Fatalf("--json: exit %d, stderr:\n%s", code, errOut)
	}
	var res struct {
		ModelCalls  int     `json:"model_calls"`
		PerCall     float64 `json:"summaries_per_call"`
		Escalations int     `json:"summary_escalations"`
		Summaries   []any   `json:"summaries"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	n := len(res.Summaries)
	if res.ModelCalls == 0 || res.PerCall != float64(n)/float64(res.ModelCalls) || n > 1+(res.ModelCalls-1)/3 || res.Escalations == 0 {
		t.Errorf("%d summaries in %d calls (%v per call), %d declined", n, res.ModelCalls, res.PerCall, res.Escalations)
	}
}

func TestReplayErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("this is not a transcript\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{"unreadable", []string{"replay", bad}, ExitError, bad},
		{"missing", []string{"replay", filepath.Join(dir, "nope.jsonl")}, ExitError, "nope.jsonl"},
		{"bad strategy", []string{"replay", "--strategy", "magic", bad}, ExitUsage, "unknown strategy"},
		{"bad flag", []string{"replay", "--frobnicate", bad}, ExitUsage, "unknown flag"},
		{"no args", []string{"replay"}, ExitUsage, "requires at least 1 arg"},
		{"bad format", []string{"replay", "--format", "word", bad}, ExitUsage, "word"},
		{"negative budget", []string{"replay", "--budget", "-5", bad}, ExitUsage, "--budget"},
		{"negative check-every", []string{"replay", "--check-every", "-1", bad}, ExitUsage, "--check-every"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := run(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit = %d, want %d; stderr: %s", code, tt.code, errOut)
			}
			if !strings.Contains(errOut, tt.inStderr) {
				t.Errorf("stderr %q lacks %q", errOut, tt.inStderr)
			}
			if tt.code == ExitError && strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Errorf("want one line on stderr, got:\n%s", errOut)
			}
		})
	}
}

func TestReplayStrict(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedtest.Dir(t), "swe-agent", "pydicom__pydicom-1458.traj")
	if code, _, errOut := run(t, "replay", "--strict", "--budget", "8000", file); code != ExitOK {
		t.Errorf("tiered --strict: exit %d, stderr %s", code, errOut)
	}
	// Without compaction the run overflows 8,000 tokens: --strict fails it.
	code, _, errOut := run(t, "replay", "--strict", "--strategy", "none", "--budget", "8000", file)
	if code != ExitError || !strings.Contains(errOut, "over budget") {
		t.Errorf("none --strict: exit %d, stderr %q; want 1 and a reason", code, errOut)
	}
}

// TestReplayCheckEvery: --check-every 1 walks the whole window after
// every call and reports what the incremental check reports: the same
// --json but for the times.
func TestReplayCheckEvery(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedtest.Dir(t), "claude-code", "tool_heavy.jsonl")
	var outs [2]map[string]any
	for i, every := range []string{"0", "1"} {
		code, out, errOut := run(t, "replay", file, "--budget", "4000", "--json", "--check-every", every)
		if code != ExitOK {
			t.Fatalf("--check-every %s: exit %d, stderr:\n%s", every, code, errOut)
		}
		if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &outs[i]); err != nil {
			t.Fatalf("--check-every %s: %v\n%s", every, err, out)
		}
		for k := range outs[i] {
			if strings.HasSuffix(k, "_ms") {
				delete(outs[i], k)
			}
		}
		if d, ok := outs[i]["distill"].(map[string]any); ok {
			if st, ok := d["stats"].(map[string]any); ok {
				delete(st, "duration_ms")
			}
		}
	}
	a, _ := json.Marshal(outs[0])
	b, _ := json.Marshal(outs[1])
	if string(a) != string(b) {
		t.Errorf("--check-every 1 changed the result:\n%s\n%s", a, b)
	}
	if outs[0]["model_calls"].(float64) == 0 {
		t.Errorf("no model call replayed: %s", a)
	}
}

// TestReplayWorkingMemoryFlag: --working-memory=false replays without the
// working memory (no distill in --json), the default keeps it.
func TestReplayWorkingMemoryFlag(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedtest.Dir(t), "claude-code", "tool_heavy.jsonl")
	for _, tc := range []struct {
		flag string
		want bool
	}{{"--working-memory=true", true}, {"--working-memory=false", false}} {
		code, out, errOut := run(t, "replay", file, "--budget", "4000", "--json", tc.flag)
		if code != ExitOK {
			t.Fatalf("%s: exit %d, stderr:\n%s", tc.flag, code, errOut)
		}
		var got struct {
			Distill json.RawMessage `json:"distill"`
		}
		if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &got); err != nil {
			t.Fatalf("%s: %v\n%s", tc.flag, err, out)
		}
		if has := len(got.Distill) > 0 && string(got.Distill) != "null"; has != tc.want {
			t.Errorf("%s: distill present %v, want %v", tc.flag, has, tc.want)
		}
	}
}

// TestReplayManyFiles: reading many files as a newcomer does. A missing
// path is reported and the other files still replayed (exit 1 at the
// end); a stray manifest.json found in a folder is skipped and said so;
// files a reader claimed and refused fail; a forced format that finds
// nothing fails.
func TestReplayManyFiles(t *testing.T) {
	t.Parallel()
	root := sharedtest.Dir(t)
	short := filepath.Join(root, "claude-code", "short.jsonl")
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "manifest.json"), `{"name":"set","files":["short.jsonl"]}`)
	data, err := os.ReadFile(short)
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, "short.jsonl"), string(data))

	code, out, errOut := run(t, "replay", filepath.Join(dir, "nope.jsonl"), short)
	if code != ExitError || !strings.Contains(errOut, "nope.jsonl") || !strings.Contains(out, "peak prompt") {
		t.Errorf("missing path: exit %d, stdout %q, stderr %q; want the other file replayed, then exit 1", code, out, errOut)
	}
	code, out, errOut = run(t, "replay", "--strict", dir)
	if code != ExitOK || !strings.Contains(errOut, "skipped") || !strings.Contains(errOut, "manifest.json") || !strings.Contains(out, "short.jsonl  claude-code") {
		t.Errorf("folder with a manifest: exit %d, stdout %q, stderr %q; want exit 0 and the manifest reported", code, out, errOut)
	}
	// The unknown shapes of the transcript package: each an error.
	unknown := filepath.Join("..", "..", "transcript", "testdata", "unknown")
	code, out, errOut = run(t, "replay", "--json", unknown)
	if code != ExitError || out != "" {
		t.Errorf("unknown shapes: exit %d, stdout %q; want exit 1 and no replay", code, out)
	}
	for _, f := range []string{"cursor-agent-transcript.jsonl", "pi-session.jsonl"} {
		if !strings.Contains(errOut, f+": closest format") {
			t.Errorf("stderr lacks the refusal of %s:\n%s", f, errOut)
		}
	}
	codex := filepath.Join(root, "codex", "rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl")
	code, out, errOut = run(t, "replay", "--format", "claude-code", codex)
	if code != ExitError || !strings.Contains(errOut, "not a claude-code transcript") {
		t.Errorf("--format claude-code on a Codex file: exit %d, stdout %q, stderr %q; want an error", code, out, errOut)
	}
}

// TestReplayReportsProblems: skipped lines and what the reader left out
// are reported per file, in the table and in --json; --strict fails on
// more than a trace left out and on tool results before their calls.
func TestReplayReportsProblems(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	torn := filepath.Join(dir, "torn.jsonl")
	writeTestFile(t, torn, `{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"hi"}}`+"\n"+
		`{"type":"assistant","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"ok"},{"type":"new_block_kind"}]}}`+"\n"+
		`{"type":"user","uuid":"u2","mess`+"\n")
	order := filepath.Join(dir, "order.jsonl")
	writeTestFile(t, order, `{"type":"user","sessionId":"o","uuid":"u1","timestamp":"2025-01-01T10:00:00Z","message":{"role":"user","content":"go"}}`+"\n"+
		`{"type":"user","uuid":"u2","timestamp":"2025-01-01T10:00:09Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"out"}]}}`+"\n"+
		`{"type":"assistant","uuid":"a1","timestamp":"2025-01-01T10:00:02Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`+"\n")

	code, out, errOut := run(t, "replay", dir)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	if !strings.Contains(out, "PROBLEMS") || !strings.Contains(out, "1 line skipped, 1 left out") || !strings.Contains(out, "1 orphan") {
		t.Errorf("table lacks the problems per file:\n%s", out)
	}
	if !strings.Contains(errOut, `warning: `+torn+`: the reader left out 1 content block "new_block_kind"`) {
		t.Errorf("stderr lacks the warning line:\n%s", errOut)
	}
	code, out, _ = run(t, "replay", "--json", torn)
	var res struct {
		Problems []string       `json:"problems"`
		Dropped  map[string]int `json:"dropped"`
		Over     bool           `json:"dropped_over_trace"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != ExitOK {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0], "line 3") || res.Dropped[`content block "new_block_kind"`] != 1 || !res.Over {
		t.Errorf("--json: problems %q, dropped %v, over trace %v", res.Problems, res.Dropped, res.Over)
	}
	code, _, errOut = run(t, "replay", "--strict", dir)
	if code != ExitError || !strings.Contains(errOut, "1 tool results without a call") || !strings.Contains(errOut, "left out 1 content block") {
		t.Errorf("--strict: exit %d, stderr %q; want the orphan and the dropped block named", code, errOut)
	}
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestReplayTrackerSection: replay -v ends with the tracker's section as
// the next request would carry it: on a file that never compacts, none,
// since the window shows every entry (said, with the count); on one that
// compacts, the entries of the calls compaction removed.
func TestReplayTrackerSection(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Dir(t)
	out := mustRun(t, ExitOK, "replay", "--budget", "8000", "-v", filepath.Join(dir, "claude-code", "tool_heavy.jsonl"))
	if !strings.Contains(out, "tracker section at the end: none (the window still shows the 4 entries it would list)") {
		t.Errorf("no word on the empty tracker section:\n%s", out)
	}
	out = mustRun(t, ExitOK, "replay", "--budget", "8000", "-v", filepath.Join(dir, "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"))
	if !strings.Contains(out, "tracker section at the end:\n## ") {
		t.Errorf("no tracker section after compactions:\n%.2000s", out[max(0, len(out)-4000):])
	}
}
