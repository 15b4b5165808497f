package chat

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// equateEmpty treats nil and empty slices alike: the wire shapes cannot tell
// them apart (an omitted "tool_calls" and [] are the same to the API).
var equateEmpty = cmpopts.EquateEmpty()

// equateJSON compares JSON values as values: encoding/json compacts and
// HTML-escapes a json.RawMessage it writes, so an opaque element read with
// spaces or a bare "&" comes back as other bytes of the same value. Two
// empty values are left to equateEmpty; bytes that are not JSON compare as
// bytes.
var equateJSON = cmp.FilterValues(func(a, b json.RawMessage) bool { return len(a) > 0 || len(b) > 0 },
	cmp.Transformer("value", func(r json.RawMessage) any {
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return string(r)
		}
		return v
	}))

// jsonDiff compares two JSON texts as values, ignoring spacing and key order.
func jsonDiff(t *testing.T, want, got []byte) string {
	t.Helper()
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("want is not JSON: %v\n%s", err, want)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got is not JSON: %v\n%s", err, got)
	}
	return cmp.Diff(w, g)
}

// roundTripCase is one conversation in both forms: msgs in the model, wire
// as the provider's JSON. Each form must convert to the other exactly.
type roundTripCase struct {
	name string
	msgs []Message
	wire string
}

// openAICases are the OpenAI round-trip cases. Field names and shapes follow
// the chat-completions API reference; is_error, reasoning_parts, id, model,
// usage on a message and width/height/bytes on an image part are the
// documented agentctx extensions.
var openAICases = []roundTripCase{
	{
		name: "plain chat",
		msgs: []Message{
			NewText(RoleUser, "Hello"),
			{Role: RoleAssistant, ID: "chatcmpl-1", Model: "gpt-4o", Parts: []Part{Text{Text: "Hi there!"}},
				Usage: &Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 2, ReasoningTokens: 1}},
		},
		wire: `[
			{"role": "user", "content": "Hello"},
			{"role": "assistant", "content": "Hi there!", "id": "chatcmpl-1", "model": "gpt-4o",
			 "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17,
			           "prompt_tokens_details": {"cached_tokens": 2},
			           "completion_tokens_details": {"reasoning_tokens": 1}}}]`,
	},
	{
		name: "system prompt and names",
		msgs: []Message{
			NewText(RoleSystem, "You are terse."),
			{Role: RoleUser, Name: "alice", Parts: []Part{Text{Text: "2+2?"}}},
			NewText(RoleAssistant, "4"),
		},
		wire: `[
			{"role": "system", "content": "You are terse."},
			{"role": "user", "content": "2+2?", "name": "alice"},
			{"role": "assistant", "content": "4"}]`,
	},
	{
		name: "several tool calls with results",
		msgs: []Message{
			NewText(RoleUser, "List files, read go.mod, run false."),
			{Role: RoleAssistant, Parts: []Part{
				Text{Text: "Running three tools."},
				ToolCall{ID: "call_1", Name: "bash", Arguments: raw(`{"command":"ls"}`)},
				ToolCall{ID: "call_2", Name: "read", Arguments: raw(`{"path": "go.mod"}`)},
				ToolCall{ID: "call_3", Name: "bash", Arguments: raw(`{"command":"false"}`)},
			}},
			NewToolResult("call_1", "bash", "a\nb", false),
			NewToolResult("call_2", "read", "module x", false),
			NewToolResult("call_3", "bash", "exit status 1", true),
			NewText(RoleAssistant, "Done."),
		},
		wire: `[
			{"role": "user", "content": "List files, read go.mod, run false."},
			{"role": "assistant", "content": "Running three tools.", "tool_calls": [
				{"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}},
				{"id": "call_2", "type": "function", "function": {"name": "read", "arguments": "{\"path\": \"go.mod\"}"}},
				{"id": "call_3", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"false\"}"}}]},
			{"role": "tool", "tool_call_id": "call_1", "name": "bash", "content": "a\nb"},
			{"role": "tool", "tool_call_id": "call_2", "name": "read", "content": "module x"},
			{"role": "tool", "tool_call_id": "call_3", "name": "bash", "content": "exit status 1", "is_error": true},
			{"role": "assistant", "content": "Done."}]`,
	},
	{
		name: "repeated tool-call ids",
		msgs: []Message{
			{Role: RoleAssistant, Parts: []Part{ToolCall{ID: "x", Name: "bash", Arguments: raw(`{}`)}}},
			NewToolResult("x", "", "one", false),
			{Role: RoleAssistant, Parts: []Part{ToolCall{ID: "x", Name: "read", Arguments: raw(`{}`)}}},
			NewToolResult("x", "", "two", false),
		},
		wire: `[
			{"role": "assistant", "content": null, "tool_calls": [{"id": "x", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
			{"role": "tool", "tool_call_id": "x", "content": "one"},
			{"role": "assistant", "content": null, "tool_calls": [{"id": "x", "type": "function", "function": {"name": "read", "arguments": "{}"}}]},
			{"role": "tool", "tool_call_id": "x", "content": "two"}]`,
	},
	{
		name: "thinking and tool calls",
		msgs: []Message{
			{Role: RoleAssistant, Parts: []Part{
				Thinking{Text: "Look at the tree first."},
				ToolCall{ID: "c1", Name: "ls", Arguments: raw(`{"path":"."}`)},
			}},
			NewToolResult("c1", "ls", "go.mod", false),
			{Role: RoleAssistant, Parts: []Part{
				Thinking{Text: "Signed.", Signature: "sig=="},
				Thinking{Encrypted: "opaque"},
				Thinking{Text: "More."},
				Text{Text: "Reading."},
				ToolCall{ID: "c2", Name: "read", Arguments: raw(`{"path":"go.mod"}`)},
			}},
			{Role: RoleAssistant, Parts: []Part{Thinking{}}},
		},
		wire: `[
			{"role": "assistant", "content": null, "reasoning_content": "Look at the tree first.",
			 "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{\"path\":\".\"}"}}]},
			{"role": "tool", "tool_call_id": "c1", "name": "ls", "content": "go.mod"},
			{"role": "assistant", "content": "Reading.", "reasoning_content": "Signed.\nMore.",
			 "reasoning_parts": [{"text": "Signed.", "signature": "sig=="}, {"encrypted": "opaque"}, {"text": "More."}],
			 "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"go.mod\"}"}}]},
			{"role": "assistant", "content": null, "reasoning_parts": [{}]}]`,
	},
	{
		name: "images",
		msgs: []Message{
			{Role: RoleUser, Parts: []Part{
				Text{Text: "What is in these?"},
				Image{Source: "https://example.com/cat.png", Width: 640, Height: 480},
				Image{Source: "image/jpeg", Bytes: 1234},
				Image{Source: "/tmp/shot.png"},
			}},
			{Role: RoleUser, Parts: []Part{Image{Source: "https://example.com/dog.png"}}},
		},
		wire: `[
			{"role": "user", "content": [
				{"type": "text", "text": "What is in these?"},
				{"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}, "width": 640, "height": 480},
				{"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,"}, "bytes": 1234},
				{"type": "image_url", "image_url": {"url": "/tmp/shot.png"}}]},
			{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://example.com/dog.png"}}]}]`,
	},
	{
		name: "multiple text parts",
		msgs: []Message{
			{Role: RoleSystem, Parts: []Part{Text{Text: "Rule one."}, Text{Text: "Rule two."}}},
			{Role: RoleUser, Parts: []Part{Text{Text: "a"}, Text{Text: ""}, Text{Text: "b"}}},
			{Role: RoleAssistant, Parts: []Part{Text{Text: "x"}, Text{Text: "y"}, ToolCall{ID: "c", Name: "n", Arguments: raw(`{}`)}}},
		},
		wire: `[
			{"role": "system", "content": [{"type": "text", "text": "Rule one."}, {"type": "text", "text": "Rule two."}]},
			{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": ""}, {"type": "text", "text": "b"}]},
			{"role": "assistant", "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}],
			 "tool_calls": [{"id": "c", "type": "function", "function": {"name": "n", "arguments": "{}"}}]}]`,
	},
	{
		name: "empty content",
		msgs: []Message{
			NewText(RoleUser, ""),
			{Role: RoleAssistant},
			{Role: RoleAssistant, Parts: []Part{Text{Text: ""}, ToolCall{ID: "c"}}},
			NewToolResult("c", "", "", false),
		},
		wire: `[
			{"role": "user", "content": ""},
			{"role": "assistant", "content": null},
			{"role": "assistant", "content": "", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "", "arguments": ""}}]},
			{"role": "tool", "tool_call_id": "c", "content": ""}]`,
	},
	{
		name: "unicode",
		msgs: []Message{
			NewText(RoleUser, "héllo 世界 🎉 \u2028 <b>&amp;</b> \"q\" \\"),
			{Role: RoleAssistant, Parts: []Part{
				Thinking{Text: "考える"},
				ToolCall{ID: "ü", Name: "grep", Arguments: raw(`{"q":"日本語 <&> \u00e9"}`)},
			}},
			NewToolResult("ü", "grep", "✓ 🎉", false),
		},
		wire: `[
			{"role": "user", "content": "héllo 世界 🎉 \u2028 <b>&amp;</b> \"q\" \\"},
			{"role": "assistant", "content": null, "reasoning_content": "考える",
			 "tool_calls": [{"id": "ü", "type": "function", "function": {"name": "grep", "arguments": "{\"q\":\"日本語 <&> \\u00e9\"}"}}]},
			{"role": "tool", "tool_call_id": "ü", "name": "grep", "content": "✓ 🎉"}]`,
	},
	{
		name: "arguments that are not a JSON object",
		msgs: []Message{{Role: RoleAssistant, Parts: []Part{
			ToolCall{ID: "1", Name: "f", Arguments: raw(`"{\"a\":"`)},
			ToolCall{ID: "2", Name: "f", Arguments: raw(`"\"quoted\""`)},
			ToolCall{ID: "3", Name: "f", Arguments: raw(`"a \u0026\u0026 b"`)},
			ToolCall{ID: "4", Name: "f", Arguments: raw(`[1, 2]`)},
			ToolCall{ID: "5", Name: "f"},
		}}},
		wire: `[{"role": "assistant", "content": null, "tool_calls": [
			{"id": "1", "type": "function", "function": {"name": "f", "arguments": "{\"a\":"}},
			{"id": "2", "type": "function", "function": {"name": "f", "arguments": "\"quoted\""}},
			{"id": "3", "type": "function", "function": {"name": "f", "arguments": "a && b"}},
			{"id": "4", "type": "function", "function": {"name": "f", "arguments": "[1, 2]"}},
			{"id": "5", "type": "function", "function": {"name": "f", "arguments": ""}}]}]`,
	},
}

func TestOpenAIRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tt := range openAICases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var wire []OpenAIMessage
			if err := json.Unmarshal([]byte(tt.wire), &wire); err != nil {
				t.Fatalf("unmarshal wire: %v", err)
			}

			// ours → wire: the JSON is the literal, field for field.
			gotWire, err := ToOpenAI(tt.msgs)
			if err != nil {
				t.Fatalf("ToOpenAI: %v", err)
			}
			b, err := json.Marshal(gotWire)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			if diff := jsonDiff(t, []byte(tt.wire), b); diff != "" {
				t.Errorf("ToOpenAI JSON (-want +got):\n%s", diff)
			}

			// ours → wire → ours.
			back, err := FromOpenAI(gotWire)
			if err != nil {
				t.Fatalf("FromOpenAI(ToOpenAI(msgs)): %v", err)
			}
			if diff := cmp.Diff(tt.msgs, back, equateEmpty); diff != "" {
				t.Errorf("ours → wire → ours (-want +got):\n%s", diff)
			}

			// wire → ours → wire.
			ours, err := FromOpenAI(wire)
			if err != nil {
				t.Fatalf("FromOpenAI(wire): %v", err)
			}
			if diff := cmp.Diff(tt.msgs, ours, equateEmpty); diff != "" {
				t.Errorf("FromOpenAI(wire) (-want +got):\n%s", diff)
			}
			again, err := ToOpenAI(ours)
			if err != nil {
				t.Fatalf("ToOpenAI(FromOpenAI(wire)): %v", err)
			}
			if diff := cmp.Diff(wire, again, equateEmpty, cmpopts.IgnoreFields(OpenAIContentPart{}, "Raw")); diff != "" {
				t.Errorf("wire → ours → wire (-want +got):\n%s", diff)
			}
		})
	}
}

// tinyPNG returns a w×h PNG, base64-encoded, and its size in bytes.
func tinyPNG(t testing.TB, w, h int) (string, int) {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), buf.Len()
}

// TestFromOpenAINormalizes covers wire input that converts without loss of
// meaning but comes back from ToOpenAI in the canonical form.
func TestFromOpenAINormalizes(t *testing.T) {
	t.Parallel()
	pngData, pngBytes := tinyPNG(t, 3, 2)
	tests := []struct {
		name     string
		wire     string
		want     []Message
		wantWire string
	}{
		{
			name:     "one text part in an array",
			wire:     `[{"role": "user", "content": [{"type": "text", "text": "hi"}]}]`,
			want:     []Message{NewText(RoleUser, "hi")},
			wantWire: `[{"role": "user", "content": "hi"}]`,
		},
		{
			name:     "developer role",
			wire:     `[{"role": "developer", "content": "Be brief."}]`,
			want:     []Message{NewText(RoleSystem, "Be brief.")},
			wantWire: `[{"role": "system", "content": "Be brief."}]`,
		},
		{
			name:     "tool content as text parts",
			wire:     `[{"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]`,
			want:     []Message{NewToolResult("c", "", "a\nb", false)},
			wantWire: `[{"role": "tool", "tool_call_id": "c", "content": "a\nb"}]`,
		},
		{
			name:     "tool content null",
			wire:     `[{"role": "tool", "tool_call_id": "c", "content": null}]`,
			want:     []Message{NewToolResult("c", "", "", false)},
			wantWire: `[{"role": "tool", "tool_call_id": "c", "content": ""}]`,
		},
		{
			name: "inline image data is measured and dropped",
			wire: `[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,` + pngData + `", "detail": "high"}}]}]`,
			want: []Message{{Role: RoleUser, Parts: []Part{Image{Source: "image/png", Width: 3, Height: 2, Bytes: pngBytes}}}},
			wantWire: `[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,"},
				"width": 3, "height": 2, "bytes": ` + itoa(pngBytes) + `}]}]`,
		},
		{
			name:     "extension sizes win over measured ones",
			wire:     `[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,` + pngData + `"}, "width": 30}]}]`,
			want:     []Message{{Role: RoleUser, Parts: []Part{Image{Source: "image/png", Width: 30, Height: 2, Bytes: pngBytes}}}},
			wantWire: `[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,"}, "width": 30, "height": 2, "bytes": ` + itoa(pngBytes) + `}]}]`,
		},
		{
			name:     "tool call without type, total tokens recomputed",
			wire:     `[{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}], "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 99}}]`,
			want:     []Message{{Role: RoleAssistant, Usage: &Usage{InputTokens: 5, OutputTokens: 1}, Parts: []Part{ToolCall{ID: "c", Name: "f", Arguments: raw(`{}`)}}}},
			wantWire: `[{"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}], "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}}]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var wire []OpenAIMessage
			if err := json.Unmarshal([]byte(tt.wire), &wire); err != nil {
				t.Fatal(err)
			}
			got, err := FromOpenAI(wire)
			if err != nil {
				t.Fatalf("FromOpenAI: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, equateEmpty); diff != "" {
				t.Errorf("FromOpenAI (-want +got):\n%s", diff)
			}
			again, err := ToOpenAI(got)
			if err != nil {
				t.Fatalf("ToOpenAI: %v", err)
			}
			b, _ := json.Marshal(again)
			if diff := jsonDiff(t, []byte(tt.wantWire), b); diff != "" {
				t.Errorf("ToOpenAI JSON (-want +got):\n%s", diff)
			}
		})
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestOpenAIAPIFieldNames checks ForRequest's output against request JSON
// written from the OpenAI chat-completions API reference: nothing but the
// API's own field names.
func TestOpenAIAPIFieldNames(t *testing.T) {
	t.Parallel()
	msgs := []Message{
		NewText(RoleSystem, "You are a helpful assistant."),
		{Role: RoleUser, Parts: []Part{
			Text{Text: "What's the weather like in Boston today?"},
			Image{Source: "https://example.com/boston.jpg", Width: 800, Height: 600},
		}},
		{Role: RoleAssistant, ID: "chatcmpl-abc123", Model: "gpt-4o", Usage: &Usage{InputTokens: 82, OutputTokens: 17},
			Parts: []Part{ToolCall{ID: "call_abc123", Name: "get_current_weather", Arguments: raw(`{"location":"Boston, MA"}`)}}},
		NewToolResult("call_abc123", "get_current_weather", `{"temperature":"22","unit":"celsius"}`, true),
	}
	const want = `[
		{"role": "system", "content": "You are a helpful assistant."},
		{"role": "user", "content": [
			{"type": "text", "text": "What's the weather like in Boston today?"},
			{"type": "image_url", "image_url": {"url": "https://example.com/boston.jpg"}}]},
		{"role": "assistant", "content": null, "tool_calls": [
			{"id": "call_abc123", "type": "function",
			 "function": {"name": "get_current_weather", "arguments": "{\"location\":\"Boston, MA\"}"}}]},
		{"role": "tool", "tool_call_id": "call_abc123", "content": "{\"temperature\":\"22\",\"unit\":\"celsius\"}"}]`
	wire, err := ToOpenAI(msgs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range wire {
		wire[i] = wire[i].ForRequest()
	}
	b, err := json.Marshal(wire)
	if err != nil {
		t.Fatal(err)
	}
	if diff := jsonDiff(t, []byte(want), b); diff != "" {
		t.Errorf("request JSON (-want +got):\n%s", diff)
	}

	// The usage object of a chat completion response.
	const wantUsage = `{"prompt_tokens": 1117, "completion_tokens": 46, "total_tokens": 1163,
		"prompt_tokens_details": {"cached_tokens": 1024},
		"completion_tokens_details": {"reasoning_tokens": 32}}`
	u := UsageToOpenAI(Usage{InputTokens: 93, OutputTokens: 46, CacheReadTokens: 1024, ReasoningTokens: 32})
	b, err = json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	if diff := jsonDiff(t, []byte(wantUsage), b); diff != "" {
		t.Errorf("usage JSON (-want +got):\n%s", diff)
	}
	var back OpenAIUsage
	if err := json.Unmarshal([]byte(wantUsage), &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Usage{InputTokens: 93, OutputTokens: 46, CacheReadTokens: 1024, ReasoningTokens: 32}, UsageFromOpenAI(back)); diff != "" {
		t.Errorf("UsageFromOpenAI (-want +got):\n%s", diff)
	}
}

func TestOpenAIUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   OpenAIUsage
		want Usage
	}{
		{"zero", OpenAIUsage{}, Usage{}},
		{"cache write extension", OpenAIUsage{PromptTokens: 100, CompletionTokens: 7, TotalTokens: 107,
			PromptTokensDetails: OpenAIPromptTokensDetails{CachedTokens: 60, CacheWriteTokens: 30}},
			Usage{InputTokens: 10, OutputTokens: 7, CacheReadTokens: 60, CacheWriteTokens: 30}},
		{"cached above prompt clamps", OpenAIUsage{PromptTokens: 5, PromptTokensDetails: OpenAIPromptTokensDetails{CachedTokens: 9}},
			Usage{CacheReadTokens: 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := UsageFromOpenAI(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("UsageFromOpenAI (-want +got):\n%s", diff)
			}
			if got.PromptTokens() == tt.in.PromptTokens {
				if diff := cmp.Diff(tt.in, UsageToOpenAI(got)); diff != "" {
					t.Errorf("UsageToOpenAI(UsageFromOpenAI) (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestToOpenAIErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msgs []Message
		want string
	}{
		{"invalid role", []Message{NewText(RoleUser, ""), {Role: "bot"}}, `chat: openai: message 1: role "bot" is not valid`},
		{"tool message with two parts", []Message{{Role: RoleTool, Parts: []Part{ToolResult{}, Text{}}}}, `message 0: chat: parts[1]: a tool message holds one tool result and opaque parts after it, not text`},
		{"tool message without result", []Message{{Role: RoleTool, Parts: []Part{Text{}}}}, `message 0: chat: parts[0]: a tool message must hold a tool result first, not text`},
		{"tool message with name", []Message{{Role: RoleTool, Name: "n", Parts: []Part{ToolResult{}}}}, `message 0: name: a tool message's name`},
		{"tool call in user message", []Message{{Role: RoleUser, Parts: []Part{Text{}, ToolCall{}}}}, `message 0: parts[1]: a tool call is not allowed in role "user"`},
		{"thinking in system message", []Message{{Role: RoleSystem, Parts: []Part{Thinking{}}}}, `message 0: parts[0]: thinking is not allowed in role "system"`},
		{"tool result in assistant message", []Message{{Role: RoleAssistant, Parts: []Part{ToolResult{}}}}, `message 0: parts[0]: a tool result is not allowed in role "assistant"`},
		{"nil part", []Message{{Role: RoleUser, Parts: []Part{nil}}}, `message 0: parts[0]: a nil part is not allowed in role "user"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ToOpenAI(tt.msgs)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrInvalid) {
				t.Errorf("ToOpenAI() = %v, want ErrInvalid containing %q", err, tt.want)
			}
		})
	}
}

func TestFromOpenAIErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, wire, want string
		kind             error
	}{
		{"function role", `[{"role": "user", "content": "a"}, {"role": "function", "content": "x"}]`, `chat: openai: messages[1].role: "function" is not supported`, ErrUnsupported},
		{"custom tool call", `[{"role": "assistant", "tool_calls": [{"id": "c", "type": "custom", "custom": {}}]}]`, `messages[0].tool_calls[0].type: "custom" is not supported`, ErrUnsupported},
		{"image_url missing", `[{"role": "user", "content": [{"type": "image_url"}]}]`, `messages[0].content[0].image_url is missing`, ErrInvalid},
		{"tool calls on user", `[{"role": "user", "content": "a", "tool_calls": [{"id": "c", "type": "function", "function": {}}]}]`, `messages[0].tool_calls: only an assistant message has tool calls`, ErrInvalid},
		{"reasoning on tool", `[{"role": "tool", "content": "a", "reasoning_content": "r"}]`, `messages[0].reasoning_content: only an assistant message has reasoning`, ErrInvalid},
		{"tool_call_id on user", `[{"role": "user", "content": "a", "tool_call_id": "c"}]`, `messages[0].tool_call_id: only a tool message answers a tool call`, ErrInvalid},
		{"is_error on assistant", `[{"role": "assistant", "content": "a", "is_error": true}]`, `messages[0].is_error: only a tool message has is_error`, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var wire []OpenAIMessage
			if err := json.Unmarshal([]byte(tt.wire), &wire); err != nil {
				t.Fatal(err)
			}
			_, err := FromOpenAI(wire)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, tt.kind) {
				t.Errorf("FromOpenAI() = %v, want %v containing %q", err, tt.kind, tt.want)
			}
		})
	}
}

func TestOpenAIContentJSON(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`null`, `""`, `"a"`, `[]`, `[{"type":"text","text":""}]`} {
		var c OpenAIContent
		if err := json.Unmarshal([]byte(in), &c); err != nil {
			t.Fatalf("Unmarshal(%s): %v", in, err)
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != in {
			t.Errorf("OpenAIContent %s came back as %s", in, b)
		}
	}
	var c OpenAIContent
	if err := json.Unmarshal([]byte(`42`), &c); err == nil {
		t.Error("Unmarshal(42) succeeded, want an error")
	}
}

func TestOpenAIForRequestLeavesOriginal(t *testing.T) {
	t.Parallel()
	wire, err := ToOpenAI([]Message{{Role: RoleUser, Parts: []Part{Text{}, Image{Source: "u", Width: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	_ = wire[0].ForRequest()
	if wire[0].Content.Parts[1].Width != 1 {
		t.Error("ForRequest modified its receiver's parts")
	}
}

func FuzzFromOpenAIJSON(f *testing.F) {
	for _, tt := range openAICases {
		f.Add([]byte(tt.wire))
	}
	pngData, _ := tinyPNG(f, 5, 7)
	f.Add([]byte(`[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + pngData + `"}}]}]`))
	f.Add([]byte(`[{"role":"developer","content":[{"type":"text","text":"a"}]},{"role":"tool","content":null,"name":"n"}]`))
	// An element of a type to come, with spaces and an "&" encoding/json
	// writes otherwise: the same value comes back.
	f.Add([]byte(`[{"role":"user","content":[{"type":"x", "a&b": {"c" : [1, 2.50]}}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var wire []OpenAIMessage
		if json.Unmarshal(data, &wire) != nil {
			return
		}
		ours, err := FromOpenAI(wire)
		if err != nil {
			return
		}
		// What FromOpenAI returns converts back, and that is a fixed point.
		again, err := ToOpenAI(ours)
		if err != nil {
			t.Fatalf("ToOpenAI(FromOpenAI(wire)): %v", err)
		}
		b, err := json.Marshal(again)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		var decoded []OpenAIMessage
		if err := json.Unmarshal(b, &decoded); err != nil {
			t.Fatalf("unmarshal our own JSON: %v\n%s", err, b)
		}
		back, err := FromOpenAI(decoded)
		if err != nil {
			t.Fatalf("FromOpenAI of our own output: %v\n%s", err, b)
		}
		if diff := cmp.Diff(ours, back, equateEmpty, equateJSON); diff != "" {
			t.Fatalf("model → wire → model changed (-want +got):\n%s", diff)
		}
	})
}

func ExampleToOpenAI() {
	msgs := []Message{
		NewText(RoleUser, "List the files."),
		{Role: RoleAssistant, Parts: []Part{
			ToolCall{ID: "call_1", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)},
		}},
		NewToolResult("call_1", "bash", "ls: permission denied", true),
	}
	wire, err := ToOpenAI(msgs)
	if err != nil {
		panic(err)
	}
	for _, m := range wire {
		b, _ := json.Marshal(m)
		fmt.Println(string(b))
	}
	// Output:
	// {"role":"user","content":"List the files."}
	// {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]}
	// {"role":"tool","content":"ls: permission denied","name":"bash","tool_call_id":"call_1","is_error":true}
}
