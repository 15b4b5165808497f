package transcript_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/transcript"
	"github.com/google/go-cmp/cmp"
)

// ohResp is a model_response with one or two tool calls.
const ohResp2 = `{"id":"gen-2","model":"llama","object":"chat.completion","choices":[{"finish_reason":"stop","index":0,"message":{"content":"Read both.","role":"assistant","tool_calls":[` +
	`{"index":1,"function":{"arguments":"{\"command\": \"view\", \"path\": \"/a\"}","name":"str_replace_editor"},"id":"toolu_02","type":"function"},` +
	`{"index":2,"function":{"arguments":"{\"command\": \"view\", \"path\": \"/b\"}","name":"str_replace_editor"},"id":"toolu_03","type":"function"}]}}],` +
	`"usage":{"completion_tokens":20,"prompt_tokens":6000,"total_tokens":6020,"prompt_tokens_details":{"cached_tokens":1000}}}`

const ohResp1 = `{"id":"gen-1","model":"llama","choices":[{"index":0,"message":{"content":"List files.","role":"assistant","tool_calls":[{"index":1,"function":{"arguments":"{\"command\": \"ls\"}","name":"execute_bash"},"id":"toolu_01","type":"function"}]}}],"usage":{"completion_tokens":128,"prompt_tokens":5920,"total_tokens":6048}}`

const ohResp3 = `{"id":"gen-3","model":"llama","choices":[{"index":0,"message":{"content":"Done.","role":"assistant","tool_calls":[{"index":1,"function":{"arguments":"{\"message\": \"ok\", \"task_completed\": \"true\"}","name":"finish"},"id":"toolu_04","type":"function"}]}}]}`

var ohHistory = `[
 {"id":0,"source":"agent","message":"You are OpenHands agent","action":"system","args":{"content":"You are OpenHands agent","tools":[{"type":"function","function":{"name":"execute_bash","description":"Run","parameters":{"type":"object"}}},{"type":"function","function":{"name":"finish","description":"End","parameters":{"type":"object"}}}],"openhands_version":"0.35.0"}},
 {"id":1,"source":"user","message":"Fix it","action":"message","args":{"content":"Fix it","image_urls":null,"wait_for_response":false}},
 {"id":2,"source":"user","message":"Retrieving","action":"recall","args":{"recall_type":"workspace_context","query":"Fix it","thought":""}},
 {"id":4,"source":"environment","message":"Added workspace context","cause":2,"observation":"recall","content":"Added workspace context","extras":{}},
 {"id":5,"source":"agent","message":"Running command: ls","action":"run","tool_call_metadata":{"function_name":"execute_bash","tool_call_id":"toolu_01","model_response":` + ohResp1 + `,"total_calls_in_response":1},"args":{"command":"ls","thought":"List files."}},
 {"id":6,"source":"agent","message":"Command ls executed","cause":5,"observation":"run","tool_call_metadata":{"function_name":"execute_bash","tool_call_id":"toolu_01","model_response":` + ohResp1 + `,"total_calls_in_response":1},"content":"a.c b.c","extras":{"command":"ls","metadata":{"exit_code":2,"suffix":"\n[The command completed with exit code 2.]"}}},
 {"id":7,"source":"agent","message":"Reading /a","action":"read","tool_call_metadata":{"function_name":"str_replace_editor","tool_call_id":"toolu_02","model_response":` + ohResp2 + `,"total_calls_in_response":2},"args":{"path":"/a"}},
 {"id":8,"source":"agent","message":"I read /a","cause":7,"observation":"read","tool_call_metadata":{"function_name":"str_replace_editor","tool_call_id":"toolu_02","model_response":` + ohResp2 + `,"total_calls_in_response":2},"content":"A","extras":{"path":"/a"}},
 {"id":9,"source":"agent","message":"Reading /b","action":"read","tool_call_metadata":{"function_name":"str_replace_editor","tool_call_id":"toolu_03","model_response":` + ohResp2 + `,"total_calls_in_response":2},"args":{"path":"/b"}},
 {"id":10,"source":"agent","message":"I read /b","cause":9,"observation":"read","tool_call_metadata":{"function_name":"str_replace_editor","tool_call_id":"toolu_03","model_response":` + ohResp2 + `,"total_calls_in_response":2},"content":"B","extras":{"path":"/b"}},
 {"id":11,"source":"agent","message":"Parameter 'command' is invalid","observation":"error","content":"Parameter 'command' is invalid","extras":{"error_id":""}},
 {"id":12,"source":"agent","message":"Condensed","action":"condensation","args":{"forgotten_events_start_id":5,"forgotten_events_end_id":8,"summary":"earlier work"}},
 {"id":13,"source":"agent","message":"thinking aloud","action":"message","args":{"content":"I will finish now.","image_urls":null}},
 {"id":14,"source":"agent","message":"Done.","action":"finish","tool_call_metadata":{"function_name":"finish","tool_call_id":"toolu_04","model_response":` + ohResp3 + `,"total_calls_in_response":1},"args":{"final_thought":"Done.","task_completed":"true"}}
]`

var ohWant = []string{
	`system text="You are OpenHands agent"`,
	`user text="Fix it"`,
	`assistant text="List files." call=toolu_01/execute_bash{"command": "ls"} usage=in5920/out128/cr0/cw0/r0`,
	`tool result=toolu_01/execute_bash="a.c b.c"!`,
	`assistant text="Read both." call=toolu_02/str_replace_editor{"command": "view", "path": "/a"} call=toolu_03/str_replace_editor{"command": "view", "path": "/b"} usage=in5000/out20/cr1000/cw0/r0`,
	`tool result=toolu_02/str_replace_editor="A"`,
	`tool result=toolu_03/str_replace_editor="B"`,
	`user text="Parameter 'command' is invalid"`,
	`assistant text="I will finish now."`,
	`assistant text="Done." call=toolu_04/finish{"message": "ok", "task_completed": "true"} usage=in300/out7/cr0/cw0/r0`,
}

func ohLine(instance, history string) string {
	return `{"instance_id":"` + instance + `","test_result":{"git_patch":""},"instruction":"Fix it","metadata":{"agent_class":"CodeActAgent","llm_config":{"model":"openai/llama","max_message_chars":30000}},"history":` +
		strings.ReplaceAll(history, "\n", "") +
		`,"metrics":{"accumulated_cost":0,"token_usages":[{"model":"x","prompt_tokens":300,"completion_tokens":7,"cache_read_tokens":0,"cache_write_tokens":0,"response_id":"gen-3"}]},"error":null,"instance":{}}`
}

func TestReadOpenHands(t *testing.T) {
	t.Parallel()
	input := ohLine("repo__a-1", ohHistory) + "\n" + "{torn line\n" + ohLine("repo__a-2", `[{"id":1,"source":"user","action":"message","args":{"content":"hi"}}]`) + "\n"
	trs, err := transcript.Read(strings.NewReader(input), "output.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(trs) != 2 {
		t.Fatalf("got %d trajectories, want 2", len(trs))
	}
	tr := trs[0]
	checkPairs(t, tr.Messages)
	if tr.Format != transcript.FormatOpenHands || tr.ID != "repo__a-1" || tr.Model != "openai/llama" || tr.Index != 0 {
		t.Errorf("got format %q id %q model %q index %d", tr.Format, tr.ID, tr.Model, tr.Index)
	}
	if diff := cmp.Diff(ohWant, render(tr.Messages)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if got := []string{tr.Tools[0].Name, tr.Tools[1].Name}; len(tr.Tools) != 2 || got[0] != "execute_bash" || got[1] != "finish" {
		t.Errorf("tools = %+v", tr.Tools)
	}
	if diff := cmp.Diff([]transcript.Compaction{{At: 8, Summary: "earlier work"}}, tr.Compactions); diff != "" {
		t.Errorf("compactions (-want +got):\n%s", diff)
	}
	if len(tr.Problems) != 1 || tr.Problems[0].Line != 2 {
		t.Errorf("problems = %v, want the torn line 2", tr.Problems)
	}
	if trs[1].Index != 2 || trs[1].ID != "repo__a-2" || len(trs[1].Messages) != 1 {
		t.Errorf("second trajectory: index %d id %q %d messages", trs[1].Index, trs[1].ID, len(trs[1].Messages))
	}
}

func TestReadOpenHandsEventArray(t *testing.T) {
	t.Parallel()
	tr := readOne(t, "", ohHistory)
	if tr.Format != transcript.FormatOpenHands {
		t.Fatalf("format = %q", tr.Format)
	}
	// Without metrics, the finish response has no usage.
	want := append([]string(nil), ohWant...)
	want[len(want)-1] = strings.TrimSuffix(want[len(want)-1], " usage=in300/out7/cr0/cw0/r0")
	if diff := cmp.Diff(want, render(tr.Messages)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestReadOpenHandsPairedHistory(t *testing.T) {
	t.Parallel()
	// Older outputs: history is a list of [action, observation] pairs and
	// actions carry no tool_call_metadata.
	history := `[
 [{"id":1,"source":"user","action":"message","args":{"content":"Fix it"}},{"message":"No observation","observation":"null","content":"","extras":{}}],
 [{"id":2,"source":"agent","action":"run","args":{"command":"ls","thought":"Look first."}},{"id":3,"source":"agent","observation":"run","content":"a.c","extras":{"command":"ls","exit_code":0}}],
 [{"id":4,"source":"agent","action":"finish","args":{"outputs":{},"thought":""},"message":"All done."},{"observation":"null","content":""}]
]`
	tr := readOne(t, "", ohLine("old-1", history))
	want := []string{
		`user text="Fix it"`,
		`assistant text="Look first.\nls"`,
		`user text="a.c"`,
		`assistant text="All done."`,
	}
	if diff := cmp.Diff(want, render(tr.Messages)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

// TestOpenHandsCutNote: an observation longer than max_message_chars is
// kept whole and said so in a note (OpenHands cut it before sending).
func TestOpenHandsCutNote(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 30001)
	hist := strings.Replace(ohHistory, `"content":"a.c b.c"`, `"content":"`+long+`"`, 1)
	tr := readOne(t, transcript.FormatOpenHands, ohLine("repo__a-1", hist))
	if len(tr.Notes) != 1 || !strings.Contains(tr.Notes[0], "1 observations are longer than max_message_chars (30000 characters; the longest 30001)") {
		t.Errorf("Notes = %q", tr.Notes)
	}
	if tr := readOne(t, transcript.FormatOpenHands, ohLine("repo__a-1", ohHistory)); tr.Notes != nil {
		t.Errorf("no long observation: Notes = %q", tr.Notes)
	}
}

// TestReadOpenHandsTimes: each message takes its event's timestamp
// (OpenHands writes them without a zone: UTC), the first event's is the
// run's start; a message merged from several events keeps the first's.
func TestReadOpenHandsTimes(t *testing.T) {
	t.Parallel()
	hist := `[
 {"id":0,"timestamp":"2025-04-30T16:32:54.707474","source":"agent","message":"sys","action":"system","args":{"content":"sys"}},
 {"id":1,"timestamp":"2025-04-30T16:32:54.708196","source":"user","message":"Fix it","action":"message","args":{"content":"Fix it"}},
 {"id":2,"timestamp":"2025-04-30T16:32:54.729188","source":"user","message":"Retrieving","action":"recall","args":{}},
 {"id":5,"timestamp":"2025-04-30T16:32:57.821635","source":"agent","message":"Running command: ls","action":"run","tool_call_metadata":{"function_name":"execute_bash","tool_call_id":"toolu_01","model_response":` + ohResp1 + `,"total_calls_in_response":1},"args":{"command":"ls"}},
 {"id":6,"timestamp":"2025-04-30T16:32:58.441272","source":"agent","message":"done","cause":5,"observation":"run","tool_call_metadata":{"function_name":"execute_bash","tool_call_id":"toolu_01","model_response":` + ohResp1 + `,"total_calls_in_response":1},"content":"a.c","extras":{}}
]`
	tr := readOne(t, transcript.FormatOpenHands, ohLine("repo__a-1", hist))
	at := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse("2006-01-02T15:04:05.999999", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	want := []time.Time{at("2025-04-30T16:32:54.707474"), at("2025-04-30T16:32:54.708196"), at("2025-04-30T16:32:57.821635"), at("2025-04-30T16:32:58.441272")}
	if diff := cmp.Diff(want, tr.Times); diff != "" || !tr.Started.Equal(want[0]) {
		t.Errorf("started %v, times (-want +got):\n%s", tr.Started, diff)
	}
}
