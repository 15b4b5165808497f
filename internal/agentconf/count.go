package agentconf

import (
	"encoding/json"
	"fmt"

	"github.com/agentctx/agentctx/token"
)

// skipKeys are the fields whose string values are opaque to the model's
// tokenizer (or are billed differently): thinking signatures, encrypted
// reasoning, inline base64 data and Gemini's thought signatures.
var skipKeys = map[string]bool{
	"signature":         true,
	"encrypted_content": true,
	"data":              true,
	"thoughtSignature":  true,
	"thought_signature": true,
}

// Count returns the suite's token count of a JSON request body: the
// o200k_base count of every string value in it (object keys, numbers and
// JSON syntax are not counted), except the values of skipKeys. It is a
// documented estimate of what a provider bills, the same for every wire,
// not any provider's exact count. A body that is not JSON is counted as
// text.
func Count(body []byte) (int, error) {
	bpe, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		return 0, fmt.Errorf("agentconf: count: %w", err)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return bpe.Count(string(body)), nil
	}
	n := 0
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			n += bpe.Count(x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				if !skipKeys[k] {
					walk(e)
				}
			}
		}
	}
	walk(v)
	return n, nil
}
