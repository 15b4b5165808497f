package workmem

import (
	"errors"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/google/go-cmp/cmp"
)

func roundTrip(t *testing.T, a *ActiveContext) {
	t.Helper()
	data, err := a.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	b, err := FromJSON(data, Options{})
	if err != nil {
		t.Fatalf("FromJSON: %v", err)
	}
	if diff := cmp.Diff(a.State(), b.State()); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	a := newTest(t, Options{RecentRounds: 1})
	a.StartRound("think <html> & \xff bad utf8")
	a.AddAction(call("1", "Bash", "{ \"command\" : \"echo <x> && ls\" }"))
	a.AddAction(call("2", "Weird", "not json \xfe"))
	a.Observe(chat.ToolResult{ToolCallID: "1", Content: "out\xff\n", IsError: true})
	a.EndRound("reflect")
	a.SetPlanFromText("1. a\n2. b")
	a.ExpectPlan()
	a.SetPlanFromText("1. c\n2. d")
	_ = a.MarkStep(1, StepInProgress)
	a.ExpectPlan()
	a.AddFinding(Finding{Finding: "f", Evidence: "e:1", Importance: 9})
	a.StartRound("open round")
	a.AddAction(call("3", "Read", `{"file_path":"x"}`))
	roundTrip(t, a)
	roundTrip(t, New("", Options{}))

	// The restored memory keeps working: repeated results are not new.
	data, _ := a.ToJSON()
	b, _ := FromJSON(data, Options{})
	if o := b.Observe(chat.ToolResult{ToolCallID: "3", Content: "x"}); o.Tool != "Read" {
		t.Errorf("open round's action lost: %+v", o)
	}
}

func TestFromJSONErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, data string }{
		{"syntax", `{"version":1,`},
		{"not object", `[1]`},
		{"trailing", `{"version":1} {}`},
		{"version", `{"version":2}`},
		{"importance", `{"version":1,"scratchpad":[{"finding":"x","importance":11}]}`},
		{"iteration", `{"version":1,"rounds":[{"iteration":2,"start":"2025-01-01T00:00:00Z"}]}`},
		{"open not last", `{"version":1,"rounds":[{"iteration":1},{"iteration":2}]}`},
		{"status", `{"version":1,"plan":{"steps":[{"description":"a","status":"maybe"}]}}`},
		{"result type", `{"version":1,"rounds":[{"iteration":1,"observations":[{"tool":"x","result_type":"?"}]}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := FromJSON([]byte(tc.data), Options{}); !errors.Is(err, ErrInvalidState) {
				t.Errorf("err = %v, want ErrInvalidState", err)
			}
		})
	}
}
