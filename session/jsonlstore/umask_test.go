//go:build unix

package jsonlstore_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// TestModesWithoutUmask checks that the store sets 0600 and 0700 itself
// rather than relying on the umask: with a umask of 0 every file and
// folder it creates (temporary files renamed into place included) still
// has those modes. It changes the process umask, so it does not run in
// parallel (and parallel tests wait until it returns).
func TestModesWithoutUmask(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	root := filepath.Join(t.TempDir(), "store")
	s, err := jsonlstore.Open(jsonlstore.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Create(t.Context(), session.Session{Project: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, sess.ID, userMsg(t, "q"), boundaryEntry(1), summaryEntry(t, "s"))
	if _, err := s.Update(t.Context(), sess.ID, func(m *session.Session) error { m.Title = "t"; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := d.Info()
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, st.Mode().Perm(), want)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 6 { // root, projects, project folder, project.json, transcript, sidecar
		t.Errorf("walked %d paths, want 6", n)
	}
}
