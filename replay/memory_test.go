package replay_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/track"
	"github.com/agentctx/agentctx/transcript"
	"github.com/agentctx/agentctx/workmem"
)

// A replay with working memory feeds the tracker and ActiveContext, cuts
// big tool results with the limiter, and saves the working memory's state
// in the session so that a resumed session has the same tracker section.
func TestWorkingMemoryAndLimiter(t *testing.T) {
	t.Parallel()
	tr := &transcript.Trajectory{File: "mem.jsonl", Format: transcript.FormatOpenAI}
	add := func(m chat.Message) { tr.Messages = append(tr.Messages, m) }
	add(chat.NewText(chat.RoleUser, "Find why the parser fails."))
	add(chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
		chat.ToolCall{ID: "1", Name: "Read", Arguments: json.RawMessage(`{"file_path":"/repo/parse.go"}`)}}})
	// Larger than the room a 50,000-token window leaves the newest result
	// (and than its 25,000-token cap): 12,000 lines, about 60,000 tokens.
	add(chat.NewToolResult("1", "Read", "package parse\n"+strings.Repeat("func f() {}\n", 12000), false))
	add(chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
		chat.ToolCall{ID: "2", Name: "Bash", Arguments: json.RawMessage(`{"command":"go test ./..."}`)}}})
	add(chat.NewToolResult("2", "Bash", "Exit code 1\n--- FAIL: TestParse (0.00s)", true))
	add(chat.NewText(chat.RoleAssistant, "The parser fails on empty input."))

	st := openStore(t)
	res, err := replay.Run(t.Context(), tr, replay.Options{Budget: 50000, LimitToolResults: true, WorkingMemory: true, EndTexts: true, Store: st, Project: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if res.LimitedResults != 1 || res.LimitedChars <= 0 {
		t.Errorf("limited %d results, %d chars; want the big Read result cut", res.LimitedResults, res.LimitedChars)
	}
	if got := len(res.Window.At(2).Text()); got >= 12000*12 {
		t.Errorf("the Read result entered the window whole (%d bytes)", got)
	}
	if res.Tracker == nil || len(res.Tracker.Files) != 1 || len(res.Tracker.Commands) != 1 {
		t.Fatalf("tracker state = %+v, want one file read and one failed command", res.Tracker)
	}
	// The window still shows both calls: the section repeats neither.
	if res.TrackerSection != "" {
		t.Errorf("tracker section with every call shown:\n%s", res.TrackerSection)
	}
	full := track.New(track.Options{})
	full.SetState(*res.Tracker)
	if s := full.Section(); !strings.Contains(s, "/repo/parse.go") || !strings.Contains(s, "go test ./...") {
		t.Errorf("tracker state's section lacks the file or the command:\n%s", s)
	}
	if !strings.Contains(res.Context, "Find why the parser fails.") || res.Distill == nil {
		t.Errorf("ActiveContext: context %q, distill %v", res.Context, res.Distill)
	}
	// Without EndTexts: the same report, no texts rendered at the end.
	bare, err := replay.Run(t.Context(), tr, replay.Options{Budget: 50000, LimitToolResults: true, WorkingMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	if bare.TrackerSection != "" || bare.Context != "" || bare.Distill == nil || !slices.Equal(bare.Distill.Files, res.Distill.Files) {
		t.Errorf("without EndTexts: section %q, context %q, distill %+v; want no texts and the same report", bare.TrackerSection, bare.Context, bare.Distill)
	}

	loaded, err := st.Load(t.Context(), res.SessionID, session.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if full, ok := session.ToolOutput(loaded.Entries, "1"); !ok || full.Content != tr.Messages[2].Parts[0].(chat.ToolResult).Content {
		t.Errorf("the session does not keep the Read result's full output (found %v)", ok)
	}
	raw, ok := session.LastState(loaded.Entries)
	if !ok {
		t.Fatal("the session holds no working-memory state")
	}
	var saved struct {
		Tracker track.State     `json:"tracker"`
		Workmem json.RawMessage `json:"workmem"`
	}
	if err := json.Unmarshal(raw, &saved); err != nil {
		t.Fatal(err)
	}
	ac, err := workmem.FromJSON(saved.Workmem, workmem.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ac.BuildContext(replay.ContextTokens); got != res.Context {
		t.Errorf("resumed ActiveContext renders differently:\n%s\nwant:\n%s", got, res.Context)
	}
	resumed := track.New(track.Options{})
	resumed.SetState(saved.Tracker)
	if got, want := resumed.Section(), full.Section(); got != want {
		t.Errorf("resumed tracker section differs:\n%s\nwant:\n%s", got, want)
	}
}
