package transcript_test

import (
	"strings"
	"testing"

	"github.com/agentctx/agentctx/transcript"
	"github.com/google/go-cmp/cmp"
)

// TestOnePassEdgeCases holds the inputs where decoding nested values in
// the pass that decodes their line (rather than keeping them as raw
// bytes and decoding them again) could change what is read: a key given
// twice (the later value replaces the earlier whole, as it replaces raw
// bytes), array items that are not objects (strings are text, null is
// dropped), values of an unexpected type (skipped, the rest kept).
func TestOnePassEdgeCases(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		format   transcript.Format
		want     []string
	}{
		{"codex payload given twice", lines(
			`{"type":"session_meta","pAYloAd":{"id":"a","git":{"branch":"b"}},"payload":{"id":"s"}}`,
			`{"type":"response_item","payload":{"type":"message","role":"user","content":[null,"s",{"type":"input_text","text":"t"}]}}`,
		), transcript.FormatCodex, []string{`user text="s\nt"`}},
		{"codex replacement history", lines(
			`{"type":"session_meta","payload":{"id":"s"}}`,
			`{"type":"response_item","payload":{"type":"message","role":"user","content":"u"}}`,
			`{"type":"compacted","payload":{"message":"m","replacement_history":[null,"x",{"type":"message","role":"user","content":"r","id":5}]}}`,
		), transcript.FormatCodex, []string{`user text="u"`}},
		{"claude code content given twice", lines(
			`{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"old"}],"content":[null,"a",{"type":"text","text":5},{"type":"text","text":"b","extra":true}]}}`,
		), transcript.FormatClaudeCode, []string{`user text="a" text="5" text="b"`}},
		{"claude code tool result of an unexpected type", lines(
			`{"type":"assistant","uuid":"a","sessionId":"s","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t","name":"B","input":{}}]}}`,
			`{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"r"}],"is_error":"yes"}]}}`,
		), transcript.FormatClaudeCode, []string{`assistant call=t/B{}`, `tool result=t/B="r"`}},
		{"openhands history given twice, with pairs", lines(
			`{"instance_id":"i","history":[{"action":"message","args":{"content":"old"},"source":"user"}],"history":[[{"action":"message","args":{"content":"a"},"source":"user"},null],null,{"action":"message","args":{"content":"b"},"source":"agent"}]}`,
		), transcript.FormatOpenHands, []string{`user text="a"`, `assistant text="b"`}},
		{"mini-swe-agent messages given twice", `{"trajectory_format":"mini-swe-agent-1.1","messages":[{"role":"user","content":"old","extra":{}}],"messages":[{"role":"user","content":"new"},null,{"role":"assistant","content":"x","tool_calls":5}]}`,
			transcript.FormatMiniSWEAgent, []string{`user text="new"`, `assistant text="x"`}},
		{"swe-agent history given twice", `{"history":[{"role":"user","content":"old"}],"history":[{"role":"user","content":"new"},"x",{"role":"assistant","content":"y","thought":5}]}`,
			transcript.FormatSWEAgent, []string{`user text="new"`, "user", `assistant text="y"`}}, // an item that is not an object is an empty message, as ever
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			trs, err := transcript.Read(strings.NewReader(c.in), "in", transcript.Options{Format: c.format})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, render(trs[0].Messages)); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			if c.name == "codex payload given twice" && (trs[0].GitBranch != "" || trs[0].ID != "s") {
				t.Errorf("id %q, branch %q: want the later payload's (s, no branch)", trs[0].ID, trs[0].GitBranch)
			}
		})
	}
}
