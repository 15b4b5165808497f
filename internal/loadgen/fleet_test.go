package loadgen_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentctx/agentctx/internal/loadgen"
	"github.com/agentctx/agentctx/internal/pgtest"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/server"
)

// The size of a run: CI's by default; scripts/load.sh sets the full
// size through the environment.
var (
	sessions = envInt("AGENTCTX_LOAD_SESSIONS", 20)
	turns    = envInt("AGENTCTX_LOAD_TURNS", 6)
	seed     = envInt("AGENTCTX_LOAD_SEED", 1)
	duration = time.Duration(envInt("AGENTCTX_LOAD_SECONDS", 60)) * time.Second
	// split sends the paced sessions' messages apart from their request
	// (three calls a turn; scripts/load.sh's SPLIT=1).
	split = envInt("AGENTCTX_LOAD_SPLIT", 0) == 1
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v >= 0 {
		return v
	}
	return def
}

var (
	buildOnce sync.Once
	bin       string
	buildErr  error
)

// agentctxBin builds the agentctx command once per test process.
func agentctxBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "loadgen")
		if err != nil {
			buildErr = err
			return
		}
		bin = filepath.Join(dir, "agentctx")
		buildErr = loadgen.Build(t.Context(), "../..", bin)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return bin
}

// runFleet runs cfg and checks its outcome: every session done, every
// session equal to the reference Engine's.
// runFleet runs cfg at the test's size and returns its report (nil when
// the run failed to start).
func runFleet(t *testing.T, cfg loadgen.FleetConfig) *loadgen.Report {
	t.Helper()
	cfg.Bin = agentctxBin(t)
	cfg.Data = sharedtest.Dir(t)
	cfg.Sessions, cfg.MaxTurns, cfg.Seed, cfg.Duration = sessions, turns, uint64(seed), duration
	// The work folder (servers' log, the differing sessions' entries) is
	// kept when the test fails.
	work, err := os.MkdirTemp("", "fleet")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			_ = os.RemoveAll(work)
		}
	})
	cfg.Work = work
	logf, err := os.Create(filepath.Join(work, "servers.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cfg.Log = logf
	rep, diffs, err := loadgen.Fleet(t.Context(), cfg)
	if rep != nil {
		var b strings.Builder
		_ = rep.Print(&b)
		fmt.Print(b.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range rep.Errors() {
		t.Error(err)
	}
	if rep.Finished != rep.Sessions {
		t.Errorf("%d of %d sessions finished their script within %v", rep.Finished, rep.Sessions, duration)
	}
	for i, d := range diffs {
		if i == 10 {
			t.Errorf("… and %d more sessions differ", len(diffs)-i)
			break
		}
		t.Error(d)
	}
	if t.Failed() {
		t.Logf("servers' log: %s", logf.Name())
	}
	return rep
}

// pgStore returns the store URL of a fresh schema of the test database,
// with a 2 s lease.
func pgStore(t *testing.T) string {
	t.Helper()
	schema := pgtest.Schema(t, "fleet_")
	dsn := pgtest.DSN()
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "schema=" + schema + "&lease=2s"
}

// TestFleetPostgres is issue 16's fleet test: two `agentctx serve`
// processes share one PostgreSQL schema (lease 2 s); sessions of real
// trajectories go through both at random; one server is SIGKILLed at 40 %
// of the steps and its sessions carry on on the other once their lease
// expires. Afterwards every session equals a single in-process Engine's.
// It needs PostgreSQL (skipped without it, failed when CI=true) and
// ../shared/data.
func TestFleetPostgres(t *testing.T) {
	sharedtest.SkipUnlessLong(t) // a load test
	runFleet(t, loadgen.FleetConfig{
		Name:  "postgres, 2 servers, messages sent with their request",
		Store: pgStore(t), Servers: 2,
		Kill: true, KillAfter: 0.4, Combine: true,
	})
}

// TestFleetSQLite is the same on the SQLite default: one server (SQLite
// is one host's), SIGKILLed at 40 % of the steps and started again on the
// same file.
func TestFleetSQLite(t *testing.T) {
	sharedtest.SkipUnlessLong(t) // a load test
	runFleet(t, loadgen.FleetConfig{
		Name:  "sqlite, 1 server",
		Store: "sqlite:" + filepath.Join(t.TempDir(), "sessions.db") + "?lease=2s", Servers: 1,
		Kill: true, KillAfter: 0.4, Restart: true,
	})
}

// TestFleetSQLitePaced is the service's turn as agents make it: one
// server on SQLite, the sessions paced as their model paces them (0.5 to
// 1.5 s between a request and its reply), no kill; its report's turn row
// is the server's time for one model call (scripts/load.sh N paced),
// followed by the machine's floor at the server's mean CPU time a call
// (the stand-in server of TestPacedFloor).
func TestFleetSQLitePaced(t *testing.T) {
	sharedtest.SkipUnlessLong(t) // a load test
	name := "sqlite, 1 server, paced, messages sent with their request (two calls a turn)"
	if split {
		name = "sqlite, 1 server, paced, three calls a turn"
	}
	rep := runFleet(t, loadgen.FleetConfig{
		Name:  name,
		Store: "sqlite:" + filepath.Join(t.TempDir(), "sessions.db"), Servers: 1,
		Think:   [2]time.Duration{500 * time.Millisecond, 1500 * time.Millisecond},
		Combine: !split,
	})
	// The machine's scheduling delay was probed idle, then under the run.
	for _, st := range []*loadgen.Stalls{rep.IdleStalls, rep.Stalls} {
		if st == nil || st.Sleeps == 0 || st.Span <= 0 || st.Late3ms > st.Late1ms || st.Late1ms > st.Sleeps {
			t.Errorf("stalls %+v", st)
		}
	}
	// Each turn's server time (its answers' Server-Timing) is within what
	// the client measured of it, so each of its quantiles is too.
	rows := map[string]loadgen.RouteSummary{}
	for _, r := range rep.Routes {
		rows[r.Route] = r
	}
	c, s := rows[loadgen.TurnRoute], rows[loadgen.TurnServerRoute]
	if c.Calls == 0 || s.Calls != c.Calls || s.P50 <= 0 || s.P50 > c.P50 || s.P99 > c.P99 {
		t.Errorf("turn rows: client %d turns p50 %v p99 %v, server %d turns p50 %v p99 %v", c.Calls, c.P50, c.P99, s.Calls, s.P50, s.P99)
	}
	// The slowest turns' breakdown: the server's time within the
	// client's, each phase within the server's, and every turn wrote to
	// the store (the messages and the reply are appended).
	tail := rep.Tail
	if tail == nil || tail.Turns < 1 || tail.From < c.P99 || tail.Client < tail.From || len(tail.Server) != len(tail.Metrics) {
		t.Fatalf("tail %+v, turn p99 %v", tail, c.P99)
	}
	app := tail.Server[0]
	if app <= 0 || app > tail.Client {
		t.Errorf("tail: server %v, client %v", app, tail.Client)
	}
	for i, name := range tail.Metrics[1:] {
		if d := tail.Server[i+1]; d > app || (name == server.TimingStore && d <= 0) {
			t.Errorf("tail: %s %v, server %v", name, d, app)
		}
	}
	if tail.Compacted > tail.Turns {
		t.Errorf("tail: %d compacted of %d turns", tail.Compacted, tail.Turns)
	}
	// The machine's floor under the turn row at this server's mean CPU
	// time a call: the same paced sessions against a stand-in server
	// that spends an exponential CPU time of that mean on each call and
	// nothing else (TestPacedFloor). Where the run's p99 is above it, the
	// rest is the server's heavier tail; where the floor itself is over
	// a target, no server of this mean meets it on this machine.
	perCall := rep.CPUPerCall()
	if perCall <= 0 {
		if runtime.GOOS == "linux" {
			t.Fatalf("server CPU %+v for %d calls: not measured", rep.ServerCPU, rep.Requests)
		}
		return
	}
	secs := envInt("AGENTCTX_FLOOR_SECONDS", 4)
	us := int(perCall / time.Microsecond)
	r := runFloor(t, startFloorServer(t), us, time.Duration(secs)*time.Second)
	fmt.Printf("floor at this mean (a stand-in server spending only an exponential CPU time of mean %d µs on each call, %d s): turn p50 %.2f ms, p99 %.2f ms over %d turns; this run: p50 %.2f ms, p99 %.2f ms\n",
		us, secs, ms(quantile(r.client, 0.5)), ms(quantile(r.client, 0.99)), len(r.client), ms(c.P50), ms(c.P99))
	if len(r.client) < sessions {
		t.Errorf("floor: %d turns of %d sessions in %d s", len(r.client), sessions, secs)
	}
}

// TestFleetProduction is the fleet as an operator runs it: three
// `agentctx serve` and two `agentctx proxy` processes on one PostgreSQL
// schema (lease 2 s), each kind behind a load balancer that spreads the
// requests at random; sessions of real trajectories are driven through
// the servers (with one SSE subscriber each, through the balancer) and
// half as many through the proxies (whole histories, the OpenAI wire, a
// scripted upstream); at 40 % of the steps one server and one proxy are
// SIGKILLed. Afterwards: every served session equals a single in-process
// Engine's (no acknowledged write lost or doubled), every subscriber got
// every event of its session in order (reconnecting to another server
// with Last-Event-ID when its server died), every proxied session's last
// generation holds the agent's messages once each, and no prompt went
// upstream over the proxies' budget.
func TestFleetProduction(t *testing.T) {
	sharedtest.SkipUnlessLong(t) // a load test
	runFleet(t, loadgen.FleetConfig{
		Name:  "postgres, 3 servers and 2 proxies behind balancers",
		Store: pgStore(t), Servers: 3,
		Kill: true, KillAfter: 0.4, Balance: true, Events: true,
		Proxies: 2, ProxySessions: max(sessions/2, 1), ProxyBudget: 12000,
	})
}
