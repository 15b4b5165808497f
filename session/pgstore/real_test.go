package pgstore_test

import (
	"bytes"
	"errors"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/session/pgstore"
)

// dataDir holds the real transcripts (../shared/data from the repository
// root).
const dataDir = "../../../shared/data"

// realTranscripts returns the real Claude Code transcripts, skipping the
// test when they are absent (failing it when CI=true).
func realTranscripts(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(filepath.Join(dataDir, "claude-code"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("real transcripts under %s: %v (%d files)", dataDir, err, len(files))
		}
		t.Skipf("real transcripts under %s: %v", dataDir, err)
	}
	return files
}

// seq yields es.
func seq(es []session.Entry) iter.Seq2[session.Entry, error] {
	return func(yield func(session.Entry, error) bool) {
		for _, e := range es {
			if !yield(e, nil) {
				return
			}
		}
	}
}

// TestRealRoundTrip imports every real Claude Code transcript into a
// jsonlstore and into pgstore: pgstore's Export is byte for byte
// jsonlstore's file; the export read back and imported into another
// tenant exports the same bytes again (PostgreSQL → PostgreSQL, through
// session.Copy), and a copy into a fresh jsonlstore gives the same file (PostgreSQL → JSONL); Load
// returns the same entries from both stores.
func TestRealRoundTrip(t *testing.T) {
	files := realTranscripts(t)
	root := openFresh(t)
	// tenant returns a tenant view of root (one per file: a sub-agent's
	// transcript has its parent's session id).
	tenant := func(name string) *pgstore.Store {
		v, err := root.WithTenant(name)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	jsonl := func() *jsonlstore.Store {
		s, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Sync: jsonlstore.SyncNever})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	ctx := t.Context()
	for _, f := range files {
		pg, other, js, back := tenant(f), tenant(f+" back"), jsonl(), jsonl()
		es, _, err := session.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) == 0 {
			continue
		}
		id := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		if i := slices.IndexFunc(es, func(e session.Entry) bool { return e.SessionID != "" }); i >= 0 {
			id = es[i].SessionID
		}
		es = slices.DeleteFunc(es, func(e session.Entry) bool { return e.SessionID != "" && e.SessionID != id })
		in := session.Session{ID: id, Project: "/real/" + filepath.Base(filepath.Dir(f)), Origin: "claude-code:" + f, Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		if _, err := js.Import(ctx, in, seq(es)); err != nil {
			t.Fatalf("%s: jsonlstore import: %v", f, err)
		}
		if _, err := pg.Import(ctx, in, seq(es)); err != nil {
			t.Fatalf("%s: pgstore import: %v", f, err)
		}
		path, err := js.Path(id)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		n, err := pg.WriteJSONL(ctx, id, &got)
		if err != nil || n != int64(got.Len()) {
			t.Fatalf("%s: Export: %d bytes, %v", f, n, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: pgstore's export (%d bytes) differs from jsonlstore's file (%d bytes) at byte %d", f, got.Len(), len(want), firstDiff(got.Bytes(), want))
			continue
		}
		// Back: session.Copy (Export, then Import) into another tenant
		// and into a new jsonlstore.
		if _, err := session.Copy(ctx, other, pg, id); err != nil {
			t.Fatalf("%s: copy into another tenant: %v", f, err)
		}
		var got2 bytes.Buffer
		if _, err := other.WriteJSONL(ctx, id, &got2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got2.Bytes(), want) {
			t.Errorf("%s: PostgreSQL → PostgreSQL differs at byte %d", f, firstDiff(got2.Bytes(), want))
		}
		if _, err := session.Copy(ctx, back, pg, id); err != nil {
			t.Fatal(err)
		}
		path, _ = back.Path(id)
		if b, _ := os.ReadFile(path); !bytes.Equal(b, want) {
			t.Errorf("%s: PostgreSQL → JSONL differs at byte %d", f, firstDiff(b, want))
		}
		for _, all := range []bool{false, true} {
			a, b := mustLoad(t, js, id, all), mustLoad(t, pg, id, all)
			if !slices.Equal(uuidsOf(a.Entries), uuidsOf(b.Entries)) || a.Offset != b.Offset || len(a.Problems) != len(b.Problems) {
				t.Errorf("%s: Load(all=%v) differs: jsonl %d entries from %d, %d problems; pg %d from %d, %d problems",
					f, all, len(a.Entries), a.Offset, len(a.Problems), len(b.Entries), b.Offset, len(b.Problems))
			}
			if ga, gb := a.Session, b.Session; ga.Entries != gb.Entries || ga.Messages != gb.Messages || ga.Title != gb.Title ||
				ga.Model != gb.Model || ga.PromptTokens != gb.PromptTokens || ga.Compactions != gb.Compactions || !ga.LastActivity.Equal(gb.LastActivity) {
				t.Errorf("%s: metadata differs:\njsonl %+v\npg    %+v", f, ga, gb)
			}
		}
	}
	if _, err := root.WriteJSONL(ctx, "no-such-session", &bytes.Buffer{}); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Export of a missing session: %v, want ErrNotFound", err)
	}
	_ = pgstore.SchemaVersion
}

// firstDiff returns the offset of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
