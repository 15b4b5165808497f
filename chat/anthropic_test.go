package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// anthropicRequest is the part of a Messages API request the conversions
// cover.
type anthropicRequest struct {
	System   AnthropicContent   `json:"system,omitempty"`
	Messages []AnthropicMessage `json:"messages"`
}

// anthropicCases are the Anthropic round-trip cases; wire is a request body
// ({"system": …, "messages": […]}). Field names and shapes follow the
// Messages API reference; id, model and usage on an assistant message are
// the response's fields, tool_name and width/height/bytes the documented
// agentctx extensions.
var anthropicCases = []roundTripCase{
	{
		name: "plain chat",
		msgs: []Message{
			NewText(RoleUser, "Hello"),
			{Role: RoleAssistant, ID: "msg_01", Model: "claude-sonnet-4-5", Parts: []Part{Text{Text: "Hi there!"}},
				Usage: &Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 100, CacheWriteTokens: 20}},
		},
		wire: `{"messages": [
			{"role": "user", "content": [{"type": "text", "text": "Hello"}]},
			{"role": "assistant", "content": [{"type": "text", "text": "Hi there!"}], "id": "msg_01", "model": "claude-sonnet-4-5",
			 "usage": {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 20, "cache_read_input_tokens": 100}}]}`,
	},
	{
		name: "system prompt",
		msgs: []Message{
			{Role: RoleSystem, Parts: []Part{Text{Text: "You are terse."}, Text{Text: "Answer in English."}}},
			NewText(RoleUser, "2+2?"),
			NewText(RoleAssistant, "4"),
		},
		wire: `{"system": [{"type": "text", "text": "You are terse."}, {"type": "text", "text": "Answer in English."}],
			"messages": [
			{"role": "user", "content": [{"type": "text", "text": "2+2?"}]},
			{"role": "assistant", "content": [{"type": "text", "text": "4"}]}]}`,
	},
	{
		name: "several tool calls with results",
		msgs: []Message{
			NewText(RoleUser, "List files, read go.mod, run false."),
			{Role: RoleAssistant, Parts: []Part{
				Text{Text: "Running three tools."},
				ToolCall{ID: "toolu_1", Name: "bash", Arguments: raw(`{"command":"ls"}`)},
				ToolCall{ID: "toolu_2", Name: "read", Arguments: raw(`{"path": "go.mod"}`)},
				ToolCall{ID: "toolu_3", Name: "bash", Arguments: raw(`{"command":"false"}`)},
			}},
			NewToolResult("toolu_1", "bash", "a\nb", false),
			NewToolResult("toolu_2", "read", "module x", false),
			NewToolResult("toolu_3", "bash", "exit status 1", true),
			NewText(RoleUser, "Thanks. Now summarize."),
			NewText(RoleAssistant, "Done."),
		},
		wire: `{"messages": [
			{"role": "user", "content": [{"type": "text", "text": "List files, read go.mod, run false."}]},
			{"role": "assistant", "content": [
				{"type": "text", "text": "Running three tools."},
				{"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command":"ls"}},
				{"type": "tool_use", "id": "toolu_2", "name": "read", "input": {"path": "go.mod"}},
				{"type": "tool_use", "id": "toolu_3", "name": "bash", "input": {"command":"false"}}]},
			{"role": "user", "content": [
				{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a\nb"},
				{"type": "tool_result", "tool_use_id": "toolu_2", "content": "module x"},
				{"type": "tool_result", "tool_use_id": "toolu_3", "content": "exit status 1", "is_error": true},
				{"type": "text", "text": "Thanks. Now summarize."}]},
			{"role": "assistant", "content": [{"type": "text", "text": "Done."}]}]}`,
	},
	{
		name: "repeated tool-call ids",
		msgs: []Message{
			NewText(RoleUser, "go"),
			{Role: RoleAssistant, Parts: []Part{ToolCall{ID: "x", Name: "bash", Arguments: raw(`{}`)}}},
			NewToolResult("x", "bash", "one", false),
			{Role: RoleAssistant, Parts: []Part{ToolCall{ID: "x", Name: "read", Arguments: raw(`{}`)}, ToolCall{ID: "x", Name: "grep", Arguments: raw(`{}`)}}},
			NewToolResult("x", "grep", "two", false),
			NewToolResult("x", "read", "three", false),
		},
		wire: `{"messages": [
			{"role": "user", "content": [{"type": "text", "text": "go"}]},
			{"role": "assistant", "content": [{"type": "tool_use", "id": "x", "name": "bash", "input": {}}]},
			{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "one"}]},
			{"role": "assistant", "content": [{"type": "tool_use", "id": "x", "name": "read", "input": {}}, {"type": "tool_use", "id": "x", "name": "grep", "input": {}}]},
			{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "two"}, {"type": "tool_result", "tool_use_id": "x", "content": "three"}]}]}`,
	},
	{
		name: "thinking and tool calls",
		msgs: []Message{
			NewText(RoleUser, "Weather in Paris?"),
			{Role: RoleAssistant, Parts: []Part{
				Thinking{Text: "I should call the weather tool.", Signature: "EqQBCgIYAhIM=="},
				Thinking{Encrypted: "EmwKAhgBEgy3va3pzix/LafPsn4a"},
				Thinking{Encrypted: "opaque", Text: "summary", Signature: "s"},
				ToolCall{ID: "toolu_w", Name: "get_weather", Arguments: raw(`{"location":"Paris"}`)},
			}},
			NewToolResult("toolu_w", "get_weather", "15 degrees", false),
		},
		wire: `{"messages": [
			{"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
			{"role": "assistant", "content": [
				{"type": "thinking", "thinking": "I should call the weather tool.", "signature": "EqQBCgIYAhIM=="},
				{"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"},
				{"type": "redacted_thinking", "data": "opaque", "thinking": "summary", "signature": "s"},
				{"type": "tool_use", "id": "toolu_w", "name": "get_weather", "input": {"location":"Paris"}}]},
			{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_w", "content": "15 degrees"}]}]}`,
	},
	{
		name: "images",
		msgs: []Message{
			{Role: RoleUser, Parts: []Part{
				Text{Text: "What is in these?"},
				Image{Source: "https://example.com/cat.png", Width: 640, Height: 480},
				Image{Source: "image/jpeg", Bytes: 1234},
				Image{},
			}},
		},
		wire: `{"messages": [
			{"role": "user", "content": [
				{"type": "text", "text": "What is in these?"},
				{"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}, "width": 640, "height": 480},
				{"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": ""}, "bytes": 1234},
				{"type": "image", "source": {"type": "base64", "media_type": "", "data": ""}}]}]}`,
	},
	{
		name: "multiple text parts",
		msgs: []Message{
			{Role: RoleUser, Parts: []Part{Text{Text: "a"}, Text{Text: ""}, Text{Text: "b"}}},
			{Role: RoleAssistant, Parts: []Part{Text{Text: "x"}, ToolCall{ID: "c", Name: "n", Arguments: raw(`{}`)}, Text{Text: "y"}}},
		},
		wire: `{"messages": [
			{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": ""}, {"type": "text", "text": "b"}]},
			{"role": "assistant", "content": [{"type": "text", "text": "x"}, {"type": "tool_use", "id": "c", "name": "n", "input": {}}, {"type": "text", "text": "y"}]}]}`,
	},
	{
		name: "empty content",
		msgs: []Message{
			NewText(RoleUser, ""),
			{Role: RoleAssistant},
			{Role: RoleUser},
			{Role: RoleAssistant, Parts: []Part{ToolCall{ID: "c", Arguments: raw(`{}`)}}},
			NewToolResult("c", "", "", false),
		},
		wire: `{"messages": [
			{"role": "user", "content": [{"type": "text", "text": ""}]},
			{"role": "assistant", "content": []},
			{"role": "user", "content": []},
			{"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "", "input": {}}]},
			{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "content": ""}]}]}`,
	},
	{
		name: "unicode",
		msgs: []Message{
			{Role: RoleSystem, Parts: []Part{Text{Text: "日本語で答えて。"}}},
			NewText(RoleUser, "héllo 世界 🎉 \u2028 <b>&amp;</b> \"q\" \\"),
			{Role: RoleAssistant, Parts: []Part{
				Thinking{Text: "考える", Signature: "σ"},
				ToolCall{ID: "ü", Name: "grep", Arguments: raw(`{"q":"日本語 <&> \u00e9"}`)},
			}},
			NewToolResult("ü", "grep", "✓ 🎉", false),
		},
		wire: `{"system": [{"type": "text", "text": "日本語で答えて。"}], "messages": [
			{"role": "user", "content": [{"type": "text", "text": "héllo 世界 🎉 \u2028 <b>&amp;</b> \"q\" \\"}]},
			{"role": "assistant", "content": [
				{"type": "thinking", "thinking": "考える", "signature": "σ"},
				{"type": "tool_use", "id": "ü", "name": "grep", "input": {"q":"日本語 <&> \u00e9"}}]},
			{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "ü", "content": "✓ 🎉"}]}]}`,
	},
	{
		name: "tool name the call does not give",
		msgs: []Message{
			{Role: RoleAssistant, Parts: []Part{ToolCall{ID: "c", Name: "bash", Arguments: raw(`{}`)}}},
			NewToolResult("c", "shell", "ok", false),
			NewToolResult("orphan", "read", "late", false),
		},
		wire: `{"messages": [
			{"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "bash", "input": {}}]},
			{"role": "user", "content": [
				{"type": "tool_result", "tool_use_id": "c", "content": "ok", "tool_name": "shell"},
				{"type": "tool_result", "tool_use_id": "orphan", "content": "late", "tool_name": "read"}]}]}`,
	},
}

func TestAnthropicRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tt := range anthropicCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var wire anthropicRequest
			if err := json.Unmarshal([]byte(tt.wire), &wire); err != nil {
				t.Fatalf("unmarshal wire: %v", err)
			}

			// ours → wire: the JSON is the literal, field for field.
			system, gotWire, err := ToAnthropic(tt.msgs)
			if err != nil {
				t.Fatalf("ToAnthropic: %v", err)
			}
			b, err := json.Marshal(anthropicRequest{System: system, Messages: gotWire})
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			if diff := jsonDiff(t, []byte(tt.wire), b); diff != "" {
				t.Errorf("ToAnthropic JSON (-want +got):\n%s", diff)
			}

			// ours → wire → ours.
			back, err := FromAnthropic(system, gotWire)
			if err != nil {
				t.Fatalf("FromAnthropic(ToAnthropic(msgs)): %v", err)
			}
			if diff := cmp.Diff(tt.msgs, back, equateEmpty); diff != "" {
				t.Errorf("ours → wire → ours (-want +got):\n%s", diff)
			}

			// wire → ours → wire.
			ours, err := FromAnthropic(wire.System, wire.Messages)
			if err != nil {
				t.Fatalf("FromAnthropic(wire): %v", err)
			}
			if diff := cmp.Diff(tt.msgs, ours, equateEmpty); diff != "" {
				t.Errorf("FromAnthropic(wire) (-want +got):\n%s", diff)
			}
			system2, again, err := ToAnthropic(ours)
			if err != nil {
				t.Fatalf("ToAnthropic(FromAnthropic(wire)): %v", err)
			}
			// Raw holds the bytes an image was read from; the model's
			// placeholder writes it from its fields.
			if diff := cmp.Diff(wire, anthropicRequest{System: system2, Messages: again}, equateEmpty, cmpopts.IgnoreFields(AnthropicBlock{}, "Raw")); diff != "" {
				t.Errorf("wire → ours → wire (-want +got):\n%s", diff)
			}
		})
	}
}

// TestToAnthropicMerges covers model lists that are not in the shape's
// normal form: same-role runs merge, and Anthropic → model → Anthropic is
// exact from there.
func TestToAnthropicMerges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msgs []Message
		wire string
		back []Message
	}{
		{
			name: "consecutive user messages",
			msgs: []Message{NewText(RoleUser, "a"), {Role: RoleUser, Name: "bob", ID: "u2", Parts: []Part{Text{Text: "b"}}}},
			wire: `{"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]}`,
			back: []Message{{Role: RoleUser, Parts: []Part{Text{Text: "a"}, Text{Text: "b"}}}},
		},
		{
			name: "consecutive assistant messages keep the last metadata",
			msgs: []Message{
				{Role: RoleAssistant, ID: "m1", Model: "claude-a", Usage: &Usage{InputTokens: 1}, Parts: []Part{Thinking{Text: "t", Signature: "s"}}},
				{Role: RoleAssistant, ID: "m1", Usage: &Usage{InputTokens: 1, OutputTokens: 9, ReasoningTokens: 4}, Parts: []Part{ToolCall{ID: "c", Name: "n", Arguments: raw(`{}`)}}},
			},
			wire: `{"messages": [{"role": "assistant", "id": "m1", "model": "claude-a",
				"usage": {"input_tokens": 1, "output_tokens": 9, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
				"content": [{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "tool_use", "id": "c", "name": "n", "input": {}}]}]}`,
			back: []Message{{Role: RoleAssistant, ID: "m1", Model: "claude-a", Usage: &Usage{InputTokens: 1, OutputTokens: 9},
				Parts: []Part{Thinking{Text: "t", Signature: "s"}, ToolCall{ID: "c", Name: "n", Arguments: raw(`{}`)}}}},
		},
		{
			name: "user text before a tool result goes after it",
			msgs: []Message{
				{Role: RoleAssistant, Parts: []Part{ToolCall{ID: "c", Name: "bash"}}},
				NewText(RoleUser, "wait"),
				NewToolResult("c", "", "ok", false),
			},
			wire: `{"messages": [
				{"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "bash", "input": {}}]},
				{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "content": "ok"}, {"type": "text", "text": "wait"}]}]}`,
			back: []Message{
				{Role: RoleAssistant, Parts: []Part{ToolCall{ID: "c", Name: "bash", Arguments: raw(`{}`)}}},
				NewToolResult("c", "bash", "ok", false),
				NewText(RoleUser, "wait"),
			},
		},
		{
			name: "empty leading system message",
			msgs: []Message{{Role: RoleSystem}, NewText(RoleUser, "a")},
			wire: `{"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}]}]}`,
			back: []Message{NewText(RoleUser, "a")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			system, wire, err := ToAnthropic(tt.msgs)
			if err != nil {
				t.Fatalf("ToAnthropic: %v", err)
			}
			b, err := json.Marshal(anthropicRequest{System: system, Messages: wire})
			if err != nil {
				t.Fatal(err)
			}
			if diff := jsonDiff(t, []byte(tt.wire), b); diff != "" {
				t.Errorf("ToAnthropic JSON (-want +got):\n%s", diff)
			}
			back, err := FromAnthropic(system, wire)
			if err != nil {
				t.Fatalf("FromAnthropic: %v", err)
			}
			if diff := cmp.Diff(tt.back, back, equateEmpty); diff != "" {
				t.Errorf("FromAnthropic (-want +got):\n%s", diff)
			}
			system2, wire2, err := ToAnthropic(back)
			if err != nil {
				t.Fatalf("ToAnthropic again: %v", err)
			}
			if diff := cmp.Diff(anthropicRequest{system, wire}, anthropicRequest{system2, wire2}, equateEmpty); diff != "" {
				t.Errorf("wire → ours → wire (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFromAnthropicNormalizes covers wire input that converts without loss
// of meaning but comes back from ToAnthropic in the canonical form.
func TestFromAnthropicNormalizes(t *testing.T) {
	t.Parallel()
	pngData, pngBytes := tinyPNG(t, 4, 9)
	tests := []struct {
		name     string
		wire     string
		want     []Message
		wantWire string
	}{
		{
			name:     "string content and system",
			wire:     `{"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}]}`,
			want:     []Message{NewText(RoleSystem, "Be brief."), NewText(RoleUser, "hi")},
			wantWire: `{"system": [{"type": "text", "text": "Be brief."}], "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}`,
		},
		{
			name: "tool_result content as blocks, cache_control dropped",
			wire: `{"messages": [
				{"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "read", "input": {"path": "a"}}]},
				{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "content": [{"type": "text", "text": "l1"}, {"type": "text", "text": "l2"}], "cache_control": {"type": "ephemeral"}}]}]}`,
			want: []Message{
				{Role: RoleAssistant, Parts: []Part{ToolCall{ID: "c", Name: "read", Arguments: raw(`{"path": "a"}`)}}},
				NewToolResult("c", "read", "l1\nl2", false),
			},
			wantWire: `{"messages": [
				{"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "read", "input": {"path": "a"}}]},
				{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "content": "l1\nl2"}]}]}`,
		},
		{
			name:     "tool_result without content",
			wire:     `{"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c"}]}]}`,
			want:     []Message{NewToolResult("c", "", "", false)},
			wantWire: `{"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "content": ""}]}]}`,
		},
		{
			name: "inline image data is measured and dropped",
			wire: `{"messages": [{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "` + pngData + `"}}]}]}`,
			want: []Message{{Role: RoleUser, Parts: []Part{Image{Source: "image/png", Width: 4, Height: 9, Bytes: pngBytes}}}},
			wantWire: `{"messages": [{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": ""},
				"width": 4, "height": 9, "bytes": ` + itoa(pngBytes) + `}]}]}`,
		},
		{
			name: "text before tool_result",
			wire: `{"messages": [{"role": "user", "content": [{"type": "text", "text": "note"}, {"type": "tool_result", "tool_use_id": "c", "content": "x"}]}]}`,
			want: []Message{NewToolResult("c", "", "x", false), NewText(RoleUser, "note")},
			wantWire: `{"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "content": "x"},
				{"type": "text", "text": "note"}]}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var wire anthropicRequest
			if err := json.Unmarshal([]byte(tt.wire), &wire); err != nil {
				t.Fatal(err)
			}
			got, err := FromAnthropic(wire.System, wire.Messages)
			if err != nil {
				t.Fatalf("FromAnthropic: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, equateEmpty); diff != "" {
				t.Errorf("FromAnthropic (-want +got):\n%s", diff)
			}
			system, again, err := ToAnthropic(got)
			if err != nil {
				t.Fatalf("ToAnthropic: %v", err)
			}
			b, _ := json.Marshal(anthropicRequest{System: system, Messages: again})
			if diff := jsonDiff(t, []byte(tt.wantWire), b); diff != "" {
				t.Errorf("ToAnthropic JSON (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAnthropicAPIFieldNames checks ForRequest's output against request JSON
// written from the Anthropic Messages API reference: nothing but the API's
// own field names.
func TestAnthropicAPIFieldNames(t *testing.T) {
	t.Parallel()
	msgs := []Message{
		NewText(RoleSystem, "You are a helpful assistant."),
		{Role: RoleUser, Parts: []Part{
			Image{Source: "image/jpeg", Width: 800, Height: 600, Bytes: 5000},
			Text{Text: "What is the weather where this photo was taken?"},
		}},
		{Role: RoleAssistant, ID: "msg_01A", Model: "claude-opus-4-1", Usage: &Usage{InputTokens: 472, OutputTokens: 91},
			Parts: []Part{
				Thinking{Text: "The photo shows Paris.", Signature: "WaUjzkyp"},
				Thinking{Encrypted: "EmwKAhgB"},
				Text{Text: "Let me check."},
				ToolCall{ID: "toolu_01A", Name: "get_weather", Arguments: raw(`{"location":"Paris, France"}`)},
			}},
		NewToolResult("toolu_01A", "other_name", "15 degrees", true),
	}
	const want = `{"system": [{"type": "text", "text": "You are a helpful assistant."}], "messages": [
		{"role": "user", "content": [
			{"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": ""}},
			{"type": "text", "text": "What is the weather where this photo was taken?"}]},
		{"role": "assistant", "content": [
			{"type": "thinking", "thinking": "The photo shows Paris.", "signature": "WaUjzkyp"},
			{"type": "redacted_thinking", "data": "EmwKAhgB"},
			{"type": "text", "text": "Let me check."},
			{"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"location": "Paris, France"}}]},
		{"role": "user", "content": [
			{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "15 degrees", "is_error": true}]}]}`
	system, wire, err := ToAnthropic(msgs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range wire {
		wire[i] = wire[i].ForRequest()
	}
	b, err := json.Marshal(anthropicRequest{System: system, Messages: wire})
	if err != nil {
		t.Fatal(err)
	}
	if diff := jsonDiff(t, []byte(want), b); diff != "" {
		t.Errorf("request JSON (-want +got):\n%s", diff)
	}

	// The usage object of a Messages API response.
	const wantUsage = `{"input_tokens": 2095, "output_tokens": 503, "cache_creation_input_tokens": 2051, "cache_read_input_tokens": 0}`
	u := Usage{InputTokens: 2095, OutputTokens: 503, CacheWriteTokens: 2051}
	b, err = json.Marshal(UsageToAnthropic(u))
	if err != nil {
		t.Fatal(err)
	}
	if diff := jsonDiff(t, []byte(wantUsage), b); diff != "" {
		t.Errorf("usage JSON (-want +got):\n%s", diff)
	}
	var back AnthropicUsage
	if err := json.Unmarshal([]byte(wantUsage), &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(u, UsageFromAnthropic(back)); diff != "" {
		t.Errorf("UsageFromAnthropic (-want +got):\n%s", diff)
	}
}

func TestToAnthropicErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msgs []Message
		want string
	}{
		{"invalid role", []Message{NewText(RoleUser, "a"), {Role: "bot"}}, `chat: anthropic: message 1: role "bot" is not valid`},
		{"tool call in system", []Message{{Role: RoleSystem, Parts: []Part{ToolCall{}}}}, `message 0: parts[0]: a system message holds text and images, not a tool call`},
		{"tool call in late system", []Message{NewText(RoleUser, "a"), {Role: RoleSystem, Parts: []Part{ToolCall{}}}}, `message 1: parts[0]: a system message holds text, images and opaque blocks, not a tool call`},
		{"thinking in user", []Message{{Role: RoleUser, Parts: []Part{Thinking{}}}}, `message 0: parts[0]: a user message holds text, images and opaque blocks, not thinking`},
		{"tool result in assistant", []Message{{Role: RoleAssistant, Parts: []Part{ToolResult{}}}}, `message 0: parts[0]: a tool result in an assistant message`},
		{"nil part", []Message{{Role: RoleAssistant, Parts: []Part{nil}}}, `message 0: parts[0]: a nil part in an assistant message`},
		{"tool message with two results", []Message{{Role: RoleTool, Parts: []Part{ToolResult{}, ToolResult{}}}}, `message 0: chat: parts[1]: a tool message holds one tool result and opaque parts after it, not a tool result`},
		{"tool message with text", []Message{{Role: RoleTool, Parts: []Part{Text{}}}}, `message 0: chat: parts[0]: a tool message must hold a tool result first, not text`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := ToAnthropic(tt.msgs)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrInvalid) {
				t.Errorf("ToAnthropic() = %v, want ErrInvalid containing %q", err, tt.want)
			}
		})
	}
}

func TestFromAnthropicErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, wire, want string
		kind             error
	}{
		{"image without source", `{"messages": [{"role": "user", "content": [{"type": "image"}]}]}`, `messages[0].content[0]: image has no source`, ErrInvalid},
		{"tool_use in user", `{"messages": [{"role": "user", "content": [{"type": "tool_use", "id": "c", "name": "n", "input": {}}]}]}`, `messages[0].content[0]: a tool_use block belongs in an assistant message`, ErrInvalid},
		{"tool_result in assistant", `{"messages": [{"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "c"}]}]}`, `messages[0].content[0]: a tool_result belongs in a user message`, ErrInvalid},
		{"bad system block", `{"system": [{"type": "tool_use"}], "messages": []}`, `chat: anthropic: system[0]: a tool_use block has no place here`, ErrInvalid},
		{"tool_result in system message", `{"messages": [{"role": "system", "content": [{"type": "tool_result", "tool_use_id": "c"}]}]}`, `messages[0].content[0]: a tool_result belongs in a user message`, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var wire anthropicRequest
			if err := json.Unmarshal([]byte(tt.wire), &wire); err != nil {
				t.Fatal(err)
			}
			_, err := FromAnthropic(wire.System, wire.Messages)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, tt.kind) {
				t.Errorf("FromAnthropic() = %v, want %v containing %q", err, tt.kind, tt.want)
			}
		})
	}
}

func TestAnthropicBlockJSON(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"type":"tool_result","tool_use_id":"c","content":[]}`, `{"type":"tool_result","tool_use_id":"c","content":[]}`},
		{`{"type":"tool_result","tool_use_id":"c","content":null}`, `{"type":"tool_result","tool_use_id":"c","content":""}`},
		{`{"type":"tool_use","id":"c","name":"n"}`, `{"type":"tool_use","id":"c","name":"n","input":{}}`},
		{`{"type":"text","text":""}`, `{"type":"text","text":""}`},
		{`{"type":"search_result","source":{"type":"url","url":"u"},"title":"t"}`, `{"type":"search_result","source":{"type":"url","url":"u"},"title":"t"}`},
		// A type to come is carried (json.Marshal compacts what a
		// MarshalJSON writes; the proxy splices the bytes themselves).
		{`{"type": "future_block",  "x": [1, 2], "source": "s"}`, `{"type":"future_block","x":[1,2],"source":"s"}`},
	}
	for _, tt := range tests {
		var b AnthropicBlock
		if err := json.Unmarshal([]byte(tt.in), &b); err != nil {
			t.Fatalf("Unmarshal(%s): %v", tt.in, err)
		}
		got, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("block %s came back as %s, want %s", tt.in, got, tt.want)
		}
	}
	var b AnthropicBlock
	if err := json.Unmarshal([]byte(`{"type":"tool_result","content":1}`), &b); err == nil {
		t.Error("tool_result with numeric content decoded, want an error")
	}
	var c AnthropicContent
	if err := json.Unmarshal([]byte(`"x"`), &c); err != nil || len(c) != 1 || c[0].Text != "x" {
		t.Errorf("AnthropicContent from a string = %v, %v", c, err)
	}
}

func TestAnthropicForRequestLeavesOriginal(t *testing.T) {
	t.Parallel()
	_, wire, err := ToAnthropic([]Message{{Role: RoleUser, Parts: []Part{Image{Source: "u", Width: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	_ = wire[0].ForRequest()
	if wire[0].Content[0].Width != 1 {
		t.Error("ForRequest modified its receiver's blocks")
	}
}

func FuzzFromAnthropicJSON(f *testing.F) {
	for _, tt := range anthropicCases {
		f.Add([]byte(tt.wire))
	}
	pngData, _ := tinyPNG(f, 2, 3)
	f.Add([]byte(`{"system":"s","messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + pngData + `"}}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":"a"},{"role":"user","content":[{"type":"text","text":"b"},{"type":"tool_result","tool_use_id":"x","content":[{"type":"text","text":"c"}]}]},{"role":"assistant","content":[]},{"role":"assistant","content":[{"type":"tool_use","id":"x","name":"n","input":{"a" : 1}}],"id":"m","usage":{"input_tokens":3}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var wire anthropicRequest
		if json.Unmarshal(data, &wire) != nil {
			return
		}
		ours, err := FromAnthropic(wire.System, wire.Messages)
		if err != nil {
			return
		}
		// What FromAnthropic returns converts back; the result is the normal
		// form, which Anthropic → model → Anthropic keeps exactly.
		system, norm, err := ToAnthropic(ours)
		if err != nil {
			t.Fatalf("ToAnthropic(FromAnthropic(wire)): %v", err)
		}
		b, err := json.Marshal(anthropicRequest{System: system, Messages: norm})
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		var decoded anthropicRequest
		if err := json.Unmarshal(b, &decoded); err != nil {
			t.Fatalf("unmarshal our own JSON: %v\n%s", err, b)
		}
		back, err := FromAnthropic(decoded.System, decoded.Messages)
		if err != nil {
			t.Fatalf("FromAnthropic of our own output: %v\n%s", err, b)
		}
		system2, norm2, err := ToAnthropic(back)
		if err != nil {
			t.Fatalf("ToAnthropic again: %v", err)
		}
		// Compared as JSON: encoding compacts and HTML-escapes tool_use
		// inputs, which changes their bytes but not their value.
		b2, err := json.Marshal(anthropicRequest{System: system2, Messages: norm2})
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if !bytes.Equal(b, b2) {
			t.Fatalf("normal form is not a fixed point:\n%s\n%s", b, b2)
		}
	})
}

func ExampleToAnthropic() {
	msgs := []Message{
		NewText(RoleSystem, "Be brief."),
		NewText(RoleUser, "List the files."),
		{Role: RoleAssistant, Parts: []Part{
			ToolCall{ID: "toolu_1", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)},
		}},
		NewToolResult("toolu_1", "bash", "go.mod", false),
		NewText(RoleUser, "Now read it."),
	}
	system, wire, err := ToAnthropic(msgs)
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(system)
	fmt.Println(string(b))
	for _, m := range wire {
		b, _ := json.Marshal(m)
		fmt.Println(string(b))
	}
	// Output:
	// [{"type":"text","text":"Be brief."}]
	// {"role":"user","content":[{"type":"text","text":"List the files."}]}
	// {"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"bash","input":{"command":"ls"}}]}
	// {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"go.mod"},{"type":"text","text":"Now read it."}]}
}
