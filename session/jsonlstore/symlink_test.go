package jsonlstore_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// TestSymlinkedSession plants <id>.jsonl symbolic links in a project
// folder of the store, one to a session file outside the store, one to a
// FIFO: no operation follows them. List skips them; Get, Load, Append,
// Update, Lock, Path and Delete fail with ErrNotRegular naming the file,
// at once (the FIFO would block a read forever); the target is untouched.
func TestSymlinkedSession(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	root := t.TempDir()
	s := open(t, jsonlstore.Options{Root: root})
	sound := newSession(t, s)
	mustAppend(t, s, sound.ID, userMsg(t, "a sound session"))
	dir := filepath.Dir(mustPath(t, s, sound.ID))

	// The target: a valid session file outside the store.
	outside := filepath.Join(t.TempDir(), "victim.jsonl")
	victim, err := os.ReadFile(mustPath(t, s, sound.ID))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, victim, 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	const linked, piped = "linked-session", "piped-session"
	for id, target := range map[string]string{linked: outside, piped: fifo} {
		if err := os.Symlink(target, filepath.Join(dir, id+".jsonl")); err != nil {
			t.Fatal(err)
		}
	}

	all, err := s.List(ctx, session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].ID != sound.ID {
		t.Errorf("List: %v, want only the sound session", all)
	}
	for _, id := range []string{linked, piped} {
		for name, op := range map[string]func() error{
			"Get":    func() error { _, err := s.Get(ctx, id); return err },
			"Load":   func() error { _, err := s.Load(ctx, id, session.LoadOptions{All: true}); return err },
			"Append": func() error { _, err := s.Append(ctx, id, userMsg(t, "written through the link")); return err },
			"Update": func() error {
				_, err := s.Update(ctx, id, func(*session.Session) error { return nil })
				return err
			},
			"Lock":   func() error { return s.Lock(ctx, id) },
			"Path":   func() error { _, err := s.Path(id); return err },
			"Delete": func() error { return s.Delete(ctx, id) },
		} {
			err := op()
			if !errors.Is(err, jsonlstore.ErrNotRegular) || !strings.Contains(err.Error(), filepath.Join(dir, id+".jsonl")+" is a symbolic link") {
				t.Errorf("%s of %s: %v, want ErrNotRegular naming the link", name, id, err)
			}
		}
	}
	if got, err := os.ReadFile(outside); err != nil || !bytes.Equal(got, victim) {
		t.Errorf("the link's target changed (err %v):\n%s", err, got)
	}
	if _, err := os.Lstat(filepath.Join(dir, linked+".jsonl")); err != nil {
		t.Errorf("the link is gone: %v", err)
	}
	// Create refuses the id as well, and the sound session still works.
	if _, err := s.Create(ctx, session.Session{ID: linked, Project: sound.Project}); err == nil {
		t.Error("Create over a symbolic link succeeded")
	}
	mustAppend(t, s, sound.ID, userMsg(t, "still writable"))
}

// TestSymlinkedSidecar replaces a session's sidecar by a link to a FIFO:
// readers do not block on it; the sidecar is rebuilt from the transcript.
func TestSymlinkedSidecar(t *testing.T) {
	t.Parallel()
	s := open(t, jsonlstore.Options{Root: t.TempDir()})
	sess := newSession(t, s)
	mustAppend(t, s, sess.ID, userMsg(t, "hello"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	path := mustPath(t, open(t, jsonlstore.Options{Root: s.Root()}), sess.ID)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(sidecar(path)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fifo, sidecar(path)); err != nil {
		t.Fatal(err)
	}
	s2 := open(t, jsonlstore.Options{Root: s.Root()})
	got, err := s2.Get(t.Context(), sess.ID)
	if err != nil || got.Entries != 1 {
		t.Errorf("Get with a FIFO as sidecar: %+v, %v", got, err)
	}
	if tr := mustLoad(t, s2, sess.ID, true); len(tr.Entries) != 1 {
		t.Errorf("Load: %d entries, want 1", len(tr.Entries))
	}
}
