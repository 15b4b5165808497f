package transcript_test

import (
	"strings"
	"testing"

	"github.com/agentctx/agentctx/transcript"
	"github.com/google/go-cmp/cmp"
)

const (
	geminiSession    = "testdata/gemini-cli/session-2025-09-01T10-00-5f3a9c1e.json"
	geminiJSONL      = "testdata/gemini-cli/session-2025-11-20T09-15-c0ffee12.jsonl"
	geminiCheckpoint = "testdata/gemini-cli/checkpoint-fix-sum.json"
)

// TestReadGeminiExamples reads the three Gemini CLI files built from its
// source (chatRecordingService.ts, chatRecordingTypes.ts, logger.ts): a
// JSON session with an info and an error notice, thoughts (not sent
// back), a slash command (not sent), two calls in
// one response and a failed one; a JSONL session whose tool call is
// rewritten with its result, then rewound and patched with $set; and a
// checkpoint whose second call has no id.
func TestReadGeminiExamples(t *testing.T) {
	t.Parallel()
	cases := []struct {
		path                                 string
		want                                 []string
		id, model                            string
		calls, toolCalls, results, withUsage int
	}{
		{geminiSession, []string{
			"user text=\"Why does `npm test` fail in this repo?\"",
			"assistant call=run_shell_command-1756720824500-0b8e4f/run_shell_command{\"command\": \"npm test\", \"description\": \"Run the test suite.\"} usage=in9120/out221/cr0/cw0/r180",
			"tool result=run_shell_command-1756720824500-0b8e4f/run_shell_command=\"Command: npm test\\nStdout: FAIL src/sum.test.js\\n  expected 5, received 6\\nExit Code: 1\"",
			"assistant text=\"The test expects 5 but `sum` returns 6. Let me read it.\" call=read_file-1756720831000-77aa10/read_file{\"absolute_path\": \"/home/dev/app/src/sum.js\"} call=glob-1756720831000-77aa11/glob{\"pattern\": \"src/**/*.test.js\"} usage=in546/out172/cr8934/cw0/r95",
			"tool result=read_file-1756720831000-77aa10/read_file=\"export const sum = (a, b) => a + b + 1;\\n\"",
			"tool result=glob-1756720831000-77aa11/glob=\"Path does not exist: src/**\"!",
			"assistant text=\"`sum` adds an extra 1. I'll fix it.\" call=replace-1756720836000-1c2d3e/replace{\"file_path\": \"/home/dev/app/src/sum.js\", \"old_string\": \"a + b + 1\", \"new_string\": \"a + b\"} usage=in440/out88/cr9350/cw0/r0",
			"tool result=replace-1756720836000-1c2d3e/replace=\"Successfully modified file: /home/dev/app/src/sum.js (1 replacements).\"",
			"assistant text=\"Fixed: `sum` no longer adds 1, so `npm test` passes.\" usage=in330/out19/cr9600/cw0/r0",
		}, "5f3a9c1e-2b7d-4e8a-9c61-0d4e7f1a2b3c", "gemini-2.5-pro", 4, 4, 4, 4},
		{geminiJSONL, []string{
			"user text=\"List the Go files and count their lines.\"",
			"assistant call=run_shell_command-1-a/run_shell_command{\"command\":\"wc -l *.go\"} usage=in8100/out86/cr0/cw0/r64",
			"tool result=run_shell_command-1-a/run_shell_command=\"  120 main.go\\n   48 util.go\\n  168 total\"",
			"assistant text=\"main.go has 120 lines and util.go 48 (168 in all).\" usage=in330/out21/cr7900/cw0/r0",
			"user text=\"Thanks, that's all.\"",
			"assistant text=\"You're welcome.\" usage=in160/out5/cr8100/cw0/r0",
		}, "c0ffee12-8d44-4f3b-a1e2-6b7c8d9e0f10", "gemini-2.5-flash", 3, 1, 1, 3},
		{geminiCheckpoint, []string{
			"user text=\"This is the Gemini CLI. We are setting up the context for our chat.\\nToday's date is Monday, September 1, 2025.\\nMy operating system is: linux\"",
			"assistant text=\"Got it. Thanks for the context!\"",
			"user text=\"Why does `npm test` fail in this repo?\"",
			"assistant think=\"**Running the tests** I'll run the suite to see the failure.\" call=run_shell_command-1756720824500-0b8e4f/run_shell_command{\"command\": \"npm test\"}",
			"tool result=run_shell_command-1756720824500-0b8e4f/run_shell_command=\"Command: npm test\\nStdout: FAIL src/sum.test.js\\nExit Code: 1\"",
			"assistant text=\"Let me read the function.\" call=gemini-5-1/read_file{\"absolute_path\": \"/home/dev/app/src/sum.js\"}",
			"tool result=gemini-5-1/read_file=\"export const sum = (a, b) => a + b + 1;\\n\"",
			"assistant text=\"`sum` adds an extra 1; that is the bug.\"",
		}, "", "", 4, 2, 2, 0},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			tr := readExample(t, tc.path, transcript.FormatGeminiCLI)
			if diff := cmp.Diff(tc.want, render(tr.Messages)); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			calls, toolCalls, results, paired := countCalls(tr.Messages)
			if calls != tc.calls || toolCalls != tc.toolCalls || results != tc.results || paired != tc.results {
				t.Errorf("calls %d, tool calls %d, results %d, paired %d; want %d, %d, %d, %d", calls, toolCalls, results, paired, tc.calls, tc.toolCalls, tc.results, tc.results)
			}
			withUsage := 0
			for _, m := range tr.Messages {
				if m.Usage != nil {
					withUsage++
				}
			}
			if withUsage != tc.withUsage || tr.ID != tc.id || tr.Model != tc.model || len(tr.Problems) > 0 {
				t.Errorf("%d messages with usage (want %d), id %q (want %q), model %q (want %q), problems %v", withUsage, tc.withUsage, tr.ID, tc.id, tr.Model, tc.model, tr.Problems)
			}
		})
	}
}

func TestReadGemini(t *testing.T) {
	t.Parallel()
	runCases(t, transcript.FormatGeminiCLI, []readCase{
		{
			name: "rewind to an unknown id clears the list; $set messages replace it",
			input: lines(`{"sessionId":"s","projectHash":"h","startTime":"2025-01-01T00:00:00Z"}`,
				`{"id":"a","type":"user","content":"old"}`,
				`{"$rewindTo":"nope"}`,
				`{"id":"b","type":"user","content":"kept"}`,
				`{"$set":{"messages":[{"id":"c","type":"user","content":[{"text":"replaced"},{"inlineData":{"mimeType":"image/png","data":"AAAA"}}]}]}}`,
				`{"id":"d","type":"gemini","content":"ok","toolCalls":[{"id":"t","name":"ls","args":{},"result":null,"status":"cancelled"}]}`),
			want: []string{
				`user text="replaced" image=image/png/3`,
				`assistant text="ok" call=t/ls{}`,
			},
		},
		{
			name: "$patch edits, removes and orders messages",
			input: lines(`{"sessionId":"s","projectHash":"h"}`,
				`{"id":"a","type":"user","content":"one"}`,
				`{"id":"b","type":"gemini","content":"two"}`,
				`{"id":"c","type":"user","content":"three"}`,
				`{"$patch":{"id":"b","content":"two, edited","tokens":{"input":10,"output":2,"cached":4}}}`,
				`{"$patch":{"updates":[{"id":"a","content":"one, edited"},{"id":"zz","content":"none"}],"removeIds":["c"],"orderIds":["a"]}}`),
			want: []string{
				`assistant text="two, edited" usage=in6/out2/cr4/cw0/r0`,
				`user text="one, edited"`,
			},
		},
		{
			name:  "a result of several parts",
			input: `{"sessionId":"s","projectHash":"h","messages":[{"id":"g","type":"gemini","content":[{"text":"x"}],"toolCalls":[{"id":"r","name":"read_many_files","args":{},"result":[{"functionResponse":{"id":"r","name":"read_many_files","response":{"output":"--- a.txt ---"}}},"plain",{"text":"more"}],"status":"success"}]}]}`,
			want: []string{
				`assistant text="x" call=r/read_many_files{}`,
				`tool result=r/read_many_files="--- a.txt ---\nplain\nmore"`,
			},
		},
		{
			name:  "checkpoint object, a response of another shape",
			input: `{"history":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":1}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"result":[1,2]}}}]}],"authType":"oauth-personal"}`,
			want: []string{
				`assistant call=gemini-0-0/f{"a":1}`,
				`tool result=gemini-0-0/f="{\"result\":[1,2]}"`,
			},
		},
	})
}

func TestDetectGemini(t *testing.T) {
	t.Parallel()
	checkDetect(t, []detectCase{
		{"session", string(mustRead(t, geminiSession)), transcript.FormatGeminiCLI},
		{"jsonl", string(mustRead(t, geminiJSONL)), transcript.FormatGeminiCLI},
		{"checkpoint", string(mustRead(t, geminiCheckpoint)), transcript.FormatGeminiCLI},
		{"checkpoint object", `{"history":[{"role":"user","parts":[{"text":"x"}]}]}`, transcript.FormatGeminiCLI},
		{"truncated session", "{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"h\",\n  \"messages\": [\n    {\"id\": \"", transcript.FormatGeminiCLI},
		{"swe-agent history", `{"history":[{"role":"user","content":"x"}]}`, transcript.FormatSWEAgent},
		{"openai messages object", `{"messages":[{"role":"user","content":"x"}],"sessionId":"s"}`, transcript.FormatOpenAI},
		{"a lone $set", `{"$set":{"a":1},"b":2}`, ""},
		{"claude code line", lines(ccSnap, ccUser1), transcript.FormatClaudeCode},
	})
}

func TestHostileGemini(t *testing.T) {
	t.Parallel()
	variants := map[string]string{
		"wrong types":            `{"sessionId":7,"projectHash":[],"messages":[{"id":1,"type":"gemini","content":{"text":5},"toolCalls":"x","thoughts":{},"tokens":[]},3,null,{"type":"user","content":[[],{"functionResponse":7}]}]}`,
		"messages not an array":  `{"sessionId":"s","projectHash":"h","messages":{}}`,
		"jsonl wrong types":      lines(`{"sessionId":"s","projectHash":"h"}`, `{"$rewindTo":5}`, `{"$set":7}`, `{"$patch":{"updates":7,"removeIds":{},"orderIds":[1]}}`, `{"$patch":{"id":5}}`, `{"id":"a","type":"gemini","toolCalls":[{"result":{"functionResponse":{"response":"x"}}}]}`, `[1]`, `{"x":1}`),
		"huge field":             `{"sessionId":"s","projectHash":"h","messages":[{"id":"a","type":"user","content":"` + strings.Repeat("y", 4<<20) + `"},{"id":"b","type":"gemini","tokens":{"input":-1,"cached":1e300}}]}`,
		"checkpoint wrong types": `[{"role":"model","parts":[{"functionCall":{"name":[],"args":"{bad"}},7]},{"role":"user","parts":"x"},{"role":"tool","parts":[]}]`,
	}
	for _, path := range []string{geminiSession, geminiJSONL, geminiCheckpoint} {
		checkHostile(t, transcript.FormatGeminiCLI, mustRead(t, path), variants)
	}
}

func FuzzReadGemini(f *testing.F) {
	for _, path := range []string{geminiSession, geminiJSONL, geminiCheckpoint} {
		f.Add(mustReadF(f, path))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, transcript.FormatGeminiCLI, data) })
}
