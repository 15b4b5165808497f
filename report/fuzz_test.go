package report

import (
	"encoding/json"
	"testing"

	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/session"
)

// FuzzRecordedConfig decodes arbitrary state entries as a session's
// recorded configuration: never a panic, and a strategy only from a
// well-formed one.
func FuzzRecordedConfig(f *testing.F) {
	f.Add([]byte(`{"config":{"model":"gpt-4o","budget":6000,"system_prompt":"hi","tools":[{"name":"read","parameters":"{\"type\":\"object\"}"}],"strategy":{"name":"summarize","threshold":0.8}}}`))
	f.Add([]byte(`{"config":{"strategy":{"name":"tiered"}}}`))
	f.Add([]byte(`{"config":{"strategy":"tiered","tools":[{"parameters":"{"}]}}`))
	f.Add([]byte(`{"config":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, state []byte) {
		if !json.Valid(state) {
			return
		}
		cfg := recordedConfig([]session.Entry{{Type: session.TypeState, State: state}})
		for _, d := range cfg.tools() {
			if d.Parameters != nil && !json.Valid(d.Parameters) {
				t.Errorf("tool %q: invalid parameters %q", d.Name, d.Parameters)
			}
		}
		_, _ = cfg.strategy(replay.Options{})
	})
}
