// Package splice builds a provider request body from an SDK's request
// params without encoding the conversation more than once.
//
// The official SDKs (openai-go, anthropic-sdk-go) marshal their params
// through encoding/json, which compacts and re-escapes the output of
// every MarshalJSON method it calls: a message handed to the params as
// raw JSON (param.Override) is scanned again by the SDK's union, by its
// object and by json.Marshal's own top level, three passes over the
// whole conversation (36 % of the service's turn at a 16,000-token
// budget, issue 29). Here the params are marshaled with a one-element
// placeholder array in place of the messages, and the messages, already
// compact and HTML-escaped as json.Marshal writes them, are put in its
// place: the same bytes for one pass.
package splice

import (
	"bytes"
	"encoding/json"

	"github.com/agentctx/agentctx/internal/jsonx"
)

// Placeholder is the one element of the array the caller puts where the
// messages go before marshaling the params: a JSON string no request
// holds (NUL characters, escaped).
var Placeholder = json.RawMessage(`"\u0000agentctx:messages\u0000"`)

// marker is the placeholder array as it appears in the marshaled params.
var marker = []byte(`[` + string(Placeholder) + `]`)

// Body returns skeleton (the params marshaled by json.Marshal with the
// placeholder array, [Placeholder] alone, where the items go) with that
// array replaced by the items, in order, comma-separated. Each item must
// be as json.Marshal writes a value: compact, with <, >, &, U+2028 and
// U+2029 escaped. encoding/json's compaction of such an item changes
// nothing, so the result is byte for byte json.Marshal of the params
// holding the items. ok is false when the placeholder array does not
// occur exactly once in skeleton (another field holds it): the caller
// then marshals the whole params.
func Body(skeleton []byte, items []json.RawMessage) (body []byte, ok bool) {
	at := bytes.Index(skeleton, marker)
	if at < 0 || bytes.Contains(skeleton[at+len(marker):], marker) {
		return nil, false
	}
	return jsonx.SpliceArray(skeleton, at, at+len(marker), items), true
}

// Marshal returns json.Marshal(p), p a pointer to an SDK's request params
// whose messages, *msgs (a field of *p), were each set to raw JSON with
// the SDK's param.Override: the params are marshaled with placeholder
// (param.Override of [Placeholder]) as their only message and the raw
// messages spliced in ([Body]). A message not set to raw JSON, or the
// placeholder found elsewhere, marshals the whole params instead. *msgs
// is as it was on return. Errors: json.Marshal's.
func Marshal[M interface{ Overrides() (any, bool) }](p any, msgs *[]M, placeholder M) ([]byte, error) {
	whole := *msgs
	items := make([]json.RawMessage, len(whole))
	for i := range whole {
		raw, ok := whole[i].Overrides()
		if items[i], _ = raw.(json.RawMessage); !ok || items[i] == nil {
			return json.Marshal(p)
		}
	}
	*msgs = []M{placeholder}
	skeleton, err := json.Marshal(p)
	*msgs = whole
	if err != nil {
		return nil, err
	}
	if b, ok := Body(skeleton, items); ok {
		return b, nil
	}
	return json.Marshal(p)
}
