package pgstore_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/session"
)

// TestTenants: a tenant sees only its own sessions; the same id can
// exist once per tenant; a lease in one tenant does not block another.
func TestTenants(t *testing.T) {
	t.Parallel()
	root := openFresh(t)
	a, err := root.WithTenant("alice")
	if err != nil {
		t.Fatal(err)
	}
	b, err := root.WithTenant("bob")
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	sa := newSession(t, a)
	mustAppend(t, a, sa.ID, userMsg(t, "alice's secret"))
	if _, err := b.Get(ctx, sa.ID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Get of another tenant's session: %v, want ErrNotFound", err)
	}
	if _, err := b.Load(ctx, sa.ID, session.LoadOptions{All: true}); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Load of another tenant's session: %v, want ErrNotFound", err)
	}
	if _, err := b.Append(ctx, sa.ID, userMsg(t, "x")); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Append to another tenant's session: %v, want ErrNotFound", err)
	}
	if err := b.Delete(ctx, sa.ID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Delete of another tenant's session: %v, want ErrNotFound", err)
	}
	if _, err := b.WriteJSONL(ctx, sa.ID, &bytes.Buffer{}); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Export of another tenant's session: %v, want ErrNotFound", err)
	}
	if ss, err := b.List(ctx, session.ListOptions{}); err != nil || len(ss) != 0 {
		t.Errorf("List of bob = %v, %v; want none", ss, err)
	}
	if ss, err := root.List(ctx, session.ListOptions{}); err != nil || len(ss) != 0 {
		t.Errorf("List of the default tenant = %v, %v; want none", ss, err)
	}
	// The same id in bob's tenant is another session.
	if _, err := b.Create(ctx, session.Session{ID: sa.ID, Project: t.TempDir()}); err != nil {
		t.Fatalf("Create of the same id in another tenant: %v", err)
	}
	mustAppend(t, b, sa.ID, userMsg(t, "bob's"))
	if got := mustLoad(t, a, sa.ID, true); len(got.Entries) != 1 {
		t.Errorf("alice's session has %d entries after bob's append, want 1", len(got.Entries))
	}
	// Closing a view ends it only, and releases its tenant's leases.
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, sa.ID); !errors.Is(err, session.ErrClosed) {
		t.Errorf("Get on a closed view: %v, want ErrClosed", err)
	}
	mustAppend(t, a, sa.ID, assistantMsg(t, "alice goes on"))
	// The root's Close ends every view.
	if err := root.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Get(ctx, sa.ID); !errors.Is(err, session.ErrClosed) {
		t.Errorf("Get on a view after the root's Close: %v, want ErrClosed", err)
	}
}

// TestLinesJSONBCannotHold: lines that PostgreSQL's jsonb refuses (a
// \u0000 escape, invalid UTF-8 in a foreign line) are stored and exported
// byte for byte; a line that is not JSON is refused whole.
func TestLinesJSONBCannotHold(t *testing.T) {
	t.Parallel()
	s := openFresh(t)
	ctx := t.Context()
	sess := newSession(t, s)
	nul := userMsg(t, "a NUL \x00 in a tool's output")
	foreign, err := session.DecodeLine([]byte(fmt.Sprintf(`{"type":"progress","uuid":"f1","sessionId":%q,"data":"bad `+"\xff"+` utf-8"}`, sess.ID)))
	if err != nil {
		t.Fatal(err)
	}
	out := mustAppend(t, s, sess.ID, nul, foreign)
	var want bytes.Buffer
	for _, e := range out {
		line, err := session.MarshalLine(e)
		if err != nil {
			t.Fatal(err)
		}
		want.Write(line)
		want.WriteByte('\n')
	}
	if !bytes.Contains(want.Bytes(), []byte(`\u0000`)) || !bytes.Contains(want.Bytes(), []byte("\xff")) {
		t.Fatalf("test lines lack what they test: %q", want.String())
	}
	var got bytes.Buffer
	if _, err := s.WriteJSONL(ctx, sess.ID, &got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("export:\n%q\nwant\n%q", got.String(), want.String())
	}
	var nulls int
	if err := s.Pool().QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM %s.entries WHERE entry IS NULL", s.Schema())).Scan(&nulls); err != nil {
		t.Fatal(err)
	}
	if nulls != 2 {
		t.Errorf("%d rows without jsonb, want 2", nulls)
	}
	tr := mustLoad(t, s, sess.ID, true)
	if len(tr.Entries) != 2 || string(tr.Entries[1].Raw) != string(foreign.Raw) {
		t.Errorf("Load: %d entries, problems %v", len(tr.Entries), tr.Problems)
	}
	bad := session.Entry{Type: "progress", Raw: []byte(`{"type":"progress",`)}
	if _, err := s.Append(ctx, sess.ID, userMsg(t, "ok"), bad); !errors.Is(err, session.ErrInvalidEntry) {
		t.Errorf("Append of a line that is not JSON: %v, want ErrInvalidEntry", err)
	}
	if got := mustGet(t, s, sess.ID).Entries; got != 2 {
		t.Errorf("%d entries after a refused batch, want 2", got)
	}
}

// TestExport: Export yields every stored line in order with its Raw,
// Offset and Line, stops at the entries counted when it was called, and
// stops early when the consumer does.
func TestExport(t *testing.T) {
	t.Parallel()
	s := openFresh(t)
	ctx := t.Context()
	sess := newSession(t, s)
	in := mustAppend(t, s, sess.ID, userMsg(t, "q"), assistantMsg(t, "a"), boundaryEntry(1), assistantMsg(t, "a"))
	meta, entries, err := s.Export(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Entries != 4 || meta.Compactions != 1 {
		t.Errorf("Export's metadata: %+v", meta)
	}
	mustAppend(t, s, sess.ID, userMsg(t, "after Export was called"))
	var got []session.Entry
	for e, err := range entries {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if len(got) != len(in) {
		t.Fatalf("Export yielded %d entries, want the %d counted when it was called", len(got), len(in))
	}
	var off int64
	for i, e := range got {
		line, _ := session.MarshalLine(in[i])
		if e.UUID != in[i].UUID || string(e.Raw) != string(line) || e.Offset != off || e.Line != i+1 {
			t.Errorf("entry %d: uuid %s, offset %d, line %d, raw %s", i, e.UUID, e.Offset, e.Line, e.Raw)
		}
		off += int64(len(line)) + 1
	}
	n := 0
	for _, err := range entries {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 2 {
			break
		}
	}
	if _, _, err := s.Export(ctx, "missing"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Export of a missing session: %v, want ErrNotFound", err)
	}
}

// TestImport: Import stores a whole session or nothing: an invalid entry
// or the sequence's error leaves no session; an existing id is refused.
func TestImport(t *testing.T) {
	t.Parallel()
	s := openFresh(t)
	ctx := t.Context()
	bad := userMsg(t, "x")
	bad.SessionID = "another"
	errSeq := errors.New("reader failed")
	for name, c := range map[string]struct {
		es   []session.Entry
		tail error
		want error
	}{
		"invalid entry": {[]session.Entry{userMsg(t, "ok"), bad}, nil, session.ErrInvalidEntry},
		"reader error":  {[]session.Entry{userMsg(t, "ok")}, errSeq, errSeq},
		"line not JSON": {[]session.Entry{userMsg(t, "ok"), {Type: "progress", Raw: []byte(`{"type":`)}}, nil, session.ErrInvalidEntry},
	} {
		id := "import-" + strings.ReplaceAll(name, " ", "-")
		seq := func(yield func(session.Entry, error) bool) {
			for _, e := range c.es {
				if !yield(e, nil) {
					return
				}
			}
			if c.tail != nil {
				yield(session.Entry{}, c.tail)
			}
		}
		if _, err := s.Import(ctx, session.Session{ID: id, Project: "/p"}, seq); !errors.Is(err, c.want) {
			t.Errorf("%s: Import: %v, want %v", name, err, c.want)
		}
		if _, err := s.Get(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("%s: Get after a failed Import: %v, want ErrNotFound", name, err)
		}
	}
	ok := func(yield func(session.Entry, error) bool) { yield(userMsg(t, "one"), nil) }
	got, err := s.Import(ctx, session.Session{ID: "imported", Project: "/p"}, ok)
	if err != nil || got.Entries != 1 || got.Title != "one" {
		t.Fatalf("Import: %+v, %v", got, err)
	}
	if _, err := s.Import(ctx, session.Session{ID: "imported", Project: "/p"}, ok); !errors.Is(err, session.ErrExists) {
		t.Errorf("Import of an existing id: %v, want ErrExists", err)
	}
	if d := mustGet(t, s, "imported"); d.Entries != 1 {
		t.Errorf("after a refused Import: %d entries", d.Entries)
	}
}

// TestLoadIncompleteBoundary: a last boundary followed by fewer messages
// than it announces (a compaction cut short) is skipped: the live part
// starts at the boundary before it, and the problem is reported.
func TestLoadIncompleteBoundary(t *testing.T) {
	t.Parallel()
	s := openFresh(t)
	sess := newSession(t, s)
	mustAppend(t, s, sess.ID, userMsg(t, "q1"), assistantMsg(t, "a1"))
	good := mustAppend(t, s, sess.ID, boundaryEntry(1), userMsg(t, "summary"), assistantMsg(t, "a2"))
	mustAppend(t, s, sess.ID, boundaryEntry(3), userMsg(t, "only one of three"))
	tr := mustLoad(t, s, sess.ID, false)
	if len(tr.Entries) == 0 || tr.Entries[0].UUID != good[0].UUID || tr.Offset != good[0].Offset {
		t.Fatalf("live part starts at %v (offset %d), want the complete boundary %s (offset %d)", uuidsOf(tr.Entries), tr.Offset, good[0].UUID, good[0].Offset)
	}
	found := false
	for _, p := range tr.Problems {
		found = found || p.Kind == session.ProblemIncompleteBoundary
	}
	if !found {
		t.Errorf("problems %v, want an incomplete boundary", tr.Problems)
	}
}
