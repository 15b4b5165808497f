package jsonlstore_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// TestImport imports a session in one step: its entries load as Append
// would have stored them (one linear chain, a boundary indexed); an
// import whose entries fail, or whose id exists, stores and changes
// nothing.
func TestImport(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := open(t, jsonlstore.Options{Root: t.TempDir()})
	es := []session.Entry{userMsg(t, "one"), assistantMsg(t, "two"), boundaryEntry(1), summaryEntry(t, "summary"), userMsg(t, "three")}
	seq := func(es []session.Entry, fail error) func(func(session.Entry, error) bool) {
		return func(yield func(session.Entry, error) bool) {
			for _, e := range es {
				if !yield(e, nil) {
					return
				}
			}
			if fail != nil {
				yield(session.Entry{}, fail)
			}
		}
	}
	got, err := s.Import(ctx, session.Session{ID: "imp", Project: "/p", Origin: "claude-code:/x"}, seq(es, nil))
	if err != nil {
		t.Fatal(err)
	}
	if got.Entries != 5 || got.Compactions != 1 || got.Origin != "claude-code:/x" {
		t.Errorf("imported session %+v", got)
	}
	live := mustLoad(t, s, "imp", false)
	if len(live.Entries) != 3 || !live.Entries[0].IsBoundary() {
		t.Errorf("live part: %v", uuidsOf(live.Entries))
	}
	prev := linear(t, mustLoad(t, s, "imp", true).Entries)
	// Appending continues the chain.
	if out := mustAppend(t, s, "imp", userMsg(t, "four")); out[0].ParentUUID != prev {
		t.Errorf("append after import: parent %q, want %q", out[0].ParentUUID, prev)
	}

	boom := errors.New("conversion failed")
	if _, err := s.Import(ctx, session.Session{ID: "broken", Project: "/p"}, seq(es, boom)); !errors.Is(err, boom) {
		t.Errorf("import with a failing entry: %v, want the entries' error", err)
	}
	if _, err := s.Get(ctx, "broken"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("a failed import left a session: %v", err)
	}
	path := mustPath(t, s, "imp")
	if tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.tmp")); len(tmps) != 0 {
		t.Errorf("a failed import left %v", tmps)
	}
	before, _ := os.ReadFile(path)
	if _, err := s.Import(ctx, session.Session{ID: "imp", Project: "/p"}, seq(es, nil)); !errors.Is(err, session.ErrExists) {
		t.Errorf("import over an existing session: %v, want ErrExists", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("import over an existing session changed it")
	}
}
