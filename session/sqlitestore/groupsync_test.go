package sqlitestore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
)

// openTest opens a store on a fresh file, closed at the end of the test
// (its fsync hook cleared first).
func openTest(t *testing.T) *Store {
	t.Helper()
	s, err := Open(Options{Path: filepath.Join(t.TempDir(), "s.db"), GitBranch: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.setHook(nil)
		s.group.mu.Lock()
		failed := s.group.err != nil // TestGroupSyncFailed's Close fails too
		s.group.mu.Unlock()
		if err := s.Close(); err != nil && !errors.Is(err, session.ErrClosed) && !failed {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// setHook sets the function called before each fsync of the log.
func (s *Store) setHook(h func(target int64)) {
	s.group.mu.Lock()
	s.group.hook = h
	s.group.mu.Unlock()
}

// fsyncs returns how many fsyncs of the log ran.
func (s *Store) fsyncs() int64 {
	s.group.mu.Lock()
	defer s.group.mu.Unlock()
	return s.group.syncs
}

// turnEnd returns an assistant message without tool calls: under
// SyncTurn its Append is durable.
func turnEnd(t *testing.T, text string) session.Entry {
	t.Helper()
	e, err := session.NewMessageEntry(chat.NewText(chat.RoleAssistant, text))
	if err != nil {
		t.Fatal(err)
	}
	if !session.EndsTurn(&e) {
		t.Fatal("the entry does not end a turn")
	}
	return e
}

// newSessions creates n sessions and returns their ids.
func newSessions(t *testing.T, s *Store, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		sess, err := s.Create(t.Context(), session.Session{Project: "/p"})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = sess.ID
	}
	return ids
}

// TestGroupSyncShared: turn ends committed while an fsync runs share the
// next one. The first fsync is held until every writer has committed,
// so the other seven wait for one more fsync between them: two fsyncs
// for eight durable appends, where a sync per commit takes eight.
func TestGroupSyncShared(t *testing.T) {
	s := openTest(t)
	const writers = 8
	ids := newSessions(t, s, writers)
	base := s.commits.Load()
	before := s.fsyncs()
	first := true
	s.setHook(func(int64) {
		if !first {
			return
		}
		first = false // only one caller runs the hook at a time
		deadline := time.Now().Add(10 * time.Second)
		for s.commits.Load() < base+writers && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	})
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i, id := range ids {
		wg.Go(func() {
			_, errs[i] = s.Append(t.Context(), id, turnEnd(t, fmt.Sprint("done ", i)))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	if got := s.commits.Load() - base; got != writers {
		t.Fatalf("%d commits, want %d", got, writers)
	}
	if got := s.fsyncs() - before; got != 2 {
		t.Errorf("%d fsyncs for %d durable appends committed during the first one, want 2", got, writers)
	}
	if !s.group.durableUpTo(s.commits.Load()) {
		t.Error("the last commit is not marked durable")
	}
}

// durableUpTo reports whether commit n is known durable.
func (g *groupSync) durableUpTo(n int64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.synced >= n
}

// TestGroupSyncNotDurable: appends that end no turn wait for no fsync;
// Store.Sync then runs one, and a second Sync with nothing new none.
func TestGroupSyncNotDurable(t *testing.T) {
	s := openTest(t)
	id := newSessions(t, s, 1)[0]
	before := s.fsyncs()
	for i := range 5 {
		e, err := session.NewMessageEntry(chat.NewText(chat.RoleUser, fmt.Sprint("prompt ", i)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(t.Context(), id, e); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.fsyncs() - before; got != 0 {
		t.Errorf("%d fsyncs for appends that end no turn, want 0", got)
	}
	for range 2 {
		if err := s.Sync(t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.fsyncs() - before; got != 1 {
		t.Errorf("%d fsyncs after two Syncs, want 1", got)
	}
}

// TestGroupSyncBoundaries: under SyncTurn an automatic compaction made
// locally (its boundary and snapshot) waits for no fsync, a manual one
// and a model's summary each for one (session.SyncsAtTurn).
func TestGroupSyncBoundaries(t *testing.T) {
	s := openTest(t)
	id := newSessions(t, s, 1)[0]
	note, err := session.NewMessageEntry(chat.NewText(chat.RoleUser, "compaction note"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		meta session.CompactMetadata
		want int64
	}{
		{session.CompactMetadata{Trigger: "auto", Strategy: "tiered", Level: "L2", Messages: 1}, 0},
		{session.CompactMetadata{Trigger: "auto", Level: "L3", Summarizer: "extractive", Messages: 1}, 0},
		{session.CompactMetadata{Trigger: "manual", Level: "L1", Messages: 1}, 1},
		{session.CompactMetadata{Trigger: "auto", Level: "L3", Summarizer: "llm:openai/gpt-5-mini", Messages: 1}, 1},
	} {
		before := s.fsyncs()
		b := session.Entry{Type: session.TypeSystem, Subtype: session.SubtypeCompactBoundary, CompactMetadata: &c.meta}
		if _, err := s.Append(t.Context(), id, b, note); err != nil {
			t.Fatal(err)
		}
		if got := s.fsyncs() - before; got != c.want {
			t.Errorf("trigger %s, summarizer %q: %d fsyncs, want %d", c.meta.Trigger, c.meta.Summarizer, got, c.want)
		}
	}
}

// image is a copy of the database's files as an fsync of the log found
// them when it started: what a power loss right after that fsync leaves.
type image struct{ db, wal []byte }

// TestGroupSyncDurable simulates a power loss: each fsync of the log
// copies the database and its log as they are when it starts (what that
// fsync makes durable). Writers on eight sessions append turn ends
// concurrently; each acknowledged entry must be in the copy taken by
// the last fsync started before Append returned, opened as SQLite opens
// a database after a crash (the log's index rebuilt from its file).
func TestGroupSyncDurable(t *testing.T) {
	s := openTest(t)
	const writers, rounds = 8, 6
	ids := newSessions(t, s, writers)
	var (
		mu     sync.Mutex
		images []image
	)
	s.setHook(func(int64) {
		// Under the writer lock no commit starts the log over while it
		// is copied; the checkpointer only copies frames into the
		// database, which the log holds anyway.
		s.wmu.Lock()
		defer s.wmu.Unlock()
		wal, err := os.ReadFile(s.path + "-wal")
		if err != nil {
			panic(err)
		}
		db, err := os.ReadFile(s.path)
		if err != nil {
			panic(err)
		}
		mu.Lock()
		images = append(images, image{db: db, wal: wal})
		mu.Unlock()
	})
	type ack struct {
		id, uuid string
		image    int // the last image taken before Append returned
	}
	var (
		wg   sync.WaitGroup
		acks = make([][]ack, writers)
		errs = make([]error, writers)
	)
	for w, id := range ids {
		wg.Go(func() {
			for r := range rounds {
				out, err := s.Append(context.Background(), id, turnEnd(t, fmt.Sprintf("writer %d round %d", w, r)))
				if err != nil {
					errs[w] = err
					return
				}
				mu.Lock()
				n := len(images) - 1
				mu.Unlock()
				acks[w] = append(acks[w], ack{id: id, uuid: out[0].UUID, image: n})
			}
		})
	}
	wg.Wait()
	s.setHook(nil)
	for w, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", w, err)
		}
	}
	if len(images) >= writers*rounds {
		t.Logf("%d fsyncs for %d durable appends: none shared", len(images), writers*rounds)
	}
	// Open each image acknowledgements point to and look for them.
	byImage := map[int][]ack{}
	for _, as := range acks {
		for _, a := range as {
			if a.image < 0 {
				t.Fatalf("entry %s acknowledged before any fsync", a.uuid)
			}
			byImage[a.image] = append(byImage[a.image], a)
		}
	}
	for k, as := range byImage {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.db")
		if err := os.WriteFile(path, images[k].db, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+"-wal", images[k].wal, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := Open(Options{Path: path, GitBranch: func(string) string { return "" }})
		if err != nil {
			t.Fatalf("image %d: %v", k, err)
		}
		for _, a := range as {
			tr, err := r.Load(t.Context(), a.id, session.LoadOptions{All: true})
			if err != nil {
				t.Fatalf("image %d: %v", k, err)
			}
			found := false
			for _, e := range tr.Entries {
				found = found || e.UUID == a.uuid
			}
			if !found {
				t.Errorf("entry %s of session %s acknowledged after fsync %d is not in what that fsync made durable", a.uuid, a.id, k)
			}
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d durable appends, %d fsyncs, %d images checked", writers*rounds, len(images), len(byImage))
}

// TestGroupSyncFailed: once an fsync of the log fails, every later
// durable write fails with its error (the log's state on disk is
// unknown); writes that need no fsync go on.
func TestGroupSyncFailed(t *testing.T) {
	s := openTest(t)
	id := newSessions(t, s, 1)[0]
	// Break the log's file under the syncer: its next fsync fails.
	s.group.mu.Lock()
	if s.group.wal == nil {
		s.group.mu.Unlock()
		t.Fatal("Create ran no fsync")
	}
	_ = s.group.wal.Close()
	s.group.mu.Unlock()
	if _, err := s.Append(t.Context(), id, turnEnd(t, "done")); err == nil || !strings.Contains(err.Error(), "fsync of the write-ahead log") {
		t.Fatalf("durable Append with a failing fsync: %v, want the fsync's error", err)
	}
	if _, err := s.Append(t.Context(), id, turnEnd(t, "done again")); err == nil {
		t.Error("durable Append after a failed fsync succeeded")
	}
	e, err := session.NewMessageEntry(chat.NewText(chat.RoleUser, "next"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(t.Context(), id, e); err != nil {
		t.Errorf("Append that needs no fsync: %v", err)
	}
	if err := s.Sync(t.Context(), id); err == nil {
		t.Error("Sync after a failed fsync succeeded")
	}
}
