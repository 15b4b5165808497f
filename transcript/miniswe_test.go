package transcript_test

import (
	"testing"

	"github.com/agentctx/agentctx/chat"

	"github.com/agentctx/agentctx/transcript"
)

const fence = "```"

func TestReadMiniSWEAgent(t *testing.T) {
	t.Parallel()
	runCases(t, transcript.FormatMiniSWEAgent, []readCase{
		{
			name: "v2 tool calls, usage, exit record",
			input: `{"info":{"config":{"model":{"model_name":"deepseek/deepseek-chat"}},"mini_version":"2.2.7"},
 "messages":[
  {"role":"system","content":"You are a helpful assistant"},
  {"role":"user","content":"<pr_description>…"},
  {"content":"I'll start","role":"assistant","reasoning_content":"think first",
   "tool_calls":[{"index":0,"function":{"arguments":"{\"command\": \"ls\"}","name":"bash"},"id":"call_00_A","type":"function"}],
   "function_call":null,"provider_specific_fields":null,
   "extra":{"actions":[{"command":"ls","tool_call_id":"call_00_A"}],"response":{"id":"r1","model":"deepseek-chat","usage":{"completion_tokens":94,"prompt_tokens":1636,"total_tokens":1730,"prompt_tokens_details":{"cached_tokens":320}}},"cost":0.0004}},
  {"content":"<returncode>2</returncode>\n<output>\nno such file</output>","extra":{"raw_output":"no such file","returncode":2},"tool_call_id":"call_00_A","role":"tool"},
  {"role":"user","content":"Tool call error: …","extra":{"interrupt_type":"FormatError"}},
  {"content":"submit","role":"assistant","tool_calls":[{"index":0,"function":{"arguments":"{\"command\": \"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\"}","name":"bash"},"id":"call_01_B","type":"function"}],"extra":{"response":{"usage":{"completion_tokens":5,"prompt_tokens":2000,"prompt_tokens_details":{"cached_tokens":1600}}}}},
  {"role":"exit","content":"diff --git …","extra":{"exit_status":"Submitted"}}
 ],
 "trajectory_format":"mini-swe-agent-1.1","instance_id":"django__django-11019"}`,
			want: []string{
				`system text="You are a helpful assistant"`,
				`user text="<pr_description>…"`,
				`assistant think="think first" text="I'll start" call=call_00_A/bash{"command": "ls"} usage=in1316/out94/cr320/cw0/r0`,
				`tool result=call_00_A/bash="<returncode>2</returncode>\n<output>\nno such file</output>"!`,
				`user text="Tool call error: …"`,
				`assistant text="submit" call=call_01_B/bash{"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"} usage=in400/out5/cr1600/cw0/r0`,
			},
		},
		{
			name: "1.x bare array, text actions",
			input: `[
  {"role":"system","content":"Your response must contain exactly ONE bash code block"},
  {"role":"user","content":"Please solve this issue: X"},
  {"role":"assistant","content":"THOUGHT: look\n\n` + fence + `bash\nls -la\n` + fence + `"},
  {"role":"user","content":"<returncode>0</returncode>\n<output>\na\n</output>"},
  {"role":"assistant","content":"two blocks\n` + fence + `bash\na\n` + fence + `\n` + fence + `bash\nb\n` + fence + `"},
  {"role":"user","content":"Please always provide EXACTLY ONE action in triple backticks."},
  {"role":"assistant","content":"done\n\n` + fence + `mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n` + fence + `"},
  {"role":"user","content":""}
]`,
			want: []string{
				`system text="Your response must contain exactly ONE bash code block"`,
				`user text="Please solve this issue: X"`,
				"assistant text=\"THOUGHT: look\" call=swe-2/bash{\"command\":\"ls -la\"}",
				`tool result=swe-2/bash="<returncode>0</returncode>\n<output>\na\n</output>"`,
				"assistant text=\"two blocks\\n```bash\\na\\n```\\n```bash\\nb\\n```\"",
				`user text="Please always provide EXACTLY ONE action in triple backticks."`,
				"assistant text=\"done\" call=swe-6/bash{\"command\":\"echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\"}",
				`tool result=swe-6/bash=""`,
			},
		},
		{
			name: "v2 text mode with extra.actions",
			input: `{"info":{"mini_version":"2.0.0"},"trajectory_format":"mini-swe-agent-1.1","messages":[
  {"role":"user","content":"task"},
  {"role":"assistant","content":"x\n` + fence + `mswea_bash_command\npwd\n` + fence + `","extra":{"actions":[{"command":"pwd"}]}},
  {"role":"user","content":"<returncode>0</returncode>","extra":{"returncode":0}}
]}`,
			want: []string{
				`user text="task"`,
				"assistant text=\"x\" call=swe-1/bash{\"command\":\"pwd\"}",
				`tool result=swe-1/bash="<returncode>0</returncode>"`,
			},
		},
	})
}

func TestReadMiniSWEAgentMetadata(t *testing.T) {
	t.Parallel()
	tr := readOne(t, transcript.FormatMiniSWEAgent, `{"info":{"config":{"model":{"model_name":"m/x"}}},"messages":[{"role":"user","content":"x"}],"instance_id":"i-1"}`)
	if tr.ID != "i-1" || tr.Model != "m/x" {
		t.Errorf("ID, Model = %q, %q", tr.ID, tr.Model)
	}
}

// TestReadMiniSWEAgentFormatRetry: a format-error retry is a model call
// (issue 28: one file reported 22 calls where info.model_stats.api_calls
// says 114). Fixture built from mini-swe-agent's source (FormatError
// carries the discarded response in extra), not a real run.
func TestReadMiniSWEAgentFormatRetry(t *testing.T) {
	t.Parallel()
	trs, err := transcript.ReadFile("testdata/mini-swe-agent/format-retry.traj.json", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := trs[0]
	calls := 0
	for _, m := range tr.Messages {
		if m.Role == chat.RoleAssistant {
			calls++
		}
	}
	if calls != 3 {
		t.Errorf("%d model calls, want 3 (info.model_stats.api_calls)", calls)
	}
	if u := tr.Messages[2].Usage; tr.Messages[2].Role != chat.RoleAssistant || len(tr.Messages[2].Parts) != 0 || u == nil || u.InputTokens+u.CacheReadTokens != 120 {
		t.Errorf("message 2 = %+v, want the discarded call: no parts, 120 prompt tokens", tr.Messages[2])
	}
	if tr.Messages[3].Role != chat.RoleUser {
		t.Errorf("message 3 role %s, want the format error feedback as user", tr.Messages[3].Role)
	}
}
