package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// TestCheckRepairInPlaceWriter repairs a stored session while a writer
// appends to it (opening the store, appending, closing, as successive
// agent runs do, waiting for the session's lock): `--repair --out <the
// session's own file> --force` is refused and changes nothing,
// `--repair --in-place` repairs under the lock and keeps a backup, and
// no entry the writer was told is written is lost.
func TestCheckRepairInPlaceWriter(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	st, err := jsonlstore.Open(jsonlstore.Options{Root: home})
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Create(t.Context(), session.Session{Project: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	path, err := st.Path(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// A malformed line, for the repair to drop.
	if err := os.WriteFile(path, []byte("not an entry\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	ctx, stop := context.WithCancel(t.Context())
	var (
		wg    sync.WaitGroup
		acked []string
		werr  error
		count atomic.Int64
	)
	wg.Go(func() {
		for n := 0; ctx.Err() == nil; {
			w, err := jsonlstore.Open(jsonlstore.Options{Root: home, LockTimeout: 5 * time.Second, Sync: jsonlstore.SyncNever})
			if err != nil {
				werr = err
				return
			}
			for range 3 {
				e, err := session.NewMessageEntry(chat.NewText(chat.RoleUser, "entry "+strings.Repeat("x", n%50)))
				if err != nil {
					werr = err
					return
				}
				out, err := w.Append(context.Background(), s.ID, e)
				if err != nil {
					werr = err
					return
				}
				acked = append(acked, out[0].UUID)
				count.Add(1)
				n++
			}
			if err := w.Close(); err != nil {
				werr = err
				return
			}
			time.Sleep(time.Millisecond)
		}
	})
	repaired, busy := 0, 0
	// Repair until the writer has written 150 entries across the
	// repairs.
	for try := 0; try < 5000 && (repaired < 5 || count.Load() < 150); try++ {
		time.Sleep(time.Millisecond)
		code, _, errOut := run(t, "sessions", "check", "--home", home, s.ID, "--repair", "--out", path, "--force")
		if code != ExitError || !strings.Contains(errOut, "is the transcript being checked") {
			t.Fatalf("--out <the session's file> --force: exit %d, %q", code, errOut)
		}
		code, out, errOut := run(t, "sessions", "check", "--home", home, s.ID, "--repair", "--in-place")
		switch {
		case code == ExitOK && strings.Contains(out, "the original is kept as "+path+".bak"):
			repaired++
		case code == ExitError && strings.Contains(errOut, "another process is writing this session"):
			busy++
		default:
			t.Fatalf("--in-place: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	}
	stop()
	wg.Wait()
	if werr != nil {
		t.Fatalf("writer: %v", werr)
	}
	if repaired == 0 {
		t.Fatalf("no in-place repair got the lock in %d tries", busy)
	}
	t.Logf("%d in-place repairs, %d refused as busy, %d entries acknowledged", repaired, busy, len(acked))

	st, err = jsonlstore.Open(jsonlstore.Options{Root: home})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tr, err := st.Load(t.Context(), s.ID, session.LoadOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	loaded := map[string]bool{}
	for _, e := range tr.Entries {
		loaded[e.UUID] = true
	}
	lost := 0
	for _, u := range acked {
		if !loaded[u] {
			lost++
		}
	}
	if lost > 0 || len(tr.Entries) != len(acked) {
		t.Errorf("%d of %d acknowledged entries lost; %d loaded", lost, len(acked), len(tr.Entries))
	}
	if len(tr.Problems) != 0 {
		t.Errorf("problems after the repairs: %v", tr.Problems)
	}
	if got, err := st.Get(t.Context(), s.ID); err != nil || got.Entries != len(acked) {
		t.Errorf("sidecar after the repairs: %+v, %v", got, err)
	}
	if _, err := os.Stat(path + ".bak"); err != nil {
		t.Errorf("backup: %v", err)
	}
	if tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.tmp")); len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
	mustRun(t, ExitOK, "sessions", "check", "--home", home, s.ID)
}
