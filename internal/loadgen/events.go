package loadgen

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// follower is one SSE subscriber of a session's events
// (GET /v1/sessions/{id}/events) through the balancer: it reads from the
// first event on, and when its stream is lost (the server behind it
// killed, the stream cut) it reconnects, to whichever server the
// balancer picks, with Last-Event-ID, as a browser's EventSource does.
type follower struct {
	id string
	mu sync.Mutex
	// ids are the event ids received, in order; reconnects counts the
	// streams opened after the first.
	ids        []int64
	reconnects int
}

// last returns the id of the last event received, 0 before any.
func (f *follower) last() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.ids) == 0 {
		return 0
	}
	return f.ids[len(f.ids)-1]
}

// follow reads session f.id's events through base until ctx ends.
func (f *follower) follow(ctx context.Context, hc *http.Client, base string) {
	for n := 0; ctx.Err() == nil; n++ {
		if n > 0 {
			f.mu.Lock()
			f.reconnects++
			f.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-time.After(min(50*time.Millisecond<<min(n, 4), time.Second)):
			}
		}
		f.stream(ctx, hc, base)
	}
}

// stream reads one event stream until it ends.
func (f *follower) stream(ctx context.Context, hc *http.Client, base string) {
	req, err := http.NewRequestWithContext(ctx, "GET", base+"/v1/sessions/"+url.PathEscape(f.id)+"/events", nil)
	if err != nil {
		return
	}
	req.Header.Set("Last-Event-ID", strconv.FormatInt(f.last(), 10))
	resp, err := hc.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "id: ")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			continue
		}
		f.mu.Lock()
		f.ids = append(f.ids, n)
		f.mu.Unlock()
	}
}

// check returns an error unless the follower received events 1..last, in
// order, each once.
func (f *follower) check(last int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if int64(len(f.ids)) != last {
		return fmt.Errorf("session %s: its subscriber got %d events, the store has %d", f.id, len(f.ids), last)
	}
	for i, id := range f.ids {
		if id != int64(i+1) {
			return fmt.Errorf("session %s: its subscriber's event %d has id %d, want %d (ids %v)", f.id, i, id, i+1, f.ids)
		}
	}
	return nil
}
