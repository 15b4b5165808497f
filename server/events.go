package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/agentctx/agentctx/agent"
	"github.com/agentctx/agentctx/session"
)

// Event is one Server-Sent Event of GET /v1/sessions/{id}/events: what the
// Engine did for the session, as the agent loop's events
// ([agent.Event]: compaction, reminder, usage) with the session id, a
// sequence number and a time. The SSE "event" field is Kind, "id" is Seq
// and "data" the JSON of the Event.
type Event struct {
	// Seq numbers the session's events from 1: in the store when it
	// keeps them ([EventLog]: one numbering for every server of a fleet,
	// what Last-Event-ID resumes from), else in this server.
	Seq uint64 `json:"seq"`
	// Session is the session's id, Time when the event happened.
	Session string    `json:"session"`
	Time    time.Time `json:"time"`
	agent.Event
}

// EventBuffer is how many events a slow subscriber may lag behind before
// it misses some (a gap in Seq shows it), when the store keeps no events;
// with an [EventLog] a slow subscriber reads what it has not sent yet
// from the store and misses none.
const EventBuffer = 64

// EventLog is a store that keeps the sessions' events and tells every
// process sharing it of new ones: package pgstore's Store, through
// PostgreSQL's LISTEN/NOTIFY. With one, a write handled by any server of
// a fleet reaches the subscribers of every server, numbered once for all
// of them, and a subscriber resumes from its Last-Event-ID on any server.
// A notification carries a session and a sequence number only: the
// events are read from the store, so a lost notification loses nothing
// (the next one, a listener's reconnection or a subscriber's periodic
// read, [Options].EventPoll, brings them). Methods take store ids.
type EventLog interface {
	// AppendEvents stores events (JSON values) after the session's last
	// and returns the number of the last one.
	AppendEvents(ctx context.Context, id string, events [][]byte) (int64, error)
	// LastEvent returns the number of the session's last event, 0 when
	// it has none.
	LastEvent(ctx context.Context, id string) (int64, error)
	// ReadEvents calls fn with the session's events after after, in
	// order, at most limit; session.ErrNotFound once the session is gone.
	ReadEvents(ctx context.Context, id string, after int64, limit int, fn func(seq int64, data []byte) error) error
	// ListenEvents calls fn(id, seq) for each session with new events,
	// and fn("", 0) whenever notifications may have been missed (after
	// each connection), until ctx ends.
	ListenEvents(ctx context.Context, fn func(id string, seq int64)) error
}

// DefaultEventPoll is how often a subscriber reads its session's events
// from an [EventLog] without a notification (see [Options].EventPoll).
const DefaultEventPoll = 5 * time.Second

// eventPage is how many events a subscriber reads from the store at once.
const eventPage = 256

// broker fans a session's events out to its subscribers.
type broker struct {
	mu     sync.Mutex
	closed bool
	seq    map[string]uint64
	subs   map[string]map[*subscriber]struct{}
}

// subscriber is one event stream: ch receives the events (without an
// EventLog), wake a token when the EventLog has new ones, done closes
// when the stream must end.
type subscriber struct {
	ch   chan Event
	wake chan struct{}
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
	sub := &subscriber{ch: make(chan Event, EventBuffer), wake: make(chan struct{}, 1), done: make(chan struct{})}
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

// notify wakes the subscribers of the session stored as id, or every
// subscriber when id is "" (notifications may have been lost), never
// blocking: a subscriber already woken reads everything new anyway.
func (b *broker) notify(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	wake := func(subs map[*subscriber]struct{}) {
		for sub := range subs {
			select {
			case sub.wake <- struct{}{}:
			default:
			}
		}
	}
	if id != "" {
		wake(b.subs[id])
		return
	}
	for _, subs := range b.subs {
		wake(subs)
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
// stamped with the time: to the [EventLog] when the store is one (its
// notification reaches every server's subscribers; this server's are
// woken at once), else to this server's subscribers. A failed append is
// logged: the write it reports is done.
func (s *Server) publish(ctx context.Context, key, name string, evs ...Event) {
	if len(evs) == 0 {
		return
	}
	if s.evlog == nil {
		for _, ev := range evs {
			ev.Time = s.opts.Now().UTC()
			s.events.publish(key, name, ev)
		}
		return
	}
	data := make([][]byte, 0, len(evs))
	for _, ev := range evs {
		ev.Time, ev.Session, ev.Seq = s.opts.Now().UTC(), name, 0
		b, err := json.Marshal(ev)
		if err != nil {
			s.log.Error("events: encoding", "session", name, "kind", string(ev.Kind), "err", err)
			continue
		}
		data = append(data, b)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DefaultStoreTimeout)
	defer cancel()
	if _, err := s.evlog.AppendEvents(ctx, key, data); err != nil {
		s.log.Error("events: storing", "session", name, "events", len(data), "err", err)
		return
	}
	s.events.notify(key)
}

// heard is the EventLog listener's callback: session id has events up to
// seq ("" and 0: any session may have).
func (s *Server) heard(id string, seq int64) {
	if s.dropNote != nil && s.dropNote(id, seq) {
		return
	}
	s.events.notify(id)
}

// listen runs the EventLog's listener until ctx ends.
func (s *Server) listen(ctx context.Context) {
	if err := s.evlog.ListenEvents(ctx, s.heard); err != nil && ctx.Err() == nil {
		s.log.Error("events: listener stopped", "err", err)
	}
}

// KeepAlive is how often an idle event stream gets a comment line, so
// that proxies and clients do not time it out.
const KeepAlive = 15 * time.Second

// lastEventID reads the Last-Event-ID header: the id of the last event
// the client has (an EventSource sends it when it reconnects), -1 when
// absent. Errors: 400 for a value that is not an event's id.
func lastEventID(r *http.Request) (int64, error) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		return -1, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, errorf(http.StatusBadRequest, CodeBadRequest, "Last-Event-ID %q: want the id of an event (a sequence number)", v)
	}
	return n, nil
}

// streamEvents serves GET .../events as Server-Sent Events until the
// client goes away, the session is deleted or the server shuts down.
// With an [EventLog], the stream starts after the client's Last-Event-ID
// (else after the session's last event) and carries every event from the
// store, whichever server handled its write.
func (s *Server) streamEvents(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	key, _, err := s.lookup(r.Context(), id)
	if err != nil {
		return err
	}
	after, err := lastEventID(r)
	if err != nil {
		return err
	}
	sub := s.events.subscribe(key)
	if sub == nil {
		return errShuttingDown
	}
	defer s.events.unsubscribe(key, sub)
	if s.evlog != nil && after < 0 {
		// Subscribed first: an event stored from now on wakes sub.
		if after, err = s.evlog.LastEvent(r.Context(), key); err != nil {
			return err
		}
	}
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
	var poll <-chan time.Time
	if s.evlog != nil {
		p := time.NewTicker(s.opts.EventPoll)
		defer p.Stop()
		poll = p.C
		// What was stored before the subscription, after Last-Event-ID.
		sub.wake <- struct{}{}
	}
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
			err = writeEvent(w, ev)
		case <-sub.wake:
			after, err = s.catchUp(r.Context(), w, key, after)
		case <-poll:
			after, err = s.catchUp(r.Context(), w, key, after)
		}
		if err == nil {
			err = rc.Flush()
		}
		if err != nil {
			return nil // the client went away, or the session did
		}
	}
}

// writeEvent writes ev as one Server-Sent Event.
func writeEvent(w http.ResponseWriter, ev Event) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", ev.Seq, ev.Kind, data)
	return err
}

// errSessionGone ends the event stream of a session deleted through
// another server.
var errSessionGone = errors.New("server: the session was deleted")

// catchUp writes the events of the session stored as key after after,
// read from the EventLog, and returns the number of the last one
// written. A store error other than the session's deletion is logged
// and left to the next wake-up or poll.
func (s *Server) catchUp(ctx context.Context, w http.ResponseWriter, key string, after int64) (int64, error) {
	for {
		n := 0
		var werr error
		err := s.evlog.ReadEvents(ctx, key, after, eventPage, func(seq int64, data []byte) error {
			after, n = seq, n+1
			var ev Event
			if err := json.Unmarshal(data, &ev); err != nil {
				s.log.Error("events: a stored event is not an Event", "session", key, "seq", seq, "err", err)
				return nil
			}
			ev.Seq = uint64(seq)
			werr = writeEvent(w, ev)
			return werr
		})
		switch {
		case werr != nil:
			return after, werr
		case errors.Is(err, session.ErrNotFound):
			return after, errSessionGone
		case err != nil && ctx.Err() != nil:
			return after, err
		case err != nil:
			s.log.Warn("events: reading", "session", key, "after", after, "err", err)
			return after, nil
		case n < eventPage:
			return after, nil
		}
	}
}
