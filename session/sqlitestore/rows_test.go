package sqlitestore_test

import (
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/sqlitestore"
)

// TestGetHeldAsRead: Get of a session the Store holds the lease of (its
// row cached as its writes left it) answers what a read of the database
// answers, after every kind of write: appends of user and assistant
// messages (model, usage), a compaction, a metadata update, a lock; and
// not found after Delete. The other Store holds no lease: its Get reads
// the database.
func TestGetHeldAsRead(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	a := open(t, sqlitestore.Options{Path: path})
	b := open(t, sqlitestore.Options{Path: path})
	ctx := t.Context()
	sess := newSession(t, a)
	same := func(step string) {
		t.Helper()
		got, err := a.Get(ctx, sess.ID)
		if err != nil {
			t.Fatalf("%s: holder's Get: %v", step, err)
		}
		want, err := b.Get(ctx, sess.ID)
		if err != nil {
			t.Fatalf("%s: reader's Get: %v", step, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: holder's Get differs from the database's row (-read +held):\n%s", step, d)
		}
	}
	mustAppend(t, a, sess.ID, userMsg(t, "fix the parser"))
	same("user message")
	reply := chat.NewText(chat.RoleAssistant, "done")
	e := msgEntry(t, reply)
	e.Message = []byte(`{"role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":1200,"output_tokens":30}}`)
	mustAppend(t, a, sess.ID, e, userMsg(t, "and the tests"))
	same("assistant message with usage")
	mustAppend(t, a, sess.ID, boundaryEntry(900), summaryEntry(t, "summary"))
	same("compaction")
	if _, err := a.Update(ctx, sess.ID, func(s *session.Session) error {
		s.Title = "parser"
		s.Metadata = map[string]string{"tenant": "t1", "k": "v"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	same("update")
	got, _ := a.Get(ctx, sess.ID)
	got.Metadata["k"] = "changed by the caller"
	same("a caller changing the returned metadata")
	if err := a.Lock(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	same("lock")
	if err := a.Delete(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Get(ctx, sess.ID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("holder's Get after Delete: %v, want ErrNotFound", err)
	}
}

// TestGetAfterLeaseLost: a Store whose lease another Store took (its
// own stalled past the lease's lifetime) stops answering Get from its
// cached row: its renewals no longer cover every lease it held, the row
// ages out, and Get reads what the new holder wrote.
func TestGetAfterLeaseLost(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	const ttl = 300 * time.Millisecond
	a := open(t, sqlitestore.Options{Path: path, LeaseTTL: ttl})
	b := open(t, sqlitestore.Options{Path: path, LeaseTTL: ttl})
	ctx := t.Context()
	sess := newSession(t, a)
	mustAppend(t, a, sess.ID, userMsg(t, "a writes"))
	// The lease passes to another owner, expired, as if a had stalled and
	// someone had taken it; b then takes it and writes.
	db, err := sql.Open("sqlite", path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf(`UPDATE sessions SET lease_owner = 'someone', lease_expires = %d WHERE id = '%s'`,
		time.Now().Add(-time.Second).UnixMilli(), sess.ID)); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, b, sess.ID, userMsg(t, "b took over"), userMsg(t, "b again"))
	time.Sleep(ttl) // a's renewals went on meanwhile, without its lost lease
	got, err := a.Get(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Entries != 3 {
		t.Errorf("former holder's Get: %d entries, want the 3 the database holds", got.Entries)
	}
	if _, err := a.Append(ctx, sess.ID, userMsg(t, "a again")); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("former holder's Append: %v, want ErrSessionBusy", err)
	}
}

// TestAppendHeldLease: appends to a session whose lease the Store took
// moments ago neither read the row nor write the lease again (its expiry
// in the database stays the one the first append wrote), and still chain
// their entries as a read of the row would: offsets, lines and parents
// are those another Store loads, and the row's counts match.
func TestAppendHeldLease(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	a := open(t, sqlitestore.Options{Path: path, LeaseTTL: time.Minute})
	b := open(t, sqlitestore.Options{Path: path})
	ctx := t.Context()
	sess := newSession(t, a)
	db, err := sql.Open("sqlite", path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	expiry := func() int64 {
		t.Helper()
		var n int64
		if err := db.QueryRow(`SELECT lease_expires FROM sessions WHERE id = ?`, sess.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var written []session.Entry
	written = append(written, mustAppend(t, a, sess.ID, userMsg(t, "fix the parser"))...)
	first := expiry()
	if first == 0 {
		t.Fatal("no lease written by the first append")
	}
	time.Sleep(5 * time.Millisecond) // a lease written again would expire later
	written = append(written, mustAppend(t, a, sess.ID, assistantMsg(t, "done"), userMsg(t, "and the tests"))...)
	written = append(written, mustAppend(t, a, sess.ID, boundaryEntry(900), summaryEntry(t, "summary"))...)
	if got := expiry(); got != first {
		t.Errorf("lease expiry %d after appends under a held lease, want %d (not written again)", got, first)
	}
	loaded := mustLoad(t, b, sess.ID, true).Entries
	if len(loaded) != len(written) {
		t.Fatalf("loaded %d entries, wrote %d", len(loaded), len(written))
	}
	for i := range written {
		w, l := written[i], loaded[i]
		if w.Offset != l.Offset || w.Line != l.Line || w.UUID != l.UUID || w.ParentUUID != l.ParentUUID {
			t.Errorf("entry %d: written offset %d line %d uuid %s parent %s, loaded %d %d %s %s",
				i, w.Offset, w.Line, w.UUID, w.ParentUUID, l.Offset, l.Line, l.UUID, l.ParentUUID)
		}
	}
	got, err := b.Get(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Entries != len(written) {
		t.Errorf("row counts %d entries, want %d", got.Entries, len(written))
	}
}

// TestAppendRacingUpdate: appends whose lines are encoded outside the
// writer's lock, racing metadata updates of the same session, lose
// neither: the title is the last update's, every entry is stored once,
// in order, each the parent of the next.
func TestAppendRacingUpdate(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	a := open(t, sqlitestore.Options{Path: path})
	ctx := t.Context()
	sess := newSession(t, a)
	const n = 60
	done := make(chan error, 1)
	go func() {
		for i := range n {
			if _, err := a.Update(ctx, sess.ID, func(s *session.Session) error {
				s.Title = fmt.Sprintf("title %d", i)
				return nil
			}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for i := range n {
		mustAppend(t, a, sess.ID, userMsg(t, fmt.Sprintf("message %d", i)))
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got, err := a.Get(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != fmt.Sprintf("title %d", n-1) || got.Entries != n {
		t.Errorf("title %q, %d entries; want the last update's title and %d entries", got.Title, got.Entries, n)
	}
	b := open(t, sqlitestore.Options{Path: path})
	es := mustLoad(t, b, sess.ID, true).Entries
	if len(es) != n {
		t.Fatalf("loaded %d entries, want %d", len(es), n)
	}
	for i := 1; i < len(es); i++ {
		if es[i].ParentUUID != es[i-1].UUID {
			t.Errorf("entry %d: parent %s, want %s", i, es[i].ParentUUID, es[i-1].UUID)
		}
	}
}
