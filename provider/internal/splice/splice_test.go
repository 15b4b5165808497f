package splice

import (
	"encoding/json"
	"testing"
)

func TestBody(t *testing.T) {
	type params struct {
		A        string            `json:"a"`
		Messages []json.RawMessage `json:"messages"`
		Z        []json.RawMessage `json:"z,omitempty"`
	}
	items := []json.RawMessage{json.RawMessage(`{"role":"user","content":"\u003cb\u003e"}`), json.RawMessage(`"x"`), json.RawMessage(`[1,2]`)}
	want, err := json.Marshal(params{A: "<", Messages: items})
	if err != nil {
		t.Fatal(err)
	}
	skeleton, err := json.Marshal(params{A: "<", Messages: []json.RawMessage{Placeholder}})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := Body(skeleton, items); !ok || string(got) != string(want) {
		t.Errorf("Body = %s, %v; want %s", got, ok, want)
	}
	if got, ok := Body(skeleton, nil); !ok || string(got) != `{"a":"\u003c","messages":[]}` {
		t.Errorf("Body of no items = %s, %v", got, ok)
	}
	// The marker twice (a later field holds it) or not at all: the
	// caller marshals the whole params.
	twice, err := json.Marshal(params{Messages: []json.RawMessage{Placeholder}, Z: []json.RawMessage{Placeholder}})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := Body(twice, items); ok {
		t.Errorf("Body with the marker twice = %s, true", got)
	}
	if got, ok := Body([]byte(`{"messages":[]}`), items); ok {
		t.Errorf("Body without the marker = %s, true", got)
	}
}
