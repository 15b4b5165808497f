package proxy

import (
	"bytes"
	"encoding/json"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// This file finds the spans of a request body's fields and of its history's
// elements in one pass over the bytes, without decoding them: the body is
// checked as JSON first (jsonx.Valid), so the scan only has to tell
// strings, brackets and the rest apart. parseBody falls back to
// encoding/json's tokenizer, whose errors name the offset, when the scan
// does not apply.

// skipSpace returns the offset of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the offset after the string that starts at b[i] (a
// '"'), or -1.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		// The quote ends the string unless an odd run of backslashes
		// escapes it.
		n := 0
		for m := j - 1; m > i && b[m] == '\\'; m-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// skipValue returns the offset after the value that starts at b[i], or -1.
// b is valid JSON.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				k := skipString(b, j)
				if k < 0 {
					return -1
				}
				j = k - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	for j := i; j < len(b); j++ {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return j
		}
	}
	return len(b)
}

// scanObject calls fn with each key of the object at the top of b and the
// span of its value, in order. It reports false when b is not one valid
// JSON object (fn may have been called).
func scanObject(b []byte, fn func(key string, value span) bool) bool {
	if !jsonx.Valid(b) {
		return false
	}
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for i < len(b) {
		end := skipString(b, i)
		if end < 0 {
			return false
		}
		var key string
		if err := json.Unmarshal(b[i:end], &key); err != nil {
			return false
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		vend := skipValue(b, i)
		if vend < 0 || !fn(key, span{i, vend}) {
			return false
		}
		i = skipSpace(b, vend)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			return skipSpace(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return false
		}
		i = skipSpace(b, i+1)
	}
	return false
}

// scanArray returns the spans of the elements of the array b[s.start:s.end]
// (valid JSON), or false when it is not an array.
func scanArray(b []byte, s span, out []span) ([]span, bool) {
	i := skipSpace(b, s.start)
	if i >= s.end || b[i] != '[' {
		return out, false
	}
	i = skipSpace(b, i+1)
	if i < s.end && b[i] == ']' {
		return out, true
	}
	for i < s.end {
		end := skipValue(b, i)
		if end < 0 || end > s.end {
			return out, false
		}
		out = append(out, span{i, end})
		i = skipSpace(b, end)
		if i >= s.end {
			return out, false
		}
		if b[i] == ']' {
			return out, true
		}
		if b[i] != ',' {
			return out, false
		}
		i = skipSpace(b, i+1)
	}
	return out, false
}

// parseBodyFast is parseBody by scanning: it reports false when the body
// is not valid JSON of the expected shape, for parseBody's slower reading
// to say what is wrong. Keys are matched exactly; a duplicate key's last
// value wins, as encoding/json's decoding does.
func parseBodyFast(raw []byte, w Wire) (*body, bool) {
	b := &body{raw: raw, wire: w, messages: span{-1, -1}}
	hk := historyKey(w)
	ok := scanObject(raw, func(key string, v span) bool {
		val := raw[v.start:v.end]
		switch key {
		case hk:
			elems, ok := scanArray(raw, v, b.elems[:0])
			if !ok {
				return false
			}
			b.messages, b.elems = v, elems
		case "model":
			_ = json.Unmarshal(val, &b.model)
		case "stream":
			_ = json.Unmarshal(val, &b.stream)
		case "system", "instructions":
			b.system = val
		case "previous_response_id":
			b.previous = w == WireResponses && string(val) != "null" && string(val) != `""`
		case "tools":
			b.tools = val
		case "systemInstruction", "system_instruction", "generationConfig", "generation_config":
			b.readGeminiField(key, val)
		case "max_tokens", "max_completion_tokens", "max_output_tokens":
			var n int
			if json.Unmarshal(val, &n) == nil && n > 0 {
				b.maxTokens = n
			}
		}
		return true
	})
	if !ok || b.messages.start < 0 {
		return nil, false
	}
	return b, true
}
