package transcript_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/transcript"
)

// TestUnknownShapes reads JSON shapes of formats this package does not
// read (testdata/unknown): each is an error wrapping ErrUnknownFormat
// that names the file and what did not match, never a trajectory.
func TestUnknownShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file string
		want []string // in the error
	}{
		{"cursor-agent-transcript.jsonl", []string{"closest format openai", `content under "message"`}},
		{"pi-session.jsonl", []string{"closest format codex", `item "message" without role`}},
		{"manifest.json", []string{"no known format"}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("testdata", "unknown", tc.file)
			trs, err := transcript.ReadFile(path, transcript.Options{})
			if err == nil {
				t.Fatalf("ReadFile = %d trajectories (%d messages), want an error", len(trs), len(trs[0].Messages))
			}
			if !errors.Is(err, transcript.ErrUnknownFormat) {
				t.Errorf("err = %v, want ErrUnknownFormat", err)
			}
			for _, w := range append(tc.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestMisreadShapes: shapes the OpenAI reader used to misread (a Gemini
// CLI session read as 0 calls, a Cline history without its tool_use
// blocks) are read by their own readers, and refused when openai is
// forced on them.
func TestMisreadShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file   string
		format transcript.Format
		refuse []string // in the error of --format openai
	}{
		{"gemini-cli-session.json", transcript.FormatGeminiCLI, []string{"not a openai transcript", "message without role"}},
		{"cline-api_conversation_history.json", transcript.FormatCline, []string{"not a openai transcript", `"tool_use"`, `"tool_result"`}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("testdata", "misread", tc.file)
			trs, err := transcript.ReadFile(path, transcript.Options{})
			if err != nil || trs[0].Format != tc.format || len(trs[0].Messages) == 0 {
				t.Fatalf("ReadFile = %v, %v; want a %s trajectory", trs, err, tc.format)
			}
			if trs[0].Dropped != nil {
				t.Errorf("%s reader dropped %v", tc.format, trs[0].Dropped)
			}
			_, err = transcript.ReadFile(path, transcript.Options{Format: transcript.FormatOpenAI})
			var fe *transcript.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("forced openai: err = %v, want a *FormatError", err)
			}
			for _, w := range tc.refuse {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestForcedFormatFindsNothing: a format forced on a file of another
// format is an error, not an empty trajectory.
func TestForcedFormatFindsNothing(t *testing.T) {
	t.Parallel()
	codex := lines(cxMeta, cxTurn, cxItem(`{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`))
	_, err := transcript.Read(strings.NewReader(codex), "r.jsonl", transcript.Options{Format: transcript.FormatClaudeCode})
	var fe *transcript.FormatError
	if !errors.As(err, &fe) || !fe.Forced || fe.Closest != transcript.FormatClaudeCode {
		t.Fatalf("err = %v, want a forced *FormatError for claude-code", err)
	}
	if !strings.Contains(err.Error(), "session_meta") || !strings.Contains(err.Error(), "r.jsonl") {
		t.Errorf("error %q should name the file and the line types found", err)
	}
	// Forced on an input of its own shape with no message at all.
	_, err = transcript.Read(strings.NewReader(`{"messages":[]}`), "e.json", transcript.Options{Format: transcript.FormatOpenAI})
	if !errors.As(err, &fe) {
		t.Errorf("forced openai on no messages: err = %v, want a *FormatError", err)
	}
}

// TestDroppedCounted: what a reader leaves out is counted by kind, and
// more than a trace is flagged.
func TestDroppedCounted(t *testing.T) {
	t.Parallel()
	in := `[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"input_audio","input_audio":{"data":"AAAA"}}]},` +
		`{"content":"no role"},{"role":"assistant","content":"hello"},{"role":"user","content":"more"}]`
	trs, err := transcript.Read(strings.NewReader(in), "d.json", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := trs[0]
	want := map[string]int{`content block "input_audio"`: 1, "message without role": 1}
	if diff := cmp.Diff(want, tr.Dropped); diff != "" {
		t.Errorf("Dropped (-want +got):\n%s", diff)
	}
	if !tr.MoreThanTrace() {
		t.Error("2 items dropped beside 3 messages: MoreThanTrace = false")
	}
	if got := tr.DroppedSummary(); got != `1 content block "input_audio", 1 message without role` {
		t.Errorf("DroppedSummary = %q", got)
	}

	cc := lines(ccUser1, `{"type":"assistant","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"ok"},{"type":"fancy_new_block"}]}}`)
	tr = readOne(t, transcript.FormatClaudeCode, cc)
	if diff := cmp.Diff(map[string]int{`content block "fancy_new_block"`: 1}, tr.Dropped); diff != "" {
		t.Errorf("Claude Code Dropped (-want +got):\n%s", diff)
	}
}

// TestOrphansCounted: tool results before their calls (out-of-order
// lines) are turned into user text and counted.
func TestOrphansCounted(t *testing.T) {
	t.Parallel()
	in := lines(
		ccUser1,
		`{"type":"user","uuid":"u2","timestamp":"2025-01-01T10:00:05Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"out"}]}}`,
		`{"type":"assistant","uuid":"a1","timestamp":"2025-01-01T10:00:01Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}`,
	)
	tr := readOne(t, transcript.FormatClaudeCode, in)
	if tr.Orphans != 1 {
		t.Errorf("Orphans = %d, want 1", tr.Orphans)
	}
}

// TestInlineSideChains: a Claude Code 1.0.x main file with Task
// sub-agents inline (isSidechain lines, no agentId) gives the main
// trajectory and one per side chain.
func TestInlineSideChains(t *testing.T) {
	t.Parallel()
	in := lines(
		`{"type":"user","sessionId":"s1","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"explore"}}`,
		`{"type":"assistant","sessionId":"s1","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"prompt":"find A"}},{"type":"tool_use","id":"t2","name":"Task","input":{"prompt":"find B"}}]}}`,
		`{"type":"user","sessionId":"s1","isSidechain":true,"uuid":"x1","parentUuid":null,"message":{"role":"user","content":"find A"}}`,
		`{"type":"user","sessionId":"s1","isSidechain":true,"uuid":"y1","parentUuid":null,"message":{"role":"user","content":"find B"}}`,
		`{"type":"assistant","sessionId":"s1","isSidechain":true,"uuid":"x2","parentUuid":"x1","message":{"id":"mx","role":"assistant","content":[{"type":"text","text":"A is here"}]}}`,
		`{"type":"assistant","sessionId":"s1","isSidechain":true,"uuid":"y2","parentUuid":"y1","message":{"id":"my","role":"assistant","content":[{"type":"text","text":"B is there"}]}}`,
		`{"type":"user","sessionId":"s1","uuid":"u2","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"A is here"},{"type":"tool_result","tool_use_id":"t2","content":"B is there"}]}}`,
	)
	trs, err := transcript.Read(strings.NewReader(in), "old.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Index int
		ID    string
		Msgs  []string
	}
	var g []got
	for _, tr := range trs {
		g = append(g, got{tr.Index, tr.ID, render(tr.Messages)})
	}
	want := []got{
		{0, "s1", []string{`user text="explore"`, `assistant call=t1/Task{"prompt":"find A"} call=t2/Task{"prompt":"find B"}`, `tool result=t1/Task="A is here"`, `tool result=t2/Task="B is there"`}},
		{1, "s1-sidechain-1", []string{`user text="find A"`, `assistant text="A is here"`}},
		{2, "s1-sidechain-2", []string{`user text="find B"`, `assistant text="B is there"`}},
	}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("trajectories (-want +got):\n%s", diff)
	}
	if len(trs[0].Notes) != 1 || !strings.Contains(trs[0].Notes[0], "2 inline side chains") {
		t.Errorf("main trajectory's notes = %q, want one saying 2 side chains were replayed", trs[0].Notes)
	}
}

// TestUnknownShapesNoPanic reads the unknown and once-misread shapes as
// every format: never a panic.
func TestUnknownShapesNoPanic(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"unknown", "misread"} {
		entries, err := os.ReadDir(filepath.Join("testdata", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join("testdata", dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range append(transcript.Formats(), "") {
				_, _ = transcript.Read(strings.NewReader(string(data)), e.Name(), transcript.Options{Format: f})
			}
		}
	}
}

// TestSideChainBeforeMain: side-chain lines before the main session's
// first line (a warm-up) are one chain; a chain with an agentId is
// named by it.
func TestSideChainBeforeMain(t *testing.T) {
	t.Parallel()
	in := lines(
		`{"type":"user","sessionId":"s1","isSidechain":true,"uuid":"w1","message":{"role":"user","content":"Warmup"}}`,
		`{"type":"assistant","sessionId":"s1","isSidechain":true,"uuid":"w2","parentUuid":"w1","message":{"id":"mw","role":"assistant","content":"ready"}}`,
		ccUser1,
		`{"type":"user","sessionId":"s1","isSidechain":true,"agentId":"ag7","uuid":"x1","message":{"role":"user","content":"find A"}}`,
		`{"type":"assistant","sessionId":"s1","isSidechain":true,"agentId":"ag7","uuid":"x2","message":{"id":"mx","role":"assistant","content":"A"}}`,
		`{"type":"assistant","sessionId":"s1","isSidechain":true,"uuid":"w3","parentUuid":"w2","message":{"id":"mw2","role":"assistant","content":"still warm"}}`,
	)
	trs, err := transcript.Read(strings.NewReader(in), "w.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	var ids []string
	for _, tr := range trs {
		got = append(got, render(tr.Messages))
		ids = append(ids, tr.ID)
	}
	want := [][]string{
		{`user text="do it"`},
		{`user text="Warmup"`, `assistant text="ready"`, `assistant text="still warm"`},
		{`user text="find A"`, `assistant text="A"`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"s1", "s1-sidechain-1", "s1-sidechain-ag7"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}
