package anthropic

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzStreamEvents feeds arbitrary event lines (one JSON object per line,
// as the data of a streamed reply) to the accumulator and the response
// conversion: they must never panic, and a result must be an assistant
// message.
func FuzzStreamEvents(f *testing.F) {
	f.Add(`{"type":"message_start","message":{"id":"m","role":"assistant","content":[],"model":"c","usage":{"input_tokens":3}}}
{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"bash","input":{}}}
{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"cmd\":\"ls\"}"}}
{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":""}}
{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"hm"}}
{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"s"}}
{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":7}}`)
	f.Add(`{"type":"content_block_delta","index":5,"delta":{"type":"text_delta","text":"x"}}`)
	f.Add(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"b"}}
{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`)
	f.Fuzz(func(t *testing.T, data string) {
		var acc accumulator
		for _, line := range strings.Split(data, "\n") {
			var ev wireEvent
			if json.Unmarshal([]byte(line), &ev) != nil {
				continue
			}
			if _, err := acc.add(ev); err != nil {
				return
			}
		}
		r, err := response(acc.message(), acc.stop)
		if err == nil && r.Message.Role != "assistant" {
			t.Errorf("role = %q", r.Message.Role)
		}
	})
}
