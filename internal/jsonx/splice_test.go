package jsonx

import (
	"encoding/json"
	"testing"
)

func TestSpliceArray(t *testing.T) {
	raw := []byte(`{"a":1,"messages":"PLACE","z":[true]}`)
	start := len(`{"a":1,"messages":`)
	end := start + len(`"PLACE"`)
	items := []json.RawMessage{json.RawMessage(`{"role":"user"}`), json.RawMessage(`"x"`), json.RawMessage(`[1,2]`)}
	got := SpliceArray(raw, start, end, items)
	want := `{"a":1,"messages":[{"role":"user"},"x",[1,2]],"z":[true]}`
	if string(got) != want || !json.Valid(got) {
		t.Errorf("SpliceArray = %s, want %s", got, want)
	}
	if got := SpliceArray(raw, start, end, [][]byte(nil)); string(got) != `{"a":1,"messages":[],"z":[true]}` {
		t.Errorf("SpliceArray of no items = %s", got)
	}
	if string(raw) != `{"a":1,"messages":"PLACE","z":[true]}` {
		t.Errorf("raw modified: %s", raw)
	}
}
