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
