package proxy

import (
	"testing"
)

// FuzzReadBody: the proxy's reading of a model request (spans, fields,
// conversion to the message model, rendering back) never panics, and the
// spans it reports are inside the body.
func FuzzReadBody(f *testing.F) {
	for _, s := range []string{
		`{"model":"gpt-4o","messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}]}`,
		`{"model":"claude-sonnet-4-5","system":[{"type":"text","text":"s"}],"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}],"tools":[{"name":"read_file","input_schema":{}}]}`,
		`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"r"}],"x":[1,2]}`,
		`{"messages": [1, 2`, `[]`, `{"messages":{}}`, ``,
	} {
		for w := range uint8(3) {
			f.Add([]byte(s), w)
		}
	}
	f.Add([]byte(`{"instructions":"s","input":[{"type":"message","role":"developer","content":"d"},{"role":"user","content":"hi"},{"type":"reasoning","summary":[],"encrypted_content":"e"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"o"}]}`), uint8(2))
	for _, s := range []string{
		`{"contents":[{"parts":[{"text":"<session_context/>"},{"text":"fix it"}],"role":"user"},{"parts":[{"functionCall":{"id":"c1","args":{"p":"a"},"name":"read_file"},"thoughtSignature":"c2ln"},{"functionCall":{"args":{},"name":"ls"}}],"role":"model"},{"parts":[{"functionResponse":{"name":"read_file","response":{"output":"x"},"id":"c1"}},{"functionResponse":{"name":"ls","response":{"error":"e"}}}],"role":"user"}],"systemInstruction":{"parts":[{"text":"s"}],"role":"user"},"tools":[{"functionDeclarations":[{"name":"read_file","parametersJsonSchema":{}}]}],"generationConfig":{"maxOutputTokens":100}}`,
		`{"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","data":""}},{"text":"t","thought":true}]},{"parts":[{"text":"a","thoughtSignature":"s"}],"role":"model"}]}`,
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, wire uint8) {
		w := []Wire{WireOpenAI, WireAnthropic, WireResponses, WireGemini}[wire%4]
		b, err := parseBody(data, w)
		if err != nil {
			return
		}
		if b.messages.start < 0 || b.messages.end > len(data) || b.messages.start >= b.messages.end {
			t.Fatalf("messages span %v in %d bytes", b.messages, len(data))
		}
		for _, e := range b.elems {
			if e.start < b.messages.start || e.end > b.messages.end || e.start >= e.end {
				t.Fatalf("element span %v outside %v", e, b.messages)
			}
		}
		c, err := b.read(nil)
		if err != nil {
			return
		}
		fps := make([]fingerprint, len(c.msgs))
		for i, m := range c.msgs {
			fps[i] = fingerprintOf(m)
		}
		// Rendering the conversation as it is gives the agent's elements.
		elems, kept, err := renderMessages(b, c, fps, c.msgs)
		if err != nil {
			return
		}
		if kept != len(b.elems)-c.lead || len(elems) != len(b.elems) {
			t.Fatalf("rendering the unchanged history kept %d of %d elements, wrote %d", kept, len(b.elems)-c.lead, len(elems))
		}
		_ = b.splice(elems)
	})
}

// FuzzParseScan: the scan and encoding/json's tokenizer read a body the
// same way: the same spans and fields when the scan reads it, and the
// scan never reads a body the tokenizer refuses.
func FuzzParseScan(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"user","content":"a\"]}"} , 2 ,"x"],"stream":true,"max_tokens":5}`,
		` { "messages" : [ ] , "system" : [ { "type" : "text" } ] } `,
		`{"messages":[1],"messages":[2,3]}`,
		`{"input":[{"type":"message"}],"previous_response_id":"r","instructions":"i"}`,
		`{"messages":[{"a":"\\"},{"b":"\u005d"}]}`,
		`{"Messages":[1]}`, `{"messages":[1,]}`, `{"messages":[1]} x`,
	} {
		for w := range uint8(3) {
			f.Add([]byte(s), w)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, wire uint8) {
		w := []Wire{WireOpenAI, WireAnthropic, WireResponses, WireGemini}[wire%4]
		fast, ok := parseBodyFast(data, w)
		slow, err := parseBodySlow(data, w)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("the scan read a body the tokenizer refuses (%v): %q", err, data)
		}
		if fast.messages != slow.messages || len(fast.elems) != len(slow.elems) {
			t.Fatalf("spans differ: %v %v / %v %v", fast.messages, fast.elems, slow.messages, slow.elems)
		}
		for i := range fast.elems {
			if fast.elems[i] != slow.elems[i] {
				t.Fatalf("element %d: %v / %v", i, fast.elems[i], slow.elems[i])
			}
		}
		if fast.model != slow.model || fast.stream != slow.stream || fast.maxTokens != slow.maxTokens || fast.previous != slow.previous ||
			string(fast.system) != string(slow.system) || string(fast.tools) != string(slow.tools) {
			t.Fatalf("fields differ: %+v / %+v", fast, slow)
		}
	})
}
