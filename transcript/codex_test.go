package transcript_test

import (
	"fmt"
	"testing"

	"github.com/agentctx/agentctx/transcript"
	"github.com/google/go-cmp/cmp"
)

func cxItem(payload string) string {
	return `{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":` + payload + `}`
}

func cxTokens(in, cached, out, reasoning, totalIn int) string {
	last := fmt.Sprintf(`{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":%d,"total_tokens":%d}`, in, cached, out, reasoning, in+out)
	total := fmt.Sprintf(`{"input_tokens":%d,"cached_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0,"total_tokens":%d}`, totalIn, totalIn)
	return `{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":` + total + `,"last_token_usage":` + last + `,"model_context_window":258400},"rate_limits":{}}}`
}

const (
	cxMeta = `{"timestamp":"t","type":"session_meta","payload":{"id":"sess-1","cwd":"/x","cli_version":"0.104.0"}}`
	// cxMetaInstr is a session header with the system prompt Codex sends
	// as the request's instructions (codex-rs/protocol SessionMeta
	// base_instructions), and cxMetaOld the earlier field.
	cxMetaInstr = `{"timestamp":"t","type":"session_meta","payload":{"id":"sess-2","cwd":"/x","cli_version":"0.169.0","base_instructions":{"text":"You are Codex, a coding agent."}}}`
	cxMetaOld   = `{"timestamp":"t","type":"session_meta","payload":{"id":"sess-3","cwd":"/x","cli_version":"0.30.0","instructions":"You are Codex (old)."}}`
	cxTurn      = `{"timestamp":"t","type":"turn_context","payload":{"cwd":"/x","model":"gpt-5.3-codex"}}`
	cxNullTok   = `{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{}}}`
	cxZeroTok   = `{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":0,"cached_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0,"total_tokens":0},"last_token_usage":{"input_tokens":0,"cached_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0,"total_tokens":0},"model_context_window":940499}}}`
)

func TestReadCodex(t *testing.T) {
	t.Parallel()
	runCases(t, transcript.FormatCodex, []readCase{
		{
			name: "grouping of reasoning, text and calls; usage once per call",
			input: lines(
				cxMeta,
				cxItem(`{"type":"message","role":"developer","content":[{"type":"input_text","text":"rules"}]}`),
				cxItem(`{"type":"message","role":"user","content":[{"type":"input_text","text":"fix"},{"type":"input_text","text":"it"}]}`),
				cxTurn,
				cxNullTok,
				`{"timestamp":"t","type":"event_msg","payload":{"type":"agent_reasoning","text":"dup"}}`,
				cxItem(`{"type":"reasoning","summary":[{"type":"summary_text","text":"plan"}],"content":null,"encrypted_content":"ENC"}`),
				cxItem(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Looking"}],"phase":"commentary"}`),
				cxItem(`{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c1"}`),
				cxItem(`{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"pwd\"}","call_id":"c2"}`),
				cxTokens(1000, 800, 50, 20, 1000),
				cxItem(`{"type":"function_call_output","call_id":"c1","output":"a b"}`),
				cxItem(`{"type":"function_call_output","call_id":"c2","output":"/x"}`),
				cxTurn,
				cxTokens(1000, 800, 50, 20, 1000),
				cxItem(`{"type":"reasoning","summary":[],"content":null,"encrypted_content":"E2"}`),
				cxItem(`{"type":"custom_tool_call","status":"completed","call_id":"c3","name":"apply_patch","input":"*** Begin Patch"}`),
				cxTokens(2000, 1500, 10, 0, 3000),
				cxItem(`{"type":"custom_tool_call_output","call_id":"c3","output":{"content":"failed","success":false}}`),
				cxItem(`{"type":"function_call","name":"exec_command","arguments":"[REDACTED_ARGUMENTS len=4]","call_id":"c4"}`),
				cxItem(`{"type":"function_call_output","call_id":"c4","output":[{"type":"input_text","text":"out"},{"type":"input_image","image_url":"data:image/png;base64,AAAA"}]}`),
				cxItem(`{"type":"web_search_call","status":"completed","action":{"type":"search","query":"go"}}`),
				cxItem(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done"}],"phase":"final_answer"}`),
				cxZeroTok,
				cxTokens(2100, 0, 5, 0, 5100),
			),
			want: []string{
				`system text="rules"`,
				`user text="fix\nit"`,
				`assistant think="plan"/enc=ENC text="Looking" call=c1/exec_command{"cmd":"ls"} call=c2/exec_command{"cmd":"pwd"} usage=in200/out50/cr800/cw0/r20`,
				`tool result=c1/exec_command="a b"`,
				`tool result=c2/exec_command="/x"`,
				`assistant think=""/enc=E2 call=c3/apply_patch{"input":"*** Begin Patch"} usage=in500/out10/cr1500/cw0/r0`,
				`tool result=c3/apply_patch="failed"!`,
				`assistant call=c4/exec_command"[REDACTED_ARGUMENTS len=4]"`,
				`tool result=c4/exec_command="out\n[image: image/png]"`,
				`assistant opaque=web_search_call/{"type":"web_search_call","action":{"type":"search","query":"go"}}go text="Done" usage=in2100/out5/cr0/cw0/r0`,
			},
		},
		{
			name: "output for an unknown call becomes user text",
			input: lines(
				cxItem(`{"type":"function_call_output","call_id":"zz","output":"lost"}`),
			),
			want: []string{`user text="lost"`},
		},
	})
}

func TestReadCodexHeaderAndCompaction(t *testing.T) {
	t.Parallel()
	input := lines(
		cxMeta,
		cxTurn,
		cxItem(`{"type":"message","role":"user","content":[{"type":"input_text","text":"one"}]}`),
		cxItem(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}`),
		`{"timestamp":"t","type":"compacted","payload":{"message":"summary text","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"one"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"summary text"}]}]}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"context_compacted"}}`,
		cxItem(`{"type":"message","role":"user","content":[{"type":"input_text","text":"two"}]}`),
		`{"timestamp":"t","type":"event_msg","payload":{"type":"context_compacted"}}`,
		`{"timestamp":"t","type":"compacted","payload":{"message":"","replacement_history":[]}}`,
	)
	tr := readOne(t, transcript.FormatCodex, input)
	if tr.ID != "sess-1" || tr.Model != "gpt-5.3-codex" {
		t.Errorf("ID, Model = %q, %q", tr.ID, tr.Model)
	}
	if len(tr.Compactions) != 2 {
		t.Fatalf("got %d compactions, want 2 (each marked twice)", len(tr.Compactions))
	}
	c := tr.Compactions[0]
	if c.At != 2 || c.Summary != "summary text" {
		t.Errorf("compaction 0 = at %d summary %q, want at 2 summary %q", c.At, c.Summary, "summary text")
	}
	if diff := cmp.Diff([]string{`user text="one"`, `user text="summary text"`}, render(c.Replacement)); diff != "" {
		t.Errorf("replacement (-want +got):\n%s", diff)
	}
	if c := tr.Compactions[1]; c.At != 3 || c.Replacement == nil || len(c.Replacement) != 0 {
		t.Errorf("compaction 1 = %+v, want at 3 with an empty replacement", c)
	}
	if tr.Messages[1].Model != "gpt-5.3-codex" {
		t.Errorf("assistant model = %q", tr.Messages[1].Model)
	}
}

// TestCurrentAgentRecordsNotDropped: what Codex CLI 0.169 and Claude Code
// 2.1.3xx record beside the conversation (the tool list item, undo
// snapshots, the request blobs and shapes) is not conversation the reader
// failed to map: nothing is counted dropped.
func TestCurrentAgentRecordsNotDropped(t *testing.T) {
	t.Parallel()
	codex := lines(cxMeta,
		cxItem(`{"type":"additional_tools","role":"developer","tools":[{"type":"namespace","name":"functions","tools":[]}]}`),
		cxItem(`{"type":"message","role":"user","content":[{"type":"input_text","text":"fix"}]}`),
		cxItem(`{"type":"ghost_snapshot","ghost_commit":{"id":"abc","parent":null}}`),
		cxItem(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done"}]}`))
	claude := lines(
		`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-11-27T00:00:00Z","message":{"role":"user","content":"fix"}}`,
		`{"type":"api-request-shape","uuid":"r1","sessionId":"s","timestamp":"2026-11-27T00:00:01Z","system":[{"type":"text","text":"You are Claude Code."}],"tools":[]}`,
		`{"type":"api-request-blob","uuid":"r2","sessionId":"s","timestamp":"2026-11-27T00:00:01Z","blob":"eJzL"}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2026-11-27T00:00:02Z","message":{"id":"m1","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"Done"}],"usage":{"input_tokens":10,"output_tokens":2}}}`)
	for _, c := range []struct {
		f     transcript.Format
		input string
		msgs  int // the request shape's system prompt is one
	}{{transcript.FormatCodex, codex, 2}, {transcript.FormatClaudeCode, claude, 3}} {
		tr := readOne(t, c.f, c.input)
		if len(tr.Dropped) > 0 || len(tr.Messages) != c.msgs {
			t.Errorf("%s: dropped %v, %d messages", c.f, tr.Dropped, len(tr.Messages))
		}
	}
}

// TestReadCodexIssue28: the session header's system prompt is the first
// message (the first call is counted with it, as the provider counted
// it), and a web_search_call is part of the response that ran it, not a
// tool call left without a result (issue 28: replay answered it as
// interrupted).
func TestReadCodexIssue28(t *testing.T) {
	t.Parallel()
	body := []string{
		cxItem(`{"type":"message","role":"user","content":[{"type":"input_text","text":"news?"}]}`),
		cxItem(`{"type":"reasoning","summary":[],"content":null,"encrypted_content":"E"}`),
		cxItem(`{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"go 1.26"}}`),
		cxItem(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Go 1.26 is out."}]}`),
		cxTokens(500, 0, 20, 0, 500),
	}
	for _, tc := range []struct{ meta, system string }{
		{cxMetaInstr, "You are Codex, a coding agent."},
		{cxMetaOld, "You are Codex (old)."},
	} {
		tr := readOne(t, transcript.FormatCodex, lines(append([]string{tc.meta}, body...)...))
		want := []string{
			`system text="` + tc.system + `"`,
			`user text="news?"`,
			`assistant think=""/enc=E opaque=web_search_call/{"type":"web_search_call","id":"ws_1","action":{"type":"search","query":"go 1.26"}}go 1.26 text="Go 1.26 is out." usage=in500/out20/cr0/cw0/r0`,
		}
		if diff := cmp.Diff(want, render(tr.Messages)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
}
