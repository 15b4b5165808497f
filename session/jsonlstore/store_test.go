package jsonlstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// TestDefaultRoot cannot run in parallel: it sets environment variables.
func TestDefaultRoot(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, c := range []struct {
		name, agentctx, xdg, want string
	}{
		{"AGENTCTX_HOME", "/srv/agentctx", "/xdg", "/srv/agentctx"},
		{"XDG_DATA_HOME", "", "/xdg", "/xdg/agentctx"},
		{"relative XDG_DATA_HOME ignored", "", "xdg", filepath.Join(home, ".local", "share", "agentctx")},
		{"home", "", "", filepath.Join(home, ".local", "share", "agentctx")},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("AGENTCTX_HOME", c.agentctx)
			t.Setenv("XDG_DATA_HOME", c.xdg)
			got, err := jsonlstore.DefaultRoot()
			if err != nil || got != c.want {
				t.Errorf("DefaultRoot() = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestLayoutAndModes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := open(t, jsonlstore.Options{Root: root})
	proj := filepath.Join(t.TempDir(), "my-proj")
	sess, err := s.Create(t.Context(), session.Session{Project: proj})
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, sess.ID, userMsg(t, "secret source code"))
	if _, err := s.Update(t.Context(), sess.ID, func(m *session.Session) error { m.Title = "x"; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(t.Context(), sess.ID); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "projects", jsonlstore.EscapeProject(proj))
	if !strings.HasSuffix(dir, "my%2Dproj") {
		t.Errorf("project folder %s", dir)
	}
	path := filepath.Join(dir, sess.ID+".jsonl")
	if got := mustPath(t, s, sess.ID); got != path {
		t.Errorf("Path = %s, want %s", got, path)
	}
	b, err := os.ReadFile(filepath.Join(dir, "project.json"))
	if err != nil || string(b) != fmt.Sprintf("{\"path\":%q}\n", proj) {
		t.Errorf("project.json = %q, %v", b, err)
	}
	for _, c := range []struct {
		path string
		mode os.FileMode
	}{
		{filepath.Join(root, "projects"), 0o700},
		{dir, 0o700},
		{path, 0o600},
		{sidecar(path), 0o600},
		{filepath.Join(dir, "project.json"), 0o600},
	} {
		st, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != c.mode {
			t.Errorf("%s: mode %v, want %v", c.path, st.Mode().Perm(), c.mode)
		}
	}
	if files := countFiles(t, dir); len(files) != 3 {
		t.Errorf("files in the project folder: %v; want the transcript, its sidecar and project.json", files)
	}
}

func TestInvalidIDsCreateNothing(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := open(t, jsonlstore.Options{Root: root})
	proj := t.TempDir()
	for _, id := range []string{"", "../x", "a/b", `a\b`, "x\x00y", ".hidden", strings.Repeat("i", 200), "..", "../../etc/passwd"} {
		t.Run(fmt.Sprintf("%q", id), func(t *testing.T) {
			if id != "" { // "" asks Create for a fresh id
				_, err := s.Create(t.Context(), session.Session{ID: id, Project: proj})
				if !errors.Is(err, session.ErrInvalidID) {
					t.Errorf("Create: %v, want ErrInvalidID", err)
				}
			}
			_, err := s.Append(t.Context(), id, userMsg(t, "x"))
			if !errors.Is(err, session.ErrInvalidID) {
				t.Errorf("Append: %v, want ErrInvalidID", err)
			}
			if _, err := s.Path(id); !errors.Is(err, session.ErrInvalidID) {
				t.Errorf("Path: %v, want ErrInvalidID", err)
			}
		})
	}
	if files := countFiles(t, root); len(files) != 0 {
		t.Errorf("invalid ids created files: %v", files)
	}
}

func TestTornLastLine(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := open(t, jsonlstore.Options{Root: root})
	sess := newSession(t, s)
	good := mustAppend(t, s, sess.ID, userMsg(t, "q"), assistantMsg(t, "a"))
	path := mustPath(t, s, sess.ID)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	tornAt := fileSize(t, path)
	appendRaw(t, path, []byte(`{"uuid":"torn-1","parentUuid":null,"type":"user","message":{"role":"us`))

	s2 := open(t, jsonlstore.Options{Root: root})
	tr := mustLoad(t, s2, sess.ID, true)
	if d := cmp.Diff(uuidsOf(good), uuidsOf(tr.Entries)); d != "" {
		t.Errorf("entries before the torn line (-want +got):\n%s", d)
	}
	if len(tr.Problems) != 1 || tr.Problems[0].Kind != session.ProblemTornLine || tr.Problems[0].Offset != tornAt || tr.Problems[0].File != path {
		t.Errorf("problems = %+v; want one torn line in %s at byte %d", tr.Problems, path, tornAt)
	}
	got, err := s2.Get(t.Context(), sess.ID)
	if err != nil || got.Entries != 2 {
		t.Errorf("Get: Entries %d, %v; want 2", got.Entries, err)
	}

	next := mustAppend(t, s2, sess.ID, userMsg(t, "after the crash"))
	if next[0].ParentUUID != good[1].UUID {
		t.Errorf("entry after a torn line has parent %q, want the last good entry %q", next[0].ParentUUID, good[1].UUID)
	}
	more := mustAppend(t, s2, sess.ID, assistantMsg(t, "and more"))
	ls := lines(t, path)
	if len(ls) != 5 || !strings.HasPrefix(ls[2], `{"uuid":"torn-1"`) || !strings.Contains(ls[3], next[0].UUID) || !strings.Contains(ls[4], more[0].UUID) {
		t.Errorf("file lines:\n%s\nwant 2 entries, the torn bytes alone on a line, then the new entries each on a fresh line", strings.Join(ls, "\n"))
	}
	tr = mustLoad(t, s2, sess.ID, true)
	want := append(append(uuidsOf(good), next[0].UUID), more[0].UUID)
	if d := cmp.Diff(want, uuidsOf(tr.Entries)); d != "" {
		t.Errorf("entries after appending past a torn line (-want +got):\n%s", d)
	}
	if len(tr.Problems) == 0 || tr.Problems[0].Kind != session.ProblemTornLine || tr.Problems[0].Offset != tornAt || tr.Problems[0].File != path {
		t.Errorf("problems = %+v; want the old torn line at byte %d still reported", tr.Problems, tornAt)
	}
	for _, p := range tr.Problems[min(1, len(tr.Problems)):] {
		if p.Kind != session.ProblemAfterTorn || p.UUID != next[0].UUID {
			t.Errorf("problem %+v; want only the entry after the torn line noted", p)
		}
	}
	// A fresh store sees the same.
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	tr = mustLoad(t, open(t, jsonlstore.Options{Root: root}), sess.ID, false)
	if d := cmp.Diff(want, uuidsOf(tr.Entries)); d != "" {
		t.Errorf("entries in a new store (-want +got):\n%s", d)
	}
}

// TestTornCompleteLastLine: a last line that holds a whole entry but no
// newline (written by another program, or cut right before its newline)
// is an entry: it loads, counts, and is the next entry's parent.
func TestTornCompleteLastLine(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := open(t, jsonlstore.Options{Root: root})
	sess := newSession(t, s)
	first := mustAppend(t, s, sess.ID, userMsg(t, "q"))
	path := mustPath(t, s, sess.ID)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	at := fileSize(t, path)
	appendRaw(t, path, []byte(fmt.Sprintf(`{"uuid":"no-newline","parentUuid":%q,"sessionId":%q,"type":"assistant","message":{"role":"assistant","parts":[{"type":"text","text":"a"}]}}`, first[0].UUID, sess.ID)))
	for range 2 { // twice: reading must not change anything
		s := open(t, jsonlstore.Options{Root: root})
		got, err := s.Get(t.Context(), sess.ID)
		if err != nil || got.Entries != 2 || got.Messages != 2 {
			t.Errorf("Get: Entries %d, Messages %d, %v; want 2, 2", got.Entries, got.Messages, err)
		}
		tr := mustLoad(t, s, sess.ID, false)
		if d := cmp.Diff([]string{first[0].UUID, "no-newline"}, uuidsOf(tr.Entries)); d != "" {
			t.Errorf("entries (-want +got):\n%s", d)
		}
		if len(tr.Problems) != 1 || tr.Problems[0].Kind != session.ProblemTornLine || !tr.Problems[0].Repaired || tr.Problems[0].Offset != at {
			t.Errorf("problems %+v; want the missing newline at %d, repaired", tr.Problems, at)
		}
	}
	// An Update before any append writes the sidecar; the line must not
	// be counted twice once an append ends it.
	w := open(t, jsonlstore.Options{Root: root})
	if _, err := w.Update(t.Context(), sess.ID, func(m *session.Session) error { m.Title = "named"; return nil }); err != nil {
		t.Fatal(err)
	}
	next := mustAppend(t, w, sess.ID, userMsg(t, "next"))
	if next[0].ParentUUID != "no-newline" {
		t.Errorf("parent = %q, want the entry on the unterminated line", next[0].ParentUUID)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := open(t, jsonlstore.Options{Root: root}).Get(t.Context(), sess.ID)
	if err != nil || got.Entries != 3 || got.Title != "named" {
		t.Errorf("after the append: Entries %d, Title %q, %v; want 3, named", got.Entries, got.Title, err)
	}
	if tr := mustLoad(t, open(t, jsonlstore.Options{Root: root}), sess.ID, true); len(tr.Entries) != 3 || len(tr.Problems) != 0 {
		t.Errorf("after the append: %d entries, problems %v; want 3, none", len(tr.Entries), tr.Problems)
	}
}

func TestMalformedLinesSkipped(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := open(t, jsonlstore.Options{Root: root})
	sess := newSession(t, s)
	first := mustAppend(t, s, sess.ID, userMsg(t, "q"))
	path := mustPath(t, s, sess.ID)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	garbage := []string{"not json", `[1,2,3]`, `{"uuid":"x","no":"type"}`, `{"type":42}`, "\x00\x01\x02", `{"type":"user"} trailing`}
	var offsets []int64
	for _, g := range garbage {
		offsets = append(offsets, fileSize(t, path))
		appendRaw(t, path, []byte(g+"\n"))
	}
	s2 := open(t, jsonlstore.Options{Root: root})
	second := mustAppend(t, s2, sess.ID, assistantMsg(t, "a"))
	if second[0].ParentUUID != first[0].UUID {
		t.Errorf("parent past malformed lines = %q, want %q", second[0].ParentUUID, first[0].UUID)
	}
	for _, all := range []bool{true, false} {
		tr := mustLoad(t, s2, sess.ID, all)
		if d := cmp.Diff([]string{first[0].UUID, second[0].UUID}, uuidsOf(tr.Entries)); d != "" {
			t.Errorf("all=%v: entries (-want +got):\n%s", all, d)
		}
		var got []int64
		for _, p := range tr.Problems {
			if p.Kind != session.ProblemMalformed || p.File != path {
				t.Errorf("all=%v: problem %+v, want malformed in %s", all, p, path)
			}
			got = append(got, p.Offset)
		}
		if d := cmp.Diff(offsets, got); d != "" {
			t.Errorf("all=%v: malformed line offsets (-want +got):\n%s", all, d)
		}
	}
	if m, err := s2.Get(t.Context(), sess.ID); err != nil || m.Entries != 2 {
		t.Errorf("Get: Entries %d, %v; want 2 (malformed lines are not entries)", m.Entries, err)
	}
}

func TestTwoWriters(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	a := open(t, jsonlstore.Options{Root: root})
	sess := newSession(t, a)
	first := mustAppend(t, a, sess.ID, userMsg(t, "from a"))

	b := open(t, jsonlstore.Options{Root: root})
	start := time.Now()
	_, err := b.Append(t.Context(), sess.ID, userMsg(t, "from b"))
	if !errors.Is(err, session.ErrSessionBusy) {
		t.Fatalf("second writer: %v, want ErrSessionBusy", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("ErrSessionBusy took %v; want it at once", d)
	}
	if _, err := b.Update(t.Context(), sess.ID, func(*session.Session) error { return nil }); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("Update by the second store: %v, want ErrSessionBusy", err)
	}
	if err := b.Delete(t.Context(), sess.ID); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("Delete by the second store: %v, want ErrSessionBusy", err)
	}
	// Reads need no lock.
	if tr := mustLoad(t, b, sess.ID, true); len(tr.Entries) != 1 {
		t.Errorf("reader sees %d entries, want 1", len(tr.Entries))
	}

	// A third store waits for the lock and gets it when a closes.
	c := open(t, jsonlstore.Options{Root: root, LockTimeout: 10 * time.Second})
	done := make(chan []session.Entry)
	go func() {
		out, err := c.Append(context.Background(), sess.ID, assistantMsg(t, "from c"))
		if err != nil {
			t.Errorf("waiting writer: %v", err)
		}
		done <- out
	}()
	time.Sleep(50 * time.Millisecond)
	select {
	case <-done:
		t.Fatal("waiting writer wrote while the lock was held")
	default:
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	out := <-done
	if len(out) == 1 && out[0].ParentUUID != first[0].UUID {
		t.Errorf("waiting writer's entry has parent %q, want %q", out[0].ParentUUID, first[0].UUID)
	}

	// A short timeout gives ErrSessionBusy after waiting.
	d := open(t, jsonlstore.Options{Root: root, LockTimeout: 30 * time.Millisecond})
	start = time.Now()
	if _, err := d.Append(t.Context(), sess.ID, userMsg(t, "x")); !errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("timed-out writer: %v, want ErrSessionBusy", err)
	}
	if el := time.Since(start); el < 30*time.Millisecond {
		t.Errorf("timed-out writer returned after %v, before its timeout", el)
	}
	// Canceling the context while waiting returns the context's error.
	e := open(t, jsonlstore.Options{Root: root, LockTimeout: time.Minute})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
	defer cancel()
	if _, err := e.Append(ctx, sess.ID, userMsg(t, "x")); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, session.ErrSessionBusy) {
		t.Errorf("canceled waiting writer: %v, want the context's error", err)
	}
}

func TestSidecar(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"missing", func(t *testing.T, path string) {
			if err := os.Remove(sidecar(path)); err != nil {
				t.Fatal(err)
			}
		}},
		{"corrupt", func(t *testing.T, path string) {
			if err := os.WriteFile(sidecar(path), []byte("{\"format\":1,\"session\":"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"covers more than the file", func(t *testing.T, path string) {
			b, _ := os.ReadFile(sidecar(path))
			b = []byte(strings.Replace(string(b), `"size":`, `"size":99999`, 1))
			if err := os.WriteFile(sidecar(path), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"another session's", func(t *testing.T, path string) {
			b, _ := os.ReadFile(sidecar(path))
			b = []byte(strings.Replace(string(b), `"id":"`, `"id":"x`, 1))
			if err := os.WriteFile(sidecar(path), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"stale", func(t *testing.T, path string) {
			appendRaw(t, path, []byte(`{"uuid":"late","parentUuid":null,"sessionId":"","type":"user","timestamp":"2030-01-01T00:00:00.000Z","message":{"role":"user","parts":[{"type":"text","text":"late"}]}}`+"\n"))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			s := open(t, jsonlstore.Options{Root: root})
			sess := newSession(t, s)
			mustAppend(t, s, sess.ID, userMsg(t, "Title prompt"), assistantMsg(t, "a"), boundaryEntry(1), summaryEntry(t, "sum"))
			mustAppend(t, s, sess.ID, userMsg(t, "next"))
			path := mustPath(t, s, sess.ID)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			want, err := open(t, jsonlstore.Options{Root: root}).Get(t.Context(), sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			c.damage(t, path)
			before, _ := os.ReadFile(sidecar(path))

			r := open(t, jsonlstore.Options{Root: root})
			got, err := r.Get(t.Context(), sess.ID)
			if err != nil {
				t.Fatalf("Get with a %s sidecar: %v", c.name, err)
			}
			if c.name == "stale" {
				want.Entries++
				want.Messages++
				want.LastActivity = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
			} else {
				// Rebuilt from the transcript: Created is the first
				// entry's time.
				first, _ := session.DecodeLine([]byte(lines(t, path)[0]))
				want.Created = first.Timestamp
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Get with a %s sidecar (-want +got):\n%s", c.name, d)
			}
			tr := mustLoad(t, r, sess.ID, false)
			if len(tr.Entries) == 0 || !tr.Entries[0].IsBoundary() || tr.Offset == 0 {
				t.Errorf("Load with a %s sidecar: offset %d, %d entries; want the live part from the boundary", c.name, tr.Offset, len(tr.Entries))
			}
			if ss, err := r.List(t.Context(), session.ListOptions{}); err != nil || len(ss) != 1 || ss[0].Entries != got.Entries {
				t.Errorf("List with a %s sidecar: %v, %v", c.name, ss, err)
			}
			// Readers never write the sidecar.
			if after, _ := os.ReadFile(sidecar(path)); string(after) != string(before) {
				t.Errorf("a reader rewrote the sidecar")
			}
			// A writer repairs it.
			mustAppend(t, r, sess.ID, assistantMsg(t, "fix"))
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			got2, err := open(t, jsonlstore.Options{Root: root}).Get(t.Context(), sess.ID)
			if err != nil || got2.Entries != got.Entries+1 {
				t.Errorf("after a writer: Entries %d, %v; want %d", got2.Entries, err, got.Entries+1)
			}
		})
	}
}

// TestForeignTranscript drops a transcript written by another program
// (no sidecar, no project.json) into the store.
func TestForeignTranscript(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	proj := "/home/u/work-proj"
	dir := filepath.Join(root, "projects", jsonlstore.EscapeProject(proj))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	id := "0f0e0d0c-0b0a-4000-8000-000000000001"
	content := strings.Join([]string{
		`{"type":"file-history-snapshot","messageId":"m","snapshot":{}}`,
		`{"parentUuid":null,"isSidechain":false,"cwd":"/home/u/work-proj","sessionId":"` + id + `","version":"2.0.1","gitBranch":"main","type":"user","message":{"role":"user","content":"Explain the build"},"uuid":"u1","timestamp":"2026-01-02T03:04:05.678Z"}`,
		`{"parentUuid":"u1","isSidechain":false,"sessionId":"` + id + `","type":"assistant","message":{"role":"assistant","model":"claude-opus-4-1","content":[{"type":"text","text":"It uses make."}],"usage":{"input_tokens":10,"cache_read_input_tokens":90,"output_tokens":5}},"uuid":"a1","timestamp":"2026-01-02T03:04:09.000Z"}`,
	}, "\n") + "\n"
	path := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	s := open(t, jsonlstore.Options{Root: root})
	ss, err := s.List(t.Context(), session.ListOptions{Project: proj})
	if err != nil || len(ss) != 1 {
		t.Fatalf("List = %v, %v", ss, err)
	}
	got := ss[0]
	if got.ID != id || got.Project != proj || got.GitBranch != "main" || got.Entries != 3 ||
		!got.Created.Equal(time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC)) || !got.LastActivity.Equal(time.Date(2026, 1, 2, 3, 4, 9, 0, time.UTC)) {
		t.Errorf("foreign session = %+v", got)
	}
	out := mustAppend(t, s, id, userMsg(t, "and tests?"))
	if out[0].ParentUUID != "a1" || out[0].CWD != proj {
		t.Errorf("appended to a foreign transcript: parent %q, cwd %q; want a1, %s", out[0].ParentUUID, out[0].CWD, proj)
	}
	if tr := mustLoad(t, s, id, false); len(tr.Entries) < 3 || len(tr.Problems) != 0 {
		t.Errorf("Load: %d entries, problems %v", len(tr.Entries), tr.Problems)
	}
}

// TestLoadReadsFromTheBoundary checks that Load does not read the part of
// the file before the last boundary: garbage there is not reported.
func TestLoadReadsFromTheBoundary(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := open(t, jsonlstore.Options{Root: root})
	sess := newSession(t, s)
	mustAppend(t, s, sess.ID, userMsg(t, "q"))
	path := mustPath(t, s, sess.ID)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	appendRaw(t, path, []byte("garbage before the boundary\n"))
	s = open(t, jsonlstore.Options{Root: root})
	live := mustAppend(t, s, sess.ID, boundaryEntry(1), summaryEntry(t, "s"), userMsg(t, "q2"))
	tr := mustLoad(t, s, sess.ID, false)
	if tr.Offset != live[0].Offset || tr.Offset == 0 {
		t.Errorf("Load started at byte %d, want the boundary's %d", tr.Offset, live[0].Offset)
	}
	if d := cmp.Diff(uuidsOf(live), uuidsOf(tr.Entries)); d != "" {
		t.Errorf("live entries (-want +got):\n%s", d)
	}
	if len(tr.Problems) != 0 {
		t.Errorf("Load reported problems from before the boundary: %v", tr.Problems)
	}
	if all := mustLoad(t, s, sess.ID, true); len(all.Problems) != 1 || len(all.Entries) != 4 {
		t.Errorf("Load(All): %d entries, problems %v; want 4 and the garbage line", len(all.Entries), all.Problems)
	}
}

// TestLoadWrongIndex gives Load a sidecar whose boundary offset is not a
// boundary line: it falls back to scanning.
func TestLoadWrongIndex(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := open(t, jsonlstore.Options{Root: root})
	sess := newSession(t, s)
	mustAppend(t, s, sess.ID, userMsg(t, "q"), assistantMsg(t, "a"))
	live := mustAppend(t, s, sess.ID, boundaryEntry(1), summaryEntry(t, "s"))
	path := mustPath(t, s, sess.ID)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	second := lines(t, path)[0]
	b, _ := os.ReadFile(sidecar(path))
	b = []byte(strings.Replace(string(b), fmt.Sprintf(`"boundaries":[%d]`, live[0].Offset), fmt.Sprintf(`"boundaries":[%d]`, len(second)+1), 1))
	if err := os.WriteFile(sidecar(path), b, 0o600); err != nil {
		t.Fatal(err)
	}
	tr := mustLoad(t, open(t, jsonlstore.Options{Root: root}), sess.ID, false)
	if d := cmp.Diff(uuidsOf(live), uuidsOf(tr.Entries)); d != "" {
		t.Errorf("live entries with a wrong index (-want +got):\n%s", d)
	}
}

// TestIncompleteBoundary: a compaction cut short (the boundary announces
// more entries than follow) is skipped; Load steps back to the previous
// boundary.
func TestIncompleteBoundary(t *testing.T) {
	t.Parallel()
	s := open(t, jsonlstore.Options{})
	sess := newSession(t, s)
	mustAppend(t, s, sess.ID, userMsg(t, "q"))
	good := mustAppend(t, s, sess.ID, boundaryEntry(2), summaryEntry(t, "s"), userMsg(t, "kept"))
	later := mustAppend(t, s, sess.ID, assistantMsg(t, "a"))
	torn := mustAppend(t, s, sess.ID, boundaryEntry(3), summaryEntry(t, "s2"))
	tr := mustLoad(t, s, sess.ID, false)
	if tr.Offset != good[0].Offset {
		t.Errorf("Load started at %d, want the complete boundary at %d", tr.Offset, good[0].Offset)
	}
	if len(tr.Entries) == 0 || tr.Entries[0].UUID != good[0].UUID {
		t.Errorf("live part starts with %v, want the complete boundary", uuidsOf(tr.Entries))
	}
	found := false
	for _, p := range tr.Problems {
		found = found || p.Kind == session.ProblemIncompleteBoundary && p.Offset == torn[0].Offset
	}
	if !found {
		t.Errorf("problems %+v: want the incomplete boundary at %d", tr.Problems, torn[0].Offset)
	}
	_ = later
}

func TestDeleteRemovesEmptyProject(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s := open(t, jsonlstore.Options{Root: root})
	proj := t.TempDir()
	a, err := s.Create(t.Context(), session.Session{Project: proj})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Create(t.Context(), session.Session{Project: proj})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(mustPath(t, s, a.ID))
	if err := s.Delete(t.Context(), a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "project.json")); err != nil {
		t.Errorf("project folder with a session left lost project.json: %v", err)
	}
	if err := s.Delete(t.Context(), b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty project folder still there: %v", err)
	}
}

// TestReopen checks that a second store sees the metadata a first one
// wrote, with and without the first one closing (then from the tail).
func TestReopen(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	a := open(t, jsonlstore.Options{Root: root})
	sess := newSession(t, a)
	for i := range 10 {
		mustAppend(t, a, sess.ID, userMsg(t, fmt.Sprint("q", i)), assistantMsg(t, "a"))
	}
	want, err := a.Get(t.Context(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	b := open(t, jsonlstore.Options{Root: root})
	got, err := b.Get(t.Context(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("open writer vs reader (-writer +reader):\n%s", d)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err = open(t, jsonlstore.Options{Root: root}).Get(t.Context(), sess.ID); err != nil || !cmp.Equal(want, got) {
		t.Errorf("after Close: %+v, %v; want %+v", got, err, want)
	}
}

func TestFilledFields(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	now := time.Date(2026, 5, 6, 7, 8, 9, 123456789, time.UTC)
	s := open(t, jsonlstore.Options{
		Version:   "9.9.9",
		Now:       func() time.Time { return now },
		GitBranch: func(string) string { calls.Add(1); return "topic" },
	})
	sess := newSession(t, s)
	// Created in milliseconds, as entries' times are written.
	if sess.GitBranch != "topic" || !sess.Created.Equal(now.Truncate(time.Millisecond)) {
		t.Errorf("Create: branch %q, created %v", sess.GitBranch, sess.Created)
	}
	for range 3 {
		out := mustAppend(t, s, sess.ID, userMsg(t, "x"))
		e := out[0]
		if e.GitBranch != "topic" || e.Version != "9.9.9" || !e.Timestamp.Equal(now.Truncate(time.Millisecond)) {
			t.Errorf("entry: branch %q, version %q, time %v", e.GitBranch, e.Version, e.Timestamp)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("GitBranch called %d times, want once (at Create)", n)
	}
	// A branch given to Create is kept without detection.
	if s2, err := s.Create(t.Context(), session.Session{Project: t.TempDir(), GitBranch: "given"}); err != nil || s2.GitBranch != "given" || calls.Load() != 1 {
		t.Errorf("Create with a branch: %q, %v, %d calls", s2.GitBranch, err, calls.Load())
	}
}

// TestForeignLinesVerbatim appends foreign lines (not agentctx's types)
// and checks that the file holds them byte for byte, uuid or not.
func TestForeignLinesVerbatim(t *testing.T) {
	t.Parallel()
	s := open(t, jsonlstore.Options{})
	sess := newSession(t, s)
	mustAppend(t, s, sess.ID, userMsg(t, "q"))
	raws := []string{
		`{"type":"file-history-snapshot","messageId":"m1","snapshot":{"trackedFileBackups":{}},"isSnapshotUpdate":false}`,
		`{"type":"summary","summary":"Fix <things> & \u2028 stuff","leafUuid":"x"}`,
		`{ "type" : "queue-operation" , "operation":"enqueue", "n": 1.50 }`,
	}
	var es []session.Entry
	for _, r := range raws {
		e, err := session.DecodeLine([]byte(r))
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	out := mustAppend(t, s, sess.ID, es...)
	for i, e := range out {
		if e.UUID != "" || e.SessionID != "" || string(e.Raw) != raws[i] {
			t.Errorf("foreign entry %d came back filled in: %+v", i, e)
		}
	}
	mustAppend(t, s, sess.ID, assistantMsg(t, "a"))
	ls := lines(t, mustPath(t, s, sess.ID))
	if d := cmp.Diff(raws, ls[1:4]); d != "" {
		t.Errorf("foreign lines in the file (-want +got):\n%s", d)
	}
	if got, err := s.Get(t.Context(), sess.ID); err != nil || got.Entries != 5 {
		t.Errorf("Entries = %d, %v; want 5", got.Entries, err)
	}
}

// TestDeleteWhileWaiting deletes a session while another store waits for
// its lock: the waiter must not write to the deleted file.
func TestDeleteWhileWaiting(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	a := open(t, jsonlstore.Options{Root: root})
	sess := newSession(t, a)
	mustAppend(t, a, sess.ID, userMsg(t, "q"))
	c := open(t, jsonlstore.Options{Root: root, LockTimeout: 10 * time.Second})
	errc := make(chan error)
	go func() {
		_, err := c.Append(context.Background(), sess.ID, userMsg(t, "late"))
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if err := a.Delete(t.Context(), sess.ID); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, session.ErrNotFound) {
		t.Errorf("waiting writer after Delete: %v, want ErrNotFound", err)
	}
	if files := countFiles(t, root); len(files) != 0 {
		t.Errorf("files left after Delete: %v", files)
	}
}

// TestKnownLineVerbatim appends a Claude Code line read from a file, with
// fields the Entry struct does not hold: when nothing needs filling it is
// written back byte for byte; when its parent must be filled it is
// re-encoded.
func TestKnownLineVerbatim(t *testing.T) {
	t.Parallel()
	s := open(t, jsonlstore.Options{GitBranch: func(string) string { return "main" }})
	sess := newSession(t, s)
	q := mustAppend(t, s, sess.ID, userMsg(t, "q"))[0]
	raw := fmt.Sprintf(`{"parentUuid":%q,"isSidechain":false,"userType":"external","cwd":"/elsewhere","sessionId":%q,"version":"2.0.1","type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]},"requestId":"req_1","uuid":"cc-1","timestamp":"2026-01-02T03:04:05.678Z"}`, q.UUID, sess.ID)
	e, err := session.DecodeLine([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	out := mustAppend(t, s, sess.ID, e)
	if string(out[0].Raw) != raw {
		t.Errorf("returned Raw = %s, want the line as read", out[0].Raw)
	}
	ls := lines(t, mustPath(t, s, sess.ID))
	if ls[len(ls)-1] != raw {
		t.Errorf("file holds %s\nwant the line byte for byte: %s", ls[len(ls)-1], raw)
	}
	// Without a parent, the line is filled and re-encoded.
	noParent := strings.Replace(raw, fmt.Sprintf(`"parentUuid":%q`, q.UUID), `"parentUuid":null`, 1)
	noParent = strings.Replace(noParent, `"uuid":"cc-1"`, `"uuid":"cc-2"`, 1)
	e2, err := session.DecodeLine([]byte(noParent))
	if err != nil {
		t.Fatal(err)
	}
	out = mustAppend(t, s, sess.ID, e2)
	ls = lines(t, mustPath(t, s, sess.ID))
	if out[0].ParentUUID != "cc-1" || string(out[0].Raw) != ls[len(ls)-1] || out[0].CWD != "/elsewhere" || out[0].GitBranch != "" {
		t.Errorf("filled entry: parent %q, cwd %q, branch %q, Raw %s; file %s", out[0].ParentUUID, out[0].CWD, out[0].GitBranch, out[0].Raw, ls[len(ls)-1])
	}
}
