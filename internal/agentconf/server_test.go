package agentconf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// startTest starts a server on a fresh task and closes it with the test.
func startTest(t *testing.T) *Server {
	t.Helper()
	task, err := NewTask(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(Options{Task: task})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

func post(t *testing.T, url, body string) (int, []byte) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, b
}

// sseEvents parses a server-sent event stream into (event, data) pairs.
func sseEvents(t *testing.T, b []byte) [][2]string {
	t.Helper()
	var out [][2]string
	name := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			out = append(out, [2]string{name, strings.TrimPrefix(line, "data: ")})
			name = ""
		}
	}
	return out
}

const anthropicTools = `"tools":[{"name":"Bash","input_schema":{"type":"object"}},{"name":"Read","input_schema":{"type":"object"}},{"name":"Edit","input_schema":{"type":"object"}}]`

// TestAnthropicStream plays the first step over SSE and sends the answer
// back: the events come in the documented order, the tool call reads
// calc.js, and the signed thinking block is accepted when unchanged and
// refused when changed.
func TestAnthropicStream(t *testing.T) {
	t.Parallel()
	s := startTest(t)
	status, b := post(t, s.URL+"/v1/messages", `{"model":"m","max_tokens":100,"stream":true,"thinking":{"type":"adaptive"},`+anthropicTools+`,"messages":[{"role":"user","content":"fix the test"}]}`)
	if status != 200 {
		t.Fatalf("status %d: %s", status, b)
	}
	var names []string
	var thinking, signature, input, id string
	for _, e := range sseEvents(t, b) {
		if len(names) == 0 || e[0] != "content_block_delta" || names[len(names)-1] != e[0] {
			names = append(names, e[0]) // runs of deltas count as one
		}
		var d struct {
			Delta struct {
				Type, Thinking, Signature, PartialJSON string
			} `json:"delta"`
			ContentBlock struct{ ID string } `json:"content_block"`
		}
		if err := json.Unmarshal([]byte(e[1]), &d); err != nil {
			t.Fatalf("event %s: %v", e[0], err)
		}
		var raw map[string]any
		_ = json.Unmarshal([]byte(e[1]), &raw)
		if delta, ok := raw["delta"].(map[string]any); ok {
			if pj, ok := delta["partial_json"].(string); ok {
				input += pj
			}
		}
		thinking += d.Delta.Thinking
		signature += d.Delta.Signature
		if d.ContentBlock.ID != "" {
			id = d.ContentBlock.ID
		}
	}
	want := []string{"message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	var in struct {
		FilePath string `json:"file_path"`
	}
	if err := json.Unmarshal([]byte(input), &in); err != nil || !strings.HasSuffix(in.FilePath, "/calc.js") {
		t.Errorf("tool input %q: want a Read of calc.js (%v)", input, err)
	}
	assistant := func(th, sig string) string {
		c, _ := json.Marshal([]map[string]any{
			{"type": "thinking", "thinking": th, "signature": sig},
			{"type": "tool_use", "id": id, "name": "Read", "input": json.RawMessage(input)},
		})
		return `{"model":"m","max_tokens":100,"thinking":{"type":"adaptive"},` + anthropicTools + `,"messages":[{"role":"user","content":"fix the test"},{"role":"assistant","content":` + string(c) +
			`},{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"1\tfunction total(xs) {"}]}]}`
	}
	status, b = post(t, s.URL+"/v1/messages", assistant(thinking, signature))
	if status != 200 {
		t.Fatalf("unchanged thinking: status %d: %s", status, b)
	}
	var msg struct {
		Content []struct{ Type, Name string }
		Input   json.RawMessage
	}
	if err := json.Unmarshal(b, &msg); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(msg.Content); !strings.Contains(got, "tool_use Bash") {
		t.Errorf("after the read: content %s, want a Bash call (run the test)", got)
	}
	status, b = post(t, s.URL+"/v1/messages", assistant(thinking+" (edited)", signature))
	if status != 400 || !strings.Contains(string(b), "Invalid `signature` in `thinking` block") {
		t.Errorf("changed thinking: status %d %s, want 400 Invalid signature", status, b)
	}
}

// TestAnthropicRules: each documented rule's violation gets the Messages
// API's 400 body with its message; a valid request gets 200.
func TestAnthropicRules(t *testing.T) {
	t.Parallel()
	s := startTest(t)
	cc := `,"cache_control":{"type":"ephemeral"}`
	use := `{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}`
	result := `{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}`
	tests := []struct {
		name, messages, want string
	}{
		{"valid", `[{"role":"user","content":"hi"},{"role":"assistant","content":[` + use + `]},{"role":"user","content":[` + result + `,{"type":"text","text":"go on"}]}]`, ""},
		{"system message inside", `[{"role":"user","content":"hi"},{"role":"system","content":"env"}]`, ""},
		{"no messages", `[]`, "at least one message"},
		{"bad role", `[{"role":"tool","content":"hi"}]`, "Input should be 'user' or 'assistant'"},
		{"assistant first", `[{"role":"assistant","content":"hi"},{"role":"user","content":"hi"}]`, "first message must use the \"user\" role"},
		{"tool_use unanswered", `[{"role":"user","content":"hi"},{"role":"assistant","content":[` + use + `]},{"role":"user","content":"go on"}]`, "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1"},
		{"tool_use last", `[{"role":"user","content":"hi"},{"role":"assistant","content":[` + use + `]}]`, "`tool_use` ids were found without"},
		{"tool_result orphan", `[{"role":"user","content":"hi"},{"role":"assistant","content":"ok"},{"role":"user","content":[` + result + `]}]`, "unexpected `tool_use_id` found in `tool_result` blocks: toolu_1"},
		{"tool_result after text", `[{"role":"user","content":"hi"},{"role":"assistant","content":[` + use + `]},{"role":"user","content":[{"type":"text","text":"x"},` + result + `]}]`, "tool_result blocks must come before"},
		{"five breakpoints", `[{"role":"user","content":[{"type":"text","text":"a"` + cc + `},{"type":"text","text":"b"` + cc + `},{"type":"text","text":"c"` + cc + `},{"type":"text","text":"d"` + cc + `},{"type":"text","text":"e"` + cc + `}]}]`, "A maximum of 4 blocks with cache_control may be provided. Found 5."},
		{"foreign thinking", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"forged"},{"type":"text","text":"ok"}]},{"role":"user","content":"go"}]`, "Invalid `signature` in `thinking` block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, b := post(t, s.URL+"/v1/messages", `{"model":"m","max_tokens":10,`+anthropicTools+`,"messages":`+tt.messages+`}`)
			if tt.want == "" {
				if status != 200 {
					t.Errorf("status %d %s, want 200", status, b)
				}
				return
			}
			var e struct {
				Type  string
				Error struct{ Type, Message string }
			}
			if err := json.Unmarshal(b, &e); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			if status != 400 || e.Type != "error" || e.Error.Type != "invalid_request_error" || !strings.Contains(e.Error.Message, tt.want) {
				t.Errorf("got %d %s, want 400 invalid_request_error %q", status, b, tt.want)
			}
		})
	}
}

// TestRequestTooLarge: a body over 32 MB gets 413 request_too_large and is
// recorded as a violation.
func TestRequestTooLarge(t *testing.T) {
	t.Parallel()
	s := startTest(t)
	big := `{"messages":[{"role":"user","content":"` + strings.Repeat("a", MaxRequestBytes) + `"}]}`
	status, b := post(t, s.URL+"/v1/messages", big)
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), `"type":"request_too_large"`) {
		t.Errorf("got %d %.200s, want 413 request_too_large", status, b)
	}
	if recs := s.Requests(); len(recs) != 1 || recs[0].Violation == "" {
		t.Errorf("records %d, want one with a violation", len(recs))
	}
}

// TestCountTokensAndModels: count_tokens answers Count of the body and
// /v1/models lists models in each wire's shape.
func TestCountTokensAndModels(t *testing.T) {
	t.Parallel()
	s := startTest(t)
	body := `{"model":"m","messages":[{"role":"user","content":"hello world"}]}`
	status, b := post(t, s.URL+"/v1/messages/count_tokens", body)
	want, _ := Count([]byte(body))
	if status != 200 || string(b) != fmt.Sprintf(`{"input_tokens":%d}`, want) {
		t.Errorf("count_tokens: %d %s, want {\"input_tokens\":%d}", status, b, want)
	}
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/v1/models", nil)
	req.Header.Set("anthropic-version", "2023-06-01")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(b), `"has_more":false`) || !strings.Contains(string(b), `"type":"model"`) {
		t.Errorf("anthropic models: %s", b)
	}
}

// TestCount counts string values only, without signatures.
func TestCount(t *testing.T) {
	t.Parallel()
	a, err := Count([]byte(`{"text":"hello world"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Count([]byte(`{"a_much_longer_key_name":"hello world","signature":"` + strings.Repeat("x", 1000) + `","n":12345}`))
	if a != 2 || b != a {
		t.Errorf("Count = %d and %d, want 2 and 2 (keys, numbers and signatures are not counted)", a, b)
	}
}

const codexInput = `{"type":"message","role":"developer","content":[{"type":"input_text","text":"sys"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the test"}]}`

// TestResponsesStream: Codex's default tools (additional_tools with the
// freeform exec) get a custom_tool_call of JavaScript calling
// exec_command; gpt-5.5's tools array gets a function_call of
// exec_command; both in the documented event order with a signed
// reasoning item first.
func TestResponsesStream(t *testing.T) {
	t.Parallel()
	s := startTest(t)
	tests := []struct {
		name, body, wantItem, wantDelta, wantIn string
	}{
		{"additional_tools exec", `{"model":"gpt-6.1-sol","stream":true,"reasoning":{"effort":"low"},"include":["reasoning.encrypted_content"],"input":[{"type":"additional_tools","role":"developer","tools":[{"type":"namespace","name":"functions","tools":[{"type":"custom","name":"exec"}]}]},` + codexInput + `]}`,
			"custom_tool_call", "response.custom_tool_call_input.delta", "tools.exec_command"},
		{"tools exec_command", `{"model":"gpt-5.5","stream":true,"reasoning":{"effort":"low"},"include":["reasoning.encrypted_content"],"tools":[{"type":"function","name":"exec_command"},{"type":"custom","name":"apply_patch"}],"input":[` + codexInput + `]}`,
			"function_call", "response.function_call_arguments.delta", `"cmd":"cat calc.js`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, b := post(t, s.URL+"/v1/responses", tt.body)
			if status != 200 {
				t.Fatalf("status %d: %s", status, b)
			}
			var names []string
			var done struct {
				Response struct {
					Status string
					Output []json.RawMessage
					Usage  struct {
						InputTokens int `json:"input_tokens"`
					}
				}
			}
			for i, e := range sseEvents(t, b) {
				names = append(names, e[0])
				var d struct {
					Type           string
					SequenceNumber int `json:"sequence_number"`
				}
				if err := json.Unmarshal([]byte(e[1]), &d); err != nil || d.Type != e[0] || d.SequenceNumber != i {
					t.Errorf("event %d %s: type %q sequence %d (%v)", i, e[0], d.Type, d.SequenceNumber, err)
				}
				if e[0] == "response.completed" {
					_ = json.Unmarshal([]byte(e[1]), &done)
				}
			}
			joined := strings.Join(names, " ")
			for _, w := range []string{"response.created response.in_progress response.output_item.added", tt.wantDelta, "response.output_item.done response.completed"} {
				if !strings.Contains(joined, w) {
					t.Errorf("events %s: want %s", joined, w)
				}
			}
			if done.Response.Status != "completed" || len(done.Response.Output) != 2 || done.Response.Usage.InputTokens == 0 {
				t.Fatalf("response.completed: %+v", done.Response)
			}
			var call map[string]any
			_ = json.Unmarshal(done.Response.Output[1], &call)
			if call["type"] != tt.wantItem || !strings.Contains(fmt.Sprint(call["input"], call["arguments"]), tt.wantIn) {
				t.Errorf("output[1] = %v, want a %s holding %s", call, tt.wantItem, tt.wantIn)
			}
			// Send the reasoning and the call back with its output: accepted.
			var reasoning map[string]any
			_ = json.Unmarshal(done.Response.Output[0], &reasoning)
			outType := call["type"].(string) + "_output"
			back, _ := json.Marshal([]any{reasoning, call, map[string]any{"type": outType, "call_id": call["call_id"], "output": "// total\nfunction total(xs) {"}})
			body := strings.Replace(tt.body, codexInput+`]`, codexInput+`,`+string(back[1:]), 1)
			if status, b := post(t, s.URL+"/v1/responses", body); status != 200 {
				t.Errorf("second request: %d %s", status, b)
			}
		})
	}
}

// TestResponsesRules: a call without its output, an output without its
// call and reasoning the server did not sign get OpenAI's 400 body.
func TestResponsesRules(t *testing.T) {
	t.Parallel()
	s := startTest(t)
	tests := []struct{ name, items, want string }{
		{"function_call unanswered", `{"type":"function_call","call_id":"call_1","name":"exec_command","arguments":"{}"}`, "No tool output found for function call call_1."},
		{"custom_tool_call unanswered", `{"type":"custom_tool_call","call_id":"call_2","name":"exec","input":"x"}`, "No tool output found for custom tool call call_2."},
		{"orphan output", `{"type":"function_call_output","call_id":"call_3","output":"x"}`, "No tool call found for function call output with call_id call_3."},
		{"output of another kind", `{"type":"custom_tool_call","call_id":"call_4","name":"exec","input":"x"},{"type":"function_call_output","call_id":"call_4","output":"x"}`, "call_4"},
		{"forged reasoning", `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA"}`, "The encrypted content for item rs_1 could not be verified."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, b := post(t, s.URL+"/v1/responses", `{"model":"gpt-5.5","tools":[{"type":"function","name":"exec_command"}],"input":[`+codexInput+`,`+tt.items+`]}`)
			var e struct {
				Error struct {
					Message, Type string
					Param         *string
					Code          *string
				}
			}
			if err := json.Unmarshal(b, &e); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			if status != 400 || e.Error.Type != "invalid_request_error" || !strings.Contains(e.Error.Message, tt.want) || !bytes.Contains(b, []byte(`"code":null`)) {
				t.Errorf("got %d %s, want 400 invalid_request_error %q", status, b, tt.want)
			}
		})
	}
}

// TestGemini: the first step is a signed functionCall of read_file over
// SSE; the call sent back without its signature, or without its response,
// is refused with the Gemini API's 400 body; JSON side requests get JSON.
func TestGemini(t *testing.T) {
	t.Parallel()
	s := startTest(t)
	tools := `"tools":[{"functionDeclarations":[{"name":"read_file"},{"name":"run_shell_command"},{"name":"replace"}]}]`
	status, b := post(t, s.URL+"/v1beta/models/gemini-x:streamGenerateContent?alt=sse", `{`+tools+`,"contents":[{"role":"user","parts":[{"text":"fix the test"}]}]}`)
	if status != 200 {
		t.Fatalf("status %d: %s", status, b)
	}
	evs := sseEvents(t, b)
	if len(evs) != 1 {
		t.Fatalf("%d events, want 1: %s", len(evs), b)
	}
	var chunk struct {
		Candidates []struct {
			Content struct {
				Parts []json.RawMessage
			}
			FinishReason string
		}
		UsageMetadata struct{ PromptTokenCount int }
	}
	if err := json.Unmarshal([]byte(evs[0][1]), &chunk); err != nil || len(chunk.Candidates) != 1 || chunk.Candidates[0].FinishReason != "STOP" || chunk.UsageMetadata.PromptTokenCount == 0 {
		t.Fatalf("chunk %s (%v)", evs[0][1], err)
	}
	part := string(chunk.Candidates[0].Content.Parts[0])
	if !strings.Contains(part, `"name":"read_file"`) || !strings.Contains(part, `"thoughtSignature":"ac1.`) {
		t.Fatalf("part %s: want a signed read_file call", part)
	}
	unsigned := strings.Replace(part, `"thoughtSignature"`, `"x"`, 1)
	response := `{"role":"user","parts":[{"functionResponse":{"name":"read_file","response":{"output":"function total"}}}]}`
	tests := []struct{ name, contents, want string }{
		{"valid", `{"role":"user","parts":[{"text":"fix"}]},{"role":"model","parts":[` + part + `]},` + response, ""},
		{"unsigned call", `{"role":"user","parts":[{"text":"fix"}]},{"role":"model","parts":[` + unsigned + `]},` + response, "missing a thought_signature"},
		{"no response", `{"role":"user","parts":[{"text":"fix"}]},{"role":"model","parts":[` + part + `]},{"role":"user","parts":[{"text":"go on"}]}`, "number of function response parts is equal"},
		{"orphan response", `{"role":"user","parts":[{"text":"fix"}]},` + response, "function response turn comes immediately after a function call turn"},
	}
	for _, tt := range tests {
		status, b := post(t, s.URL+"/v1beta/models/gemini-x:generateContent", `{`+tools+`,"contents":[`+tt.contents+`]}`)
		switch {
		case tt.want == "" && status != 200:
			t.Errorf("%s: %d %s, want 200", tt.name, status, b)
		case tt.want != "" && (status != 400 || !strings.Contains(string(b), tt.want) || !strings.Contains(string(b), `"status":"INVALID_ARGUMENT"`)):
			t.Errorf("%s: %d %s, want 400 INVALID_ARGUMENT %q", tt.name, status, b, tt.want)
		}
	}
	status, b = post(t, s.URL+"/v1beta/models/gemini-x:generateContent", `{"contents":[{"role":"user","parts":[{"text":"rate"}]}],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT","properties":{"score":{"type":"INTEGER"},"why":{"type":"STRING"}}}}}`)
	if status != 200 || !strings.Contains(string(b), `{\"score\":50,\"why\":\"agentconf\"}`) {
		t.Errorf("JSON side request: %d %s", status, b)
	}
}

// TestTaskPlay plays the task to the end by running each action in the
// repository as an agent would, feeding back each result: the test fails
// before and passes after, in the documented number of steps.
func TestTaskPlay(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: test.sh needs it")
	}
	task, err := NewTask(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if ok, out := task.Passes(t.Context()); ok {
		t.Fatalf("the task passes before the fix: %s", out)
	}
	var last Step
	var result string
	var steps []Step
	for calls := 0; calls < MaxSteps+1; calls++ {
		a := task.Next(last, result, calls)
		steps = append(steps, a.Step)
		if a.Kind == ActionFinal {
			if !strings.Contains(a.Text, "PASS") {
				t.Errorf("final answer %q, want success", a.Text)
			}
			break
		}
		var input string
		switch a.Kind {
		case ActionRead:
			b, err := os.ReadFile(a.Path)
			if err != nil {
				t.Fatal(err)
			}
			input, result = `{"file_path":"`+a.Path+`"}`, string(b)
		case ActionEdit:
			b, err := os.ReadFile(a.Path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(a.Path, bytes.Replace(b, []byte(a.Old), []byte(a.New), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			input, result = a.New, "edited"
		default:
			cmd := exec.CommandContext(t.Context(), "sh", "-c", a.Command)
			cmd.Dir = task.Dir
			out, _ := cmd.CombinedOutput()
			input, result = a.Command, string(out)
			if bigN(a.Step) > 0 {
				if n, _ := Count([]byte(jsString(result))); n < 5000 || n > 10000 || len(result) >= 30000 {
					t.Errorf("step %s: %d tokens, %d bytes: want a large output (5,000 to 10,000 tokens) under Claude Code's 30,000 characters", a.Step, n, len(result))
				}
			}
		}
		last = Classify(input)
	}
	want := []Step{StepRead, StepTestBefore}
	for n := 1; n <= BigSteps; n++ {
		want = append(want, BigStep(n))
	}
	want = append(want, StepEdit, StepTestAfter, StepDone)
	if diff := cmp.Diff(want, steps); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if ok, out := task.Passes(t.Context()); !ok {
		t.Errorf("the task fails after the play: %s", out)
	}
	if _, err := os.Stat(filepath.Join(task.Dir, ".git")); err != nil {
		t.Errorf("no git repository: %v", err)
	}
}
