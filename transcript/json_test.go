package transcript

import (
	"encoding/json"
	"testing"
)

// flakyCalls counts the decodings of a flaky value.
var flakyCalls int

// flaky panics the first time it is decoded, as a bug of the fast
// decoder would, and decodes as a json.RawMessage after that.
type flaky struct{ raw json.RawMessage }

func (f *flaky) UnmarshalJSON(b []byte) error {
	flakyCalls++
	if flakyCalls == 1 {
		panic("fast decoder bug")
	}
	f.raw = append(f.raw[:0], b...)
	return nil
}

// TestUnmarshalPanicFallsBack checks that a panic while the fast decoder
// runs is a failure like any other: the value is zeroed and decoded again
// by encoding/json, and no panic leaves unmarshal.
func TestUnmarshalPanicFallsBack(t *testing.T) {
	flakyCalls = 0
	var v struct {
		A string `json:"a"`
		F *flaky `json:"f"`
	}
	if err := unmarshal([]byte(`{"a":"x","f":[1, 2]}`), &v); err != nil {
		t.Fatal(err)
	}
	if calls := flakyCalls; calls != 2 || v.A != "x" || v.F == nil || string(v.F.raw) != "[1, 2]" {
		t.Errorf("calls %d, a %q, f %+v; want 2 calls (fast, then encoding/json), a \"x\", f [1, 2]", calls, v.A, v.F)
	}
}
