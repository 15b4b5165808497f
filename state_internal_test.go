package agentctx

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentctx/agentctx/track"
	"github.com/agentctx/agentctx/workmem"
)

// FuzzStateMarshal checks that savedState.marshal writes json.Marshal's
// bytes for every combination of members, with text (HTML characters,
// U+2028, invalid UTF-8 included) in the working memory, the tracker,
// the engine's state and the configuration.
func FuzzStateMarshal(f *testing.F) {
	for _, s := range []string{"", "fix <the> parser & tests", "line\u2028sep\u2029", "bad \xff utf-8", `quote " and \ back`} {
		f.Add(s, uint8(0xff))
		f.Add(s, uint8(0x05))
	}
	f.Fuzz(func(t *testing.T, text string, members uint8) {
		var s savedState
		if members&1 != 0 {
			s.Tracker = &track.State{Files: []track.FileRead{{Path: text, Preview: text, Reads: 2}}}
		}
		if members&2 != 0 {
			raw, err := workmem.New(text, workmem.Options{}).ToJSON()
			if err != nil {
				t.Fatal(err)
			}
			s.Workmem = raw
		}
		if members&4 != 0 {
			s.Engine = &engineState{Rehydration: text, Compactions: 3}
			if members&32 != 0 {
				s.Engine.Strategy = json.RawMessage(`{"calls": 2}`) // not compact: encoding/json compacts it
			}
		}
		if members&8 != 0 {
			s.Config = &engineConfig{Model: text, Budget: 1000}
		}
		s.Replay = members&16 != 0
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("members %#x:\n got %s\nwant %s", members, got, want)
		}
	})
}
