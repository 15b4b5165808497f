package eval

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/tooluse"
	"github.com/agentctx/agentctx/transcript"
)

func msg(role chat.Role, s string) chat.Message {
	return chat.Message{Role: role, Parts: []chat.Part{chat.Text{Text: s}}}
}

func callMsg(id, name string, args any, say string) chat.Message {
	b, _ := json.Marshal(args)
	m := chat.Message{Role: chat.RoleAssistant}
	if say != "" {
		m.Parts = append(m.Parts, chat.Text{Text: say})
	}
	m.Parts = append(m.Parts, chat.ToolCall{ID: id, Name: name, Arguments: b})
	return m
}

func result(id, content string) chat.Message {
	return chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.ToolResult{ToolCallID: id, Content: content}}}
}

func request(msgs ...chat.Message) *agentctx.Request {
	return &agentctx.Request{Request: &prompt.Request{Request: provider.Request{Messages: msgs}, Tokens: 100}}
}

// known is a hand-made trajectory whose right answer is known: the agent
// reads lines 81-82 of session.ex (Claude Code Read, "    81→"
// prefixes), then edits them and names `Ash.read_one`, `Ash.read` (never
// in its history: Ash.read_one is not Ash.read), the file of the first
// user message (every strategy keeps it) and the path it read (only in
// its own earlier call).
var known = []chat.Message{
	msg(chat.RoleSystem, "You are a coding agent."),
	msg(chat.RoleUser, "Fix the bug in lib/app.ex. Never touch config/prod.exs again."),
	callMsg("r1", "Read", map[string]any{"file_path": "/repo/lib/spotter/session.ex", "offset": 81}, ""),
	result("r1", "    81→  def load do\n    82→    Ash.read_one(query)\n    83→  end\n"),
	callMsg("e1", "Edit", map[string]any{"file_path": "/repo/lib/spotter/session.ex",
		"old_string": "  def load do\n    Ash.read_one(query)", "new_string": "  def load do\n    Ash.read(query)"},
		"I will replace `Ash.read_one` with `Ash.read` in lib/app.ex."),
}

func TestMeterKnown(t *testing.T) {
	t.Parallel()
	cut := result("r1", "[output cut: recall_output call_id r1]")
	cases := []struct {
		name string
		req  *agentctx.Request
		want Call
	}{
		{"everything kept", request(known[:4]...), Call{Message: 4, Tokens: 100, Refs: 2, Present: 2, Latest: 2, LatestPresent: 2,
			Kinds: kinds(map[tooluse.RefKind][2]int{tooluse.RefEdit: {1, 1}, tooluse.RefSymbol: {1, 1}}), Instructions: 1, InstructionsPresent: 1}},
		{"the read cut", request(known[0], known[1], known[2], cut), Call{Message: 4, Tokens: 100, Refs: 2, Recoverable: 2, Latest: 2,
			Kinds: kinds(map[tooluse.RefKind][2]int{tooluse.RefEdit: {1, 0}, tooluse.RefSymbol: {1, 0}}), Instructions: 1, InstructionsPresent: 1,
			Missing: []string{"symbol: Ash.read_one", "edit:   def load do\n    Ash.read_one(query)"}}},
		{"summarized away", request(known[0], msg(chat.RoleUser, "Summary: the agent read session.ex.")), Call{Message: 4, Tokens: 100, Refs: 2, Latest: 2,
			Kinds: kinds(map[tooluse.RefKind][2]int{tooluse.RefEdit: {1, 0}, tooluse.RefSymbol: {1, 0}}), Instructions: 1,
			Missing: []string{"symbol: Ash.read_one", "edit:   def load do\n    Ash.read_one(query)"}}},
	}
	for _, c := range cases {
		m := newMeter(known)
		m.call(4, c.req, nil)
		if diff := cmp.Diff(c.want, m.calls[4]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

func kinds(m map[tooluse.RefKind][2]int) [6][2]int {
	var k [6][2]int
	for kind, v := range m {
		k[kind] = v
	}
	return k
}

// TestMeterSpans checks that a summarized span a recall can open makes a
// reference recoverable.
func TestMeterSpans(t *testing.T) {
	t.Parallel()
	m := newMeter(known)
	m.call(4, request(known[0], known[1]), []string{known[3].Parts[0].(chat.ToolResult).Content})
	if c := m.calls[4]; c.Recoverable != 2 || c.Present != 0 {
		t.Errorf("with the span: present %d, recoverable %d; want 0 and 2", c.Present, c.Recoverable)
	}
}

// TestMeterOlder checks the latest round apart from older history, and
// the line reference.
func TestMeterOlder(t *testing.T) {
	t.Parallel()
	msgs := append(append([]chat.Message{}, known[:4]...),
		callMsg("b1", "Bash", map[string]any{"command": "ls"}, ""),
		result("b1", "mix.exs\nlib\n"),
		callMsg("r2", "Read", map[string]any{"file_path": "/repo/lib/spotter/session.ex", "offset": 82}, "Line 82 of `Ash.read_one`."))
	m := newMeter(msgs)
	m.call(6, request(msgs[:6]...), nil)
	c := m.calls[6]
	// Ash.read_one and line 82 were last seen in message 3, before the
	// previous call (message 4): older history. The path was only in the
	// agent's own calls.
	if c.Refs != 2 || c.Latest != 0 || c.Present != 2 || c.Kinds[tooluse.RefLine] != [2]int{1, 1} {
		t.Errorf("got %+v; want 2 older references (a symbol, a line), both present", c)
	}
}

func TestRunNone(t *testing.T) {
	t.Parallel()
	msgs := append([]chat.Message{}, known[:4]...)
	// Enough history to exceed a small budget: filler rounds.
	for i := range 6 {
		id := "f" + string(rune('a'+i))
		msgs = append(msgs, callMsg(id, "Bash", map[string]any{"command": "cat notes.txt"}, ""),
			result(id, strings.Repeat("filler words to grow the history ", 60)))
	}
	msgs = append(msgs, known[4], result("e1", "ok"), msg(chat.RoleAssistant, "Done."))
	tr := &transcript.Trajectory{File: "known.jsonl", Model: "gpt-4o", Messages: msgs}
	for _, name := range []string{"none", "tiered"} {
		s, err := compact.Build(name, nil, compact.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out, err := Run(t.Context(), tr, Options{Replay: replay.Options{Budget: 1200, Strategy: s}})
		if err != nil {
			t.Fatal(err)
		}
		var edit *Call
		for i := range out.Calls {
			if out.Calls[i].Message == 16 {
				edit = &out.Calls[i]
			}
		}
		if edit == nil {
			t.Fatalf("%s: the edit's call was not measured: %+v", name, out.Calls)
		}
		if edit.Refs != 2 {
			t.Errorf("%s: %d references, want 2 (whatever the strategy)", name, edit.Refs)
		}
		if name == "none" && (edit.Present != 2 || edit.Kinds[tooluse.RefEdit] != [2]int{1, 1}) {
			t.Errorf("none keeps everything: got %+v", edit)
		}
		if out.Result.Steps != nil || out.Result.Window != nil {
			t.Error("Run kept the replay's steps or window")
		}
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	a := &Trajectory{Result: &replay.Result{ModelCalls: 2, PromptTokens: 300, CacheReadTokens: 100,
		Cost: &replay.Cost{USD: 0.5, UncompactedUSD: 0.75}}, Calls: []Call{
		{Refs: 2, Present: 2, Instructions: 1, InstructionsPresent: 1}, {Refs: 4, Present: 1},
	}}
	b := &Trajectory{Result: &replay.Result{ModelCalls: 1, PromptTokens: 100, CallsOverBudget: 1,
		Compactions: map[string]int{"L1": 2}, Summaries: []compact.Record{{SummaryTokens: 40}}}, Calls: []Call{{Refs: 1, Present: 0}}}
	s := Summarize(8000, "tiered", []*Trajectory{a, b, nil})
	// a: (1 + 0.25) / 2 = 0.625; b: 0; mean of trajectories 0.3125.
	if got := *s.NextActionSupport; math.Abs(got-0.3125) > 1e-9 {
		t.Errorf("support %v, want 0.3125 (the mean of the trajectories' means)", got)
	}
	if s.TokensSent != 400.0/3 || s.CacheReuse != 0.25 || s.Compactions != 2 || s.SummaryCalls != 1 || s.SummaryTokens != 40 || s.CallsOverBudget != 1 {
		t.Errorf("totals: %+v", s)
	}
	// Only a has a price: b's model has none and adds no cost.
	if s.Priced != 1 || s.CostUSD == nil || *s.CostUSD != 0.5 || *s.UncompactedCostUSD != 0.75 {
		t.Errorf("cost: %d priced, %v with compaction, %v without", s.Priced, s.CostUSD, s.UncompactedCostUSD)
	}
	if n := Summarize(8000, "tiered", []*Trajectory{b}); n.CostUSD != nil || n.UncompactedCostUSD != nil {
		t.Errorf("no price: cost %v, %v; want null", n.CostUSD, n.UncompactedCostUSD)
	}
	if s.EditSupport != nil || *s.InstructionSurvival != 1 {
		t.Errorf("edit support %v (want null: no edit), instruction survival %v (want 1)", s.EditSupport, *s.InstructionSurvival)
	}
	if s.NextActionCI == nil || s.NextActionCI[0] > 0.3125 || s.NextActionCI[1] < 0.3125 {
		t.Errorf("CI %v does not hold the mean", s.NextActionCI)
	}
}

func TestBootstrap(t *testing.T) {
	t.Parallel()
	xs := []float64{0.2, 0.9, 0.5, 0.7, 0.4}
	lo, hi := Bootstrap(xs, 1000, 1)
	lo2, hi2 := Bootstrap(xs, 1000, 1)
	if lo != lo2 || hi != hi2 {
		t.Errorf("not deterministic: [%v %v] then [%v %v]", lo, hi, lo2, hi2)
	}
	if lo >= 0.54 || hi <= 0.54 || lo < 0.2 || hi > 0.9 {
		t.Errorf("[%v, %v] should hold the mean 0.54 within the data's range", lo, hi)
	}
	if lo, hi := Bootstrap([]float64{0.3}, 1000, 1); lo != 0.3 || hi != 0.3 {
		t.Errorf("one value: [%v, %v]", lo, hi)
	}
	if lo, hi := Bootstrap(nil, 1000, 1); lo != 0 || hi != 0 {
		t.Errorf("none: [%v, %v]", lo, hi)
	}
}
