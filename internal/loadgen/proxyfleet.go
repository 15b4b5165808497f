package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentctx/agentctx/provider/providertest"
)

// proxyFleet is the proxies of a fleet run: `agentctx proxy` processes
// on the run's store, a balancer in front of them and the scripted
// upstream behind them. Its methods do nothing on a nil proxyFleet.
type proxyFleet struct {
	up      *providertest.Server
	lb      *Balancer
	mu      sync.Mutex
	procs   []*Proc
	killed  bool
	scripts []Script
	budget  *budgetCheck
}

// startProxies starts cfg.Proxies proxies (nil without any).
func startProxies(_ context.Context, cfg FleetConfig, log io.Writer) (*proxyFleet, error) {
	if cfg.Proxies <= 0 {
		return nil, nil
	}
	if cfg.ProxyBudget <= 0 {
		return nil, errors.New("loadgen: proxies need a budget")
	}
	scripts, err := Scripts(cfg.Data, cfg.ProxySessions, cfg.MaxTurns, cfg.Seed+1)
	if err != nil {
		return nil, err
	}
	f := &proxyFleet{scripts: scripts, budget: &budgetCheck{budget: cfg.ProxyBudget}}
	f.up = providertest.NewOpenAI(providertest.Options{Script: func(r providertest.Request) providertest.Reply {
		f.budget.observe(r.PromptTokens)
		return providertest.Reply{Text: "ok"}
	}})
	var urls []string
	for i := range cfg.Proxies {
		home := filepath.Join(cfg.Work, fmt.Sprintf("proxyhome%d", i))
		if err := os.MkdirAll(home, 0o700); err != nil {
			f.close()
			return nil, err
		}
		p, err := StartProxy(cfg.Bin, f.up.URL, cfg.Store, home, cfg.ProxyBudget, log)
		if err != nil {
			f.close()
			return nil, err
		}
		f.procs = append(f.procs, p)
		urls = append(urls, p.URL)
	}
	if f.lb, err = NewBalancer(cfg.Seed+1, urls...); err != nil {
		f.close()
		return nil, err
	}
	return f, nil
}

// kill SIGKILLs proxy 0.
func (f *proxyFleet) kill() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.killed = true
	_ = f.procs[0].Kill()
}

// stop ends the proxies gracefully (SIGTERM), each within 30 s.
func (f *proxyFleet) stop() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.procs {
		_ = p.Stop(30 * time.Second)
	}
}

// close kills what still runs and stops the balancer and the upstream.
func (f *proxyFleet) close() {
	if f == nil {
		return
	}
	f.mu.Lock()
	for _, p := range f.procs {
		_ = p.Kill()
	}
	f.mu.Unlock()
	if f.lb != nil {
		_ = f.lb.Close()
	}
	f.up.Close()
}
