package tooluse

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeArgsStd is decodeArgs with encoding/json, as it was before
// internal/jsonx: FuzzDecodeArgs compares the two.
func decodeArgsStd(raw []byte) args {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return args{}
	}
	switch raw[0] {
	case '{':
		var obj map[string]any
		if json.Unmarshal(raw, &obj) == nil {
			return args{obj: obj}
		}
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") {
				var obj map[string]any
				if json.Unmarshal([]byte(t), &obj) == nil {
					return args{obj: obj}
				}
			}
			return args{raw: s}
		}
	}
	return args{raw: string(raw)}
}

// FuzzDecodeArgs checks that decodeArgs reads every input as
// encoding/json does: the same object, the same text.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{
		`{"command":"ls -la","description":"list"}`,
		` {"a":1,"a":2,"A":"x"} `,
		`{"file_path":"a.go","content":"x\u00e9\ud800\"y","n":1e400}`,
		`{"s":"\xff\xfe","nested":{"deep":[1,"two",{"three":3}]},"s":"later"}`,
		`"{\"file_path\":\"/a.go\"}"`,
		`"  {\"a\":[1,{\"b\":null}]}  "`,
		`"not an object"`,
		`{"a":1e400,"b":"c"}`,
		"{\"a\":\"\xff\\ud800\"}",
		`{"a":[` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `]}`,
		`{"a":"x"`,
		`*** Begin Patch`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, want := decodeArgs(raw), decodeArgsStd(raw)
		for k := range got.obj {
			got.get(k) // the string values, decoded when read
		}
		// reflect.DeepEqual first: cmp.Diff takes time exponential in
		// the depth of nested slices.
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeArgs(%q) (-encoding/json +fast):\n%s", raw, cmp.Diff(want, got, cmp.AllowUnexported(args{})))
		}
	})
}
