package session_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentctx/agentctx/session"
)

// stateSeeds are agentctx_state payloads of the shapes the engine writes
// (tracker, working memory, engine state, configuration), and damaged or
// odd JSON.
var stateSeeds = []string{
	`{"tracker":{"files":{"/p/a.go":{"reads":2,"last":3}},"failed":[{"cmd":"go test","code":1}]},"workmem":{"scratchpad":"x","plan":[{"step":"a","done":true}]}}`,
	`{"engine":{"reminders":{"sent":{"todo":3}},"todos":[{"content":"fix","status":"pending"}],"todo_tool":true,"rehydration":"## Files\n/p/a.go","compactions":2,"summarize":{"guard":1}}}`,
	`{"config":{"model":"gpt-4o","budget":8000,"budget_source":"option","tools":[{"name":"Bash","parameters":"{\"type\":\"object\"}"}],"strategy":{"name":"summarize","summarizer":"extractive"}}}`,
	"{\n  \"a\": [1, 2, {\"b\": \"<&>\"}]\n}",
	`"just a string"`, `[1,2,3]`, `0`, `null`, ` null `, ``, `{"a":`, `{"a":1} {"b":2}`,
	`{"s":"\u2028\u2029\ud800"}`, `{"deep":[[[[[[[[[[[]]]]]]]]]]]}`,
}

// FuzzStateEntry checks the agentctx_state entry's round trip: any JSON
// that is not null becomes an entry whose State is its compact form, on
// one line, which MarshalLine writes and DecodeLine and Read give back
// byte for byte, and which LastState finds; anything else is refused with
// ErrInvalidEntry. State entries are what Resume reads back (the root
// package's FuzzResumeState fuzzes that reading).
func FuzzStateEntry(f *testing.F) {
	for _, s := range stateSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := session.NewStateEntry(json.RawMessage(data))
		var compact bytes.Buffer
		valid := json.Compact(&compact, data) == nil && compact.Len() > 0 && compact.String() != "null"
		if err != nil {
			if !errors.Is(err, session.ErrInvalidEntry) {
				t.Fatalf("NewStateEntry(%q) error %v does not wrap ErrInvalidEntry", data, err)
			}
			if valid {
				t.Fatalf("NewStateEntry(%q) refused valid JSON: %v", data, err)
			}
			return
		}
		if !valid {
			t.Fatalf("NewStateEntry(%q) accepted what is not a JSON value other than null", data)
		}
		if e.Type != session.TypeState || !bytes.Equal(e.State, compact.Bytes()) {
			t.Fatalf("NewStateEntry(%q) = type %q state %q, want %q", data, e.Type, e.State, compact.Bytes())
		}
		e.UUID, e.SessionID = "s1", "sess"
		line, err := session.MarshalLine(e)
		if err != nil {
			t.Fatalf("MarshalLine of a state entry: %v", err)
		}
		if bytes.ContainsAny(line, "\n\r") {
			t.Fatalf("state line holds a line break: %q", line)
		}
		d, err := session.DecodeLine(line)
		if err != nil {
			t.Fatalf("DecodeLine(%s): %v", line, err)
		}
		if d.Type != session.TypeState || !bytes.Equal(d.State, e.State) {
			t.Fatalf("state round trip: got %q, want %q", d.State, e.State)
		}
		// In a file, after a message and before a side chain's state.
		side := session.Entry{Type: session.TypeState, UUID: "s2", IsSidechain: true, State: json.RawMessage(`{"side":1}`)}
		sideLine, err := session.MarshalLine(side)
		if err != nil {
			t.Fatal(err)
		}
		file := append(append(append([]byte(`{"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}`+"\n"), line...), '\n'), append(sideLine, '\n')...)
		es, ps, err := session.Read(bytes.NewReader(file), session.ReadOptions{File: "f", FirstLine: 1})
		if err != nil || len(ps) > 0 || len(es) != 3 {
			t.Fatalf("Read: %d entries, problems %v, error %v\n%s", len(es), ps, err, file)
		}
		if es[1].Line != 2 || es[1].Offset != int64(bytes.IndexByte(file, '\n')+1) {
			t.Fatalf("state entry at line %d byte %d", es[1].Line, es[1].Offset)
		}
		got, ok := session.LastState(es)
		if !ok || !bytes.Equal(got, e.State) {
			t.Fatalf("LastState = %q, %v; want %q", got, ok, e.State)
		}
	})
}
