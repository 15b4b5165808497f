package transcript_test

import (
	"strings"
	"testing"

	"github.com/agentctx/agentctx/transcript"
	"github.com/google/go-cmp/cmp"
)

// TestOnePassEdgeCases holds the inputs where decoding nested values in
// the pass that decodes their line (rather than keeping them as raw
// bytes and decoding them again), or keeping them raw to decode later,
// could change what is read: a key given twice (the later value replaces
// the earlier whole, as it replaces raw bytes; mini-swe-agent's
// extra.actions, kept raw now, is decoded into the earlier as it always
// was), array items that are not objects (strings are text, null is
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
		{"mini-swe-agent actions given twice, the later decoded into the earlier", `{"trajectory_format":"mini-swe-agent-1.1","messages":[{"role":"assistant","content":"t","extra":{"actions":[{"command":"a"},{"command":"b"}],"Actions":[{"cmd":1}]}},{"role":"user","content":"r"}]}`,
			transcript.FormatMiniSWEAgent, []string{`assistant text="t" call=swe-0/bash{"command":"a"}`, `tool result=swe-0/bash="r"`}},
		{"mini-swe-agent actions of an unexpected type", `{"trajectory_format":"mini-swe-agent-1.1","messages":[{"role":"assistant","content":"t","extra":{"actions":[5,{"command":7},{"command":"c"}]}},{"role":"user","content":"r"},{"role":"user","content":"s"},{"role":"user","content":"u"}]}`,
			transcript.FormatMiniSWEAgent, []string{`assistant text="t" call=swe-0-0/bash{"command":""} call=swe-0-1/bash{"command":""} call=swe-0-2/bash{"command":"c"}`, `tool result=swe-0-0/bash="r"`, `tool result=swe-0-1/bash="s"`, `tool result=swe-0-2/bash="u"`}},
		{"mini-swe-agent usage given twice, then null", `{"trajectory_format":"mini-swe-agent-1.1","messages":[{"role":"user","content":"u"},{"role":"assistant","content":"a","extra":{"response":{"id":"r","usage":{"prompt_tokens":9},"usage":null}}},{"role":"assistant","content":"b","extra":{"response":{"usage":{"prompt_tokens":"7","completion_tokens":[1]}}}}]}`,
			transcript.FormatMiniSWEAgent, []string{`user text="u"`, `assistant text="a"`, `assistant text="b" usage=in7/out0/cr0/cw0/r0`}},
		{"mini-swe-agent role and returncode of unexpected types", `{"trajectory_format":"mini-swe-agent-1.1","messages":[{"role":"assistant","content":"a","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","role":5,"tool_call_id":"c","content":"r","extra":{"returncode":1,"returncode":null}},{"role":"\u0075ser","content":"u","extra":{"returncode":"2"}}]}`,
			transcript.FormatMiniSWEAgent, []string{`assistant text="a" call=c/f{}`, `tool result=c/f="r"`, `user text="u"`}},
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
