package chat

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
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

// TestFromResponsesRefuses: a message of a role the model has no place
// for is an ErrUnsupported error; items and content parts it does not
// interpret are carried as opaque parts, byte for byte, back to the wire.
func TestFromResponsesRefuses(t *testing.T) {
	var bad ResponsesItem
	if err := json.Unmarshal([]byte(`{"type":"message","role":"critic","content":"x"}`), &bad); err != nil {
		t.Fatal(err)
	}
	if _, err := FromResponses(bad); !errors.Is(err, ErrUnsupported) {
		t.Errorf("role critic: %v, want ErrUnsupported", err)
	}
	for _, tt := range []struct {
		raw, role, kind string
	}{
		{`{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"go"}}`, "assistant", "web_search_call"},
		{`{"type":"item_reference","id":"msg_1"}`, "assistant", "item_reference"},
		{`{"type":"compaction","id":"cmp_1","encrypted_content":"gAAAA"}`, "assistant", "compaction"},
		{`{"type":"additional_tools","role":"developer","tools":[{"type":"function","name":"exec"}]}`, "system", "additional_tools"},
		{`{"type":"local_shell_call_output","call_id":"c","output":"ok"}`, "assistant", "local_shell_call_output"},
		{`{"type":"message","role":"user","content":[{"type":"input_text","text":"see"},{"type":"input_file","file_id":"f"}]}`, "user", "input_file"},
	} {
		var it ResponsesItem
		if err := json.Unmarshal([]byte(tt.raw), &it); err != nil {
			t.Fatal(err)
		}
		m, err := FromResponses(it)
		if err != nil {
			t.Errorf("%s: %v", tt.raw, err)
			continue
		}
		ops := m.Opaques()
		if string(m.Role) != tt.role || len(ops) != 1 || ops[0].Kind != tt.kind {
			t.Errorf("%s: role %s, opaque %+v", tt.raw, m.Role, ops)
			continue
		}
		if tt.kind == "compaction" && !m.IsBoundary() || tt.kind == "additional_tools" && !m.IsPinned() {
			t.Errorf("%s: boundary %v pinned %v", tt.raw, m.IsBoundary(), m.IsPinned())
		}
		items, err := ToResponses([]Message{m}, nil)
		if err != nil {
			t.Fatalf("%s: ToResponses: %v", tt.raw, err)
		}
		b, _ := json.Marshal(items)
		want := tt.raw
		if tt.kind == "input_file" {
			want = `{"type":"input_file","file_id":"f"}`
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s: not carried: %s", tt.raw, b)
		}
	}
	// A tool output with an image keeps it after the text.
	var out ResponsesItem
	_ = json.Unmarshal([]byte(`{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"shot"},{"type":"input_image","image_url":"data:image/png;base64,`+onePixelPNG+`"}]}`), &out)
	m, err := FromResponses(out)
	if r, att, err2 := m.ToolParts(); err != nil || err2 != nil || r.Content != "shot" || len(att) != 1 || !att[0].Media || att[0].Tokens != ImageTokens(1, 1) {
		t.Errorf("tool output with an image: %+v %+v %v %v", r, att, err, err2)
	}
	// Reasoning keeps its summary and encrypted content; usage subtracts
	// the cached tokens.
	var it ResponsesItem
	_ = json.Unmarshal([]byte(`{"type":"reasoning","id":"rs","summary":[{"type":"summary_text","text":"plan"}],"encrypted_content":"gAAA"}`), &it)
	m, err = FromResponses(it)
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
