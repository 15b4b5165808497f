package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentctx/agentctx/session/storeurl"
	"github.com/agentctx/agentctx/transcript"
)

// FleetConfig configures [Fleet].
type FleetConfig struct {
	// Name titles the report.
	Name string
	// Bin is the agentctx command ([Build]). Required.
	Bin string
	// Store is the store URL every server is given (--store): a
	// postgres:// URL with its schema and a short lease, or sqlite:PATH.
	// Required.
	Store string
	// Servers is how many `agentctx serve` processes share Store.
	// Optional. Defaults to 1.
	Servers int
	// Kill SIGKILLs server 0 once KillAfter (0..1) of the steps are done;
	// with Restart a new process takes its place in the pool (a single
	// host's server coming back), else the others carry on alone.
	Kill      bool
	KillAfter float64
	Restart   bool
	// Data is the folder of real transcripts (../shared/data); Sessions
	// trajectories are picked from it at random (Seed), each cut to
	// MaxTurns model calls (0: all). Required.
	Data     string
	Sessions int
	MaxTurns int
	Seed     uint64
	// Duration bounds the run ([Config].Duration). Optional.
	Duration time.Duration
	// Work is a folder for the servers' homes and the reference store.
	// Required.
	Work string
	// Log receives the servers' logs. Optional. Defaults to discarding.
	Log io.Writer
	// Think paces the sessions ([Config].Think). Optional.
	Think [2]time.Duration
	// Combine sends each turn's messages with its request
	// ([Config].Combine). Optional.
	Combine bool
	// Balance puts a [Balancer] in front of the servers (and one in
	// front of the proxies): the client sends every call to it, and it
	// spreads them at random. Optional.
	Balance bool
	// Events subscribes to every session's events (through the
	// balancer, reconnecting with Last-Event-ID after a lost stream)
	// and checks that each subscriber got every event of its session, in
	// order. Needs a store that keeps events (PostgreSQL). Optional.
	Events bool
	// Proxies is how many `agentctx proxy` processes share Store, in
	// front of one scripted upstream (package providertest, OpenAI
	// wire); ProxySessions sessions of real trajectories (picked with
	// Seed+1) are driven through them, behind their own balancer, with
	// every prompt sent upstream checked against ProxyBudget (tokens).
	// With Kill, proxy 0 is SIGKILLed too. Optional.
	Proxies       int
	ProxySessions int
	ProxyBudget   int
}

// Budgets are the prompt budgets of the sessions, in tokens, picked at
// random: small enough that compaction runs on the longer trajectories.
var Budgets = []int{6000, 12000, 24000}

// Fleet starts cfg.Servers `agentctx serve` processes on loopback
// sharing cfg.Store, drives cfg.Sessions sessions of replayed real
// trajectories through them ([Run]), kills one mid-run when asked, stops
// the servers and checks every session against a single in-process
// Engine ([Verify]). It returns the run's report and the differences
// found (nil when every session agrees); error is for a fleet that could
// not be run.
func Fleet(ctx context.Context, cfg FleetConfig) (*Report, []error, error) {
	scripts, err := Scripts(cfg.Data, cfg.Sessions, cfg.MaxTurns, cfg.Seed)
	if err != nil {
		return nil, nil, err
	}
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	log = &syncWriter{w: log}
	n := max(cfg.Servers, 1)
	start := func(i int) (*Proc, error) {
		home := filepath.Join(cfg.Work, fmt.Sprintf("home%d", i))
		if err := os.MkdirAll(home, 0o700); err != nil {
			return nil, err
		}
		return Start(cfg.Bin, cfg.Store, home, log)
	}
	var (
		mu    sync.Mutex
		procs []*Proc
	)
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range procs {
			_ = p.Kill()
		}
	}()
	pool := NewPool(make([]string, n)...)
	for i := range n {
		p, err := start(i)
		if err != nil {
			return nil, nil, err
		}
		procs = append(procs, p)
		pool.Set(i, p.URL)
	}
	var lb *Balancer
	if cfg.Balance {
		if lb, err = NewBalancer(cfg.Seed, pool.urls...); err != nil {
			return nil, nil, err
		}
		defer lb.Close()
		pool = NewPool(lb.URL)
	}
	pf, err := startProxies(ctx, cfg, log)
	if err != nil {
		return nil, nil, err
	}
	defer pf.close()
	run := Config{Name: cfg.Name, Pool: pool, Scripts: scripts, Seed: cfg.Seed, Duration: cfg.Duration, Think: cfg.Think, Combine: cfg.Combine}
	// The subscribers, one per session, until the run's checks are done.
	fctx, stopFollowing := context.WithCancel(ctx)
	defer stopFollowing()
	var (
		fmu       sync.Mutex
		followers []*follower
		following sync.WaitGroup
	)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * cfg.Sessions, IdleConnTimeout: time.Minute}}
	if cfg.Events {
		base := pool.urls[0]
		run.Created = func(id string) {
			f := &follower{id: id}
			fmu.Lock()
			followers = append(followers, f)
			fmu.Unlock()
			following.Go(func() { f.follow(fctx, hc, base) })
		}
	}
	var killErr error
	if cfg.Kill {
		run.KillAfter = cfg.KillAfter
		run.KillNote = fmt.Sprintf("SIGKILL of server 0 at %.0f%% of the steps", 100*cfg.KillAfter)
		if cfg.Restart {
			run.KillNote += ", restarted"
		}
		if pf != nil {
			run.KillNote += ", and of proxy 0 at that share of the proxied requests"
		}
		run.Kill = func() {
			mu.Lock()
			defer mu.Unlock()
			if err := procs[0].Kill(); err != nil {
				killErr = err
				return
			}
			if cfg.Restart {
				p, err := start(n)
				if err != nil {
					killErr = err
					return
				}
				procs[0] = p
				if lb != nil {
					killErr = lb.Set(0, p.URL)
				} else {
					pool.Set(0, p.URL)
				}
			}
		}
	}
	// The proxied sessions run beside the served ones.
	var proxiedDone sync.WaitGroup
	var px []*proxied
	pstats := &Stats{}
	if pf != nil {
		// Proxy 0 is killed at KillAfter of the proxied requests.
		total := 0
		for i := range pf.scripts {
			total += lastOp(&pf.scripts[i])
		}
		var steps atomic.Int64
		var once sync.Once
		onStep := func() {
			if cfg.Kill && float64(steps.Add(1)) >= cfg.KillAfter*float64(total) {
				once.Do(func() { go pf.kill() })
			}
		}
		proxiedDone.Go(func() {
			px = driveProxied(ctx, pf.lb.URL, pf.scripts, cfg.Seed, time.Now().Add(max(cfg.Duration, time.Minute)), 60*time.Second, pstats, onStep)
		})
	}
	// The servers' CPU time is taken from the sessions' start, past the
	// start-up (the vocabulary, the store's migrations).
	cpu0 := serversCPU(&mu, procs)
	rep, err := Run(ctx, run)
	if err != nil {
		return nil, nil, err
	}
	if cpu1 := serversCPU(&mu, procs); !cfg.Kill && pf == nil && cpu0.Total() > 0 && cpu1.Total() > cpu0.Total() {
		// Requests are then the servers' calls alone.
		rep.ServerCPU = CPU{User: cpu1.User - cpu0.User, System: cpu1.System - cpu0.System}
	}
	proxiedDone.Wait()
	rep.Servers = n
	rep.Routes = append(rep.Routes, pstats.Summary()...)
	for _, r := range pstats.Summary() {
		rep.Requests += r.Calls
	}
	var diffs []error
	if pf != nil {
		rep.ProxySessions, rep.Proxies = len(px), cfg.Proxies
		rep.ProxyUpstream, rep.ProxyOver, rep.ProxyMaxPrompt = int(pf.budget.requests.Load()), int(pf.budget.over.Load()), int(pf.budget.max.Load())
		rep.ProxyBudget = pf.budget.budget
		for _, p := range px {
			if p.err != nil {
				diffs = append(diffs, fmt.Errorf("proxied session %s (%s): %w", p.key, p.script.File, p.err))
			}
			if p.requests == lastOp(p.script) {
				rep.ProxyFinished++
			}
		}
		if rep.ProxyOver > 0 {
			diffs = append(diffs, fmt.Errorf("%d of %d requests sent upstream by the proxies were over the budget of %d tokens (largest %d)", rep.ProxyOver, rep.ProxyUpstream, pf.budget.budget, rep.ProxyMaxPrompt))
		}
	}
	if cfg.Events {
		diffs = append(diffs, checkEvents(ctx, cfg.Store, followers, rep)...)
		stopFollowing()
		following.Wait()
	}
	mu.Lock()
	var stopErrs []error
	for i, p := range procs {
		if err := p.Stop(30 * time.Second); err != nil && !(cfg.Kill && i == 0 && !cfg.Restart) {
			stopErrs = append(stopErrs, fmt.Errorf("server %d: %w", i, err))
		}
	}
	procs = nil
	mu.Unlock()
	if err := errors.Join(append(stopErrs, killErr)...); err != nil {
		return rep, nil, err
	}
	pf.stop()
	st, err := storeurl.OpenContext(ctx, cfg.Store, storeurl.Options{})
	if err != nil {
		return rep, nil, err
	}
	defer st.Close()
	for _, p := range px {
		if err := verifyProxied(ctx, st, p); err != nil {
			diffs = append(diffs, err)
		}
	}
	return rep, append(diffs, Verify(ctx, st, rep, filepath.Join(cfg.Work, "reference"))...), nil
}

// serversCPU returns the CPU time procs have used (mu guards the
// slice), zero when one's is unknown: the run's report then says
// nothing of it rather than a part.
func serversCPU(mu *sync.Mutex, procs []*Proc) CPU {
	mu.Lock()
	defer mu.Unlock()
	var sum CPU
	for _, p := range procs {
		c, err := p.CPU()
		if err != nil {
			return CPU{}
		}
		sum.User += c.User
		sum.System += c.System
	}
	return sum
}

// lastOp is how many model requests script s has.
func lastOp(s *Script) int {
	n := 0
	for _, op := range s.Ops {
		if op.Kind == OpRequest {
			n++
		}
	}
	return n
}

// eventLog is the part of a store that keeps events (pgstore).
type eventLog interface {
	LastEvent(ctx context.Context, id string) (int64, error)
}

// checkEvents waits (up to 30 s) until every follower has its session's
// events as the store numbered them, then checks each.
func checkEvents(ctx context.Context, store string, followers []*follower, rep *Report) []error {
	st, err := storeurl.OpenContext(ctx, store, storeurl.Options{})
	if err != nil {
		return []error{err}
	}
	defer st.Close()
	el, ok := st.(eventLog)
	if !ok {
		return []error{fmt.Errorf("loadgen: store %s keeps no events", store)}
	}
	var out []error
	deadline := time.Now().Add(30 * time.Second)
	for _, f := range followers {
		last, err := el.LastEvent(ctx, f.id)
		if err != nil {
			out = append(out, err)
			continue
		}
		for f.last() < last && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if err := f.check(last); err != nil {
			out = append(out, err)
		}
		f.mu.Lock()
		rep.Events += len(f.ids)
		rep.Reconnects += f.reconnects
		f.mu.Unlock()
	}
	rep.Subscribers = len(followers)
	return out
}

// Scripts picks n trajectories of the transcripts under data at random
// (seed; the same one may come twice) and makes each a [Script] of at
// most maxTurns model calls with a budget from [Budgets]. Errors: no
// transcript under data, or one that cannot be read.
func Scripts(data string, n, maxTurns int, seed uint64) ([]Script, error) {
	files, err := transcript.Collect([]string{data})
	if err != nil {
		return nil, err
	}
	trs, err := Trajectories(files)
	if err != nil {
		return nil, err
	}
	if len(trs) == 0 {
		return nil, fmt.Errorf("loadgen: no trajectory with two model calls under %s", data)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	out := make([]Script, n)
	for i := range out {
		t := trs[rng.IntN(len(trs))]
		out[i] = NewScript(t, maxTurns, Budgets[rng.IntN(len(Budgets))], rng)
		if rel, err := filepath.Rel(data, t.File); err == nil {
			out[i].File = rel
		}
	}
	return out, nil
}

// syncWriter serializes the servers' log writes.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}
