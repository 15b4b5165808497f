package chat

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// readBoth decodes data into a new T twice: with internal/jsonx's fast
// path from a copy of data that is then overwritten, and with
// encoding/json alone. It fails t unless both give the same value and
// the same error, and returns the first value and error.
func readBoth[T any](t *testing.T, data []byte) (T, error) {
	t.Helper()
	buf := bytes.Clone(data)
	var fast T
	err := json.Unmarshal(buf, &fast)
	for i := range buf {
		buf[i] = 'x' // nothing read may point into the input
	}
	jsonx.StdOnly.Store(true)
	var std T
	stdErr := json.Unmarshal(data, &std)
	jsonx.StdOnly.Store(false)
	if (err == nil) != (stdErr == nil) || (err != nil && err.Error() != stdErr.Error()) {
		t.Fatalf("%s: error %v, encoding/json's %v", data, err, stdErr)
	}
	if err == nil && !reflect.DeepEqual(fast, std) {
		t.Fatalf("%s: read as\n%#v\nencoding/json reads\n%#v", data, fast, std)
	}
	return fast, err
}

// FuzzResponsesItemFast: a Responses API item and what FromResponses
// makes of it are read the same with the fast path as with encoding/json
// alone (issue 29), errors included, and keep nothing of the input.
func FuzzResponsesItemFast(f *testing.F) {
	for _, s := range []string{
		`{"type":"message","role":"user","content":"hi"}`,
		`{"role":"assistant","content":[{"type":"output_text","text":"ok"},{"type":"input_file", "file_id" : "f&1"}]}`,
		`{"type":"function_call","call_id":"c","name":"f","arguments":"{\"a\":1}"}`,
		`{"type":"function_call","call_id":"c","name":"f","arguments":"not json"}`,
		`{"type":"custom_tool_call","call_id":"c","name":"p","input":"*** Begin Patch"}`,
		`{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"t"},{"type":"input_image","image_url":"https://a/b.png"}]}`,
		`{"type":"custom_tool_call_output","call_id":"c","output":"line 1\nline 2 \u2028"}`,
		`{"type":"function_call_output","call_id":"c","output":null}`,
		`{"type":"reasoning","summary":[{"type":"summary_text","text":"s"}],"encrypted_content":"e"}`,
		// Types the model does not interpret, with fields of other types
		// than the modelled ones of the same name.
		`{"type":"web_search_call","id":"ws_1","action":{"query":"q"},"content":5, "output" : {"a":[1,2.50]}}`,
		`{"type":"compaction","encrypted_content":7}`,
		// Modelled types with fields of the wrong type, and not JSON.
		`{"type":"function_call","arguments":5}`,
		`{"type":"message","role":["user"]}`,
		`{"type":"message","content":[1]}`,
		`{"type":"reasoning","summary":"s"}`,
		`{"type":"message" "role":"user"}`,
		`{"TYPE":"message","Role":"user","CONTENT":"case"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		it, err := readBoth[ResponsesItem](t, data)
		if err != nil {
			return
		}
		m, err := WireReader{KeepMedia: true}.FromResponses(it)
		jsonx.StdOnly.Store(true)
		stdM, stdErr := WireReader{KeepMedia: true}.FromResponses(it)
		jsonx.StdOnly.Store(false)
		if (err == nil) != (stdErr == nil) || (err != nil && err.Error() != stdErr.Error()) {
			t.Fatalf("%s: FromResponses error %v, with encoding/json %v", data, err, stdErr)
		}
		if !reflect.DeepEqual(m, stdM) {
			t.Fatalf("%s: FromResponses\n%#v\nwith encoding/json\n%#v", data, m, stdM)
		}
	})
}

// FuzzOpenAIMessageFast: a Chat Completions message is read the same
// with the fast path as with encoding/json alone (issue 29), errors
// included, and keeps nothing of the input.
func FuzzOpenAIMessageFast(f *testing.F) {
	for _, tt := range openAICases {
		f.Add([]byte(tt.wire))
	}
	for _, s := range []string{
		`{"role":"user","content":[{"type":"text","text":"a<b>"},{"type":"image_url","image_url":{"url":"https://a/b.png","detail":"low"}}]}`,
		`{"role":"user","content":[{"type":"input_audio", "input_audio" : {"data":"AAAA","format":"wav"}},{"type":"x","text":5}]}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`,
		`{"role":"tool","tool_call_id":"c","content":"out \u2028 put"}`,
		`{"role":"user","content":[{"type":"text","text":5}]}`,
		`{"role":"user","content":{"a":1}}`,
		`{"role":"user","content":[}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = readBoth[OpenAIMessage](t, data)
		_, _ = readBoth[[]OpenAIMessage](t, data) // a request's array
		_, _ = readBoth[OpenAIContent](t, data)
	})
}
