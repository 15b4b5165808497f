package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentctx/agentctx/internal/jsonx"
	"github.com/agentctx/agentctx/session"
)

// Config configures [Run].
type Config struct {
	// Name titles the report ("postgres, 2 servers").
	Name string
	// Pool is the servers. Required.
	Pool *Pool
	// Scripts are the sessions to drive, one goroutine each, all at
	// once. Required.
	Scripts []Script
	// Seed seeds the choice of server for each call and the backoff
	// jitter; session i uses Seed+i.
	Seed uint64
	// Duration bounds the run: no session starts a step after it.
	// Optional. Defaults to 10 minutes.
	Duration time.Duration
	// RetryFor bounds how long one call is retried (busy sessions, dead
	// servers). Optional. Defaults to 30 s: more than a lease's lifetime.
	RetryFor time.Duration
	// KillAfter and Kill: once that share (0..1) of all the scripts'
	// steps is done, Kill is called, once, in its own goroutine (it kills
	// a server). Optional.
	KillAfter float64
	Kill      func()
	// KillNote describes Kill in the report ("SIGKILL of server 1 at 40 %").
	KillNote string
	// Created, when set, is called with each session's id once it is
	// created (the fleet test subscribes to its events). Optional.
	Created func(id string)
	// Think paces the sessions as agents are paced by their model: each
	// waits a time drawn uniformly from [Think[0], Think[1]] between a
	// model call's request and its reply, and the report gains "turn"
	// rows: the time of one model call's calls (the messages since the
	// last reply, the request, the reply; the first two in one call with
	// Combine), the wait left out, as the
	// client measured them ([TurnRoute]; [TurnExtrasRoute] adds the other
	// calls) and as the server did ([TurnServerRoute]); each session
	// starts after a wait drawn from [0, Think[1]].
	// Optional: zero runs the sessions back to back, all started at once.
	Think [2]time.Duration
	// Combine sends each turn's messages with its request, in one call
	// (POST .../request with "add"), as a client that has the tool
	// results in hand when it asks for the next request does: a turn is
	// then two calls, not three. A combined call whose answer was lost
	// is resolved by the session's entry count (its messages landed or
	// not) and the request asked for again without them. Optional.
	Combine bool
}

// TurnRoute names the report's row of whole turns ([Config].Think): the
// calls of one model call (the messages, the request, the reply: three
// calls, two with [Config].Combine), each from sending it to its answer read
// (as each route's row measures it; the client's encoding of the bodies
// and its reading of the answers are left out). TurnServerRoute names
// the row of the same turns as the server timed them: the sum of the
// three answers' Server-Timing (server.ServerTimingMetric), without the
// network, the client and the queue for the client's cores.
// TurnExtrasRoute names the row of the turns with the calls a session
// makes now and then after a reply (an inspection, a recall, a manual
// compaction: [NewScript]) added to the turn that follows them.
const (
	TurnRoute       = "turn (messages + request + reply)"
	TurnServerRoute = "turn, server's Server-Timing"
	TurnExtrasRoute = "turn + extras (inspect, recall, compact)"
)

// isTurnRow reports whether route names a row of whole turns, made of
// other rows' calls, not calls of its own.
func isTurnRow(route string) bool {
	return route == TurnRoute || route == TurnServerRoute || route == TurnExtrasRoute
}

// Done is one step of a session that took effect.
type Done struct {
	// Op is the step's index in the script.
	Op int
	// Entries is the session's entry count in the store after the step
	// (its last sequence number), as the server answered it or the
	// client read it next; -1 when not observed (messages sent with
	// their request: [Config].Combine).
	Entries int
	// Server is the index of the server that answered; -1 when the answer
	// was lost and the step was found in the store instead (Landed).
	Server int
	Landed bool
}

// SessionLog is what the client did in one session.
type SessionLog struct {
	ID     string
	Script *Script
	// Created is the entry count after the session was created.
	Created int
	// Done are the steps that took effect, in order: a prefix of the
	// script's steps (the run's Duration may stop a session early).
	Done []Done
	// Err is why the session stopped before its script's end, if it did
	// for another reason than the run's Duration.
	Err error
}

// Report is a run's outcome.
type Report struct {
	Name     string
	Sessions int
	// Finished counts the sessions that did all their steps.
	Finished int
	Servers  int
	Kill     string
	// Wall is the run's duration; Appends the messages acknowledged
	// (added and replies); Requests the API calls answered.
	Wall     time.Duration
	Appends  int
	Requests int
	Routes   []RouteSummary
	// Tail is where the slowest turns' time went (Config.Think runs;
	// nil otherwise).
	Tail *TailSummary
	// IdleStalls and Stalls are the machine's scheduling delay (see
	// [Stalls]) with the servers idle before the sessions started and
	// during them (Config.Think runs; nil otherwise).
	IdleStalls, Stalls *Stalls
	// ServerCPU is the CPU time the server processes used from the
	// sessions' start to their end, summed ([Proc.CPU]); zero when
	// unknown (a fleet that kills a server or runs proxies, or not
	// Linux).
	ServerCPU CPU
	Logs      []*SessionLog
	// Subscribers, Events and Reconnects: the SSE subscribers (one per
	// session), the events they received and the streams they opened
	// again after losing one (FleetConfig.Events).
	Subscribers, Events, Reconnects int
	// Proxies, ProxySessions and ProxyFinished: the proxy processes and
	// the sessions driven through them (finished: every request
	// answered); ProxyUpstream the requests the upstream received,
	// ProxyOver those over ProxyBudget tokens, ProxyMaxPrompt the
	// largest prompt sent, in tokens (FleetConfig.Proxies).
	Proxies, ProxySessions, ProxyFinished    int
	ProxyUpstream, ProxyOver, ProxyMaxPrompt int
	ProxyBudget                              int
}

// AppendsPerSec is the acknowledged messages per second of the run.
func (r *Report) AppendsPerSec() float64 { return float64(r.Appends) / r.Wall.Seconds() }

// RequestsPerSec is the answered API calls per second of the run.
func (r *Report) RequestsPerSec() float64 { return float64(r.Requests) / r.Wall.Seconds() }

// CPUPerCall is ServerCPU over the calls the servers answered
// (Requests): the servers' mean CPU time a call, 0 when unknown.
func (r *Report) CPUPerCall() time.Duration {
	if r.ServerCPU.Total() <= 0 || r.Requests == 0 {
		return 0
	}
	return r.ServerCPU.Total() / time.Duration(r.Requests)
}

// Errors returns the sessions' errors.
func (r *Report) Errors() []error {
	var out []error
	for _, l := range r.Logs {
		if l.Err != nil {
			out = append(out, fmt.Errorf("session %s (%s): %w", l.ID, l.Script.File, l.Err))
		}
	}
	return out
}

// ErrNoPool reports a Config without Pool or Scripts.
var ErrNoPool = errors.New("loadgen: no servers or no scripts")

// Run drives every script's session through the pool's servers at once,
// each call to a server picked at random, and returns what was done. The
// sessions' failures are in the report (Report.Errors); Run's own error
// is for a Config it cannot run.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Pool == nil || len(cfg.Pool.urls) == 0 || len(cfg.Scripts) == 0 {
		return nil, ErrNoPool
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 10 * time.Minute
	}
	if cfg.RetryFor <= 0 {
		cfg.RetryFor = 30 * time.Second
	}
	total := 0
	for _, s := range cfg.Scripts {
		total += len(s.Ops)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: len(cfg.Scripts), MaxIdleConns: 2 * len(cfg.Scripts), IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	cl := &client{http: &http.Client{Transport: tr, Timeout: 2 * time.Minute}, pool: cfg.Pool, stats: &Stats{}, retryFor: cfg.RetryFor}
	rep := &Report{Name: cfg.Name, Sessions: len(cfg.Scripts), Servers: len(cfg.Pool.urls), Kill: cfg.KillNote}
	if rep.Kill == "" {
		rep.Kill = "no kill"
	}
	var (
		done    atomic.Int64
		appends atomic.Int64
		kill    sync.Once
		wg      sync.WaitGroup
	)
	// probe ends the run's probe of the machine's scheduling delay and
	// returns it (paced runs).
	var probe func() *Stalls
	if cfg.Think[1] > 0 {
		pctx, cancel := context.WithTimeout(ctx, idleProbe)
		rep.IdleStalls = probeStalls(pctx)
		cancel()
		pctx, cancel = context.WithCancel(ctx)
		ch := make(chan *Stalls, 1)
		go func() { ch <- probeStalls(pctx) }()
		probe = func() *Stalls { cancel(); return <-ch }
	}
	stop := time.Now().Add(cfg.Duration)
	start := time.Now()
	onStep := func() {
		n := done.Add(1)
		if cfg.Kill != nil && float64(n) >= cfg.KillAfter*float64(total) {
			kill.Do(func() { go cfg.Kill() })
		}
	}
	for i := range cfg.Scripts {
		l := &SessionLog{ID: session.NewID(), Script: &cfg.Scripts[i]}
		rep.Logs = append(rep.Logs, l)
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := &driver{cl: cl, rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i))), log: l, stop: stop, onStep: onStep, appends: &appends, created: cfg.Created, think: cfg.Think, combine: cfg.Combine, held: -1}
			l.Err = d.run(ctx)
		}()
	}
	wg.Wait()
	rep.Wall = time.Since(start)
	if probe != nil {
		rep.Stalls = probe()
	}
	rep.Appends = int(appends.Load())
	rep.Routes = cl.stats.Summary()
	rep.Tail = cl.stats.tail(0.99)
	for _, r := range rep.Routes {
		if !isTurnRow(r.Route) {
			rep.Requests += r.Calls
		}
	}
	for _, l := range rep.Logs {
		if l.Err == nil && len(l.Done) == len(l.Script.Ops) {
			rep.Finished++
		}
	}
	return rep, nil
}

// driver is one session's agent loop.
type driver struct {
	cl      *client
	rng     *rand.Rand
	log     *SessionLog
	stop    time.Time
	onStep  func()
	appends *atomic.Int64
	created func(string)
	think   [2]time.Duration
	// combine sends a turn's messages with its request ([Config].Combine);
	// held is then the index of the messages step waiting for its
	// request, -1 when none is.
	combine bool
	held    int
	// entries is the session's entry count after the last step.
	entries int
	// turn is the time of the current turn's calls so far (their
	// answered attempts, as the client measured them), turnServer the
	// same as the server timed them (each Server-Timing metric summed),
	// extra the time of the other calls since the last reply.
	turn, extra time.Duration
	turnServer  timings
}

func (d *driver) path(suffix string) string {
	return "/v1/sessions/" + url.PathEscape(d.log.ID) + suffix
}

// run creates the session and does its steps until the script's end or
// the run's stop time.
func (d *driver) run(ctx context.Context) error {
	s := d.log.Script
	if d.think[1] > 0 {
		// Paced sessions start as agents do, not in the same instant.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(d.rng.Int64N(int64(d.think[1]) + 1))):
		}
	}
	body, err := json.Marshal(map[string]any{"id": d.log.ID, "budget": s.Budget, "metadata": map[string]string{"file": s.File}})
	if err != nil {
		return err
	}
	r, landed, err := d.cl.do(ctx, d.rng, call{method: "POST", path: "/v1/sessions", route: "POST /v1/sessions", body: body}, func() (bool, error) {
		_, err := d.count(ctx, true)
		return err == nil, nil
	})
	if err != nil {
		return err
	}
	if landed {
		if d.entries, err = d.count(ctx, false); err != nil {
			return err
		}
	} else if d.entries, err = entriesOf(r.body); err != nil {
		return err
	}
	d.log.Created = d.entries
	if d.created != nil {
		d.created(d.log.ID)
	}
	for i, op := range s.Ops {
		if time.Now().After(d.stop) {
			return nil
		}
		if op.Kind == OpReply && d.think[1] > 0 {
			// The model at work: the request went out, its reply comes.
			wait := d.think[0] + time.Duration(d.rng.Int64N(int64(d.think[1]-d.think[0])+1))
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
		}
		if d.combine && op.Kind == OpMessages && i+1 < len(s.Ops) && s.Ops[i+1].Kind == OpRequest {
			d.held = i // sent with the request, next
			d.onStep()
			continue
		}
		r, err := d.step(ctx, i, op)
		if err != nil {
			return fmt.Errorf("step %d (%s): %w", i, op.Kind, err)
		}
		if d.think[1] > 0 {
			switch op.Kind {
			case OpMessages, OpRequest, OpReply:
				d.turn += r.took
				for i, v := range r.timing {
					d.turnServer[i] += v
				}
			default:
				d.extra += r.took
			}
			if op.Kind == OpReply {
				d.cl.stats.ok(TurnRoute, d.turn)
				d.cl.stats.ok(TurnServerRoute, d.turnServer[0])
				d.cl.stats.ok(TurnExtrasRoute, d.turn+d.extra)
				d.cl.stats.turnDone(d.turn, d.turnServer)
				d.turn, d.turnServer, d.extra = 0, timings{}, 0
			}
		}
		d.onStep()
	}
	return nil
}

// combined does the held messages step and request step i in one call
// (POST .../request with "add") and returns its answer. The messages
// step is logged without an entry count (the answer gives the count
// after the request; the messages' own is not observed). When the
// answer was lost and the count found the messages landed, the request
// is asked for again, alone, and its answer returned.
func (d *driver) combined(ctx context.Context, i int) (response, error) {
	held := d.held
	d.held = -1
	msgs := d.log.Script.Ops[held].Messages
	body, err := json.Marshal(map[string]any{"format": "chat", "add": map[string]any{"format": "chat", "messages": msgs}})
	if err != nil {
		return response{}, err
	}
	var now int
	c := call{method: "POST", path: d.path("/request"), route: "POST /request with add", body: body}
	r, landed, err := d.cl.do(ctx, d.rng, c, d.changed(ctx, &now))
	if err != nil {
		return response{}, err
	}
	d.appends.Add(int64(len(msgs)))
	if landed {
		// The count may include the request's own entries (its
		// reminders) when the whole call landed: not the messages'.
		d.entries = now
		d.log.Done = append(d.log.Done, Done{Op: held, Entries: -1, Server: -1, Landed: true})
		return d.step(ctx, i, d.log.Script.Ops[i])
	}
	d.log.Done = append(d.log.Done, Done{Op: held, Entries: -1, Server: r.server})
	if d.entries, err = entriesOf(r.body); err != nil {
		return response{}, err
	}
	d.log.Done = append(d.log.Done, Done{Op: i, Entries: d.entries, Server: r.server})
	return r, nil
}

// count reads the session's entry count (GET /v1/sessions/{id}), retried
// until answered. With missingOK a 404 is an error without retries.
func (d *driver) count(ctx context.Context, missingOK bool) (int, error) {
	r, _, err := d.cl.do(ctx, d.rng, call{method: "GET", path: d.path(""), route: "GET /v1/sessions/{id}", accept404: missingOK}, nil)
	if err != nil {
		return 0, err
	}
	if r.status == http.StatusNotFound {
		return 0, session.ErrNotFound
	}
	return entriesOf(r.body)
}

// entriesOf reads "entries" from a response body. The fast decoder skips
// the rest (a request's answer holds the whole prompt): with
// encoding/json this was nearly half of the load generator's CPU during
// a run, on the cores the server under test shares.
func entriesOf(body []byte) (int, error) {
	var v struct {
		Entries *int `json:"entries"`
	}
	if err := jsonx.Unmarshal(body, &v); err != nil || v.Entries == nil {
		return 0, fmt.Errorf("loadgen: response without entries: %.200s", body)
	}
	return *v.Entries, nil
}

// changed is the resolve function of a write: the step took effect when
// the session's entry count moved.
func (d *driver) changed(ctx context.Context, now *int) func() (bool, error) {
	return func() (bool, error) {
		n, err := d.count(ctx, false)
		if err != nil {
			return false, err
		}
		*now = n
		return n != d.entries, nil
	}
}

// step does op i and returns the answer of its call (none when a retried
// write was found landed).
func (d *driver) step(ctx context.Context, i int, op Op) (response, error) {
	var (
		c     call
		now   int
		after = "answer" // where the entry count comes from
	)
	switch op.Kind {
	case OpMessages:
		body, err := json.Marshal(map[string]any{"format": "chat", "messages": op.Messages})
		if err != nil {
			return response{}, err
		}
		c = call{method: "POST", path: d.path("/messages"), route: "POST /messages", body: body}
	case OpReply:
		body, err := json.Marshal(op.Messages[0])
		if err != nil {
			return response{}, err
		}
		c = call{method: "POST", path: d.path("/reply?format=chat"), route: "POST /reply", body: body}
	case OpRequest:
		if d.held >= 0 {
			return d.combined(ctx, i)
		}
		c = call{method: "POST", path: d.path("/request"), route: "POST /request", body: []byte(`{"format":"chat"}`)}
	case OpCompact:
		body, err := json.Marshal(map[string]string{"instructions": op.Instructions})
		if err != nil {
			return response{}, err
		}
		c = call{method: "POST", path: d.path("/compact"), route: "POST /compact", body: body}
	case OpInspect:
		c = call{method: "GET", path: d.path("/inspect"), route: "GET /inspect"}
		after = "none"
	case OpRecall:
		c = call{method: "GET", path: d.path("/outputs/" + url.PathEscape(op.CallID)), route: "GET /outputs/{call_id}", accept404: true}
		after = "none"
	}
	var resolve func() (bool, error)
	if op.Kind == OpMessages || op.Kind == OpReply || op.Kind == OpCompact {
		resolve = d.changed(ctx, &now)
	}
	r, landed, err := d.cl.do(ctx, d.rng, c, resolve)
	if err != nil {
		return response{}, err
	}
	done := Done{Op: i, Server: r.server, Landed: landed}
	switch {
	case landed:
		done.Server = -1
		d.entries = now
	case after == "answer":
		if d.entries, err = entriesOf(r.body); err != nil {
			return response{}, err
		}
	}
	done.Entries = d.entries
	if op.Kind == OpMessages || op.Kind == OpReply {
		d.appends.Add(int64(len(op.Messages)))
	}
	d.log.Done = append(d.log.Done, done)
	return r, nil
}
