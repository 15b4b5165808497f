package replay_test

import (
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/transcript"
)

// TestRunTimes checks the split of a replay's wall time: Run measures
// load (the counter) and engine, AddTimes charges what the caller spent
// before, and WallMS is always the sum of the three.
func TestRunTimes(t *testing.T) {
	t.Parallel()
	tr := &transcript.Trajectory{File: "t", Messages: []chat.Message{
		chat.NewText(chat.RoleUser, "hello"),
		chat.NewText(chat.RoleAssistant, "hi"),
	}}
	begin := time.Now()
	res, err := replay.Run(t.Context(), tr, replay.Options{Budget: 8000})
	took := float64(time.Since(begin).Microseconds()) / 1000
	if err != nil {
		t.Fatal(err)
	}
	if res.LoadMS < 0 || res.EngineMS <= 0 || res.ParseMS != 0 {
		t.Errorf("load %v, engine %v, parse %v ms: want load >= 0, engine > 0, parse 0 (Run does not read)", res.LoadMS, res.EngineMS, res.ParseMS)
	}
	if res.WallMS != res.LoadMS+res.EngineMS || res.WallMS > took+0.002 {
		t.Errorf("wall %v ms, want load %v + engine %v, at most the call's %v", res.WallMS, res.LoadMS, res.EngineMS, took)
	}
	load, engine := res.LoadMS, res.EngineMS
	res.AddTimes(30*time.Millisecond, 20*time.Millisecond)
	res.AddTimes(-time.Second, 0)
	if res.LoadMS != load+30 || res.ParseMS != 20 || res.EngineMS != engine {
		t.Errorf("after AddTimes(30ms, 20ms) and (-1s, 0): load %v, parse %v, engine %v; want %v, 20, %v", res.LoadMS, res.ParseMS, res.EngineMS, load+30, engine)
	}
	if want := res.LoadMS + res.ParseMS + res.EngineMS; res.WallMS != want {
		t.Errorf("wall %v ms, want the sum %v", res.WallMS, want)
	}
}
