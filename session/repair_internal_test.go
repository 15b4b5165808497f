package session

import (
	"encoding/json"
	"testing"
)

func TestPatchKeys(t *testing.T) {
	t.Parallel()
	set := map[string]json.RawMessage{"parentUuid": json.RawMessage(`"new"`), "uuid": json.RawMessage(`"u2"`)}
	tests := []struct {
		name, in, want string
		wantErr        bool
	}{
		{name: "both present", in: `{"parentUuid":null,"uuid":"u1","x":1}`, want: `{"parentUuid":"new","uuid":"u2","x":1}`},
		{name: "white space kept", in: `{ "uuid" : "u1" , "parentUuid" :  "old" ,"data":{"parentUuid":"inner"} }`, want: `{ "uuid" : "u2" , "parentUuid" :  "new" ,"data":{"parentUuid":"inner"} }`},
		{name: "missing keys added first", in: `{"type":"progress"}`, want: `{"parentUuid":"new","uuid":"u2","type":"progress"}`},
		{name: "empty object", in: `{}`, want: `{"parentUuid":"new","uuid":"u2"}`},
		{name: "empty object with space", in: `{ }`, want: `{"parentUuid":"new","uuid":"u2" }`},
		{name: "case and escapes as encoding/json matches", in: `{"ParentUUID":"a","\u0075uid":"b","parentuuid":"c"}`, want: `{"ParentUUID":"new","\u0075uid":"u2","parentuuid":"new"}`},
		{name: "object values", in: `{"parentUuid":{"a":[1,{"b":2}]},"uuid":[],"z":"}"}`, want: `{"parentUuid":"new","uuid":"u2","z":"}"}`},
		{name: "not an object", in: `[1,2]`, wantErr: true},
		{name: "broken", in: `{"uuid":`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := patchKeys([]byte(tt.in), set)
			if (err != nil) != tt.wantErr {
				t.Fatalf("patchKeys error = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if string(got) != tt.want {
				t.Errorf("patchKeys(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("result is not valid JSON: %s", got)
			}
		})
	}
}

func TestValueEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{`{"a":"}"}rest`, 9, true},
		{`{"a":"\"}"}`, 11, true},
		{`[{"a":[1]}]x`, 11, true},
		{`{"a":`, 0, false},
		{`}`, 0, false},
	}
	for _, tt := range tests {
		got, ok := valueEnd([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("valueEnd(%s) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
