package loadgen

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/agentctx/agentctx/server"
)

// Stats counts a run's calls by route: the latency of each answered
// attempt, the failed attempts by cause, the retries. Safe for concurrent
// use.
type Stats struct {
	mu     sync.Mutex
	routes map[string]*routeStats
	// turns are the whole turns' times (paced runs): the client's and
	// the server's Server-Timing metrics.
	turns []turnTimes
}

type turnTimes struct {
	client time.Duration
	server timings
}

// turnDone notes one whole turn: client as the client measured its
// calls (three, two with [Config].Combine), server their Server-Timing
// metrics summed.
func (s *Stats) turnDone(client time.Duration, server timings) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turnTimes{client, server})
}

// TailSummary is where the slowest turns' time went: the turns at or
// above the client's q-quantile, each figure their mean.
type TailSummary struct {
	// Quantile is q; Turns counts the turns at or above it, From is the
	// quantile's latency (the client's).
	Quantile float64
	Turns    int
	From     time.Duration
	// Client is the turns' mean as the client measured them; Server the
	// mean of each Server-Timing metric, indexed as Metrics.
	Client  time.Duration
	Metrics []string
	Server  []time.Duration
	// Compacted counts the turns whose request compacted.
	Compacted int
}

// tail returns the summary of the turns at or above the client's
// q-quantile; nil without turns.
func (s *Stats) tail(q float64) *TailSummary {
	s.mu.Lock()
	turns := slices.Clone(s.turns)
	s.mu.Unlock()
	if len(turns) == 0 {
		return nil
	}
	slices.SortFunc(turns, func(a, b turnTimes) int { return cmp.Compare(a.client, b.client) })
	i := rank(len(turns), q)
	slow := turns[i:]
	out := &TailSummary{Quantile: q, Turns: len(slow), From: turns[i].client, Metrics: timingMetrics[:], Server: make([]time.Duration, len(timingMetrics))}
	compacted := slices.Index(timingMetrics[:], server.TimingCompact)
	for _, t := range slow {
		out.Client += t.client
		for j, v := range t.server {
			out.Server[j] += v
		}
		if t.server[compacted] > 0 {
			out.Compacted++
		}
	}
	out.Client /= time.Duration(len(slow))
	for j := range out.Server {
		out.Server[j] /= time.Duration(len(slow))
	}
	return out
}

type routeStats struct {
	lat     []time.Duration
	fails   map[string]int
	retries int
	landed  int
}

func (s *Stats) route(name string) *routeStats {
	if s.routes == nil {
		s.routes = map[string]*routeStats{}
	}
	r := s.routes[name]
	if r == nil {
		r = &routeStats{fails: map[string]int{}}
		s.routes[name] = r
	}
	return r
}

func (s *Stats) ok(route string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.route(route)
	r.lat = append(r.lat, d)
}

func (s *Stats) failed(route, cause string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.route(route).fails[cause]++
}

func (s *Stats) retry(route string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.route(route).retries++
}

func (s *Stats) landed(route string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.route(route).landed++
}

// RouteSummary is one route's figures over a run.
type RouteSummary struct {
	Route string
	// Calls counts the answered attempts; P50 and P99 are their
	// latencies (client side: from sending to the whole body read).
	Calls    int
	P50, P99 time.Duration
	// Failures counts the failed attempts by cause: "conn" (the server
	// died or refused), or the HTTP status.
	Failures map[string]int
	// Retries counts the attempts after the first; Landed the calls
	// whose answer was lost but whose write was found in the store.
	Retries, Landed int
}

// Summary returns each route's figures, by route name.
func (s *Stats) Summary() []RouteSummary {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []RouteSummary
	for _, name := range slices.Sorted(maps.Keys(s.routes)) {
		r := s.routes[name]
		lat := slices.Clone(r.lat)
		slices.Sort(lat)
		out = append(out, RouteSummary{
			Route: name, Calls: len(lat), P50: quantile(lat, 0.50), P99: quantile(lat, 0.99),
			Failures: maps.Clone(r.fails), Retries: r.retries, Landed: r.landed,
		})
	}
	return out
}

// quantile returns the q-quantile of sorted (nearest rank); 0 when empty.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[rank(len(sorted), q)]
}

// rank returns the index of the q-quantile (nearest rank) among n > 0
// sorted values.
func rank(n int, q float64) int {
	return min(max(int(float64(n)*q+0.5)-1, 0), n-1)
}

// Print writes the report as a table: the run's throughput, then one
// line per route.
func (r *Report) Print(w io.Writer) error {
	fmt.Fprintf(w, "%s: %d sessions (%d finished), %d servers, %s, %.1fs\n", r.Name, r.Sessions, r.Finished, r.Servers, r.Kill, r.Wall.Seconds())
	fmt.Fprintf(w, "throughput: %.0f appends/s (%d messages), %.0f requests/s (%d answered)\n",
		r.AppendsPerSec(), r.Appends, r.RequestsPerSec(), r.Requests)
	if r.Subscribers > 0 {
		fmt.Fprintf(w, "events: %d subscribers got %d events, %d streams opened again after a lost one (Last-Event-ID)\n", r.Subscribers, r.Events, r.Reconnects)
	}
	if r.Proxies > 0 {
		fmt.Fprintf(w, "proxies: %d processes, %d sessions (%d finished), %d requests upstream, %d over the budget of %d tokens (largest %d)\n",
			r.Proxies, r.ProxySessions, r.ProxyFinished, r.ProxyUpstream, r.ProxyOver, r.ProxyBudget, r.ProxyMaxPrompt)
	}
	if t := r.Tail; t != nil {
		var parts []string
		for j, name := range t.Metrics[1:] {
			parts = append(parts, fmt.Sprintf("%s %.2f", name, ms(t.Server[j+1])))
		}
		fmt.Fprintf(w, "slowest turns (%d at or above the p%g, %.1f ms): client %.2f ms, server %s %.2f ms (%s), %d compacted\n",
			t.Turns, t.Quantile*100, ms(t.From), ms(t.Client), t.Metrics[0], ms(t.Server[0]), strings.Join(parts, ", "), t.Compacted)
	}
	if d := r.CPUPerCall(); d > 0 {
		fmt.Fprintf(w, "server CPU while the sessions ran: %.1f s (user %.1f s, system %.1f s) for %d calls, %.0f µs a call\n",
			r.ServerCPU.Total().Seconds(), r.ServerCPU.User.Seconds(), r.ServerCPU.System.Seconds(), r.Requests, float64(d)/float64(time.Microsecond))
	}
	if r.IdleStalls != nil && r.Stalls != nil {
		fmt.Fprintf(w, "machine: 1 ms sleeps of the load generator woke %s with the servers idle; %s during the run\n", r.IdleStalls, r.Stalls)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "route\tcalls\tp50 ms\tp99 ms\tretries\tlanded\tfailed attempts\t")
	for _, s := range r.Routes {
		var fails []string
		for _, k := range slices.Sorted(maps.Keys(s.Failures)) {
			fails = append(fails, fmt.Sprintf("%s×%d", k, s.Failures[k]))
		}
		sort.Strings(fails)
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%d\t%d\t%s\t\n", s.Route, s.Calls, ms(s.P50), ms(s.P99), s.Retries, s.Landed, strings.Join(fails, " "))
	}
	return tw.Flush()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
