package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider/providertest"
)

func TestMCPToolName(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		wire         Wire
		server, tool string
		want         string
	}{
		{WireAnthropic, "agentctx", "recall_output", "mcp__agentctx__recall_output"},
		{WireResponses, "agentctx", "recall_output", "mcp__agentctx__recall_output"},
		{WireOpenAI, "ctx-2", "context", "mcp__ctx-2__context"},
		{WireGemini, "agentctx", "recall_output", "mcp_agentctx_recall_output"},
		{WireGemini, "my server", "recall_output", "mcp_my_server_recall_output"},
		{WireAnthropic, "", "recall_output", ""},
	} {
		if got := MCPToolName(c.wire, c.server, c.tool); got != c.want {
			t.Errorf("MCPToolName(%s, %q, %q) = %q, want %q", c.wire, c.server, c.tool, got, c.want)
		}
	}
}

// TestCutNoteNamesMCPTool: behind a proxy given MCPServer, or serving an
// agent that declares agentctx mcp's recall_output, a tool result the
// proxy cuts carries a note that names that tool, as the agent sees it,
// with the call id.
func TestCutNoteNamesMCPTool(t *testing.T) {
	var big strings.Builder
	for i := 0; big.Len() < 200_000; i++ {
		fmt.Fprintf(&big, "line %d of the test log: ok pkg/mod%d 0.%03ds\n", i, i%31, i%1000)
	}
	msgs := []chat.Message{
		chat.NewText(chat.RoleUser, "Run the tests."),
		chat.NewAssistant("Running them.", chat.ToolCall{ID: "toolu_run1", Name: "run_command", Arguments: json.RawMessage(`{"command":"go test ./..."}`)}),
		chat.NewToolResult("toolu_run1", "run_command", big.String(), false),
	}
	declared := append(testTools(), chat.ToolDef{Name: "mcp__ctx__recall_output", Description: "Read back a cut output.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"call_id":{"type":"string"}}}`)})
	for name, c := range map[string]struct {
		opts  Options
		tools []chat.ToolDef
		want  string
	}{
		"flag":     {Options{Budget: 6000, MCPServer: "agentctx"}, testTools(), `call mcp__agentctx__recall_output with call_id=\"toolu_run1\"`},
		"declared": {Options{Budget: 6000}, declared, `call mcp__ctx__recall_output with call_id=\"toolu_run1\"`},
		"none":     {Options{Budget: 6000}, testTools(), `run the command again with a filter`},
	} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, providertest.WireAnthropic, providertest.Options{}, c.opts)
			if status, answer := r.post(t, providertest.WireAnthropic, agentBody(t, providertest.WireAnthropic, systemPrompt, c.tools, msgs, false), nil); status != 200 {
				t.Fatalf("status %d: %s", status, answer)
			}
			reqs := r.up.Requests()
			body := reqs[len(reqs)-1].Body
			if bytes.Contains(body, []byte(big.String()[150_000:150_200])) {
				t.Fatal("the 200 kB tool result was not cut")
			}
			if !bytes.Contains(body, []byte(c.want)) {
				i := bytes.Index(body, []byte("[agentctx:"))
				t.Errorf("the cut note does not say %s: %.300s", c.want, body[max(i, 0):])
			}
		})
	}
}
