package pgstore_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/agentctx/agentctx/internal/pgtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/pgstore"
)

// leaseTTL is the short lease of the lease tests.
const leaseTTL = time.Second

// twoServers opens two stores on one schema, as two servers sharing a
// database.
func twoServers(t *testing.T, ttl time.Duration) (a, b *pgstore.Store) {
	schema := pgtest.Schema(t, "test_")
	a = open(t, pgstore.Options{Schema: schema, LeaseTTL: ttl})
	b = open(t, pgstore.Options{Schema: schema, LeaseTTL: ttl})
	return a, b
}

// TestLeaseBusy: while one server holds a session's lease the other's
// writes get ErrSessionBusy and write nothing; its reads work; after
// Unlock (or Close) the other server writes at once.
func TestLeaseBusy(t *testing.T) {
	t.Parallel()
	a, b := twoServers(t, time.Minute)
	ctx := t.Context()
	sess := newSession(t, a)
	mustAppend(t, a, sess.ID, userMsg(t, "a holds the lease"))
	if _, err := b.Append(ctx, sess.ID, userMsg(t, "b")); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("Append from a second server: %v, want ErrSessionBusy", err)
	}
	if _, err := b.Update(ctx, sess.ID, func(m *session.Session) error { m.Title = "b"; return nil }); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("Update from a second server: %v, want ErrSessionBusy", err)
	}
	if err := b.Delete(ctx, sess.ID); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("Delete from a second server: %v, want ErrSessionBusy", err)
	}
	if err := b.Lock(ctx, sess.ID); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("Lock from a second server: %v, want ErrSessionBusy", err)
	}
	if tr := mustLoad(t, b, sess.ID, true); len(tr.Entries) != 1 {
		t.Errorf("second server reads %d entries, want 1", len(tr.Entries))
	}
	if err := b.Unlock(ctx, "no-such-session"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Unlock of a missing session: %v, want ErrNotFound", err)
	}
	// b's Unlock does not release a's lease.
	if err := b.Unlock(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Append(ctx, sess.ID, userMsg(t, "b")); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("Append after the other server's Unlock: %v, want ErrSessionBusy", err)
	}
	if err := a.Unlock(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	out := mustAppend(t, b, sess.ID, userMsg(t, "b after a's Unlock"))
	if _, err := a.Append(ctx, sess.ID, userMsg(t, "a")); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("Append from a after b took over: %v, want ErrSessionBusy", err)
	}
	// Close releases every lease the store holds.
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	got := mustAppend(t, a, sess.ID, assistantMsg(t, "a again"))
	if got[0].ParentUUID != out[0].UUID {
		t.Errorf("entry after the takeover has parent %q, want %q", got[0].ParentUUID, out[0].UUID)
	}
	linear(t, mustLoad(t, a, sess.ID, true).Entries)
}

// TestLeaseLockTimeout: a writer with a LockTimeout waits for the lease
// and gets it when the holder releases it.
func TestLeaseLockTimeout(t *testing.T) {
	t.Parallel()
	schema := pgtest.Schema(t, "test_")
	a := open(t, pgstore.Options{Schema: schema})
	b := open(t, pgstore.Options{Schema: schema, LockTimeout: 10 * time.Second})
	sess := newSession(t, a)
	if err := a.Lock(t.Context(), sess.ID); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		_ = a.Unlock(t.Context(), sess.ID)
	}()
	start := time.Now()
	if _, err := b.Append(t.Context(), sess.ID, userMsg(t, "b waited")); err != nil {
		t.Fatalf("Append with a lock timeout: %v", err)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("Append returned after %v, before the holder released the lease", d)
	}
}

// TestLeaseCrashExpires: a server that crashes (no release) keeps its
// sessions busy until its lease expires, then another server takes over
// and the transcript stays one chain.
func TestLeaseCrashExpires(t *testing.T) {
	t.Parallel()
	a, b := twoServers(t, leaseTTL)
	ctx := t.Context()
	sess := newSession(t, a)
	first := mustAppend(t, a, sess.ID, userMsg(t, "q"), assistantMsg(t, "a"))
	// Held across several renewals (every TTL/3): still busy.
	time.Sleep(2 * leaseTTL)
	if _, err := b.Append(ctx, sess.ID, userMsg(t, "b")); !errors.Is(err, session.ErrSessionBusy) {
		t.Fatalf("Append while the holder renews its lease: %v, want ErrSessionBusy", err)
	}
	pgstore.Crash(a)
	crashed := time.Now()
	if _, err := b.Append(ctx, sess.ID, userMsg(t, "b")); !errors.Is(err, session.ErrSessionBusy) {
		t.Fatalf("Append right after the holder crashed: %v, want ErrSessionBusy", err)
	}
	var out []session.Entry
	for {
		var err error
		out, err = b.Append(ctx, sess.ID, userMsg(t, "b takes over"))
		if err == nil {
			break
		}
		if !errors.Is(err, session.ErrSessionBusy) || time.Since(crashed) > 3*leaseTTL {
			t.Fatalf("Append after the crashed holder's lease expired: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d := time.Since(crashed); d > 2*leaseTTL {
		t.Errorf("took over %v after the crash, lease TTL %v", d, leaseTTL)
	}
	if out[0].ParentUUID != first[1].UUID {
		t.Errorf("first entry after the takeover has parent %q, want %q", out[0].ParentUUID, first[1].UUID)
	}
	tr := mustLoad(t, b, sess.ID, true)
	if len(tr.Entries) != 3 || len(tr.Problems) != 0 {
		t.Errorf("after the takeover: %d entries, problems %v", len(tr.Entries), tr.Problems)
	}
	linear(t, tr.Entries)
}

// TestLeaseFencing: a server that stopped renewing (stalled) loses its
// lease to another; when it wakes up its writes are refused, never
// interleaved with the new holder's.
func TestLeaseFencing(t *testing.T) {
	t.Parallel()
	a, b := twoServers(t, leaseTTL)
	ctx := t.Context()
	sess := newSession(t, a)
	mustAppend(t, a, sess.ID, userMsg(t, "a"))
	pgstore.StopRenewing(a)
	deadline := time.Now().Add(3 * leaseTTL)
	for {
		_, err := b.Append(ctx, sess.ID, userMsg(t, "b"))
		if err == nil {
			break
		}
		if !errors.Is(err, session.ErrSessionBusy) || time.Now().After(deadline) {
			t.Fatalf("b: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := a.Append(ctx, sess.ID, userMsg(t, "a wakes up")); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("stalled holder's Append after a takeover: %v, want ErrSessionBusy", err)
	}
	if _, err := a.Update(ctx, sess.ID, func(m *session.Session) error { m.Title = "a"; return nil }); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("stalled holder's Update after a takeover: %v, want ErrSessionBusy", err)
	}
	linear(t, mustLoad(t, b, sess.ID, true).Entries)
}

// TestLeaseNoInterleaving: two servers append to the same sessions
// concurrently, each retrying on ErrSessionBusy and releasing the lease
// after each batch (a stateless server's request); every acknowledged
// entry is stored once, each batch's entries are adjacent and the chain
// is linear.
func TestLeaseNoInterleaving(t *testing.T) {
	t.Parallel()
	schema := pgtest.Schema(t, "test_")
	servers := []*pgstore.Store{
		open(t, pgstore.Options{Schema: schema, LockTimeout: 10 * time.Second}),
		open(t, pgstore.Options{Schema: schema, LockTimeout: 10 * time.Second}),
	}
	ctx := t.Context()
	const sessions, batches = 3, 12
	ids := make([]string, sessions)
	for i := range ids {
		ids[i] = newSession(t, servers[0]).ID
	}
	var (
		mu    sync.Mutex
		acked = map[string][]string{} // session → batch uuids, in ack order
		wg    sync.WaitGroup
	)
	for w, s := range servers {
		for _, id := range ids {
			wg.Go(func() {
				for i := range batches {
					out, err := s.Append(ctx, id, userMsg(t, "q"), assistantMsg(t, "a"), userMsg(t, "more"))
					if err != nil {
						t.Errorf("server %d: %v", w, err)
						return
					}
					if err := s.Unlock(ctx, id); err != nil {
						t.Errorf("server %d: unlock: %v", w, err)
					}
					mu.Lock()
					acked[id] = append(acked[id], uuidsOf(out)...)
					mu.Unlock()
					_ = i
				}
			})
		}
	}
	wg.Wait()
	for _, id := range ids {
		tr := mustLoad(t, servers[1], id, true)
		if len(tr.Entries) != 2*batches*3 {
			t.Fatalf("session %s: %d entries, want %d", id, len(tr.Entries), 2*batches*3)
		}
		linear(t, tr.Entries)
		// Each batch is three adjacent entries: q, a, more.
		for i := 0; i < len(tr.Entries); i += 3 {
			if tr.Entries[i].Type != session.TypeUser || tr.Entries[i+1].Type != session.TypeAssistant || tr.Entries[i+2].Type != session.TypeUser {
				t.Fatalf("session %s: batches interleaved at entry %d", id, i)
			}
		}
		seen := map[string]bool{}
		for _, e := range tr.Entries {
			seen[e.UUID] = true
		}
		for _, u := range acked[id] {
			if !seen[u] {
				t.Errorf("session %s: acknowledged entry %s missing", id, u)
			}
		}
	}
}
