package workmem

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/google/go-cmp/cmp"
)

func TestSlidingWindow(t *testing.T) {
	t.Parallel()
	for _, recent := range []int{1, 3, 5} {
		t.Run("recent="+string(rune('0'+recent)), func(t *testing.T) {
			t.Parallel()
			a := newTest(t, Options{RecentRounds: recent})
			for i := range 8 {
				a.StartRound("round")
				id := string(rune('a' + i))
				a.AddAction(call(id, "Bash", `{"command":"ls"}`))
				a.Observe(chat.ToolResult{ToolCallID: id, Content: "out " + id})
				a.EndRound("")
			}
			st := a.State()
			for i, r := range st.Rounds {
				raw := i >= len(st.Rounds)-recent
				o := r.Observations[0]
				if got := o.Raw != "" && !o.Compressed; got != raw {
					t.Errorf("round %d: raw kept = %v, want %v (obs %+v)", r.Iteration, got, raw, o)
				}
				if o.Size != 5 || o.ResultType != ResultCommand {
					t.Errorf("round %d: metadata lost: %+v", r.Iteration, o)
				}
			}
			if got, want := a.Stats().CompressedObservations, 8-recent; got != want {
				t.Errorf("compressed = %d, want %d", got, want)
			}
		})
	}
}

func TestObserveMetadata(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		call    chat.ToolCall
		res     chat.ToolResult
		want    ResultType
		isErr   bool
		newInfo bool
		fact    string
	}{
		{"error flag", call("1", "Bash", `{"command":"go test"}`), chat.ToolResult{ToolCallID: "1", Content: "boom\npanic: x", IsError: true}, ResultError, true, false, "error: panic: x"},
		{"exit code", call("1", "execute_bash", `{"command":"make"}`), chat.ToolResult{ToolCallID: "1", Content: "make: *** [all] Error 2\n[Command finished with exit code 2]"}, ResultError, true, false, "exit code 2"},
		{"exit zero", call("1", "shell", `{}`), chat.ToolResult{ToolCallID: "1", Content: "ok\nExit code: 0"}, ResultCommand, false, true, "exit code 0"},
		{"empty", call("1", "Bash", `{}`), chat.ToolResult{ToolCallID: "1", Content: "  \n"}, ResultEmpty, false, false, ""},
		{"search", call("1", "Grep", `{"pattern":"x","path":"src"}`), chat.ToolResult{ToolCallID: "1", Content: "a.go:1:x\nb.go:2:x\n"}, ResultSearch, false, true, "2 result lines"},
		{"file view", call("1", "str_replace_editor", `{"command":"view","path":"/r/a.py"}`), chat.ToolResult{ToolCallID: "1", Content: "1 x\n2 y\n3 z"}, ResultFile, false, true, "path: /r/a.py"},
		{"file edit", call("1", "str_replace_editor", `{"command":"str_replace","path":"/r/a.py"}`), chat.ToolResult{ToolCallID: "1", Content: "edited"}, ResultEdit, false, true, "path: /r/a.py"},
		{"json", call("1", "mcp_tool", `{}`), chat.ToolResult{ToolCallID: "1", Content: `{"a":1}`}, ResultJSON, false, true, ""},
		{"failing test", call("1", "Bash", `{}`), chat.ToolResult{ToolCallID: "1", Content: "FAILED tests/test_a.py::test_x - Assert\n1 failed"}, ResultCommand, false, true, "failing: FAILED tests/test_a.py::test_x - Assert"},
		{"name from result", chat.ToolCall{}, chat.ToolResult{ToolCallID: "zz", ToolName: "Read", Content: "x"}, ResultFile, false, true, "1 lines"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := newTest(t, Options{})
			a.StartRound("")
			if tc.call.Name != "" {
				a.AddAction(tc.call)
			}
			o := a.Observe(tc.res)
			if o.ResultType != tc.want || o.IsError != tc.isErr || o.GotNewInfo != tc.newInfo {
				t.Errorf("got type %s err %v new %v, want %s %v %v", o.ResultType, o.IsError, o.GotNewInfo, tc.want, tc.isErr, tc.newInfo)
			}
			if tc.fact != "" && !contains(o.KeyFacts, tc.fact) {
				t.Errorf("key facts %q lack %q", o.KeyFacts, tc.fact)
			}
			// The same result again brings no new information.
			if again := a.Observe(tc.res); again.GotNewInfo {
				t.Errorf("repeated result reported as new")
			}
		})
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func TestFindings(t *testing.T) {
	t.Parallel()
	a := newTest(t, Options{})
	a.StartRound("")
	a.StartRound("")
	for _, f := range []Finding{
		{Finding: "low", Importance: 2},
		{Finding: "default"},
		{Finding: "critical", Evidence: "a.go:10", Importance: 42},
		{Finding: "neg", Importance: -3, Round: 1},
		{Finding: "  "},
		{Finding: "high", Importance: 8},
	} {
		a.AddFinding(f)
	}
	want := []Finding{
		{Finding: "critical", Evidence: "a.go:10", Importance: 10, Round: 2},
		{Finding: "high", Importance: 8, Round: 2},
	}
	if diff := cmp.Diff(want, a.HighPriority(0)); diff != "" {
		t.Errorf("HighPriority(0) (-want +got):\n%s", diff)
	}
	if got := len(a.HighPriority(1)); got != 5 {
		t.Errorf("HighPriority(1) = %d findings, want 5", got)
	}
	if got := a.State().Scratchpad[3]; got.Importance != 1 || got.Round != 1 {
		t.Errorf("clamped finding = %+v", got)
	}
	if got := a.State().Scratchpad[1].Importance; got != DefaultImportance {
		t.Errorf("default importance = %d", got)
	}
}

func TestLightweight(t *testing.T) {
	t.Parallel()
	a := newTest(t, Options{Lightweight: true})
	a.StartRound("look")
	a.AddAction(call("1", "Read", `{"file_path":"/a"}`))
	o := a.Observe(chat.ToolResult{ToolCallID: "1", Content: "text"})
	if o.Raw != "" || o.KeyFacts != nil || o.ResultType != ResultFile || o.Size != 4 {
		t.Errorf("lightweight observation = %+v", o)
	}
	if a.AddFinding(Finding{Finding: "x"}) {
		t.Errorf("lightweight AddFinding recorded a finding")
	}
	if !a.SetPlanFromText("1. a\n2. b") {
		t.Errorf("lightweight mode refused a plan")
	}
}

func TestObserveMessage(t *testing.T) {
	t.Parallel()
	a := newTest(t, Options{})
	msgs := []chat.Message{
		chat.NewText(chat.RoleUser, "please fix"),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "Plan:\n1. read foo.go\n2. fix bar"}, call("c1", "Read", `{"file_path":"foo.go"}`)}},
		chat.NewToolResult("c1", "", "package foo", false),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Thinking{Text: "hmm"}, call("c2", "Bash", `{"command":"go test"}`)}},
		chat.NewToolResult("c2", "", "FAIL", true),
		chat.NewText(chat.RoleAssistant, "Done:\n1. other\n2. list"),
	}
	for _, m := range msgs {
		a.ObserveMessage(m)
	}
	st := a.State()
	if len(st.Rounds) != 3 {
		t.Fatalf("rounds = %d, want 3", len(st.Rounds))
	}
	if st.Rounds[1].Thought != "hmm" || st.Rounds[1].Observations[0].Tool != "Bash" || !st.Rounds[1].Observations[0].IsError {
		t.Errorf("round 2 = %+v", st.Rounds[1])
	}
	if !st.Rounds[0].Observations[0].GotNewInfo || st.Rounds[0].Summary == nil || st.Rounds[0].Summary.NewInfoCount != 1 {
		t.Errorf("round 1 = %+v", st.Rounds[0])
	}
	p, ok := a.Plan()
	if !ok || p.Steps[0].Description != "read foo.go" {
		t.Errorf("plan = %+v (the later list must not replace it)", p)
	}
	s := a.Stats()
	want := Stats{TotalRounds: 3, ThoughtCount: 3, TotalActions: 2, TotalObservations: 2, NewInfoObservations: 1, ErrorObservations: 1, PlanVersions: 1, DurationMS: s.DurationMS}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
	rec := a.RecentSummary(2)
	if rec.RoundCount != 2 || rec.LastIteration != 3 || rec.NewInfoRatio != 0 || !strings.Contains(rec.String(), "Bash") {
		t.Errorf("RecentSummary(2) = %+v", rec)
	}
	r := a.Distill()
	if diff := cmp.Diff([]string{"foo.go"}, r.Files); diff != "" {
		t.Errorf("Distill files: %s", diff)
	}
	if len(r.Errors) != 1 || len(r.Rounds) != 3 || len(r.OpenSteps) != 2 {
		t.Errorf("Distill = %+v", r)
	}
}

func TestMarkStep(t *testing.T) {
	t.Parallel()
	a := newTest(t, Options{})
	if err := a.MarkStep(0, StepDone); !errors.Is(err, ErrNoStep) {
		t.Errorf("no plan: err = %v", err)
	}
	a.SetPlanFromText("1. a\n2. b")
	if err := a.MarkStep(1, StepDone); err != nil {
		t.Fatal(err)
	}
	if err := a.MarkStep(2, StepDone); !errors.Is(err, ErrNoStep) {
		t.Errorf("out of range: err = %v", err)
	}
	if err := a.MarkStep(0, "bogus"); !errors.Is(err, ErrInvalidStatus) {
		t.Errorf("bad status: err = %v", err)
	}
	p, _ := a.Plan()
	if p.Steps[1].Status != StepDone || p.Steps[0].Status != StepPending {
		t.Errorf("steps = %+v", p.Steps)
	}
	if r := a.Distill(); !cmp.Equal(r.DoneSteps, []string{"b"}) {
		t.Errorf("DoneSteps = %q", r.DoneSteps)
	}
}

// TestDistillFilesAfterRestore: the files Distill lists are the same
// whether the calls were read while observed (remembered) or are read
// again after a restore, and a call without a result is read too.
func TestDistillFilesAfterRestore(t *testing.T) {
	a := New("fix the parser", Options{Now: fixedClock()})
	a.ObserveMessage(chat.NewAssistant("look", call("1", "Read", `{"file_path":"/src/parse.go"}`), call("2", "Bash", `{"command":"cat go.mod && grep -n x util.go"}`)))
	a.ObserveMessage(chat.NewToolResult("1", "Read", "package parse\n", false))
	a.ObserveMessage(chat.NewToolResult("2", "Bash", "module m\n", false))
	a.ObserveMessage(chat.NewAssistant("edit", call("3", "Edit", `{"file_path":"/src/parse.go","old_string":"a","new_string":"b"}`), call("4", "Write", `{"file_path":"/src/new.go","content":"package parse"}`)))
	a.ObserveMessage(chat.NewToolResult("3", "Edit", "ok", false))
	live := a.Distill().Files
	want := []string{"/src/parse.go", "go.mod", "util.go", "/src/new.go"}
	if !slices.Equal(live, want) {
		t.Fatalf("Distill().Files = %q, want %q", live, want)
	}
	data, err := a.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	b, err := FromJSON(data, Options{Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Distill().Files; !slices.Equal(got, live) {
		t.Errorf("restored Distill().Files = %q, want %q", got, live)
	}
}
