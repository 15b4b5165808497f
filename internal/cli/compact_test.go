package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/session/storeurl"
	"github.com/agentctx/agentctx/track"
	"github.com/agentctx/agentctx/workmem"
)

func TestCompactDryRunFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedtest.Dir(t), "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	out := mustRun(t, ExitOK, "compact", file, "--dry-run", "--budget", "16000", "--summarizer", "extractive", "--json")
	var r compactReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Summarizer != "extractive" || r.Fallback || r.Written || !r.DryRun {
		t.Fatalf("report %+v", r)
	}
	if r.TokensAfter >= r.TokensBefore || r.TokensAfter > r.Budget || r.Budget != 16000 {
		t.Fatalf("tokens %d → %d, budget %d", r.TokensBefore, r.TokensAfter, r.Budget)
	}
	if r.Retention == nil || r.Retention.FilesModified < 0.95 || r.Retention.Overall < 0.9 || len(r.FilesIncluded) == 0 {
		t.Fatalf("retention %+v, files %v", r.Retention, r.FilesIncluded)
	}
	if !strings.HasPrefix(r.Summary, "[agentctx summary]") {
		t.Fatalf("summary %q", cut(r.Summary, 200))
	}
	// The text form says the same.
	text := mustRun(t, ExitOK, "compact", file, "--dry-run", "--budget", "16000", "--summarizer", "extractive", "--instructions", "focus on the tests")
	for _, want := range []string{"tokens ", "files ", "retention    overall", "user messages", "dry run      nothing written", "[agentctx summary]"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, cut(text, 3000))
		}
	}
}

func TestCompactStoredSession(t *testing.T) {
	t.Parallel()
	home, results := importShared(t)
	id := ""
	for _, r := range results {
		if strings.HasSuffix(r.File, "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl") {
			id = r.ID
		}
	}
	if id == "" {
		t.Fatalf("big session not imported: %+v", results)
	}
	out := mustRun(t, ExitOK, "compact", id, "--home", home, "--budget", "16000", "--summarizer", "extractive", "--instructions", "focus on the renderer")
	if !strings.Contains(out, "written      compact boundary and summary appended to session "+id) {
		t.Fatalf("compact output:\n%s", cut(out, 3000))
	}
	show := mustRun(t, ExitOK, "sessions", "show", id, "--home", home)
	if !strings.Contains(show, "summary (compaction)") || !strings.Contains(show, "[agentctx summary]") || !strings.Contains(show, "focus on the renderer") {
		t.Fatalf("sessions show does not show the summary:\n%s", cut(show, 3000))
	}
	// A second compaction rolls the first summary in.
	out = mustRun(t, ExitOK, "compact", id, "--home", home, "--budget", "16000", "--summarizer", "extractive", "--json")
	var r compactReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !r.Written && !r.Nothing {
		t.Fatalf("second compaction: %+v", r)
	}
	if strings.Count(r.Summary, "[agentctx summary]") > 1 {
		t.Fatalf("summaries nest:\n%s", r.Summary)
	}
}

func TestCompactUsage(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedtest.Dir(t), "claude-code", "short.jsonl")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no argument", []string{"compact"}, "accepts 1 arg"},
		{"bad summarizer", []string{"compact", file, "--dry-run", "--summarizer", "magic"}, "--summarizer must be"},
		{"negative budget", []string{"compact", file, "--dry-run", "--budget", "-1"}, "--budget -1: want a positive number of tokens"},
		{"file without dry run", []string{"compact", file, "--summarizer", "extractive"}, "import it first"},
		{"unknown flag", []string{"compact", file, "--frobnicate"}, "unknown flag"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := run(t, tc.args...)
			if code != ExitUsage || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errOut, ExitUsage, tc.want)
			}
		})
	}
}

func TestReplaySummarize(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Dir(t)
	out := mustRun(t, ExitOK, "replay", "--json", "--budget", "16000", "--strategy", "summarize", "--summarizer", "extractive", dir)
	summaries := 0
	for _, r := range jsonLines[map[string]any](t, out) {
		ret, ok := r["retention"].(map[string]any)
		if !ok {
			continue
		}
		summaries++
		for _, k := range []string{"overall", "user_messages", "files_modified", "files_read", "errors", "failing_tests", "failed_commands"} {
			if _, ok := ret[k].(float64); !ok {
				t.Errorf("%v: retention lacks %q: %v", r["file"], k, ret)
			}
		}
	}
	if summaries == 0 {
		t.Fatal("no trajectory reports retention")
	}
	text := mustRun(t, ExitOK, "replay", "--budget", "16000", "--strategy", "summarize", "--summarizer", "extractive", "-v", filepath.Join(dir, "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"))
	for _, want := range []string{"summary 1: ", "  retained  overall", "  retention    overall", "summaries    "} {
		if !strings.Contains(text, want) {
			t.Errorf("replay -v lacks %q", want)
		}
	}
	table := mustRun(t, ExitOK, "replay", "--budget", "16000", "--strategy", "summarize", "--summarizer", "extractive", dir)
	if !strings.Contains(table, "retention over ") {
		t.Errorf("replay table lacks the overall retention")
	}
}

func TestReplaySummarizerUsage(t *testing.T) {
	t.Parallel()
	code, _, errOut := run(t, "replay", "--strategy", "summarize", "--summarizer", "magic", "x.jsonl")
	if code != ExitUsage || !strings.Contains(errOut, "--summarizer must be") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// TestCompactKeepsState: `agentctx compact ID` goes through the library
// (Resume, Engine.Compact, Close), so a resume after it has the same
// runtime state tracker and working memory as before it, not just what
// the kept messages hold. --dry-run leaves the session file as it was.
func TestCompactKeepsState(t *testing.T) {
	t.Parallel()
	home, results := importShared(t)
	id := ""
	for _, r := range results {
		if strings.HasSuffix(r.File, "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl") {
			id = r.ID
		}
	}
	if id == "" {
		t.Fatalf("big session not imported: %+v", results)
	}
	ctx := t.Context()
	type memory struct {
		Context string
		Report  workmem.Report
	}
	resume := func() (track.State, memory) {
		t.Helper()
		store, err := storeurl.Open("", storeurl.Options{Home: home})
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		e, err := agentctx.Resume(ctx, id, agentctx.Options{Store: store, NoWorkspace: true, Budget: 16000})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		ts, ok := e.TrackerState()
		if !ok {
			t.Fatal("no tracker")
		}
		text, rep := e.WorkingMemory(8000)
		if text == "" {
			t.Fatal("no working memory")
		}
		return ts, memory{text, rep}
	}
	trackBefore, memBefore := resume()
	if len(trackBefore.Files) < 10 {
		t.Fatalf("only %d files read before compaction: the test proves little", len(trackBefore.Files))
	}

	data := storedLines(t, home, id)
	out := mustRun(t, ExitOK, "compact", id, "--home", home, "--budget", "16000", "--summarizer", "extractive", "--dry-run", "--json")
	var r compactReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !r.DryRun || r.Written || r.TokensAfter >= r.TokensBefore || !strings.HasPrefix(r.Summary, "[agentctx summary]") {
		t.Fatalf("dry run: %+v", r)
	}
	if again := storedLines(t, home, id); !slices.Equal(again, data) {
		t.Fatalf("the dry run changed the stored session: %d lines, %d before", len(again), len(data))
	}

	out = mustRun(t, ExitOK, "compact", id, "--home", home, "--budget", "16000", "--summarizer", "extractive", "--json")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !r.Written || r.TokensAfter >= r.TokensBefore {
		t.Fatalf("compaction: %+v", r)
	}
	trackAfter, memAfter := resume()
	t.Logf("files read %d → %d, rounds %d → %d", len(trackBefore.Files), len(trackAfter.Files), memBefore.Report.Stats.TotalRounds, memAfter.Report.Stats.TotalRounds)
	if diff := gocmp.Diff(trackBefore, trackAfter); diff != "" {
		t.Errorf("tracker state changed by compaction (-before +after):\n%s", diff)
	}
	// Round times are those of the replay that rebuilt the memory.
	if diff := gocmp.Diff(memBefore, memAfter, cmpopts.IgnoreFields(workmem.Stats{}, "DurationMS")); diff != "" {
		t.Errorf("working memory changed by compaction (-before +after):\n%s", diff)
	}
}
