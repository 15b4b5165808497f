package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentctx/agentctx/server"
)

// Pool is the servers a run sends its requests to, by base URL
// ("http://127.0.0.1:8080"). A server may be replaced (a restarted
// process) while the run goes on. Safe for concurrent use.
type Pool struct {
	mu   sync.Mutex
	urls []string
}

// NewPool returns a pool of urls.
func NewPool(urls ...string) *Pool { return &Pool{urls: urls} }

// Set replaces server i's URL.
func (p *Pool) Set(i int, url string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.urls[i] = url
}

// pick returns a server at random, not avoid when there is another.
func (p *Pool) pick(rng *rand.Rand, avoid int) (int, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := rng.IntN(len(p.urls))
	if i == avoid && len(p.urls) > 1 {
		i = (i + 1 + rng.IntN(len(p.urls)-1)) % len(p.urls)
	}
	return i, p.urls[i]
}

// outcome is how one attempt ended.
type outcome int

const (
	outcomeOK      outcome = iota // 2xx, or an accepted 404
	outcomeBusy                   // 409 session-busy, 429, 503: nothing written; retry later
	outcomeUnknown                // the connection failed or a 5xx: the write may have landed
	outcomeFatal                  // any other answer: a bug
)

// call is one API call of a session.
type call struct {
	method, path string
	// route is the call's name in the statistics.
	route string
	body  []byte
	// accept404 takes 404 as an answer (a recall of an output not kept).
	accept404 bool
}

// response is what a call got: its status and body from server number
// server of the pool; took is the answered attempt's time from sending
// to the body read, timing what its Server-Timing header gives (zeros
// without one).
type response struct {
	status int
	body   []byte
	server int
	took   time.Duration
	timing timings
}

// timingMetrics are the Server-Timing metrics the load generator reads:
// the service's total (server.ServerTimingMetric) then its phases.
var timingMetrics = [...]string{server.ServerTimingMetric, server.TimingRead, server.TimingLock, server.TimingResume, server.TimingStore, server.TimingCompact}

// timings are a response's Server-Timing durations, indexed as
// timingMetrics: [0] is the server's whole time.
type timings [len(timingMetrics)]time.Duration

// serverTiming returns the durations of timingMetrics in a Server-Timing
// header ("app;dur=1.234, store;dur=0.5", milliseconds;
// https://www.w3.org/TR/server-timing/), 0 for a metric the header does
// not have or gives no valid dur.
func serverTiming(h string) timings {
	var out timings
	for m := range strings.SplitSeq(h, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(m), ";")
		i := slices.Index(timingMetrics[:], strings.TrimSpace(name))
		if i < 0 {
			continue
		}
		for p := range strings.SplitSeq(params, ";") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(p), "dur="); ok {
				ms, err := strconv.ParseFloat(v, 64)
				if err == nil && ms >= 0 {
					out[i] = time.Duration(ms * float64(time.Millisecond))
				}
			}
		}
	}
	return out
}

// client sends calls with retries and records their latency.
type client struct {
	http  *http.Client
	pool  *Pool
	stats *Stats
	// retryFor bounds how long one call is retried.
	retryFor time.Duration
}

// backoff is the wait before retry n (0-based): 20 ms doubling, at most
// 1 s, with jitter.
func backoff(rng *rand.Rand, n int) time.Duration {
	d := 20 * time.Millisecond << min(n, 6)
	d = min(d, time.Second)
	return d/2 + time.Duration(rng.Int64N(int64(d/2)+1))
}

// ErrGaveUp reports a call still failing after its retry time. The run
// stops the session; the report counts it.
var ErrGaveUp = errors.New("loadgen: gave up retrying")

// once makes one attempt of c on a server picked at random (not avoid).
func (cl *client) once(ctx context.Context, rng *rand.Rand, c call, avoid int) (response, outcome, error) {
	i, base := cl.pool.pick(rng, avoid)
	req, err := http.NewRequestWithContext(ctx, c.method, base+c.path, bytes.NewReader(c.body))
	if err != nil {
		return response{}, outcomeFatal, err
	}
	if c.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := cl.http.Do(req)
	if err != nil {
		cl.stats.failed(c.route, "conn")
		return response{server: i}, outcomeUnknown, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		cl.stats.failed(c.route, "conn")
		return response{server: i}, outcomeUnknown, err
	}
	r := response{status: resp.StatusCode, body: body, server: i, took: time.Since(start), timing: serverTiming(resp.Header.Get("Server-Timing"))}
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300, s == http.StatusNotFound && c.accept404:
		cl.stats.ok(c.route, r.took)
		return r, outcomeOK, nil
	case s == http.StatusConflict && bytes.Contains(body, []byte(`"session-busy"`)),
		s == http.StatusTooManyRequests, s == http.StatusServiceUnavailable:
		cl.stats.failed(c.route, fmt.Sprint(s))
		return r, outcomeBusy, nil
	case s >= 500:
		cl.stats.failed(c.route, fmt.Sprint(s))
		return r, outcomeUnknown, fmt.Errorf("%s %s: %d %s", c.method, c.path, s, body)
	}
	cl.stats.failed(c.route, fmt.Sprint(resp.StatusCode))
	return r, outcomeFatal, fmt.Errorf("%s %s: %d %s", c.method, c.path, resp.StatusCode, body)
}

// do sends c until it is answered. After a failure whose effect is
// unknown (the server died mid-call), resolve is asked before every
// further attempt whether the call took effect (then do returns with
// landed set and no response) or not (then it is sent again); resolve
// nil means that c is safe to repeat.
// Busy answers are retried after a backoff, on any server. Errors:
// [ErrGaveUp] after cl.retryFor, or the answer of a fatal failure.
func (cl *client) do(ctx context.Context, rng *rand.Rand, c call, resolve func() (bool, error)) (r response, landed bool, err error) {
	deadline := time.Now().Add(cl.retryFor)
	avoid := -1
	unsure := false
	var last error
	for n := 0; ; n++ {
		if n > 0 {
			cl.stats.retry(c.route)
		}
		// Once an answer was lost, look before every retry: the dead
		// server's transaction may commit after a first look (PostgreSQL
		// finishes a COMMIT whose client died), and its lease then keeps
		// the session busy until the look sees it.
		if unsure {
			ok, err := resolve()
			if err != nil {
				return response{}, false, err
			}
			if ok {
				cl.stats.landed(c.route)
				return response{}, true, nil
			}
		}
		r, out, err := cl.once(ctx, rng, c, avoid)
		switch out {
		case outcomeOK:
			return r, false, nil
		case outcomeFatal:
			return r, false, err
		case outcomeUnknown:
			last = err
			avoid = r.server
			unsure = resolve != nil
		case outcomeBusy:
			last = fmt.Errorf("%s %s: %d", c.method, c.path, r.status)
		}
		if time.Now().After(deadline) {
			return r, false, fmt.Errorf("%w: %s %s after %v: %w", ErrGaveUp, c.method, c.path, cl.retryFor, last)
		}
		if err := sleep(ctx, backoff(rng, n)); err != nil {
			return r, false, err
		}
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
