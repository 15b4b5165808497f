package transcript_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/transcript"
	"github.com/google/go-cmp/cmp"
)

const clineExample = "testdata/cline/1732612800000/api_conversation_history.json"

// TestReadClineExample reads a Cline task built from Cline's source
// (src/shared/messages/content.ts, metrics.ts, getApiMetrics.ts): five
// model calls with native tool use, a thinking block, a tool result
// holding an image, a result that answers no call, an unknown block, and
// ui_messages.json beside it with a cancelled request among five that
// report usage.
func TestReadClineExample(t *testing.T) {
	t.Parallel()
	tr := readExample(t, clineExample, transcript.FormatCline)
	want := []string{
		`user text="<task>\nThe test TestParseDate in dateparse/parse_test.go fails. Fix it.\n</task>" text="<environment_details>\n# VSCode Visible Files\ndateparse/parse.go\n\n# Current Working Directory (/home/dev/dateparse) Files\ngo.mod\nparse.go\nparse_test.go\n\n# Current Mode\nACT MODE\n</environment_details>"`,
		`assistant text="I'll run the failing test first to see the error." call=toolu_01A/execute_command{"command": "go test ./... -run TestParseDate", "requires_approval": false} usage=in3/out96/cr0/cw11873/r0`,
		`tool result=toolu_01A/execute_command="--- FAIL: TestParseDate (0.00s)\n    parse_test.go:14: Parse(\"2024-02-30\") = 2024-03-01, want error\nFAIL\nexit status 1"`,
		`user text="<environment_details>\n# VSCode Visible Files\ndateparse/parse.go\n</environment_details>"`,
		`assistant think="time.Date normalizes Feb 30 to Mar 1, so Parse must check that the day survives."/sig=EqQBCkYIBRgCKkB call=toolu_01B/read_file{"path": "parse.go"} usage=in4/out121/cr11873/cw204/r0`,
		`tool result=toolu_01B/read_file="package dateparse\n\nimport \"time\"\n\nfunc Parse(s string) (time.Time, error) {\n\treturn time.Parse(\"2006-01-02\", s)\n}\n"`,
		`assistant text="The parser accepts out-of-range days. I'll reject dates that do not round-trip." call=toolu_01C/replace_in_file{"path": "parse.go", "diff": "------- SEARCH\n\treturn time.Parse(\"2006-01-02\", s)\n=======\n\tt, err := time.Parse(\"2006-01-02\", s)\n\tif err == nil && t.Format(\"2006-01-02\") != s {\n\t\treturn time.Time{}, fmt.Errorf(\"dateparse: %q is not a real date\", s)\n\t}\n\treturn t, err\n+++++++ REPLACE"} usage=in4/out233/cr12077/cw145/r0`,
		`tool result=toolu_01C/replace_in_file="The content was successfully saved to parse.go.\n[image: image/png]"`,
		`user text="a result for a call that was never made"`,
		`assistant call=toolu_01D/execute_command{"command": "go test ./...", "requires_approval": false} usage=in4/out58/cr12222/cw352/r0`,
		`tool result=toolu_01D/execute_command="ok  \tdateparse\t0.004s"`,
		`assistant text="The test passes now." call=toolu_01E/attempt_completion{"result": "Parse now rejects dates such as 2024-02-30 that time.Parse normalizes."} usage=in4/out83/cr12574/cw61/r0`,
	}
	if diff := cmp.Diff(want, render(tr.Messages)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	calls, toolCalls, results, paired := countCalls(tr.Messages)
	// The last call, attempt_completion, has no result; the orphan result
	// became user text.
	if calls != 5 || toolCalls != 5 || results != 4 || paired != 4 {
		t.Errorf("calls %d, tool calls %d, results %d, paired %d; want 5, 5, 4, 4", calls, toolCalls, results, paired)
	}
	if tr.ID != "1732612800000" || tr.Model != "claude-sonnet-4-20250514" {
		t.Errorf("id %q, model %q", tr.ID, tr.Model)
	}
	if want := time.UnixMilli(1732612800123).UTC(); !tr.Started.Equal(want) || len(tr.Times) != len(tr.Messages) {
		t.Errorf("started %v (want %v), %d times for %d messages", tr.Started, want, len(tr.Times), len(tr.Messages))
	}
	if len(tr.Problems) != 1 || !strings.Contains(tr.Problems[0].Err.Error(), `"web_search_tool_result" dropped`) {
		t.Errorf("problems %v, want the unknown block reported", tr.Problems)
	}
}

func TestReadCline(t *testing.T) {
	t.Parallel()
	runCases(t, transcript.FormatCline, []readCase{
		{
			name: "metrics on the messages, string content",
			input: `[{"role":"user","content":"hi"},
 {"role":"assistant","content":[{"type":"tool_use","id":"a","name":"list_files","input":{"path":"."}}],"metrics":{"tokens":{"prompt":1200,"completion":30,"cached":1000},"cost":0.01},"modelInfo":{"modelId":"gpt-5","providerId":"openai","mode":"act"}},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"a.go"},{"type":"document","source":{"type":"text","data":"x"}}]},
 {"role":"assistant","content":"done"}]`,
			want: []string{
				`user text="hi"`,
				`assistant call=a/list_files{"path":"."} usage=in200/out30/cr1000/cw0/r0`,
				`tool result=a/list_files="a.go"`,
				`user text="[document]"`,
				`assistant text="done"`,
			},
		},
		{
			name:  "redacted thinking and a call without its result",
			input: `[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"redacted_thinking","data":"ENC"},{"type":"tool_use","id":"b","name":"attempt_completion","input":{}}]}]`,
			want: []string{
				`user text="x"`,
				`assistant think=""/enc=ENC call=b/attempt_completion{}`,
			},
		},
	})
}

// TestReadClineUIUsage checks how ui_messages.json is paired with the
// assistant messages: one api_req_started with usage each, or none.
func TestReadClineUIUsage(t *testing.T) {
	t.Parallel()
	history := `[{"role":"user","content":"x"},{"role":"assistant","content":"a"},{"role":"user","content":"y"},{"role":"assistant","content":"b"}]`
	req := func(in, out int) string {
		return `{"type":"say","say":"api_req_started","text":"{\"tokensIn\":` + itoa(in) + `,\"tokensOut\":` + itoa(out) + `,\"cacheWrites\":5,\"cacheReads\":7}"}`
	}
	cases := []struct {
		name, ui string
		want     []string
		problem  string
	}{
		{"paired", "[" + req(10, 2) + "," + req(20, 3) + "]", []string{"in10/out2/cr7/cw5", "in20/out3/cr7/cw5"}, ""},
		{"one short", "[" + req(10, 2) + "]", []string{"", ""}, "1 api_req_started entries report usage for 2 assistant messages"},
		{"broken", `[{"say":`, []string{"", ""}, "incomplete JSON"},
		{"absent", "", []string{"", ""}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "api_conversation_history.json")
			if err := os.WriteFile(path, []byte(history), 0o600); err != nil {
				t.Fatal(err)
			}
			if tc.ui != "" {
				if err := os.WriteFile(filepath.Join(dir, "ui_messages.json"), []byte(tc.ui), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			trs, err := transcript.ReadFile(path, transcript.Options{Format: transcript.FormatCline})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range trs[0].Messages {
				if m.Role != "assistant" {
					continue
				}
				s := ""
				if u := m.Usage; u != nil {
					s = "in" + itoa(u.InputTokens) + "/out" + itoa(u.OutputTokens) + "/cr" + itoa(u.CacheReadTokens) + "/cw" + itoa(u.CacheWriteTokens)
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			var probs []string
			for _, p := range trs[0].Problems {
				probs = append(probs, p.Err.Error())
			}
			if (tc.problem == "") != (len(probs) == 0) || (tc.problem != "" && !strings.Contains(strings.Join(probs, "; "), tc.problem)) {
				t.Errorf("problems %q, want one containing %q", probs, tc.problem)
			}
		})
	}
}

// TestDetectCline checks that an Anthropic-shaped history is taken for
// Cline only when it has a block or field OpenAI messages never have.
func TestDetectCline(t *testing.T) {
	t.Parallel()
	checkDetect(t, []detectCase{
		{"example", string(mustRead(t, clineExample)), transcript.FormatCline},
		{"tool_use", `[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]}]`, transcript.FormatCline},
		{"metrics only", `[{"role":"assistant","content":"x","metrics":{}}]`, transcript.FormatCline},
		{"anthropic image", `[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"u"}}]}]`, transcript.FormatCline},
		{"text blocks only", `[{"role":"user","content":[{"type":"text","text":"x"}]}]`, transcript.FormatOpenAI},
		{"a system message", `[{"role":"system","content":"s"},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]}]`, transcript.FormatOpenAI},
		{"openai tool calls", `[{"role":"assistant","content":[{"type":"thinking","thinking":"t"}],"tool_calls":[]}]`, transcript.FormatOpenAI},
		{"ui_messages.json", `[{"ts":1,"type":"say","say":"task","text":"x"}]`, ""},
	})
}

func TestHostileCline(t *testing.T) {
	t.Parallel()
	checkHostile(t, transcript.FormatCline, mustRead(t, clineExample), map[string]string{
		"wrong types": `[{"role":7,"content":{"a":1},"ts":"x","metrics":[]},{"role":"assistant","content":[1,"s",null,{"type":9}]},5,null]`,
		"block types": `[{"role":"user","content":[{"type":"tool_result","tool_use_id":{},"content":7,"is_error":"yes"}]},{"role":"assistant","content":[{"type":"tool_use","id":[],"name":1,"input":"{not json"}]}]`,
		"huge field":  `[{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("x", 4<<20) + `"}],"metrics":{"tokens":{"prompt":1e300,"completion":-5,"cached":"x"}}}]`,
		"object":      `{"role":"user","content":"x"}`,
		"deep":        `[{"role":"user","content":` + strings.Repeat("[", 100000) + `]}]`,
	})
}

func FuzzReadCline(f *testing.F) {
	f.Add(mustReadF(f, clineExample))
	f.Add([]byte(`[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}],"metrics":{"tokens":{"prompt":5,"completion":1,"cached":9}}},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"image"}]}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, transcript.FormatCline, data) })
}

// TestReadClineTextResults: Cline sends a tool's result as user text
// blocks "[NAME for '…'] Result:" + the result when the call has no
// tool_result block (issue 28: every call was left unanswered, 231
// interrupted calls and 0 results). The fixture is built from Cline's
// source (ToolExecutor, formatResponse.toolError), not a real task.
func TestReadClineTextResults(t *testing.T) {
	t.Parallel()
	trs, err := transcript.ReadFile("testdata/cline/1764201600000/api_conversation_history.json", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := trs[0]
	want := []string{
		`user text="<task>\nAdd a greeting to hello.py\n</task>" text="<environment_details>\n# Current Working Directory (/w) Files\nhello.py\n</environment_details>"`,
		`assistant text="I'll read the file first." call=toolu_read_1/read_file{"path":"hello.py"} call=toolu_list_1/list_files{"path":".","recursive":"false"}`,
		`tool result=toolu_read_1/read_file="def main():\n    pass\n"`,
		`tool result=toolu_list_1/list_files="hello.py"`,
		`user text="<environment_details>\n# Current Time\n2025-11-27 00:00:02\n</environment_details>"`,
		`assistant call=toolu_write_1/write_to_file{"path":"hello.py","content":"def main():\n    print('hello')\n"}`,
		`tool result=toolu_write_1/write_to_file="The content was successfully saved to hello.py."`,
		`user text="<environment_details>\n# Current Time\n2025-11-27 00:00:04\n</environment_details>"`,
		`assistant call=toolu_cmd_1/execute_command{"command":"python hello.py","requires_approval":"false"}`,
		`tool result=toolu_cmd_1/execute_command="The tool execution failed with the following error:\n<error>\nCommand timed out\n</error>"!`,
		`assistant call=toolu_done_1/attempt_completion{"result":"Added the greeting."}`,
	}
	if diff := cmp.Diff(want, render(tr.Messages)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if tr.Orphans != 0 || len(tr.Dropped) != 0 {
		t.Errorf("orphans %d, dropped %v", tr.Orphans, tr.Dropped)
	}
}
