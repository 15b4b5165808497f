package server

import (
	"encoding/json"
	"fmt"
	"strings"
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
		// Appended to what the buffer holds (a pooled buffer's old bytes
		// past its length are overwritten, not kept).
		buf := append(make([]byte, 0, 64), "kept"...)
		got, _, err := chatBodyJSON(append(buf, strings.Repeat("old", 20)...)[:len(buf)], b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(got[:4]) != "kept" {
			t.Fatalf("the buffer's bytes were not kept: %.10q", got)
		}
		got = got[4:]
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
		enc, err := v.encode([]byte("kept"))
		if err != nil {
			t.Fatal(err)
		}
		if string(enc[:4]) != "kept" || enc[len(enc)-1] != '\n' {
			t.Fatalf("not appended to the buffer, or no final new line: %.10q … %q", enc, enc[len(enc)-1:])
		}
		enc = enc[4:]
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

// TestChatBodyReuse: a server that reuses the JSON of the messages a
// request shares with the one before (prompt.Request.Kept) hands out the
// same bodies, byte for byte, as one that encodes every message each
// time, over turns with compactions, a recall, a failed request and an
// inspection in between.
func TestChatBodyReuse(t *testing.T) {
	t.Parallel()
	reuse := newTestServer(t, Options{}, false)
	fresh := newTestServer(t, Options{}, false)
	fresh.noEncodingReuse = true
	var ids [2]string
	for i, ts := range []*testServer{reuse, fresh} {
		ids[i] = ts.createSession(t, "", map[string]any{"id": "s", "budget": 3000})
	}
	for turn := range 14 {
		var bodies [2]string
		for i, ts := range []*testServer{reuse, fresh} {
			base := "/v1/sessions/" + ids[i]
			ts.call(t, "POST", base+"/messages", "", map[string]any{"messages": []any{map[string]string{"role": "user", "content": fmt.Sprintf("turn %d <b>&amp;</b> %s", turn, strings.Repeat("word ", 60))}}}).must(t, 200)
			var v requestView
			ts.call(t, "POST", base+"/request", "", map[string]string{"format": "chat"}).must(t, 200).decode(t, &v)
			if turn%5 == 2 {
				// Built again before the reply (a retry): the same body.
				var again requestView
				ts.call(t, "POST", base+"/request", "", map[string]string{"format": "chat"}).must(t, 200).decode(t, &again)
				if string(again.Body) != string(v.Body) {
					t.Fatalf("turn %d: a retry's body differs", turn)
				}
			}
			if turn%4 == 3 {
				// A request in another format in between.
				ts.call(t, "POST", base+"/request", "", map[string]string{"format": "openai"}).must(t, 200)
			}
			call := fmt.Sprintf(`{"id":"c%d","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"f%d.go\"}"}}]},"finish_reason":"tool_calls"}]}`, turn, turn, turn)
			ts.call(t, "POST", base+"/reply", "", call).must(t, 200)
			ts.call(t, "POST", base+"/messages", "", map[string]any{"messages": []any{map[string]string{"role": "tool", "tool_call_id": fmt.Sprintf("call_%d", turn), "content": strings.Repeat(fmt.Sprintf("line %d\n", turn), 150)}}}).must(t, 200)
			ts.call(t, "GET", base+"/inspect", "", nil).must(t, 200)
			if turn%6 == 5 {
				ts.call(t, "POST", base+"/compact", "", nil).must(t, 200)
			}
			bodies[i] = string(v.Body)
		}
		if bodies[0] != bodies[1] {
			t.Fatalf("turn %d: the body with reused encodings differs:\n%s\nwant\n%s", turn, bodies[0], bodies[1])
		}
	}
	var in inspectView
	reuse.call(t, "GET", "/v1/sessions/"+ids[0]+"/inspect", "", nil).must(t, 200).decode(t, &in)
	if in.Session.Compactions == 0 {
		t.Error("no compaction: the test covers only appends")
	}
}
