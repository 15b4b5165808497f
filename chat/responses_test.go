package chat

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// TestResponsesRoundTrip: messages written as Responses API items and
// read back one item at a time (model-output items joined) are the same
// messages, thinking aside, and custom tool calls keep their kind.
func TestResponsesRoundTrip(t *testing.T) {
	msgs := []Message{
		NewText(RoleSystem, "Be brief."),
		NewText(RoleUser, "Fix the test."),
		NewAssistant("Reading.", ToolCall{ID: "c1", Name: "shell", Arguments: json.RawMessage(`{"command":["ls"]}`)}),
		NewToolResult("c1", "", "a.go\nb.go", false),
		{Role: RoleAssistant, Parts: []Part{ToolCall{ID: "c2", Name: "apply_patch", Arguments: json.RawMessage(`{"input":"*** Begin Patch"}`)}}},
		NewToolResult("c2", "", "Done!", false),
	}
	items, err := ToResponses(msgs, func(id string) bool { return id == "c2" })
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	var back []Message
	for _, it := range items {
		types = append(types, it.Type+"/"+it.Role)
		raw, err := json.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		var again ResponsesItem
		if err := json.Unmarshal(raw, &again); err != nil {
			t.Fatal(err)
		}
		m, err := FromResponses(again)
		if err != nil {
			t.Fatal(err)
		}
		if again.IsAssistantSide() && len(back) > 0 && back[len(back)-1].Role == RoleAssistant {
			back[len(back)-1].Parts = append(back[len(back)-1].Parts, m.Parts...)
			continue
		}
		back = append(back, m)
	}
	want := []string{"message/developer", "message/user", "message/assistant", "function_call/", "function_call_output/", "custom_tool_call/", "custom_tool_call_output/"}
	if !reflect.DeepEqual(types, want) {
		t.Fatalf("items %v, want %v", types, want)
	}
	if !reflect.DeepEqual(back, msgs) {
		t.Fatalf("round trip:\n%#v\nwant\n%#v", back, msgs)
	}
}

// TestFromResponsesRefuses: items the message model has no place for are
// ErrUnsupported errors that name them.
func TestFromResponsesRefuses(t *testing.T) {
	for _, raw := range []string{
		`{"type":"web_search_call","id":"ws_1","status":"completed"}`,
		`{"type":"item_reference","id":"msg_1"}`,
		`{"type":"message","role":"user","content":[{"type":"input_file","file_id":"f"}]}`,
		`{"type":"message","role":"critic","content":"x"}`,
	} {
		var it ResponsesItem
		if err := json.Unmarshal([]byte(raw), &it); err != nil {
			t.Fatal(err)
		}
		if _, err := FromResponses(it); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", raw, err)
		}
	}
	// Reasoning keeps its summary and encrypted content; usage subtracts
	// the cached tokens.
	var it ResponsesItem
	_ = json.Unmarshal([]byte(`{"type":"reasoning","id":"rs","summary":[{"type":"summary_text","text":"plan"}],"encrypted_content":"gAAA"}`), &it)
	m, err := FromResponses(it)
	if err != nil || !reflect.DeepEqual(m.Parts, []Part{Thinking{Text: "plan", Encrypted: "gAAA"}}) {
		t.Fatalf("reasoning: %v %#v", err, m)
	}
	var u ResponsesUsage
	_ = json.Unmarshal([]byte(`{"input_tokens":100,"input_tokens_details":{"cached_tokens":40},"output_tokens":7,"output_tokens_details":{"reasoning_tokens":5}}`), &u)
	if got := UsageFromResponses(u); got != (Usage{InputTokens: 60, CacheReadTokens: 40, OutputTokens: 7, ReasoningTokens: 5}) {
		t.Fatalf("usage %+v", got)
	}
}

// FuzzFromResponses: reading any item never panics, and what it reads
// (without images) is written back.
func FuzzFromResponses(f *testing.F) {
	for _, s := range []string{
		`{"type":"message","role":"user","content":"hi"}`,
		`{"role":"assistant","content":[{"type":"output_text","text":"ok"}]}`,
		`{"type":"function_call","call_id":"c","name":"f","arguments":"{\"a\":1}"}`,
		`{"type":"custom_tool_call","call_id":"c","name":"p","input":"x"}`,
		`{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"t"}]}`,
		`{"type":"reasoning","summary":[{"text":"s"}],"encrypted_content":"e"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var it ResponsesItem
		if json.Unmarshal(data, &it) != nil {
			return
		}
		m, err := FromResponses(it)
		if err != nil {
			return
		}
		for _, p := range m.Parts {
			if _, ok := p.(Image); ok {
				return
			}
		}
		if _, err := ToResponses([]Message{m}, nil); err != nil {
			t.Fatalf("%s: read as %#v, not written back: %v", data, m, err)
		}
	})
}
