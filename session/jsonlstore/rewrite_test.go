package jsonlstore_test

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// TestRewrite replaces a transcript through Store.Rewrite and RewriteFile:
// refused while another Store writes the session, the backup kept, the
// sidecar rebuilt with the caller's fields, and a Store that held the
// lock goes on appending to the new file.
func TestRewrite(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	root := t.TempDir()
	s := open(t, jsonlstore.Options{Root: root})
	sess := newSession(t, s)
	mustAppend(t, s, sess.ID, userMsg(t, "one"), assistantMsg(t, "two"))
	if _, err := s.Update(ctx, sess.ID, func(x *session.Session) error { x.Title = "kept"; return nil }); err != nil {
		t.Fatal(err)
	}
	path := mustPath(t, s, sess.ID)
	appendRaw(t, path, []byte("garbage\n"))
	dropGarbage := func(src io.Reader, dst io.Writer) error {
		b, err := io.ReadAll(src)
		if err != nil {
			return err
		}
		_, err = io.WriteString(dst, strings.ReplaceAll(string(b), "garbage\n", ""))
		return err
	}

	other := open(t, jsonlstore.Options{Root: root})
	if _, err := other.Rewrite(ctx, sess.ID, dropGarbage); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("Rewrite while another Store writes: %v, want ErrSessionBusy", err)
	}
	if _, err := jsonlstore.RewriteFile(ctx, path, dropGarbage); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("RewriteFile while a Store writes: %v, want ErrSessionBusy", err)
	}
	boom := errors.New("boom")
	if _, err := s.Rewrite(ctx, sess.ID, func(io.Reader, io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("Rewrite with a failing fn: %v", err)
	}
	backup, err := s.Rewrite(ctx, sess.ID, dropGarbage)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(backup); err != nil || !strings.Contains(string(b), "garbage") || backup != path+".bak" {
		t.Errorf("backup %s: %v", backup, err)
	}
	// The Store that held the lock keeps writing, to the new file.
	mustAppend(t, s, sess.ID, userMsg(t, "three"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	tr := mustLoad(t, other, sess.ID, true)
	if len(tr.Entries) != 3 || len(tr.Problems) != 0 || tr.Session.Title != "kept" || tr.Session.Entries != 3 {
		t.Errorf("after Rewrite: %d entries, problems %v, session %+v", len(tr.Entries), tr.Problems, tr.Session)
	}
	appendRaw(t, path, []byte("garbage\n"))
	if _, err := jsonlstore.RewriteFile(ctx, path, dropGarbage); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "garbage") {
		t.Error("RewriteFile left the garbage")
	}
}
