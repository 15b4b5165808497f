package server

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/prompt"
)

// TestRequestEncoding: the request response written with its body placed
// as it is (requestView.encode, chatBodyJSON) is valid JSON holding the
// same values encoding/json writes, for bodies with HTML characters,
// non-ASCII text, tool calls and results, tools and cache points; and the
// body's bytes are in the response unchanged.
func TestRequestEncoding(t *testing.T) {
	t.Parallel()
	msgs := []chat.Message{
		chat.NewText(chat.RoleSystem, "Rules: <b>bold</b> & \"quotes\"\n\tand ünïcode ✓ \u2028"),
		chat.NewText(chat.RoleUser, "fix a < b && c > d in main.go"),
		chat.NewAssistant("reading", chat.ToolCall{ID: "call_1", Name: "read_file", Arguments: json.RawMessage(`{"path":"main.go","note":"<x>"}`)}),
		chat.NewToolResult("call_1", "read_file", "package main\n\nfunc main() { if a < b { println(\"&\") } }\n", false),
		chat.NewToolResult("call_2", "bash", "exit 1: no such file", true),
	}
	tools := []chat.ToolDef{{Name: "read_file", Description: "Read a <file>.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	for _, b := range []chatBody{
		{Model: "gpt-4o", Messages: msgs, Tools: tools, MaxTokens: 4096, CacheAfter: []int{0, 3}},
		{Model: "m", Messages: msgs[:1]},
		{Model: "", Messages: []chat.Message{}},
	} {
		got, err := chatBodyJSON(b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, "chat body", got, want)

		v := requestView{
			Format: FormatChat, Body: got, Tokens: 1234, Budget: 8000, CachedTokens: 100,
			Rows:        []prompt.Row{{Name: "messages", Tokens: 1200}},
			Compactions: []compact.Record{{Level: 1, Strategy: "tiered", TokensBefore: 9000, TokensAfter: 1200}},
			Dropped:     []string{"working_memory"}, Reminders: []string{"todo"}, Interrupted: []string{"call_2"},
		}
		enc, err := v.encode()
		if err != nil {
			t.Fatal(err)
		}
		std, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, "request view", enc, std)
		var back requestView
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Fatal(err)
		}
		if string(back.Body) != string(got) {
			t.Errorf("body changed in the response:\n got %s\nwant %s", back.Body, got)
		}
	}
}

// sameJSON fails t unless got is valid JSON with the values of want.
func sameJSON(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if !json.Valid(got) {
		t.Fatalf("%s: invalid JSON: %s", what, got)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s (-encoding/json +ours):\n%s", what, diff)
	}
}
