package sqlitestore_test

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/session/sqlitestore"
)

func dbPath(t *testing.T) string { return filepath.Join(t.TempDir(), "sessions.db") }

// TestTwoStores opens two Stores on one file, as two processes would:
// the second writer of a session gets ErrSessionBusy (Append, Update,
// Delete, Lock) while it can read the session, and writes once the
// first closes.
func TestTwoStores(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	a := open(t, sqlitestore.Options{Path: path})
	b := open(t, sqlitestore.Options{Path: path})
	sess := newSession(t, a)
	mustAppend(t, a, sess.ID, userMsg(t, "a writes"))
	ctx := t.Context()
	if _, err := b.Append(ctx, sess.ID, userMsg(t, "b")); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("second Store's Append: %v, want ErrSessionBusy", err)
	}
	if _, err := b.Update(ctx, sess.ID, func(*session.Session) error { return nil }); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("second Store's Update: %v, want ErrSessionBusy", err)
	}
	if err := b.Delete(ctx, sess.ID); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("second Store's Delete: %v, want ErrSessionBusy", err)
	}
	if err := b.Lock(ctx, sess.ID); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("second Store's Lock: %v, want ErrSessionBusy", err)
	}
	if tr := mustLoad(t, b, sess.ID, true); len(tr.Entries) != 1 {
		t.Errorf("second Store reads %d entries, want 1", len(tr.Entries))
	}
	// Another session is free for b.
	other := newSession(t, b)
	mustAppend(t, b, other.ID, userMsg(t, "b's own session"))
	if _, err := a.Append(ctx, other.ID, userMsg(t, "a")); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("first Store's Append to b's session: %v, want ErrSessionBusy", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	out := mustAppend(t, b, sess.ID, userMsg(t, "b after a closed"))
	if tr := mustLoad(t, b, sess.ID, true); len(tr.Entries) != 2 || tr.Entries[1].ParentUUID != tr.Entries[0].UUID || tr.Entries[1].UUID != out[0].UUID {
		t.Errorf("after the hand-over: %v", uuidsOf(tr.Entries))
	}
}

// TestLockTimeout: a writer waiting for a lease gets it when the holder
// closes within Options.LockTimeout.
// TestOpenConcurrentNewFile opens one new file from several stores at
// once, a hundred times: switching it to WAL, two of them would each
// hold the shared lock the other waits for, and SQLite answers one
// SQLITE_BUSY at once instead of waiting (about 1 open in 300 failed so
// before Open asked again). Every open must succeed.
func TestOpenConcurrentNewFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var (
		mu    sync.Mutex
		fails []error
	)
	for k := range 100 {
		path := filepath.Join(dir, fmt.Sprintf("s%d.db", k))
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() {
				s, err := sqlitestore.Open(sqlitestore.Options{Path: path})
				if err == nil {
					err = s.Close()
				}
				if err != nil {
					mu.Lock()
					fails = append(fails, err)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	if len(fails) > 0 {
		t.Errorf("%d of 600 opens failed, the first: %v", len(fails), fails[0])
	}
}

func TestLockTimeout(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	a := open(t, sqlitestore.Options{Path: path})
	b := open(t, sqlitestore.Options{Path: path, LockTimeout: 5 * time.Second})
	sess := newSession(t, a)
	if err := a.Lock(t.Context(), sess.ID); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		_ = a.Close()
	}()
	if _, err := b.Append(t.Context(), sess.ID, userMsg(t, "waited")); err != nil {
		t.Fatalf("Append waiting for the lease: %v", err)
	}
}

// TestLeaseExpires: a Store that stops renewing (its process hung, or
// died without Close) loses its sessions after LeaseTTL; its next write
// fails with ErrSessionBusy instead of interleaving with the new
// holder's.
func TestLeaseExpires(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	const ttl = 300 * time.Millisecond
	a := open(t, sqlitestore.Options{Path: path, LeaseTTL: ttl})
	sess := newSession(t, a)
	mustAppend(t, a, sess.ID, userMsg(t, "a"))
	// A lease renewed by a live Store does not expire.
	time.Sleep(2 * ttl)
	b := open(t, sqlitestore.Options{Path: path, LeaseTTL: ttl})
	if _, err := b.Append(t.Context(), sess.ID, userMsg(t, "b")); !errors.Is(err, session.ErrSessionBusy) {
		t.Fatalf("Append while a live Store renews its lease: %v, want ErrSessionBusy", err)
	}
	// Simulate a hung holder: its lease is not renewed (as after a kill).
	hang(t, path, sess.ID)
	time.Sleep(ttl + 50*time.Millisecond)
	mustAppend(t, b, sess.ID, userMsg(t, "b took over"))
	if _, err := a.Append(t.Context(), sess.ID, userMsg(t, "a again")); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("old holder's Append after losing its lease: %v, want ErrSessionBusy", err)
	}
	tr := mustLoad(t, b, sess.ID, true)
	if len(tr.Entries) != 2 || len(tr.Problems) != 0 {
		t.Errorf("entries %d, problems %v; want 2, none", len(tr.Entries), tr.Problems)
	}
}

// hang makes session id's lease expire as if its holder had stopped
// renewing it: its expiry is set to now, and a trigger keeps the
// holder's renewals from moving it.
func hang(t *testing.T, path, id string) {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		fmt.Sprintf(`CREATE TRIGGER hang AFTER UPDATE OF lease_expires ON sessions WHEN NEW.id = '%s' AND NEW.lease_owner = OLD.lease_owner
			BEGIN UPDATE sessions SET lease_expires = OLD.lease_expires WHERE id = NEW.id; END`, id),
		fmt.Sprintf(`UPDATE sessions SET lease_expires = %d WHERE id = '%s'`, time.Now().UnixMilli(), id),
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConcurrentSessions appends to many sessions at once from two
// Stores on one file: every entry is there, each chain linear.
func TestConcurrentSessions(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	stores := []*sqlitestore.Store{open(t, sqlitestore.Options{Path: path}), open(t, sqlitestore.Options{Path: path})}
	const sessions, each = 8, 25
	ids := make([]string, sessions)
	for i := range ids {
		ids[i] = newSession(t, stores[0]).ID
	}
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for i, id := range ids {
		st := stores[i%2]
		wg.Go(func() {
			for j := range each {
				if _, err := st.Append(t.Context(), id, userMsg(t, fmt.Sprint(i, " ", j)), assistantMsg(t, "ok")); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, id := range ids {
		tr := mustLoad(t, stores[1], id, true)
		if len(tr.Entries) != 2*each || len(tr.Problems) != 0 {
			t.Fatalf("session %s: %d entries, problems %v", id, len(tr.Entries), tr.Problems)
		}
		for k := 1; k < len(tr.Entries); k++ {
			if tr.Entries[k].ParentUUID != tr.Entries[k-1].UUID {
				t.Fatalf("session %s: chain broken at %d", id, k)
			}
		}
	}
}

// TestGarbageFile: a file that is not a database gives ErrNotDatabase
// naming the file, and is left as it was.
func TestGarbageFile(t *testing.T) {
	t.Parallel()
	for name, content := range map[string][]byte{
		"text":          []byte(strings.Repeat("this is not a database\n", 300)),
		"jsonl":         []byte(`{"type":"user","uuid":"x"}` + "\n"),
		"header only":   []byte("SQLite format 3\x00" + strings.Repeat("\xff", 84)),
		"corrupt pages": corruptDB(t),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := dbPath(t)
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := sqlitestore.Open(sqlitestore.Options{Path: path})
			if err == nil {
				// A file whose header is sound may open; reading it must
				// then fail clearly.
				_, err = s.List(t.Context(), session.ListOptions{})
				_ = s.Close()
			}
			if !errors.Is(err, sqlitestore.ErrNotDatabase) || !strings.Contains(err.Error(), path) && name != "corrupt pages" {
				t.Errorf("error %v, want ErrNotDatabase naming %s", err, path)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, content) {
				t.Errorf("the file was changed")
			}
		})
	}
}

// corruptDB returns a real database with its pages after the first
// overwritten.
func corruptDB(t *testing.T) []byte {
	path := dbPath(t)
	s, err := sqlitestore.Open(sqlitestore.Options{Path: path, GitBranch: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	sess := newSession(t, s)
	mustAppend(t, s, sess.ID, userMsg(t, "x"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4096; i < len(b); i++ {
		b[i] = 0xa5
	}
	return b
}

// TestNewerSchema: a database written by a later version is refused.
func TestNewerSchema(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	open(t, sqlitestore.Options{Path: path}).Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO schema_version (version, name) VALUES (?, 'future')`, sqlitestore.SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	if _, err := sqlitestore.Open(sqlitestore.Options{Path: path}); !errors.Is(err, sqlitestore.ErrNewerSchema) {
		t.Errorf("Open: %v, want ErrNewerSchema", err)
	}
}

// TestReopen: a second Open of the same file applies no migration again
// and keeps the sessions.
func TestReopen(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	s := open(t, sqlitestore.Options{Path: path})
	sess := newSession(t, s)
	mustAppend(t, s, sess.ID, userMsg(t, "q"), boundaryEntry(1), summaryEntry(t, "s"), userMsg(t, "after"))
	want := mustLoad(t, s, sess.ID, false)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, sqlitestore.Options{Path: path})
	got := mustLoad(t, s, sess.ID, false)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("after reopening (-before +after):\n%s", d)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("database file mode %v, %v; want 0600", st.Mode(), err)
	}
}

// TestSameBytesAsJSONL: the same appends to a JSONL store and an SQLite
// store give the same lines, and the live part starts at the same byte
// offset.
func TestSameBytesAsJSONL(t *testing.T) {
	t.Parallel()
	now := func() time.Time { return time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC) }
	js, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Now: now, Version: "v", GitBranch: func(string) string { return "main" }})
	if err != nil {
		t.Fatal(err)
	}
	defer js.Close()
	ss := open(t, sqlitestore.Options{Path: dbPath(t), Now: now, Version: "v", GitBranch: func(string) string { return "main" }})
	var lines [2][][]byte
	var live [2]int64
	for k, st := range []session.Store{js, ss} {
		_, err := st.Create(t.Context(), session.Session{ID: "same", Project: "/p"})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			es := []session.Entry{userMsg(t, fmt.Sprint("q", i)), assistantMsg(t, "a <&>")}
			for j := range es {
				es[j].UUID = fmt.Sprintf("u-%d-%d", i, j)
			}
			mustAppend(t, st, "same", es...)
		}
		b, s := boundaryEntry(1), summaryEntry(t, "sum")
		b.UUID, s.UUID = "b", "s"
		mustAppend(t, st, "same", b, s)
		_, entries, err := st.(session.Exporter).Export(t.Context(), "same")
		if err != nil {
			t.Fatal(err)
		}
		for e, err := range entries {
			if err != nil {
				t.Fatal(err)
			}
			lines[k] = append(lines[k], e.Raw)
		}
		live[k] = mustLoad(t, st, "same", false).Offset
	}
	if d := cmp.Diff(lines[0], lines[1]); d != "" {
		t.Errorf("lines (-jsonl +sqlite):\n%s", d)
	}
	if live[0] != live[1] || live[0] == 0 {
		t.Errorf("live part at byte %d in JSONL, %d in SQLite", live[0], live[1])
	}
}

// TestLoadIncompleteBoundary: a boundary followed by fewer entries than
// it announces is skipped; Load starts at the previous one.
func TestLoadIncompleteBoundary(t *testing.T) {
	t.Parallel()
	s := open(t, sqlitestore.Options{Path: dbPath(t)})
	sess := newSession(t, s)
	mustAppend(t, s, sess.ID, userMsg(t, "q"))
	good := mustAppend(t, s, sess.ID, boundaryEntry(1), summaryEntry(t, "s1"), userMsg(t, "q2"))
	mustAppend(t, s, sess.ID, boundaryEntry(3), summaryEntry(t, "s2")) // announces 3, has 1
	tr := mustLoad(t, s, sess.ID, false)
	if len(tr.Entries) == 0 || tr.Entries[0].UUID != good[0].UUID {
		t.Errorf("live part starts at %v, want the complete boundary %s", uuidsOf(tr.Entries), good[0].UUID)
	}
}
