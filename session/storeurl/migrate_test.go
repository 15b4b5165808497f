package storeurl

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/session/sqlitestore"
)

// seedJSONL writes n sessions to the JSONL store at home, as the
// previous default kept them: messages, a compaction, a title and
// metadata. It returns their ids.
func seedJSONL(t *testing.T, home string, n int) []string {
	t.Helper()
	js, err := jsonlstore.Open(jsonlstore.Options{Root: home, Sync: jsonlstore.SyncNever, Version: "agentctx"})
	if err != nil {
		t.Fatal(err)
	}
	defer js.Close()
	ctx := t.Context()
	var ids []string
	for i := range n {
		s, err := js.Create(ctx, session.Session{Project: filepath.Join(home, "p"+strconv.Itoa(i%2)), Origin: "chat", Model: "gpt-4o"})
		if err != nil {
			t.Fatal(err)
		}
		entry := func(r chat.Role, text string) session.Entry {
			e, err := session.NewMessageEntry(chat.NewText(r, text))
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		sum := entry(chat.RoleUser, "summary of the first turn")
		sum.IsCompactSummary = true
		boundary := session.Entry{Type: session.TypeSystem, Subtype: session.SubtypeCompactBoundary, CompactMetadata: &session.CompactMetadata{Trigger: "auto", PreTokens: 900, Messages: 2}}
		if _, err := js.Append(ctx, s.ID,
			entry(chat.RoleUser, "fix the parser, session "+strconv.Itoa(i)), entry(chat.RoleAssistant, "Reading it."),
			boundary, sum, entry(chat.RoleUser, "now the tests")); err != nil {
			t.Fatal(err)
		}
		if _, err := js.Update(ctx, s.ID, func(s *session.Session) error {
			s.Title = "fix the parser " + strconv.Itoa(i)
			s.Metadata = map[string]string{"k": strconv.Itoa(i)}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	return ids
}

// transcripts returns the bytes of every .jsonl file under home's
// projects folder, by path.
func transcripts(t *testing.T, home string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = string(b)
	}
	return out
}

// exported is a session as an Exporter gives it: metadata and lines.
type exported struct {
	ID, Project, Title, Model, Origin string
	Created                           int64
	Metadata                          map[string]string
	Lines                             []string
}

func export(t *testing.T, st session.Store, id string) exported {
	t.Helper()
	s, entries, err := st.(session.Exporter).Export(t.Context(), id)
	if err != nil {
		t.Fatalf("export %s: %v", id, err)
	}
	out := exported{ID: s.ID, Project: s.Project, Title: s.Title, Model: s.Model, Origin: s.Origin, Created: s.Created.UnixNano(), Metadata: s.Metadata}
	for e, err := range entries {
		if err != nil {
			t.Fatalf("export %s: %v", id, err)
		}
		out.Lines = append(out.Lines, string(e.Raw))
	}
	return out
}

// sameSessions checks that the database at home holds each session of
// the JSONL store at home, whole and byte for byte, and nothing else.
func sameSessions(t *testing.T, home string, ids []string) {
	t.Helper()
	js, err := jsonlstore.Open(jsonlstore.Options{Root: home})
	if err != nil {
		t.Fatal(err)
	}
	defer js.Close()
	db, err := sqlitestore.Open(sqlitestore.Options{Path: filepath.Join(home, sqlitestore.FileName)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, id := range ids {
		want, got := export(t, js, id), export(t, db, id)
		if len(want.Lines) != 5 {
			t.Fatalf("session %s: %d lines in the JSONL file, want 5", id, len(want.Lines))
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("session %s differs in the database (-jsonl +sqlite):\n%s", id, d)
		}
	}
	ss, err := db.List(t.Context(), session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != len(ids) {
		t.Errorf("the database holds %d sessions, want %d", len(ss), len(ids))
	}
}

// openDefault opens the default store at home and returns the migration
// it reported (nil when it reported none).
func openDefault(t *testing.T, home string) (*Migration, error) {
	t.Helper()
	var got *Migration
	st, err := Open("", Options{Home: home, Migrated: func(m Migration) { got = &m }})
	if err != nil {
		return got, err
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return got, nil
}

// TestMigrateDefault: the first open of the default store copies every
// JSONL session of the previous default into the database, byte for
// byte, and leaves the files as they were; the next open does nothing.
func TestMigrateDefault(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ids := seedJSONL(t, home, 4)
	before := transcripts(t, home)
	m, err := openDefault(t, home)
	if err != nil {
		t.Fatal(err)
	}
	if m == nil || m.Copied != 4 || m.Present != 0 || len(m.Failed) != 0 || m.From != home || m.To != filepath.Join(home, sqlitestore.FileName) {
		t.Fatalf("migration %+v, want 4 copied from %s", m, home)
	}
	sameSessions(t, home, ids)
	if d := cmp.Diff(before, transcripts(t, home)); d != "" {
		t.Errorf("the JSONL files changed (-before +after):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(home, MigratedFile)); err != nil {
		t.Errorf("no marker after a complete migration: %v", err)
	}
	if m, err := openDefault(t, home); err != nil || m != nil {
		t.Errorf("second open: migration %+v, %v; want none", m, err)
	}
	// An explicit URL never migrates.
	other := t.TempDir()
	seedJSONL(t, other, 1)
	for _, raw := range []string{"sqlite:", "sqlite:" + filepath.Join(other, "x.db")} {
		called := false
		st, err := Open(raw, Options{Home: other, Migrated: func(Migration) { called = true }})
		if err != nil {
			t.Fatal(err)
		}
		ss, err := st.List(t.Context(), session.ListOptions{})
		_ = st.Close()
		if err != nil || len(ss) != 0 || called {
			t.Errorf("Open(%q) migrated: %d sessions, called %v, %v", raw, len(ss), called, err)
		}
	}
}

// TestMigrateEmpty: a data folder without JSONL sessions migrates
// nothing and writes no marker, so sessions written there later by an
// older agentctx are still copied.
func TestMigrateEmpty(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if m, err := openDefault(t, home); err != nil || m != nil {
		t.Fatalf("migration %+v, %v; want none", m, err)
	}
	if _, err := os.Stat(filepath.Join(home, MigratedFile)); err == nil {
		t.Error("a marker without JSONL sessions")
	}
	ids := seedJSONL(t, home, 2)
	if m, err := openDefault(t, home); err != nil || m == nil || m.Copied != 2 {
		t.Fatalf("migration %+v, %v; want 2 copied", m, err)
	}
	sameSessions(t, home, ids)
}

// migrateExitAfter, in a test binary's environment, makes
// TestMigrateHelperProcess open the default store of $migrateHomeEnv and
// exit the process, as a kill would, after copying that many sessions.
const (
	migrateExitAfter = "STOREURL_MIGRATE_EXIT_AFTER"
	migrateHomeEnv   = "STOREURL_MIGRATE_HOME"
)

// TestMigrateHelperProcess is the process TestMigrateKilled kills: it
// does nothing unless started by it.
func TestMigrateHelperProcess(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv(migrateExitAfter))
	if err != nil {
		return
	}
	migrateHook = func(copied int) error {
		if copied == n {
			os.Exit(3) // no deferred cleanup, no Close: a crash
		}
		return nil
	}
	_, _ = Open("", Options{Home: os.Getenv(migrateHomeEnv)})
	os.Exit(4) // the hook did not run
}

// TestMigrateKilled: a process killed part-way through the migration
// loses nothing: the sessions it copied are whole in the database, the
// files are untouched, no marker says it finished, and the next open
// copies the rest.
func TestMigrateKilled(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ids := seedJSONL(t, home, 6)
	before := transcripts(t, home)
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestMigrateHelperProcess$")
	cmd.Env = append(os.Environ(), migrateExitAfter+"=2", migrateHomeEnv+"="+home)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("helper: %v, want exit 3 mid-migration; output %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, MigratedFile)); err == nil {
		t.Fatal("the marker is there after a killed migration")
	}
	db, err := sqlitestore.Open(sqlitestore.Options{Path: filepath.Join(home, sqlitestore.FileName)})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := db.List(t.Context(), session.ListOptions{})
	_ = db.Close()
	if err != nil || len(ss) != 2 {
		t.Fatalf("after the kill the database holds %d sessions (%v), want the 2 copied", len(ss), err)
	}
	m, err := openDefault(t, home)
	if err != nil {
		t.Fatal(err)
	}
	if m == nil || m.Copied != 4 || m.Present != 2 || len(m.Failed) != 0 {
		t.Fatalf("the next open: migration %+v, want 4 copied, 2 present", m)
	}
	sameSessions(t, home, ids)
	if d := cmp.Diff(before, transcripts(t, home)); d != "" {
		t.Errorf("the JSONL files changed (-before +after):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(home, MigratedFile)); err != nil {
		t.Errorf("no marker after the migration finished: %v", err)
	}
}

// TestMigrateTorn: a session whose file holds a torn line cannot be
// copied losslessly: it is reported, kept in its file, and tried again by
// every open (no marker) until it is repaired; the others are copied.
func TestMigrateTorn(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ids := seedJSONL(t, home, 3)
	files, _ := filepath.Glob(filepath.Join(home, "projects", "*", ids[1]+".jsonl"))
	if len(files) != 1 {
		t.Fatalf("session file of %s: %v", ids[1], files)
	}
	whole, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	torn := []byte(`{"type":"user","message":{"role":"us` + "\n")
	if err := os.WriteFile(files[0], append(bytes.Clone(whole), torn...), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		m, err := openDefault(t, home)
		if err != nil {
			t.Fatal(err)
		}
		if m == nil || len(m.Failed) != 1 || !strings.Contains(m.Failed[0].Error(), ids[1]) || m.Copied+m.Present != 2 {
			t.Fatalf("migration %+v, want %s failed and 2 others copied", m, ids[1])
		}
		if _, err := os.Stat(filepath.Join(home, MigratedFile)); err == nil {
			t.Fatal("a marker while a session is not copied")
		}
	}
	if b, _ := os.ReadFile(files[0]); !bytes.Equal(b, append(bytes.Clone(whole), torn...)) {
		t.Fatal("the torn session's file changed")
	}
	if err := os.WriteFile(files[0], whole, 0o600); err != nil { // repaired
		t.Fatal(err)
	}
	m, err := openDefault(t, home)
	if err != nil || m == nil || m.Copied != 1 || m.Present != 2 || len(m.Failed) != 0 {
		t.Fatalf("after the repair: migration %+v, %v; want 1 copied, 2 present", m, err)
	}
	sameSessions(t, home, ids)
}

// TestMigrateConcurrent: processes (here stores) opening the default
// store at once copy each session once between them.
func TestMigrateConcurrent(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ids := seedJSONL(t, home, 5)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		copied int
	)
	for range 3 {
		wg.Go(func() {
			st, err := Open("", Options{Home: home, Migrated: func(m Migration) {
				mu.Lock()
				copied += m.Copied
				mu.Unlock()
			}})
			if err != nil {
				t.Error(err)
				return
			}
			_ = st.Close()
		})
	}
	wg.Wait()
	if copied != 5 {
		t.Errorf("%d sessions copied between the three opens, want 5", copied)
	}
	sameSessions(t, home, ids)
}
