package workmem

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
)

// normalizeArgsCompact is normalizeArgs as it was before its fast path:
// every valid argument compacted and escaped. FuzzNormalizeArgs compares.
func normalizeArgsCompact(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var b bytes.Buffer
	if json.Valid(raw) && json.Compact(&b, raw) == nil {
		if !utf8.Valid(b.Bytes()) {
			var v any
			if json.Unmarshal(b.Bytes(), &v) == nil {
				if out, err := json.Marshal(v); err == nil {
					return out
				}
			}
		}
		var e bytes.Buffer
		json.HTMLEscape(&e, b.Bytes())
		return json.RawMessage(e.String())
	}
	out, _ := json.Marshal(valid(string(raw)))
	return out
}

// shareArgsChecked is shareArgs as it was before it relied on
// normalizeArgs: it checked call's arguments itself.
func shareArgsChecked(call chat.ToolCall, act Action, norm json.RawMessage) bool {
	if act.Tool != call.Name || len(norm) == 0 || norm[0] != '{' || !bytes.Equal(act.Arguments, norm) {
		return false
	}
	raw := bytes.TrimSpace(call.Arguments)
	return len(raw) > 0 && raw[0] == '{' && json.Valid(raw)
}

// FuzzNormalizeArgs checks normalizeArgs' fast path (arguments already
// as json.Marshal writes them are copied) against compacting and escaping
// every argument, the output's round trip through a JSON encoding of an
// Action, and shareArgs against checking the call's arguments again.
func FuzzNormalizeArgs(f *testing.F) {
	for _, s := range []string{
		`{"command":"ls -la","description":"list files"}`,
		`{"a": 1}`,
		" {\"a\":1}\n",
		`{"html":"<b>&amp;</b>"}`,
		"{ \"h\" : \"a<b\u2028c&d\u2029\" ,\n\t\"n\": [ 1 , 2 ] }",
		`{"s":"line\u2028sep\u2029"}`,
		"{\"s\":\"line\u2028sep\"}",
		`{"s":"é ü 日本"}`,
		"{\"s\":\"bad \xff utf-8\"}",
		`{"q":"say \"hi\" \\ there","n":[1,2.5e3,true,null]}`,
		`["a",{"b":"c"}]`,
		`"a string"`,
		`not json`,
		`{"a":1`,
		`{"password":"hunter2hunter2-9f8e7d"}`,
		`{"token": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}`,
	} {
		f.Add([]byte(s), "Bash")
	}
	f.Fuzz(func(t *testing.T, raw []byte, name string) {
		got, want := normalizeArgs(raw), normalizeArgsCompact(raw)
		if !bytes.Equal(got, want) {
			t.Fatalf("normalizeArgs(%q) = %q, compacted %q", raw, got, want)
		}
		if len(got) > 0 {
			out, err := json.Marshal(Action{Arguments: got})
			var back Action
			if err != nil || json.Unmarshal(out, &back) != nil || !bytes.Equal(back.Arguments, got) {
				t.Fatalf("arguments %q do not survive the round trip: %s, %v", got, out, err)
			}
		}
		call := chat.ToolCall{ID: "c", Name: name, Arguments: raw}
		act := Action{ID: "c", Tool: valid(name), Arguments: redactArgs(got)}
		if a, b := shareArgs(call, act, got), shareArgsChecked(call, act, got); a != b {
			t.Fatalf("shareArgs(%q) = %v, checking the arguments %v", raw, a, b)
		}
	})
}
