package openai

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzStreamChunks feeds arbitrary chunk lines (one JSON object per line,
// as the data of a streamed reply) to the accumulator and the response
// conversion: they must never panic, and a result must be an assistant
// message.
func FuzzStreamChunks(f *testing.F) {
	f.Add(`{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"Hi"}}]}
{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"cmd\":"}}]}}]}
{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"ls\"}"}}]},"finish_reason":"tool_calls"}]}
{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":9}}}`)
	f.Add(`{"choices":[{"index":0,"delta":{"reasoning_content":"hm","refusal":"no"}}]}`)
	f.Add(`{"choices":[{"index":3,"delta":{"tool_calls":[{"index":-1,"type":"custom"}]}}]}`)
	f.Fuzz(func(t *testing.T, data string) {
		var acc accumulator
		for _, line := range strings.Split(data, "\n") {
			var c wireChunk
			if json.Unmarshal([]byte(line), &c) != nil {
				continue
			}
			acc.add(c)
		}
		r, err := response(acc.message(), acc.id, acc.model, acc.finish, acc.usage)
		if err == nil && r.Message.Role != "assistant" {
			t.Errorf("role = %q", r.Message.Role)
		}
	})
}
