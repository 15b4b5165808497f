package jsonlstore_test

import (
	"encoding/json"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/window"
	"github.com/google/go-cmp/cmp"
)

// TestStateRoundTrip writes working-memory state, compacts, reopens the
// store and finds the last state among the live entries.
func TestStateRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	root := t.TempDir()
	st, err := jsonlstore.Open(jsonlstore.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Create(ctx, session.Session{Project: "/work/project"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := window.New(window.Options{Budget: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	rec := session.NewRecorder(st, s.ID)
	for _, m := range []chat.Message{chat.NewText(chat.RoleUser, "fix it"), chat.NewText(chat.RoleAssistant, "reading")} {
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
		if err := rec.Add(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]any{"tracker": map[string]any{"files": []any{"a.go", "b/ü.go"}}, "workmem": map[string]any{"plan": []any{"1. read", "2. fix <x> && test"}}}
	if err := rec.SaveState(ctx, want); err != nil {
		t.Fatal(err)
	}
	if err := rec.Compacted(ctx, w, session.CompactMetadata{PreTokens: 42}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st2, err := jsonlstore.Open(jsonlstore.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	tr, err := st2.Load(ctx, s.ID, session.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Problems) > 0 {
		t.Fatalf("Load problems: %v", tr.Problems)
	}
	if len(tr.Entries) == 0 || !tr.Entries[0].IsBoundary() {
		t.Fatal("Load did not start at the compact boundary")
	}
	raw, ok := session.LastState(tr.Entries)
	if !ok {
		t.Fatal("LastState found no state after the compaction")
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("state (-want +got):\n%s", d)
	}
	rw, ps, err := session.Restore(tr.Entries, window.Options{Budget: 10_000})
	if err != nil || len(ps) > 0 {
		t.Fatalf("Restore: %v %v", err, ps)
	}
	if rw.Len() != w.Len() {
		t.Errorf("restored window has %d messages, want %d", rw.Len(), w.Len())
	}
}
