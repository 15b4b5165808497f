package server

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzDecodeMessages feeds arbitrary bodies to the decoder of POST
// .../messages: it never panics, and any error is a bad request (400)
// whose detail is not empty.
func FuzzDecodeMessages(f *testing.F) {
	for _, s := range []string{
		`{"messages":[{"role":"user","content":"hi"}]}`,
		`{"format":"chat","messages":[{"role":"assistant","parts":[{"type":"tool_call","id":"a","name":"b","arguments":{}}]}]}`,
		`{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"t","type":"function","function":{"name":"x","arguments":"{"}}]},{"role":"tool","tool_call_id":"t","content":"ok"}]}`,
		`{"system":"be brief","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}]}]}]}`,
		`{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]}]}`,
		`{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}]}`,
		`{"messages":[]}`, `{"messages":[1]}`, `[]`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var b messagesBody
		if err := decodeJSON(strings.NewReader(string(data)), &b); err != nil {
			checkBadRequest(t, err)
			return
		}
		msgs, _, err := decodeMessages(b)
		if err != nil {
			checkBadRequest(t, err)
			return
		}
		for i, m := range msgs {
			if !m.Role.Valid() {
				t.Fatalf("message %d: role %q", i, m.Role)
			}
			if _, err := json.Marshal(m); err != nil {
				t.Fatalf("message %d does not encode: %v", i, err)
			}
		}
	})
}

// FuzzDecodeReply feeds arbitrary bodies to the decoder of POST
// .../reply: it never panics, and any error is a bad request; a reply
// read is an assistant message with plausible usage.
func FuzzDecodeReply(f *testing.F) {
	for _, s := range []string{
		replyToolCall, replyText,
		`{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"tu","name":"x","input":{}}],"usage":{"input_tokens":5,"output_tokens":1,"cache_read_input_tokens":3}}`,
		`{"role":"assistant","parts":[{"type":"text","text":"x"}],"usage":{"input_tokens":1,"output_tokens":1}}`,
		`{"choices":[]}`, `{"content":1}`, `{"choices":[{"message":{"role":"assistant","content":"x"}}],"usage":{"prompt_tokens":-1}}`,
	} {
		f.Add([]byte(s), "")
	}
	f.Add([]byte(replyText), "anthropic")
	f.Fuzz(func(t *testing.T, data []byte, format string) {
		fm, err := parseFormat(format)
		if err != nil {
			checkBadRequest(t, err)
			return
		}
		m, _, err := decodeReply(data, fm)
		if err != nil {
			checkBadRequest(t, err)
			return
		}
		if m.Role != "assistant" {
			t.Fatalf("role %q", m.Role)
		}
		if m.Usage != nil && m.Usage.Validate() != nil {
			t.Fatalf("usage %+v", m.Usage)
		}
	})
}

// checkBadRequest fails unless err maps to a 400 with a detail.
func checkBadRequest(t *testing.T, err error) {
	t.Helper()
	ae := classify(err)
	var api *apiError
	if ae.status != 400 || ae.detail == "" || !errors.As(ae, &api) {
		t.Fatalf("error %v maps to %d %q", err, ae.status, ae.code)
	}
}
