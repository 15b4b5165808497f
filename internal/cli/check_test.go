package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
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
	st, s := createStored(t, home)
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
		code, _, errOut := run(t, "sessions", "check", "--store", "jsonl:"+home, s.ID, "--repair", "--out", path, "--force")
		if code != ExitError || !strings.Contains(errOut, "is the transcript being checked") {
			t.Fatalf("--out <the session's file> --force: exit %d, %q", code, errOut)
		}
		code, out, errOut := run(t, "sessions", "check", "--store", "jsonl:"+home, s.ID, "--repair", "--in-place")
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
	mustRun(t, ExitOK, "sessions", "check", "--store", "jsonl:"+home, s.ID)
}

// TestCheckRepairTruncated truncates a stored session that has
// compactions at 100 random offsets (a crash mid-write, mid-compaction
// included), half of them followed by an append of a writer that resumed
// after the crash: `sessions check --repair --in-place` then leaves a
// transcript that checks OK and loads without problems, with the entry
// appended after the crash, and that accepts appends.
func TestCheckRepairTruncated(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	home := t.TempDir()
	st, s := createStored(t, home)
	msg := func(role chat.Role, text string) session.Entry {
		e, err := session.NewMessageEntry(chat.NewText(role, text))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for round := range 3 {
		for i := range 3 {
			mustAppendCLI(t, st, s.ID, msg(chat.RoleUser, fmt.Sprintf("prompt %d.%d", round, i)), msg(chat.RoleAssistant, strings.Repeat("answer ", 10)))
		}
		summary := msg(chat.RoleUser, fmt.Sprintf("summary of round %d", round))
		summary.IsCompactSummary = true
		boundary := session.Entry{Type: session.TypeSystem, Subtype: session.SubtypeCompactBoundary,
			CompactMetadata: &session.CompactMetadata{Trigger: "auto", Messages: 3}}
		mustAppendCLI(t, st, s.ID, boundary, summary, msg(chat.RoleUser, "kept prompt"), msg(chat.RoleAssistant, "kept answer"))
	}
	path, err := st.Path(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 14))
	notOK := 0
	for trial := range 100 {
		cut := 1 + r.IntN(len(data)-1)
		if err := os.WriteFile(path, data[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		var after string
		if trial%2 == 1 {
			w, err := jsonlstore.Open(jsonlstore.Options{Root: home, Sync: jsonlstore.SyncNever})
			if err != nil {
				t.Fatal(err)
			}
			after = mustAppendCLI(t, w, s.ID, msg(chat.RoleUser, "after the crash"))[0].UUID
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		var cj checkJSON
		code, out, errOut := run(t, "sessions", "check", "--store", "jsonl:"+home, s.ID, "--repair", "--in-place", "--json")
		if err := json.Unmarshal([]byte(out), &cj); err != nil || !cj.OK {
			notOK++ // before the repair
		}
		if code != ExitOK || cj.Repaired == nil || !cj.Repaired.OK {
			t.Fatalf("trial %d (cut at byte %d): repair exit %d\n%s\n%s", trial, cut, code, out, errOut)
		}
		if code, out, _ := run(t, "sessions", "check", "--store", "jsonl:"+home, s.ID); code != ExitOK || !strings.Contains(out, "no problems: OK") {
			t.Fatalf("trial %d (cut at byte %d): check after repair: exit %d\n%s", trial, cut, code, out)
		}
		w, err := jsonlstore.Open(jsonlstore.Options{Root: home, Sync: jsonlstore.SyncNever})
		if err != nil {
			t.Fatal(err)
		}
		for _, all := range []bool{false, true} {
			tr, err := w.Load(ctx, s.ID, session.LoadOptions{All: all})
			if err != nil || len(tr.Problems) != 0 {
				t.Fatalf("trial %d (cut at byte %d): load (all %v) after repair: %v, problems %v", trial, cut, all, err, tr.Problems)
			}
			if all && after != "" && (len(tr.Entries) == 0 || tr.Entries[len(tr.Entries)-1].UUID != after) {
				b, _ := os.ReadFile(path)
				bak, _ := os.ReadFile(path + ".bak")
				t.Errorf("trial %d (cut at byte %d): the entry appended after the crash is not last: %d entries\nbefore:\n%s\nafter:\n%s", trial, cut, len(tr.Entries), bak[max(0, len(bak)-3000):], b[max(0, len(b)-3000):])
			}
		}
		mustAppendCLI(t, w, s.ID, msg(chat.RoleUser, "after the repair"))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d of 100 truncated sessions were not OK before the repair", notOK)
}

// createStored opens the store at home and creates a session of project
// /p in it. The caller closes the store.
func createStored(t *testing.T, home string) (*jsonlstore.Store, session.Session) {
	t.Helper()
	st, err := jsonlstore.Open(jsonlstore.Options{Root: home, Sync: jsonlstore.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Create(t.Context(), session.Session{Project: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	return st, s
}

// mustAppendCLI appends es to session id of st.
func mustAppendCLI(t *testing.T, st *jsonlstore.Store, id string, es ...session.Entry) []session.Entry {
	t.Helper()
	out, err := st.Append(t.Context(), id, es...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCheckTornTailWarning checks a session that a crash left with a torn
// line, after which its writer resumed: loading recovered it, so check
// reports a warning and exits 0, and --repair --in-place removes it.
func TestCheckTornTailWarning(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	st, s := createStored(t, home)
	e, err := session.NewMessageEntry(chat.NewText(chat.RoleUser, "before the crash"))
	if err != nil {
		t.Fatal(err)
	}
	mustAppendCLI(t, st, s.ID, e)
	path, err := st.Path(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"uuid":"torn","parentUu`); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = jsonlstore.Open(jsonlstore.Options{Root: home})
	if err != nil {
		t.Fatal(err)
	}
	e, err = session.NewMessageEntry(chat.NewText(chat.RoleUser, "after the crash"))
	if err != nil {
		t.Fatal(err)
	}
	mustAppendCLI(t, st, s.ID, e)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, ExitOK, "sessions", "check", "--store", "jsonl:"+home, s.ID)
	if !strings.Contains(out, "2 warnings (1 torn-line, 1 after-torn-line): OK") {
		t.Errorf("check of a recovered torn line:\n%s", out)
	}
	var cj checkJSON
	if err := json.Unmarshal([]byte(mustRun(t, ExitOK, "sessions", "check", "--store", "jsonl:"+home, s.ID, "--json")), &cj); err != nil {
		t.Fatal(err)
	}
	if !cj.OK || cj.Report.Warnings != 2 {
		t.Errorf("--json: ok %v, warnings %d", cj.OK, cj.Report.Warnings)
	}
	mustRun(t, ExitOK, "sessions", "check", "--store", "jsonl:"+home, s.ID, "--repair", "--in-place")
	if out := mustRun(t, ExitOK, "sessions", "check", "--store", "jsonl:"+home, s.ID); !strings.Contains(out, "no problems: OK") {
		t.Errorf("check after the repair:\n%s", out)
	}
}

// TestSessionsSymlinkRefused plants a <id>.jsonl symbolic link to a file
// outside the store: show, check and rm refuse it, naming the link, and
// the file it names is untouched.
func TestSessionsSymlinkRefused(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	st, s := createStored(t, home)
	e, err := session.NewMessageEntry(chat.NewText(chat.RoleUser, "hello"))
	if err != nil {
		t.Fatal(err)
	}
	mustAppendCLI(t, st, s.ID, e)
	path, err := st.Path(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "target.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, data, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(filepath.Dir(path), "linked.jsonl")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"sessions", "show"}, {"sessions", "check"}, {"sessions", "rm"}} {
		code, _, errOut := run(t, append(args, "--store", "jsonl:"+home, "linked")...)
		if code != ExitError || !strings.Contains(errOut, link+" is a symbolic link") {
			t.Errorf("%s of a symbolic link: exit %d, %q", strings.Join(args, " "), code, errOut)
		}
	}
	if got, err := os.ReadFile(outside); err != nil || string(got) != string(data) {
		t.Errorf("the link's target changed (%v)", err)
	}
	out := mustRun(t, ExitOK, "sessions", "list", "--store", "jsonl:"+home, "--all")
	if strings.Contains(out, "linked") {
		t.Errorf("list shows the link:\n%s", out)
	}
}
