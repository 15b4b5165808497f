package providertest_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider/providertest"
)

// Bodies built by hand from the API references.
func TestValidateOpenAI(t *testing.T) {
	t.Parallel()
	const call = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{}"}},{"id":"call_2","type":"function","function":{"name":"ls","arguments":"{}"}}]}`
	tests := []struct {
		name      string
		body      string
		wantParam string
		wantMsg   string // "" means valid
	}{
		{"plain", `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}]}`, "", ""},
		{"tool round", `{"messages":[{"role":"user","content":"go"},` + call + `,{"role":"tool","tool_call_id":"call_2","content":"b"},{"role":"tool","tool_call_id":"call_1","content":"a"},{"role":"assistant","content":"done"}]}`, "", ""},
		{"array content", `{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`, "", ""},
		{"not json", `{`, "", "We could not parse the JSON body"},
		{"no messages", `{"model":"m"}`, "messages", "Missing required parameter: 'messages'."},
		{"empty messages", `{"messages":[]}`, "messages", "Invalid 'messages': empty array."},
		{"bad role", `{"messages":[{"role":"robot","content":"x"}]}`, "messages[0].role", "Invalid value: 'robot'."},
		{"null user content", `{"messages":[{"role":"user","content":null}]}`, "messages.[0].content", "Invalid value for 'content': expected a string, got null."},
		{"missing content", `{"messages":[{"role":"user"}]}`, "messages[0].content", "Missing required parameter: 'messages[0].content'."},
		{"assistant null content without calls", `{"messages":[{"role":"user","content":"x"},{"role":"assistant","content":null}]}`, "messages.[1].content", "expected a string, got null"},
		{"tool without id", `{"messages":[{"role":"user","content":"x"},` + call + `,{"role":"tool","content":"a"}]}`, "messages[2].tool_call_id", "Missing required parameter"},
		{"unanswered call", `{"messages":[{"role":"user","content":"go"},` + call + `,{"role":"tool","tool_call_id":"call_1","content":"a"},{"role":"user","content":"and?"}]}`,
			"messages.[1].role", "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_2"},
		{"calls last", `{"messages":[{"role":"user","content":"go"},` + call + `]}`, "messages.[1].role", "did not have response messages: call_1, call_2"},
		{"orphan tool", `{"messages":[{"role":"user","content":"go"},{"role":"tool","tool_call_id":"call_9","content":"a"}]}`,
			"messages.[1].role", "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."},
		{"tool after text", `{"messages":[{"role":"user","content":"go"},` + call + `,{"role":"tool","tool_call_id":"call_1","content":"a"},{"role":"tool","tool_call_id":"call_2","content":"b"},{"role":"user","content":"x"},{"role":"tool","tool_call_id":"call_1","content":"a"}]}`,
			"messages.[5].role", "must be a response to a preceeding message"},
		{"wrong id", `{"messages":[{"role":"user","content":"go"},` + call + `,{"role":"tool","tool_call_id":"call_3","content":"a"}]}`, "messages.[2].role", "must be a response"},
		{"null message", `{"messages":[null]}`, "messages.[0]", "expected an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := providertest.ValidateOpenAI([]byte(tt.body))
			checkValidation(t, err, tt.wantParam, tt.wantMsg)
		})
	}
}

func TestValidateAnthropic(t *testing.T) {
	t.Parallel()
	const use = `{"role":"assistant","content":[{"type":"text","text":"Running."},{"type":"tool_use","id":"toolu_1","name":"bash","input":{}},{"type":"tool_use","id":"toolu_2","name":"ls","input":{}}]}`
	const results = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a"},{"type":"tool_result","tool_use_id":"toolu_2","content":"b"}]}`
	head := `{"model":"claude","max_tokens":100,`
	cc := `"cache_control":{"type":"ephemeral"}`
	tests := []struct {
		name    string
		body    string
		wantMsg string
	}{
		{"plain", head + `"system":"be terse","messages":[{"role":"user","content":"hi"}]}`, ""},
		{"tool round", head + `"messages":[{"role":"user","content":"go"},` + use + `,` + results + `]}`, ""},
		{"results then text", head + `"messages":[{"role":"user","content":"go"},` + use + `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a"},{"type":"tool_result","tool_use_id":"toolu_2","content":"b"},{"type":"text","text":"and?"}]}]}`, ""},
		{"consecutive users merge", head + `"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}`, ""},
		{"final assistant may be empty", head + `"messages":[{"role":"user","content":"a"},{"role":"assistant","content":""}]}`, ""},
		{"four cache blocks", head + `"system":[{"type":"text","text":"s",` + cc + `}],"tools":[{"name":"t","input_schema":{"type":"object"},` + cc + `}],"messages":[{"role":"user","content":[{"type":"text","text":"a",` + cc + `},{"type":"text","text":"b",` + cc + `}]}]}`, ""},
		{"not json", `{`, "parsing the body"},
		{"no model", `{"max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`, "model: Field required"},
		{"no max_tokens", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "max_tokens: Field required"},
		{"no messages", head + `"system":"s"}`, "messages: Field required"},
		{"system role", head + `"messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}]}`, "messages: Unexpected role \"system\". The Messages API accepts a top-level `system` parameter"},
		{"bad role", head + `"messages":[{"role":"tool","content":"s"}]}`, "messages.0.role: Input should be 'user' or 'assistant'"},
		{"empty content", head + `"messages":[{"role":"user","content":""},{"role":"assistant","content":"x"}]}`, "messages.0: all messages must have non-empty content except for the optional final assistant message"},
		{"assistant first", head + `"messages":[{"role":"assistant","content":"hello"},{"role":"user","content":"hi"}]}`, `messages: first message must use the "user" role`},
		{"unanswered tool_use", head + `"messages":[{"role":"user","content":"go"},` + use + `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a"}]}]}`,
			"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2. Each `tool_use` block must have a corresponding `tool_result` block in the next message."},
		{"last message is tool_use", head + `"messages":[{"role":"user","content":"go"},` + use + `]}`, "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1, toolu_2."},
		{"results after text", head + `"messages":[{"role":"user","content":"go"},` + use + `,{"role":"user","content":[{"type":"text","text":"here"},{"type":"tool_result","tool_use_id":"toolu_1","content":"a"},{"type":"tool_result","tool_use_id":"toolu_2","content":"b"}]}]}`,
			"messages.2: Did not find 2 `tool_result` block(s) at the beginning of this message. Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks."},
		{"text message merged before results", head + `"messages":[{"role":"user","content":"go"},` + use + `,{"role":"user","content":"look"},` + results + `]}`, "messages.2: Did not find 2 `tool_result` block(s)"},
		{"unexpected tool_result", head + `"messages":[{"role":"user","content":"go"},{"role":"assistant","content":"ok"},{"role":"user","content":[{"type":"text","text":"x"},{"type":"tool_result","tool_use_id":"toolu_9","content":"a"}]}]}`,
			"messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."},
		{"tool_result in the first message", head + `"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a"}]}]}`, "messages.0.content.0: unexpected `tool_use_id`"},
		{"five cache blocks", head + `"system":[{"type":"text","text":"s",` + cc + `}],"tools":[{"name":"t","input_schema":{"type":"object"},` + cc + `}],"messages":[{"role":"user","content":[{"type":"text","text":"a",` + cc + `},{"type":"text","text":"b",` + cc + `},{"type":"text","text":"c",` + cc + `}]}]}`,
			"A maximum of 4 blocks with cache_control may be provided. Found 5."},
		{"content of wrong type", head + `"messages":[{"role":"user","content":5}]}`, "messages.0.content: Input should be a valid list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkValidation(t, providertest.ValidateAnthropic([]byte(tt.body)), "", tt.wantMsg)
		})
	}
}

func checkValidation(t *testing.T, err error, wantParam, wantMsg string) {
	t.Helper()
	if wantMsg == "" {
		if err != nil {
			t.Fatalf("err = %v, want nil", err)
		}
		return
	}
	var ve *providertest.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a *ValidationError", err)
	}
	if !strings.Contains(ve.Message, wantMsg) {
		t.Errorf("Message = %q, want it to contain %q", ve.Message, wantMsg)
	}
	if ve.Param != wantParam {
		t.Errorf("Param = %q, want %q", ve.Param, wantParam)
	}
	f := ve.Failure()
	if f.Status != 400 || !json.Valid(f.Body) || !strings.Contains(string(f.Body), "invalid_request_error") {
		t.Errorf("Failure = %d %s, want a 400 invalid_request_error body", f.Status, f.Body)
	}
}

// The chat package's conversions produce bodies both validators accept.
func TestValidateConvertedConversation(t *testing.T) {
	t.Parallel()
	msgs := []chat.Message{
		chat.NewText(chat.RoleSystem, "You are terse."),
		chat.NewText(chat.RoleUser, "List and count."),
		{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.Text{Text: "Running both."},
			chat.ToolCall{ID: "call_1", Name: "ls", Arguments: json.RawMessage(`{}`)},
			chat.ToolCall{ID: "call_2", Name: "wc", Arguments: json.RawMessage(`{"path":"."}`)},
		}},
		chat.NewToolResult("call_1", "ls", "a.go", false),
		chat.NewToolResult("call_2", "wc", "3", false),
		chat.NewText(chat.RoleUser, "Thanks."),
	}
	oa, err := chat.ToOpenAI(msgs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range oa {
		oa[i] = oa[i].ForRequest()
	}
	body, _ := json.Marshal(map[string]any{"model": "m", "messages": oa})
	if err := providertest.ValidateOpenAI(body); err != nil {
		t.Errorf("ValidateOpenAI(ToOpenAI) = %v", err)
	}
	system, am, err := chat.ToAnthropic(msgs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range am {
		am[i] = am[i].ForRequest()
	}
	body, _ = json.Marshal(map[string]any{"model": "m", "max_tokens": 10, "system": system, "messages": am})
	if err := providertest.ValidateAnthropic(body); err != nil {
		t.Errorf("ValidateAnthropic(ToAnthropic) = %v", err)
	}
	// Dropping the second result breaks both.
	broken := append(append([]chat.Message(nil), msgs[:4]...), msgs[5:]...)
	oa, _ = chat.ToOpenAI(broken)
	body, _ = json.Marshal(map[string]any{"messages": oa})
	if err := providertest.ValidateOpenAI(body); err == nil || !strings.Contains(err.Error(), "call_2") {
		t.Errorf("ValidateOpenAI(broken) = %v, want call_2 unanswered", err)
	}
	_, am, _ = chat.ToAnthropic(broken)
	body, _ = json.Marshal(map[string]any{"model": "m", "max_tokens": 10, "messages": am})
	if err := providertest.ValidateAnthropic(body); err == nil || !strings.Contains(err.Error(), "call_2") {
		t.Errorf("ValidateAnthropic(broken) = %v, want call_2 unanswered", err)
	}
}

func FuzzValidate(f *testing.F) {
	f.Add([]byte(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"a"}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","tool_calls":[{"id":"x"}]},{"role":"tool","tool_call_id":"x","content":"y"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		_ = providertest.ValidateOpenAI(body)
		_ = providertest.ValidateAnthropic(body)
	})
}
