package session

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/jsonx"
)

// checkLine fails t when MarshalLine(e) differs from encoding/json's
// encoding of e's wire shape, in bytes or in failing.
func checkLine(t *testing.T, e Entry) {
	t.Helper()
	e.Raw = nil
	got, err := MarshalLine(e)
	if e.Type == "" {
		return
	}
	want, werr := jsonx.MarshalNoEscape(toWire(e))
	if (err == nil) != (werr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("MarshalLine = %s, %v\nencoding/json %s, %v", got, err, want, werr)
	}
}

// TestMarshalLineJoined: a line written around its raw JSON values is
// byte for byte encoding/json's, for every field, raw values compact or
// not, valid or not.
func TestMarshalLineJoined(t *testing.T) {
	t.Parallel()
	msg, err := chat.NewText(chat.RoleAssistant, "a <b> & \u2028 \"c\"\n\t").MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	errText := "exit 1: <no such file>"
	ts := time.Date(2026, 11, 28, 15, 4, 5, 6e6, time.UTC)
	for _, e := range []Entry{
		{UUID: "u1", SessionID: "s", Type: TypeAssistant, Timestamp: ts, Message: msg},
		{UUID: "u2", ParentUUID: "u1", LogicalParentUUID: "l", SessionID: "s", Type: TypeUser, Subtype: "x", CWD: "/p", GitBranch: "main", Version: "v", IsSidechain: true, Message: json.RawMessage(`{"role":"user","content":"hi"}`)},
		{UUID: "u3", Type: TypeToolResult, ToolResult: &ToolResult{ID: "c1", Name: "bash", Output: json.RawMessage(`"out <x>\n"`)}},
		{UUID: "u4", Type: TypeToolResult, ToolResult: &ToolResult{ID: "c1", Error: &errText}},
		{UUID: "u5", Type: TypeToolResult, ToolResult: &ToolResult{ID: "c1", Name: "n", Output: json.RawMessage(`{"a":1}`), Error: &errText}},
		{UUID: "u6", Type: "tool_use", Tool: &ToolUse{ID: "c1", Name: "bash", Input: json.RawMessage(`{"command":"ls"}`)}},
		{UUID: "u7", Type: "tool_use", Tool: &ToolUse{ID: "c1"}},
		{UUID: "u8", Type: TypeSystem, Subtype: SubtypeCompactBoundary, CompactMetadata: &CompactMetadata{Trigger: "auto", PreTokens: 9, Messages: 2}},
		{UUID: "u9", Type: TypeUser, IsCompactSummary: true, Message: msg},
		{UUID: "u10", Type: TypeState, State: json.RawMessage(`{"tracker":{"files":["a.go"]}}`)},
		{UUID: "u11", Type: TypeReminder, Reminders: []Reminder{{Kind: "todo", Text: "x <y>"}}},
		{UUID: "u12", Type: TypeUser, Message: json.RawMessage(`{ "role" : "user" }`)},       // not compact
		{UUID: "u13", Type: TypeUser, Message: json.RawMessage(`{"role":"user"`)},            // not valid
		{UUID: "u14", Type: TypeUser, Message: json.RawMessage(`{"a":"\u003c","b":"\\\""}`)}, // escapes kept
		{UUID: "u15", Type: TypeUser, Message: json.RawMessage("{\"a\":\"\xff\"}")},          // invalid UTF-8 in a string
		{UUID: "u16", Type: TypeState, State: json.RawMessage("[1,\n2]")},
		{UUID: "u17", Type: TypeToolResult, ToolResult: &ToolResult{ID: "c", Output: json.RawMessage(`"` + strings.Repeat("x", 5000) + `"`)}},
		{UUID: "u18", Type: TypeUser, Message: json.RawMessage(`null`)},
	} {
		checkLine(t, e)
	}
}

// FuzzMarshalLine: for any line that decodes, the entry's line written
// again is encoding/json's encoding of its wire shape.
func FuzzMarshalLine(f *testing.F) {
	f.Add([]byte(`{"uuid":"u","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T00:00:00.000Z","type":"user","message":{"role":"user","content":"hi"}}`))
	f.Add([]byte(`{"uuid":"u","type":"tool_result","toolResult":{"id":"1","output":"x","error":"e"},"state":{ "a" : 1 }}`))
	f.Add([]byte(`{"type":"tool_use","tool":{"id":"1","name":"n","input":[1, 2]},"reminders":[{"kind":"k","text":"t"}]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := DecodeLine(line)
		if err != nil {
			return
		}
		checkLine(t, e)
	})
}
