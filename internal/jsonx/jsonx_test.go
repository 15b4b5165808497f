package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
// by encoding/json, and no panic leaves Unmarshal.
func TestUnmarshalPanicFallsBack(t *testing.T) {
	flakyCalls = 0
	var v struct {
		A string `json:"a"`
		F *flaky `json:"f"`
	}
	if err := Unmarshal([]byte(`{"a":"x","f":[1, 2]}`), &v); err != nil {
		t.Fatal(err)
	}
	if calls := flakyCalls; calls != 2 || v.A != "x" || v.F == nil || string(v.F.raw) != "[1, 2]" {
		t.Errorf("calls %d, a %q, f %+v; want 2 calls (fast, then encoding/json), a \"x\", f [1, 2]", calls, v.A, v.F)
	}
}

// nested returns a value with depth nested arrays in an object, and as
// many brackets in a string beside them.
func nested(depth int) []byte {
	return []byte(`{"s":"` + strings.Repeat(`[\"{`, depth) + `","a":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`)
}

// TestDeep checks values nested deeper than encoding/json's limit of
// 10,000 levels: the fast decoder accepts them, encoding/json rejects
// them, and Valid and Unmarshal answer as encoding/json does (the fast
// decoder would also take seconds: it re-scans each nested value).
func TestDeep(t *testing.T) {
	t.Parallel()
	for _, depth := range []int{1, MaxFastDepth, MaxFastDepth + 1, 10_000, 10_001, 200_000} {
		data := nested(depth)
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Errorf("depth %d: Valid %v, json.Valid %v", depth, got, want)
		}
		var got, want map[string]any
		gotErr, wantErr := Unmarshal(data, &got), json.Unmarshal(data, &want)
		if errText(gotErr) != errText(wantErr) || !reflect.DeepEqual(got, want) {
			t.Errorf("depth %d: Unmarshal %v, encoding/json %v", depth, gotErr, wantErr)
		}
		// A struct: the fast decoder skips the raw value whole.
		var gotS, wantS struct{ A json.RawMessage }
		gotErr, wantErr = Unmarshal(data, &gotS), json.Unmarshal(data, &wantS)
		if errText(gotErr) != errText(wantErr) || !reflect.DeepEqual(gotS, wantS) {
			t.Errorf("depth %d, struct: Unmarshal %v, encoding/json %v", depth, gotErr, wantErr)
		}
	}
}

// TestDeeper checks the depth count: brackets in strings, escaped quotes
// and broken JSON.
func TestDeeper(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		data  string
		limit int
		want  bool
	}{
		{`[[1]]`, 2, false},
		{`[[[1]]]`, 2, true},
		{`[{"a":[]}]`, 2, true},
		{`["[[[", "]"]`, 1, false},
		{`["\"[[[", "\\", [[]]]`, 2, true},
		{`["\"[[[", "\\", [[]]]`, 3, false},
		{`[] [] [] []`, 1, false},
		{`]]]][[[`, 3, false},
		{`["[[[[`, 1, false},
		{`["\`, 0, true},
		{`{}`, 0, true},
		{``, 0, false},
	} {
		if got := deeper([]byte(c.data), c.limit); got != c.want {
			t.Errorf("deeper(%q, %d) = %v, want %v", c.data, c.limit, got, c.want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// FuzzUnmarshal checks that Unmarshal decodes every input as
// encoding/json does into the values tool-call arguments are decoded to
// (a map, a string, any value) and into a struct, with the same error,
// and that Valid answers as json.Valid.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"command":"ls -la","description":"list"}`,
		`{"a":1,"a":2,"A":3}`,
		`{"a":1e400}`,
		`{"a":"\ud800\udc00\ud800x\u00e9"}`,
		"{\"a\":\"bad \xff\xfe utf-8\"}",
		`{"a":[1,"x",null,true,{"b":-0.5e-3}]}`,
		`"{\"a\":1}"`,
		` {"a" : [ ] } `,
		`{"a":1} {"b":2}`,
		`{"a":01}`,
		`{"a":"x`,
		`{"n":{"s":"t","i":7},"f":"x"}`,
		`[` + strings.Repeat(`[`, MaxFastDepth) + strings.Repeat(`]`, MaxFastDepth+1),
	} {
		f.Add([]byte(s))
	}
	type shape struct {
		N struct {
			S string `json:"s"`
			I int    `json:"i"`
		} `json:"n"`
		F string          `json:"f"`
		R json.RawMessage `json:"r"`
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid %v, json.Valid %v", got, want)
		}
		check := func(name string, got, want any) {
			t.Helper()
			gotErr, wantErr := Unmarshal(data, got), json.Unmarshal(data, want)
			if errText(gotErr) != errText(wantErr) {
				t.Fatalf("%s: error %q, encoding/json %q", name, errText(gotErr), errText(wantErr))
			}
			// reflect.DeepEqual first: cmp.Diff takes time exponential
			// in the depth of nested slices.
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("%s: (-encoding/json +Unmarshal):\n%s", name, cmp.Diff(want, got))
			}
		}
		var m1, m2 map[string]any
		check("map", &m1, &m2)
		var s1, s2 string
		check("string", &s1, &s2)
		var a1, a2 any
		check("any", &a1, &a2)
		var v1, v2 shape
		check("struct", &v1, &v2)
	})
}

// strictStd decodes data as the server's request bodies were decoded
// before TryStrict: one value, unknown fields refused, nothing after it.
func strictStd(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data")
	}
	return nil
}

func TestTryStrict(t *testing.T) {
	type body struct {
		Format   string            `json:"format,omitempty"`
		Messages []json.RawMessage `json:"messages"`
		N        *int              `json:"n,omitempty"`
		Inner    struct {
			A string `json:"a"`
		} `json:"inner"`
	}
	for _, c := range []struct {
		in string
		ok bool
	}{
		{`{"format":"chat","messages":[{"role":"user","content":"hi"},null]}`, true},
		{" {\"FORMAT\":\"x\",\"n\":3}\r\n\t ", true},
		{`{"inner":{"a":"x"}}`, true},
		{`{"format":"chat","extra":1}`, false},      // unknown field
		{`{"inner":{"a":"x","b":2}}`, false},        // unknown nested field
		{`{"format":"chat"} {"format":"x"}`, false}, // a second value
		{`{"format":"chat"}x`, false},               // trailing data
		{`{"format":7}`, false},                     // a value of another type
		{`{"format":"chat"`, false},                 // cut short
	} {
		var got, want body
		ok := TryStrict([]byte(c.in), &got)
		if ok != c.ok {
			t.Errorf("TryStrict(%s) = %v, want %v", c.in, ok, c.ok)
		}
		werr := strictStd([]byte(c.in), &want)
		if ok && werr != nil {
			t.Errorf("TryStrict(%s) decoded what encoding/json refuses: %v", c.in, werr)
		}
		if !ok && !reflect.DeepEqual(got, body{}) {
			t.Errorf("TryStrict(%s) failed and left %+v", c.in, got)
		}
		if ok && !reflect.DeepEqual(got, want) {
			t.Errorf("TryStrict(%s): (-encoding/json +TryStrict):\n%s", c.in, cmp.Diff(want, got))
		}
	}
}

// FuzzTryStrict checks that whatever TryStrict decodes, a strict
// json.Decoder decodes too, to the same value, and that a failure leaves
// the value zero.
func FuzzTryStrict(f *testing.F) {
	for _, s := range []string{
		`{"s":"x","n":{"s":"t","i":7},"r":[1,{"a":null}]}`,
		`{"S":"x","N":{"I":1e2}}`,
		`{"s":"x","zz":1}`,
		`{"s":"x"} `,
		`{"s":"x"} {}`,
		`{"n":{"i":"7"}}`,
		"{\"s\":\"bad \xff utf-8\"}",
	} {
		f.Add([]byte(s))
	}
	type shape struct {
		S string `json:"s"`
		N *struct {
			S string `json:"s"`
			I int    `json:"i"`
		} `json:"n"`
		R json.RawMessage `json:"r"`
		M map[string]any  `json:"m"`
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got, want shape
		ok := TryStrict(data, &got)
		if !ok {
			if !reflect.DeepEqual(got, shape{}) {
				t.Fatalf("failed and left %+v", got)
			}
			return
		}
		if err := strictStd(data, &want); err != nil {
			t.Fatalf("TryStrict decoded what encoding/json refuses: %v", err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("(-encoding/json +TryStrict):\n%s", cmp.Diff(want, got))
		}
	})
}
