package session_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/window"
	"github.com/google/go-cmp/cmp"
)

// The full output of a tool result that the limiter cut is kept in the
// session for retrieval, while the window (and so the resumed window)
// holds the cut result.
func TestToolOutputKept(t *testing.T) {
	t.Parallel()
	st := newMemStore()
	id := newSession(t, st)
	rec := session.NewRecorder(st, id)
	full := chat.ToolResult{ToolCallID: "c1", ToolName: "Bash", Content: strings.Repeat("línea de salida\n", 500)}
	failed := chat.ToolResult{ToolCallID: "c2", ToolName: "Bash", Content: "boom\n" + strings.Repeat("x", 5000), IsError: true}
	cut := chat.NewToolResult("c1", "Bash", "línea de salida\n…[agentctx: cut]", false)
	cut2 := chat.NewToolResult("c2", "Bash", "boom …[agentctx: cut]", true)
	msgs := []chat.Message{user("run it"), call("c1", "Bash", `{"command":"make"}`)}
	w, err := window.New(window.Options{})
	if err != nil {
		t.Fatal(err)
	}
	add := func(ms ...chat.Message) {
		for _, m := range ms {
			if err := w.Add(m); err != nil {
				t.Fatal(err)
			}
		}
		if err := rec.Add(t.Context(), ms...); err != nil {
			t.Fatal(err)
		}
	}
	add(msgs...)
	if err := rec.AddToolOutput(t.Context(), full); err != nil {
		t.Fatal(err)
	}
	add(cut, call("c2", "Bash", `{"command":"make test"}`))
	if err := rec.AddToolOutput(t.Context(), failed); err != nil {
		t.Fatal(err)
	}
	add(cut2)

	tr, err := st.Load(t.Context(), id, session.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []chat.ToolResult{full, failed} {
		got, ok := session.ToolOutput(tr.Entries, want.ToolCallID)
		if !ok || !cmp.Equal(got, want) {
			t.Errorf("ToolOutput(%s) = %+v, %v; want the full result", want.ToolCallID, got, ok)
		}
	}
	if _, ok := session.ToolOutput(tr.Entries, "nope"); ok {
		t.Error("ToolOutput found an output for an unknown call")
	}
	if d := diffWindows(restored(t, st, id, window.Options{}), w); d != "" {
		t.Errorf("restored window differs:\n%s", d)
	}
	es, ps := read(t, "s.jsonl", st.data(id))
	if rep := session.Check(es, ps); !rep.OK() || rep.Foreign != 0 || rep.Messages != 5 {
		t.Errorf("Check = %+v; want OK, no foreign entries, 5 messages", rep)
	}
	if !bytes.Contains(st.data(id), []byte(`"type":"agentctx_tool_output"`)) {
		t.Error("no agentctx_tool_output line in the transcript")
	}
	if _, err := session.NewToolOutputEntry(chat.ToolResult{}); err == nil {
		t.Error("NewToolOutputEntry accepted a result without a call id")
	}
}
