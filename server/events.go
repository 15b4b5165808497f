package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/agentctx/agentctx/agent"
)

// Event is one Server-Sent Event of GET /v1/sessions/{id}/events: what the
// Engine did for the session, as the agent loop's events
// ([agent.Event]: compaction, reminder, usage) with the session id, a
// sequence number and a time. The SSE "event" field is Kind, "id" is Seq
// and "data" the JSON of the Event.
type Event struct {
	// Seq numbers the session's events in this server, from 1.
	Seq uint64 `json:"seq"`
	// Session is the session's id, Time when the event happened.
	Session string    `json:"session"`
	Time    time.Time `json:"time"`
	agent.Event
}

// EventBuffer is how many events a slow subscriber may lag behind before
// it misses some (a gap in Seq shows it).
const EventBuffer = 64

// broker fans a session's events out to its subscribers.
type broker struct {
	mu     sync.Mutex
	closed bool
	seq    map[string]uint64
	subs   map[string]map[*subscriber]struct{}
}

type subscriber struct {
	ch   chan Event
	done chan struct{}
}

func newBroker() *broker {
	return &broker{seq: map[string]uint64{}, subs: map[string]map[*subscriber]struct{}{}}
}

// subscribe adds a subscriber to session id's events; nil after close.
func (b *broker) subscribe(id string) *subscriber {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	sub := &subscriber{ch: make(chan Event, EventBuffer), done: make(chan struct{})}
	if b.subs[id] == nil {
		b.subs[id] = map[*subscriber]struct{}{}
	}
	b.subs[id][sub] = struct{}{}
	return sub
}

func (b *broker) unsubscribe(id string, sub *subscriber) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.subs[id][sub]; !ok {
		return
	}
	delete(b.subs[id], sub)
	if len(b.subs[id]) == 0 {
		delete(b.subs, id)
	}
}

// publish sends ev to the subscribers of the session stored as id, whose
// API id is name, never blocking: a full subscriber misses it.
func (b *broker) publish(id, name string, ev Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.seq[id]++
	ev.Seq, ev.Session = b.seq[id], name
	for sub := range b.subs[id] {
		select {
		case sub.ch <- ev:
		default:
		}
	}
}

// drop ends the streams of a deleted session.
func (b *broker) drop(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for sub := range b.subs[id] {
		close(sub.done)
	}
	delete(b.subs, id)
	delete(b.seq, id)
}

// close ends every stream: the server is shutting down.
func (b *broker) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	for _, subs := range b.subs {
		for sub := range subs {
			close(sub.done)
		}
	}
	b.subs = map[string]map[*subscriber]struct{}{}
}

// publish sends events of the session stored as key (its API id name),
// stamped with the time.
func (s *Server) publish(key, name string, evs ...Event) {
	for _, ev := range evs {
		ev.Time = s.opts.Now().UTC()
		s.events.publish(key, name, ev)
	}
}

// KeepAlive is how often an idle event stream gets a comment line, so
// that proxies and clients do not time it out.
const KeepAlive = 15 * time.Second

// streamEvents serves GET .../events as Server-Sent Events until the
// client goes away, the session is deleted or the server shuts down.
func (s *Server) streamEvents(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	key, _, err := s.lookup(r.Context(), id)
	if err != nil {
		return err
	}
	sub := s.events.subscribe(key)
	if sub == nil {
		return errShuttingDown
	}
	defer s.events.unsubscribe(key, sub)
	rc := http.NewResponseController(w)
	// The stream outlives the server's write timeout.
	_ = rc.SetWriteDeadline(time.Time{})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, ": agentctx events of session "+id+"\n\n"); err != nil {
		return nil
	}
	if err := rc.Flush(); err != nil {
		return nil
	}
	tick := time.NewTicker(KeepAlive)
	defer tick.Stop()
	for {
		var err error
		select {
		case <-r.Context().Done():
			return nil
		case <-sub.done:
			return nil
		case <-tick.C:
			_, err = fmt.Fprint(w, ": keep-alive\n\n")
		case ev := <-sub.ch:
			data, merr := json.Marshal(ev)
			if merr != nil {
				return merr
			}
			_, err = fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", ev.Seq, ev.Kind, data)
		}
		if err == nil {
			err = rc.Flush()
		}
		if err != nil {
			return nil // the client went away
		}
	}
}
