package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/session"
)

// readAll returns session id's events after after as "seq:data".
func readAll(t *testing.T, s interface {
	ReadEvents(context.Context, string, int64, int, func(int64, []byte) error) error
}, id string, after int64, limit int) []string {
	t.Helper()
	var got []string
	if err := s.ReadEvents(t.Context(), id, after, limit, func(seq int64, data []byte) error {
		got = append(got, fmt.Sprintf("%d:%s", seq, data))
		return nil
	}); err != nil {
		t.Fatalf("ReadEvents: %v", err)
	}
	return got
}

// TestEvents: two stores on one schema (two servers) append events to
// one session; each gets its own numbers, 1..n without a gap, and both
// read the same events in order, from any point (a subscriber resuming
// with Last-Event-ID), a page at a time. A deleted session's events go
// with it, and reading them says ErrNotFound.
func TestEvents(t *testing.T) {
	t.Parallel()
	a, b := twoServers(t, leaseTTL)
	sess := newSession(t, a)
	if last, err := b.LastEvent(t.Context(), sess.ID); err != nil || last != 0 {
		t.Fatalf("LastEvent of a new session = %d, %v; want 0", last, err)
	}
	if last, err := a.AppendEvents(t.Context(), sess.ID, [][]byte{[]byte(`{"k":1}`), []byte(`{"k":2}`)}); err != nil || last != 2 {
		t.Fatalf("A's AppendEvents = %d, %v; want 2", last, err)
	}
	if last, err := b.AppendEvents(t.Context(), sess.ID, [][]byte{[]byte(`{"k":3}`)}); err != nil || last != 3 {
		t.Fatalf("B's AppendEvents = %d, %v; want 3", last, err)
	}
	want := []string{`1:{"k":1}`, `2:{"k":2}`, `3:{"k":3}`}
	for _, s := range []interface {
		ReadEvents(context.Context, string, int64, int, func(int64, []byte) error) error
	}{a, b} {
		if diff := cmp.Diff(want, readAll(t, s, sess.ID, 0, 0)); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	}
	if diff := cmp.Diff(want[1:2], readAll(t, b, sess.ID, 1, 1)); diff != "" {
		t.Errorf("one event after 1 (-want +got):\n%s", diff)
	}
	if got := readAll(t, b, sess.ID, 3, 0); len(got) != 0 {
		t.Errorf("events after the last: %v", got)
	}
	if _, err := a.AppendEvents(t.Context(), sess.ID, [][]byte{[]byte(`{"k":`)}); err == nil {
		t.Error("AppendEvents took an event that is not JSON")
	}
	if _, err := a.AppendEvents(t.Context(), "no-such-session", [][]byte{[]byte(`{}`)}); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("AppendEvents of no session: %v, want ErrNotFound", err)
	}
	if err := a.Delete(t.Context(), sess.ID); err != nil {
		t.Fatal(err)
	}
	err := b.ReadEvents(t.Context(), sess.ID, 0, 0, func(int64, []byte) error { return nil })
	if !errors.Is(err, session.ErrNotFound) {
		t.Errorf("ReadEvents of a deleted session: %v, want ErrNotFound", err)
	}
}

// note is one call of ListenEvents' fn.
type note struct {
	id  string
	seq int64
}

// TestListenEvents: a store listening on the schema hears the events
// another store appends (session and last number), the first call
// telling it to catch up (fn("", 0)); a view of another tenant hears
// none of them; the listener stops with its context, and with its
// store's Close.
func TestListenEvents(t *testing.T) {
	t.Parallel()
	a, b := twoServers(t, leaseTTL)
	sess := newSession(t, a)
	listen := func(s interface {
		ListenEvents(context.Context, func(string, int64)) error
	}, ctx context.Context) (<-chan note, <-chan error) {
		notes, done := make(chan note, 16), make(chan error, 1)
		go func() { done <- s.ListenEvents(ctx, func(id string, seq int64) { notes <- note{id, seq} }) }()
		return notes, done
	}
	next := func(notes <-chan note) note {
		t.Helper()
		select {
		case n := <-notes:
			return n
		case <-time.After(10 * time.Second):
			t.Fatal("no notification")
			return note{}
		}
	}
	other, err := b.WithTenant("other")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	notes, done := listen(b, ctx)
	otherNotes, _ := listen(other, t.Context())
	if n := next(notes); n != (note{}) {
		t.Fatalf("first call %+v, want the catch-up call (\"\", 0)", n)
	}
	if n := next(otherNotes); n != (note{}) {
		t.Fatalf("other tenant's first call %+v", n)
	}
	for i, want := range []int64{1, 3} {
		events := [][]byte{[]byte(`{}`)}
		if i == 1 {
			events = append(events, []byte(`{}`))
		}
		if _, err := a.AppendEvents(t.Context(), sess.ID, events); err != nil {
			t.Fatal(err)
		}
		if n := next(notes); n != (note{sess.ID, want}) {
			t.Fatalf("notification %+v, want %s up to %d", n, sess.ID, want)
		}
	}
	select {
	case n := <-otherNotes:
		t.Errorf("another tenant heard %+v", n)
	default:
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ListenEvents after its context ended: %v, want nil", err)
	}
	_, done = listen(b, t.Context())
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, session.ErrClosed) {
			t.Errorf("ListenEvents after Close: %v, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ListenEvents did not stop with its store")
	}
}
