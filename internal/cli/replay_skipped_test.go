package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/internal/sharedtest"
)

// TestReplayStrictSkippedKinds: the three kinds of skipped input are
// reported apart. Known non-context records (a Claude Code progress line,
// an api-request-blob line) are counted per kind in --json and never fail
// --strict; malformed lines do: a file with 10 of its 12 lines torn exits
// 1 under --strict (issue 28).
func TestReplayStrictSkippedKinds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	user := `{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"hi"}}`
	asst := `{"type":"assistant","sessionId":"s","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"ok"}]}}`
	clean := filepath.Join(dir, "clean.jsonl")
	writeTestFile(t, clean, user+"\n"+
		`{"type":"progress","sessionId":"s","uuid":"p1","data":{"type":"hook_progress"}}`+"\n"+
		`{"type":"api-request-blob","sessionId":"s","uuid":"b1"}`+"\n"+
		asst+"\n")
	code, out, errOut := run(t, "replay", "--json", "--strict", clean)
	if code != ExitOK {
		t.Fatalf("known non-context only: exit %d, stderr %s", code, errOut)
	}
	var res struct {
		NonContext map[string]int `json:"non_context"`
		Dropped    map[string]int `json:"dropped"`
		Problems   []string       `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.NonContext["progress"] != 1 || res.NonContext["api-request-blob"] != 1 || len(res.Dropped) != 0 || len(res.Problems) != 0 {
		t.Errorf("non_context %v, dropped %v, problems %v; want 1 progress and 1 api-request-blob, nothing else", res.NonContext, res.Dropped, res.Problems)
	}

	torn := filepath.Join(dir, "torn.jsonl")
	lines := []string{user, asst}
	for i := range 10 {
		lines = append(lines, `{"type":"user","uuid":"x`+string(rune('a'+i))+`","mess`)
	}
	writeTestFile(t, torn, strings.Join(lines, "\n")+"\n")
	code, _, errOut = run(t, "replay", "--strict", torn)
	if code != ExitError || !strings.Contains(errOut, "10 malformed lines skipped") {
		t.Errorf("10 of 12 lines torn: exit %d, stderr %q; want exit 1 naming the 10 lines", code, errOut)
	}
	if code, _, errOut = run(t, "replay", torn); code != ExitOK {
		t.Errorf("10 of 12 lines torn, without --strict: exit %d, stderr %q; want 0", code, errOut)
	}
}

// TestReplayForcedFormatNoCalls: a forced --format that reads no model
// call from a file whose content holds another format's calls is refused,
// the error naming that format (issue 28: --format claude-code on a Gemini
// CLI JSONL file, --format swe-agent on an OpenHands trajectory exited 0).
func TestReplayForcedFormatNoCalls(t *testing.T) {
	t.Parallel()
	gemini := filepath.Join("..", "..", "transcript", "testdata", "gemini-cli", "session-2025-11-20T09-15-c0ffee12.jsonl")
	code, _, errOut := run(t, "replay", "--strict", "--format", "claude-code", gemini)
	if code != ExitError || !strings.Contains(errOut, "not a claude-code transcript") || !strings.Contains(errOut, "it reads as gemini-cli") {
		t.Errorf("--format claude-code on Gemini CLI JSONL: exit %d, stderr %q; want 1 naming gemini-cli", code, errOut)
	}
	data, err := os.ReadFile(filepath.Join(sharedtest.Dir(t), "openhands", "output.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	one := filepath.Join(t.TempDir(), "one.json")
	writeTestFile(t, one, first)
	code, _, errOut = run(t, "replay", "--strict", "--format", "swe-agent", one)
	if code != ExitError || !strings.Contains(errOut, "it reads as openhands") {
		t.Errorf("--format swe-agent on an OpenHands trajectory: exit %d, stderr %q; want 1 naming openhands", code, errOut)
	}
	if code, _, errOut = run(t, "replay", "--format", "openhands", one); code != ExitOK {
		t.Errorf("--format openhands on it: exit %d, stderr %q", code, errOut)
	}
}

// TestReplayFolderByContent: replay DIR and sessions import DIR find the
// files a reader accepts by content, not only by the agents' default
// names (issue 28: a renamed aider chat history was passed over), and say
// in one stderr line per file what they skipped and why.
func TestReplayFolderByContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "proj.aider.chat.history.md"), "# aider chat started at 2025-01-31 10:20:30\n\n#### add a test\n\nHere is the test.\n\n> Tokens: 1.2k sent, 40 received.\n")
	writeTestFile(t, filepath.Join(dir, "notes.txt"), "not a transcript\n")
	code, out, errOut := run(t, "replay", "--strict", dir)
	if code != ExitOK || !strings.Contains(out, "aider") {
		t.Errorf("replay DIR: exit %d, stdout %q, stderr %q; want the aider history replayed", code, out, errOut)
	}
	if want := "skipped " + filepath.Join(dir, "notes.txt") + ": not a transcript by its name or content"; !strings.Contains(errOut, want) {
		t.Errorf("replay DIR stderr %q lacks %q", errOut, want)
	}
	code, out, errOut = run(t, "sessions", "import", "--home", t.TempDir(), dir)
	if code != ExitOK || !strings.Contains(out, "1 imported") || !strings.Contains(errOut, "notes.txt: not a transcript") {
		t.Errorf("sessions import DIR: exit %d, stdout %q, stderr %q; want the aider history imported, notes.txt skipped", code, out, errOut)
	}
}
