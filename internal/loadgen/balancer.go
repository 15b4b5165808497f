package loadgen

import (
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"syscall"
	"time"
)

// Balancer is the fleet test's load balancer: an HTTP reverse proxy on
// loopback (net/http/httputil) that sends each request to one of its
// backends picked at random, as an operator's HAProxy or cloud balancer
// in random mode does. Its health check is passive, as HAProxy's
// observe mode: a backend that refuses a connection is taken out of the
// rotation (until [Balancer.Set] replaces it); the request that found it
// dead is answered 502, and the client retries. A request cut by a
// backend dying mid-answer is answered 502 too.
// Responses stream (Server-Sent Events pass through as they come). Safe
// for concurrent use.
type Balancer struct {
	// URL is the balancer's base URL ("http://127.0.0.1:PORT").
	URL string

	srv  *http.Server
	mu   sync.Mutex
	rng  *rand.Rand
	to   []*url.URL
	down map[string]bool // backends out of the rotation, by host
}

// NewBalancer starts a balancer in front of backends (base URLs),
// choosing with seed. Errors: a backend URL that does not parse, no
// loopback port to listen on.
func NewBalancer(seed uint64, backends ...string) (*Balancer, error) {
	b := &Balancer{rng: rand.New(rand.NewPCG(seed, 1)), down: map[string]bool{}}
	for _, s := range backends {
		u, err := url.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("loadgen: balancer backend %q: %w", s, err)
		}
		b.to = append(b.to, u)
	}
	if len(b.to) == 0 {
		return nil, errors.New("loadgen: a balancer needs a backend")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("loadgen: balancer: %w", err)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 512, MaxIdleConns: 1024, IdleConnTimeout: time.Minute}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(b.pick())
			r.Out.Header["X-Forwarded-For"] = r.In.Header["X-Forwarded-For"]
		},
		Transport:     tr,
		FlushInterval: -1,
		// A backend killed mid-answer is the test's doing: the client
		// sees the cut and retries.
		ErrorLog: log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if errors.Is(err, syscall.ECONNREFUSED) {
				b.mu.Lock()
				b.down[r.URL.Host] = true
				b.mu.Unlock()
			}
			http.Error(w, "balancer: backend: "+err.Error(), http.StatusBadGateway)
		},
	}
	b.URL = "http://" + ln.Addr().String()
	b.srv = &http.Server{Handler: rp, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = b.srv.Serve(ln) }()
	return b, nil
}

// pick returns a backend in the rotation at random (any backend when
// none is).
func (b *Balancer) pick() *url.URL {
	b.mu.Lock()
	defer b.mu.Unlock()
	up := make([]*url.URL, 0, len(b.to))
	for _, u := range b.to {
		if !b.down[u.Host] {
			up = append(up, u)
		}
	}
	if len(up) == 0 {
		up = b.to
	}
	return up[b.rng.IntN(len(up))]
}

// Set replaces backend i (a process started again on another port).
// Errors: a URL that does not parse.
func (b *Balancer) Set(i int, backend string) error {
	u, err := url.Parse(backend)
	if err != nil {
		return fmt.Errorf("loadgen: balancer backend %q: %w", backend, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.to[i] = u
	delete(b.down, u.Host)
	return nil
}

// Close stops the balancer, cutting the streams in flight.
func (b *Balancer) Close() error { return b.srv.Close() }
