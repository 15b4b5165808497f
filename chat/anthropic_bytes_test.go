package chat

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// oldContentJSON is AnthropicContent's encoding by encoding/json's array
// encoder, each block's MarshalJSON output checked and compacted again:
// the oracle of the joined encoding.
func oldContentJSON(c AnthropicContent) ([]byte, error) {
	if c == nil {
		return []byte("[]"), nil
	}
	return jsonx.MarshalNoEscape([]AnthropicBlock(c))
}

// checkContentJSONBytes fails t unless c's MarshalJSON and the oracle
// give the same bytes, or both fail; and the same for json.Marshal of a
// message holding c (the escaping level).
func checkContentJSONBytes(t *testing.T, c AnthropicContent) {
	t.Helper()
	got, gerr := c.MarshalJSON()
	want, werr := oldContentJSON(c)
	if (gerr != nil) != (werr != nil) {
		t.Fatalf("MarshalJSON error %v, encoding/json's %v", gerr, werr)
	}
	if gerr != nil {
		if gerr.Error() != werr.Error() {
			t.Errorf("MarshalJSON error %q, encoding/json's %q", gerr, werr)
		}
		return
	}
	if string(got) != string(want) {
		t.Fatalf("MarshalJSON:\n got %s\nwant %s", got, want)
	}
	// At the message level, as json.Marshal escapes and compacts it:
	// against the oracle's bytes put in a raw field.
	m, err := json.Marshal(AnthropicMessage{Role: "user", Content: c})
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}{"user", want})
	if err != nil {
		t.Fatal(err)
	}
	if string(m) != string(w) {
		t.Fatalf("json.Marshal of a message:\n got %s\nwant %s", m, w)
	}
}

// TestAnthropicContentJSONBytes checks that AnthropicContent's joined
// encoding writes encoding/json's bytes: every kind of block, text that
// encoding/json escapes, a block kept as read with spaces in its JSON, a
// tool result holding blocks, and a kept block whose JSON is broken (the
// same error).
func TestAnthropicContentJSONBytes(t *testing.T) {
	odd := "a <b> & \u2028 \u2029 \"c\"\n\\ 日本"
	for _, c := range []AnthropicContent{
		nil,
		{},
		{{Type: "text", Text: odd}},
		{{Type: "text", Text: "x"}, {Type: "tool_use", ID: "t1", Name: "bash", Input: json.RawMessage(`{"command": "ls <a>",  "n" : [1, 2]}`)},
			{Type: "tool_use", ID: "t2", Name: "n"}},
		{{Type: "tool_result", ToolUseID: "t1", Content: odd, IsError: true, ToolName: "bash"},
			{Type: "tool_result", ToolUseID: "t2", ContentBlocks: AnthropicContent{{Type: "text", Text: odd}, {Type: "future", Raw: json.RawMessage(`{ "type" : "future" }`)}}}},
		{{Type: "thinking", Thinking: odd, Signature: "s"}, {Type: "redacted_thinking", Data: "d"}},
		{{Type: "image", Source: &AnthropicImageSource{Type: "base64", MediaType: "image/png", Data: "iVBORw0KGgo="}, Width: 2, Height: 3, Bytes: 4}},
		{{Type: "server_tool_use", Raw: json.RawMessage("{\n  \"type\": \"server_tool_use\",\n  \"input\": {\"q\": \"<x> & \u2028\"}\n}")}},
		{{Type: "text", Text: "kept"}, {Type: "web_search_tool_result", Raw: json.RawMessage(`{"type": "web_search_tool_result", "content": [`)}},
	} {
		checkContentJSONBytes(t, c)
	}
}

// FuzzAnthropicContentJSON reads arbitrary content (blocks of unknown
// types are kept as read) with internal/jsonx's fast path and with
// encoding/json alone, and checks that they agree and that the joined
// encoding is encoding/json's.
func FuzzAnthropicContentJSON(f *testing.F) {
	f.Add([]byte(`[{"type":"text","text":"a<b>"},{"type":"tool_use","id":"1","name":"n","input":{"a" : 1}}]`))
	f.Add([]byte(`[{"type":"tool_result","tool_use_id":"1","content":[{"type":"text","text":"c"},{ "type" : "x", "y" : [ 1 ] }]}]`))
	f.Add([]byte(`"plain \u2028 text"`))
	f.Add([]byte(`[{"type":"server_tool_use","input":{"q":"&"}},{"type":"image","source":{"type":"url","url":"https://a/b.png"}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Read with the fast path from a buffer then overwritten, and with
		// encoding/json alone: the same content and error, and nothing
		// of the buffer kept.
		buf := bytes.Clone(data)
		var c AnthropicContent
		err := json.Unmarshal(buf, &c)
		for i := range buf {
			buf[i] = 'x'
		}
		jsonx.StdOnly.Store(true)
		var std AnthropicContent
		stdErr := json.Unmarshal(data, &std)
		jsonx.StdOnly.Store(false)
		if (err == nil) != (stdErr == nil) || (err != nil && err.Error() != stdErr.Error()) {
			t.Fatalf("error %v, encoding/json's %v", err, stdErr)
		}
		if err != nil {
			return
		}
		if !reflect.DeepEqual(c, std) {
			t.Fatalf("read as\n%#v\nencoding/json reads\n%#v", c, std)
		}
		checkContentJSONBytes(t, c)
	})
}
