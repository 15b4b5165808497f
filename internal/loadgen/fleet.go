package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
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
	run := Config{Name: cfg.Name, Pool: pool, Scripts: scripts, Seed: cfg.Seed, Duration: cfg.Duration}
	var killErr error
	if cfg.Kill {
		run.KillAfter = cfg.KillAfter
		run.KillNote = fmt.Sprintf("SIGKILL of server 0 at %.0f%% of the steps", 100*cfg.KillAfter)
		if cfg.Restart {
			run.KillNote += ", restarted"
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
				pool.Set(0, p.URL)
			}
		}
	}
	rep, err := Run(ctx, run)
	if err != nil {
		return nil, nil, err
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
	st, err := storeurl.OpenContext(ctx, cfg.Store, storeurl.Options{})
	if err != nil {
		return rep, nil, err
	}
	defer st.Close()
	return rep, Verify(ctx, st, rep, filepath.Join(cfg.Work, "reference")), nil
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
