package cli

import (
	"bufio"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/internal/sharedtest"
)

// TestReplayTimes checks replay's wall time split in --json: every
// trajectory has load_ms, parse_ms, engine_ms and wall_ms, none
// negative, wall the sum of the others; their sum over the results is
// the time from the process's start to the last replay's end, so it
// lies between the time elapsed before Main was called and after it
// returned; the file with several trajectories (OpenHands) is parsed
// once, charged to its first.
func TestReplayTimes(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Dir(t)
	start := processStart()
	before := time.Since(start)
	code, out, errOut := run(t, "replay", "--json", "--budget", "8000",
		filepath.Join(dir, "claude-code", "short.jsonl"), filepath.Join(dir, "openhands", "output.jsonl"))
	after := time.Since(start)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	var sum float64
	var parsed []float64
	for sc.Scan() {
		var r struct {
			File     string   `json:"file"`
			Index    int      `json:"index"`
			Wall     *float64 `json:"wall_ms"`
			Load     *float64 `json:"load_ms"`
			Parse    *float64 `json:"parse_ms"`
			Engine   *float64 `json:"engine_ms"`
			Messages int      `json:"messages"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Wall == nil || r.Load == nil || r.Parse == nil || r.Engine == nil {
			t.Fatalf("%s #%d: a time is missing: %s", r.File, r.Index, sc.Text())
		}
		if *r.Load < 0 || *r.Parse < 0 || *r.Engine < 0 {
			t.Errorf("%s #%d: negative time: load %v, parse %v, engine %v", r.File, r.Index, *r.Load, *r.Parse, *r.Engine)
		}
		if d := *r.Wall - (*r.Load + *r.Parse + *r.Engine); math.Abs(d) > 1e-6 {
			t.Errorf("%s #%d: wall %v ms is not load %v + parse %v + engine %v", r.File, r.Index, *r.Wall, *r.Load, *r.Parse, *r.Engine)
		}
		sum += *r.Wall
		parsed = append(parsed, *r.Parse)
	}
	if len(parsed) != 4 {
		t.Fatalf("got %d results, want 4 (short.jsonl, 3 OpenHands runs)", len(parsed))
	}
	if parsed[0] <= 0 || parsed[1] <= 0 || parsed[2] != 0 || parsed[3] != 0 {
		t.Errorf("parse_ms %v: want each file's read charged once, to its first trajectory", parsed)
	}
	lo, hi := float64(before.Microseconds())/1000, float64(after.Microseconds())/1000
	if sum < lo-0.01 || sum > hi+0.01 {
		t.Errorf("sum of wall_ms %v, want the process's time up to the last replay, between %v (before Main) and %v ms (after)", sum, lo, hi)
	}
}

func TestProcessStart(t *testing.T) {
	t.Parallel()
	start := processStart()
	if start.After(initTime) || initTime.Sub(start) > maxStartup {
		t.Errorf("processStart %v, want at most maxStartup before the package's init at %v", start, initTime)
	}
	if _, ok := osSinceStart(); !ok && start != initTime {
		t.Errorf("no start time from the system, yet processStart %v is not initTime %v", start, initTime)
	}
}
