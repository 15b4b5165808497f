package sessiontest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/window"
)

func testCreateGeneratedID(t *testing.T, s session.Store) {
	p := project(t)
	sess, err := s.Create(t.Context(), session.Session{Project: p, Title: "t", Metadata: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	u, err := uuid.Parse(sess.ID)
	if err != nil || u.Version() != 7 || sess.ID != u.String() {
		t.Errorf("generated id %q is not a canonical version 7 UUID (err %v)", sess.ID, err)
	}
	if sess.Project != p {
		t.Errorf("Project = %q, want %q", sess.Project, p)
	}
	if sess.Created.IsZero() || sess.Title != "t" || sess.Metadata["k"] != "v" {
		t.Errorf("Create returned %+v: want Created set, Title and Metadata kept", sess)
	}
	if sess.Entries != 0 || sess.Messages != 0 {
		t.Errorf("new session has Entries %d, Messages %d, want 0", sess.Entries, sess.Messages)
	}
	if d := cmp.Diff(sess, get(t, s, sess.ID)); d != "" {
		t.Errorf("Get differs from Create's result (-create +get):\n%s", d)
	}
	two := create(t, s, p)
	if two.ID == sess.ID {
		t.Errorf("two generated ids are equal: %s", two.ID)
	}
}

func testCreateExplicitID(t *testing.T, s session.Store) {
	p := project(t)
	for _, id := range []string{"my-session_1", "a", uuid.NewString(), strings.Repeat("x", session.MaxIDLength)} {
		sess, err := s.Create(t.Context(), session.Session{ID: id, Project: p})
		if err != nil {
			t.Fatalf("Create(%q): %v", id, err)
		}
		if sess.ID != id {
			t.Errorf("Create(%q) returned id %q", id, sess.ID)
		}
		if got := get(t, s, id); got.ID != id || got.Project != p {
			t.Errorf("Get(%q) = %+v", id, got)
		}
	}
	// A relative project path is stored absolute.
	sess, err := s.Create(t.Context(), session.Session{Project: "."})
	if err != nil {
		t.Fatal(err)
	}
	if want := mustAbs(t, "."); sess.Project != want {
		t.Errorf("Project of %q = %q, want %q", ".", sess.Project, want)
	}
}

func testCreateExists(t *testing.T, s session.Store) {
	p := project(t)
	sess := create(t, s, p)
	appendOK(t, s, sess.ID, user(t, "hello"))
	_, err := s.Create(t.Context(), session.Session{ID: sess.ID, Project: p})
	isErr(t, "Create of an existing id", err, session.ErrExists)
	_, err = s.Create(t.Context(), session.Session{ID: sess.ID, Project: project(t)})
	isErr(t, "Create of an existing id in another project", err, session.ErrExists)
	if got := load(t, s, sess.ID, true); len(got.Entries) != 1 {
		t.Errorf("after a refused Create the session has %d entries, want 1", len(got.Entries))
	}
}

func testCreateInvalidID(t *testing.T, s session.Store) {
	p := project(t)
	for _, id := range []string{"../x", "a/b", `a\b`, "x\x00y", ".hidden", "..", "-flag", "tab\there", strings.Repeat("x", session.MaxIDLength+1), "bad\xffutf8"} {
		_, err := s.Create(t.Context(), session.Session{ID: id, Project: p})
		isErr(t, fmt.Sprintf("Create(%q)", id), err, session.ErrInvalidID)
	}
	ss, err := s.List(t.Context(), session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 0 {
		t.Errorf("invalid ids created sessions: %v", sessionIDs(ss))
	}
}

func testCreateProjectRequired(t *testing.T, s session.Store) {
	if _, err := s.Create(t.Context(), session.Session{ID: "no-project"}); err == nil {
		t.Error("Create without a project succeeded")
	}
	_, err := s.Get(t.Context(), "no-project")
	isErr(t, "Get after a refused Create", err, session.ErrNotFound)
}

func testNotFound(t *testing.T, s session.Store) {
	create(t, s, project(t)) // another session exists
	ctx := t.Context()
	for _, c := range []struct {
		id   string
		want error
	}{{"no-such-session", session.ErrNotFound}, {"../x", session.ErrInvalidID}, {"", session.ErrInvalidID}} {
		_, err := s.Get(ctx, c.id)
		isErr(t, "Get "+c.id, err, c.want)
		_, err = s.Append(ctx, c.id, user(t, "x"))
		isErr(t, "Append "+c.id, err, c.want)
		_, err = s.Load(ctx, c.id, session.LoadOptions{})
		isErr(t, "Load "+c.id, err, c.want)
		_, err = s.Update(ctx, c.id, func(*session.Session) error { return nil })
		isErr(t, "Update "+c.id, err, c.want)
		isErr(t, "Delete "+c.id, s.Delete(ctx, c.id), c.want)
		isErr(t, "Sync "+c.id, s.Sync(ctx, c.id), c.want)
	}
	ss, err := s.List(ctx, session.ListOptions{})
	if err != nil || len(ss) != 1 {
		t.Errorf("List after failed calls = %v, %v; want the one session", sessionIDs(ss), err)
	}
}

func testList(t *testing.T, s session.Store) {
	pa, pb := project(t), project(t)
	ids := make([]string, 4)
	projects := []string{pa, pb, pa, pb}
	// Session i is last active at minute order[i].
	order := []int{2, 4, 1, 3}
	for i := range ids {
		sess, err := s.Create(t.Context(), session.Session{Project: projects[i], Created: at(-time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = sess.ID
		e := user(t, "prompt")
		e.Timestamp = at(time.Duration(order[i]) * time.Minute)
		appendOK(t, s, sess.ID, e)
	}
	byActivity := []string{ids[1], ids[3], ids[0], ids[2]}
	for _, c := range []struct {
		name string
		opts session.ListOptions
		want []string
	}{
		{"all", session.ListOptions{}, byActivity},
		{"limit", session.ListOptions{Limit: 2}, byActivity[:2]},
		{"project", session.ListOptions{Project: pa}, []string{ids[0], ids[2]}},
		{"project limit", session.ListOptions{Project: pb, Limit: 1}, []string{ids[1]}},
		{"project unclean", session.ListOptions{Project: pa + "/./"}, []string{ids[0], ids[2]}},
		{"other project", session.ListOptions{Project: project(t)}, nil},
	} {
		ss, err := s.List(t.Context(), c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d := cmp.Diff(c.want, sessionIDs(ss), cmpEmpty); d != "" {
			t.Errorf("%s: List ids (-want +got):\n%s", c.name, d)
		}
		for _, sess := range ss {
			if d := cmp.Diff(get(t, s, sess.ID), sess); d != "" {
				t.Errorf("%s: List entry differs from Get (-get +list):\n%s", c.name, d)
			}
		}
	}
	if got := get(t, s, ids[1]).LastActivity; !got.Equal(at(4 * time.Minute)) {
		t.Errorf("LastActivity = %v, want the last entry's timestamp %v", got, at(4*time.Minute))
	}
}

var cmpEmpty = cmp.Comparer(func(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return cmp.Equal(a, b)
})

func testAppendFills(t *testing.T, s session.Store) {
	p := project(t)
	sess := create(t, s, p)
	first := appendOK(t, s, sess.ID, user(t, "one"), assistant(t, "two"))
	second := appendOK(t, s, sess.ID, user(t, "three"))
	third := appendOK(t, s, sess.ID, assistant(t, "four"), user(t, "five"))
	all := append(append(first, second...), third...)
	seen := map[string]bool{}
	for i, e := range all {
		if e.UUID == "" || seen[e.UUID] {
			t.Errorf("entry %d: uuid %q empty or repeated", i, e.UUID)
		}
		seen[e.UUID] = true
		if e.SessionID != sess.ID {
			t.Errorf("entry %d: sessionId %q, want %q", i, e.SessionID, sess.ID)
		}
		if e.Timestamp.IsZero() {
			t.Errorf("entry %d: zero timestamp", i)
		}
		if e.CWD != p {
			t.Errorf("entry %d: cwd %q, want the project %q", i, e.CWD, p)
		}
	}
	chainLinear(t, all, "")
	// An explicit uuid and timestamp are kept.
	e := user(t, "six")
	e.UUID = uuid.NewString()
	e.Timestamp = at(0)
	kept := appendOK(t, s, sess.ID, e)[0]
	if kept.UUID != e.UUID || !kept.Timestamp.Equal(at(0)) || kept.ParentUUID != all[len(all)-1].UUID {
		t.Errorf("Append changed explicit fields or missed the parent: %+v", kept)
	}
	all = append(all, kept)
	tr := load(t, s, sess.ID, true)
	if d := cmp.Diff(all, tr.Entries, stored); d != "" {
		t.Errorf("loaded entries differ from Append's result (-append +load):\n%s", d)
	}
	if len(tr.Problems) != 0 {
		t.Errorf("problems in a clean session: %v", tr.Problems)
	}
	if live := load(t, s, sess.ID, false); !cmp.Equal(uuids(live.Entries), uuids(all)) {
		t.Errorf("Load without a boundary returned %d entries, want all %d", len(live.Entries), len(all))
	}
}

func testAppendBoundary(t *testing.T, s session.Store) {
	sess := create(t, s, project(t))
	before := appendOK(t, s, sess.ID, user(t, "q"), assistant(t, "a"))
	b := appendOK(t, s, sess.ID, boundary(1), summary(t, "summary of q and a"))
	if b[0].ParentUUID != "" {
		t.Errorf("boundary parentUuid = %q, want null", b[0].ParentUUID)
	}
	if b[0].LogicalParentUUID != before[1].UUID {
		t.Errorf("boundary logicalParentUuid = %q, want the previous entry %q", b[0].LogicalParentUUID, before[1].UUID)
	}
	if b[1].ParentUUID != b[0].UUID {
		t.Errorf("summary parentUuid = %q, want the boundary %q", b[1].ParentUUID, b[0].UUID)
	}
	after := appendOK(t, s, sess.ID, user(t, "next"))
	if after[0].ParentUUID != b[1].UUID {
		t.Errorf("entry after the summary has parent %q, want %q", after[0].ParentUUID, b[1].UUID)
	}
	// A boundary given a parent keeps it as the logical parent only.
	nb := boundary(1)
	nb.ParentUUID = before[0].UUID
	got := appendOK(t, s, sess.ID, nb, summary(t, "s2"))[0]
	if got.ParentUUID != "" || got.LogicalParentUUID != before[0].UUID {
		t.Errorf("boundary with a parent stored as parent %q, logical %q", got.ParentUUID, got.LogicalParentUUID)
	}
}

func testAppendInvalidEntry(t *testing.T, s session.Store) {
	sess := create(t, s, project(t))
	good := user(t, "fine")
	noMeta := boundary(1)
	noMeta.CompactMetadata = nil
	otherSession := user(t, "x")
	otherSession.SessionID = "another-session"
	badJSON := user(t, "x")
	badJSON.Message = json.RawMessage(`{"role":`)
	for name, bad := range map[string]session.Entry{
		"no type":            {Message: good.Message},
		"other session":      otherSession,
		"boundary, no meta":  noMeta,
		"message not JSON":   badJSON,
		"raw with a newline": {Type: "progress", Raw: json.RawMessage("{\"type\":\"progress\"}\n{}")},
	} {
		_, err := s.Append(t.Context(), sess.ID, good, bad)
		isErr(t, "Append with "+name, err, session.ErrInvalidEntry)
	}
	tr := load(t, s, sess.ID, true)
	if len(tr.Entries) != 0 || len(tr.Problems) != 0 {
		t.Errorf("refused batches wrote %d entries, problems %v", len(tr.Entries), tr.Problems)
	}
	if got := get(t, s, sess.ID); got.Entries != 0 {
		t.Errorf("Entries = %d after refused batches, want 0", got.Entries)
	}
	// The session still works.
	ok := appendOK(t, s, sess.ID, good)
	if ok[0].ParentUUID != "" {
		t.Errorf("first entry after refused batches has parent %q", ok[0].ParentUUID)
	}
}

func testAppendConcurrent(t *testing.T, s session.Store) {
	sess := create(t, s, project(t))
	const workers, each = 8, 20
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				es := []session.Entry{user(t, fmt.Sprintf("w%d-%d", w, i))}
				if i%4 == 0 {
					es = append(es, assistant(t, fmt.Sprintf("w%d-%d reply", w, i)))
				}
				if _, err := s.Append(t.Context(), sess.ID, es...); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent Append: %v", err)
	}
	tr := load(t, s, sess.ID, true)
	want := workers * (each + each/4)
	if len(tr.Entries) != want {
		t.Fatalf("loaded %d entries, want %d", len(tr.Entries), want)
	}
	seen := map[string]bool{}
	for _, e := range tr.Entries {
		if seen[e.UUID] {
			t.Fatalf("uuid %s loaded twice", e.UUID)
		}
		seen[e.UUID] = true
	}
	chainLinear(t, tr.Entries, "")
	if len(tr.Problems) != 0 {
		t.Errorf("problems after concurrent appends: %v", tr.Problems)
	}
	if got := get(t, s, sess.ID).Entries; got != want {
		t.Errorf("Entries = %d, want %d", got, want)
	}
}

func testMetadata(t *testing.T, s session.Store) {
	sess := create(t, s, project(t))
	reply := msg(t, chat.Message{
		Role:  chat.RoleAssistant,
		Model: "claude-sonnet-4-5",
		Usage: &chat.Usage{InputTokens: 100, CacheReadTokens: 1000, CacheWriteTokens: 20, OutputTokens: 7},
		Parts: []chat.Part{chat.Text{Text: "done"}},
	})
	appendOK(t, s, sess.ID, user(t, "Fix the failing test\nin package foo, please"), reply, user(t, "thanks"))
	got := get(t, s, sess.ID)
	want := session.Session{Title: "Fix the failing test", Model: "claude-sonnet-4-5", PromptTokens: 1120, Entries: 3, Messages: 3}
	check := func(what string, got session.Session) {
		t.Helper()
		if got.Title != want.Title || got.Model != want.Model || got.PromptTokens != want.PromptTokens ||
			got.Entries != want.Entries || got.Messages != want.Messages || got.Compactions != want.Compactions {
			t.Errorf("%s: Title %q, Model %q, PromptTokens %d, Entries %d, Messages %d, Compactions %d; want %q, %q, %d, %d, %d, %d",
				what, got.Title, got.Model, got.PromptTokens, got.Entries, got.Messages, got.Compactions,
				want.Title, want.Model, want.PromptTokens, want.Entries, want.Messages, want.Compactions)
		}
	}
	check("after 3 messages", got)
	long := strings.Repeat("é", session.MaxTitleRunes+10)
	other := create(t, s, project(t))
	appendOK(t, s, other.ID, user(t, long))
	title := get(t, s, other.ID).Title
	if trimmed := strings.TrimSuffix(title, "…"); utf8.RuneCountInString(title) > session.MaxTitleRunes || trimmed == "" || !strings.HasPrefix(long, trimmed) {
		t.Errorf("long prompt gave title %q (%d runes), want a prefix of it of at most %d runes", title, utf8.RuneCountInString(title), session.MaxTitleRunes)
	}

	appendOK(t, s, sess.ID, boundary(2), summary(t, "summary"), user(t, "kept"))
	appendOK(t, s, sess.ID, assistant(t, "after"))
	want.Entries, want.Messages, want.Compactions = 7, 3, 1
	check("after a compaction", get(t, s, sess.ID))
	check("Load's session", load(t, s, sess.ID, false).Session)
	ss, err := s.List(t.Context(), session.ListOptions{Project: sess.Project})
	if err != nil || len(ss) != 1 {
		t.Fatalf("List = %v, %v", sessionIDs(ss), err)
	}
	check("List's session", ss[0])
}

func testLoadLive(t *testing.T, s session.Store) {
	sess := create(t, s, project(t))
	old := appendOK(t, s, sess.ID, user(t, "q1"), assistant(t, "a1"), user(t, "q2"), assistant(t, "a2"))
	first := appendOK(t, s, sess.ID, boundary(2), summary(t, "q1 a1"), user(t, "q2"))
	mid := appendOK(t, s, sess.ID, assistant(t, "a2 again"), user(t, "q3"))
	second := appendOK(t, s, sess.ID, boundary(1), summary(t, "all so far"))
	last := appendOK(t, s, sess.ID, user(t, "q4"), assistant(t, "a4"))
	tr := load(t, s, sess.ID, false)
	want := append(append([]session.Entry{}, second...), last...)
	if d := cmp.Diff(uuids(want), uuids(tr.Entries)); d != "" {
		t.Errorf("live entries (-want +got):\n%s", d)
	}
	if len(tr.Entries) > 0 && !tr.Entries[0].IsBoundary() {
		t.Errorf("live part does not start with the boundary: %+v", tr.Entries[0])
	}
	if d := cmp.Diff(want, tr.Entries, stored); d != "" {
		t.Errorf("live entries differ from Append's result (-append +load):\n%s", d)
	}
	all := load(t, s, sess.ID, true)
	var everything []session.Entry
	for _, part := range [][]session.Entry{old, first, mid, second, last} {
		everything = append(everything, part...)
	}
	if d := cmp.Diff(everything, all.Entries, stored); d != "" {
		t.Errorf("All entries (-append +load):\n%s", d)
	}
	if len(tr.Problems)+len(all.Problems) != 0 {
		t.Errorf("problems: %v %v", tr.Problems, all.Problems)
	}
}

func testForeign(t *testing.T, s session.Store) {
	sess := create(t, s, project(t))
	q := appendOK(t, s, sess.ID, user(t, "q"))[0]
	// A foreign line on the chain (Claude Code's progress line), with
	// odd spacing, key order and characters a re-encoding would change.
	raws := []string{
		fmt.Sprintf(`{"parentUuid":%q,"isSidechain":false,"type":"progress","data":{"type":"hook_progress","hookName":"x <&> \u2028"},"uuid":%q,"sessionId":%q,"timestamp":"2026-01-01T00:00:01.000Z","zzz":[1, 2 ,3]}`,
			q.UUID, uuid.NewString(), sess.ID),
	}
	var foreign []session.Entry
	for _, r := range raws {
		e, err := session.DecodeLine([]byte(r))
		if err != nil {
			t.Fatalf("DecodeLine(%s): %v", r, err)
		}
		foreign = append(foreign, e)
	}
	appendOK(t, s, sess.ID, foreign...)
	a := appendOK(t, s, sess.ID, assistant(t, "a"))[0]
	if a.ParentUUID != foreign[0].UUID {
		t.Errorf("entry after a foreign line with a uuid has parent %q, want %q", a.ParentUUID, foreign[0].UUID)
	}
	tr := load(t, s, sess.ID, true)
	found := 0
	for _, e := range tr.Entries {
		for _, r := range raws {
			if string(e.Raw) == r {
				found++
			}
		}
	}
	if found != len(raws) {
		t.Errorf("%d of %d foreign lines came back byte for byte; entries: %v", found, len(raws), uuids(tr.Entries))
	}
	if got := get(t, s, sess.ID).Entries; got != 3 {
		t.Errorf("Entries = %d, want 3 (foreign lines count)", got)
	}
	for _, all := range []bool{false, true} {
		if tr := load(t, s, sess.ID, all); !cmp.Equal(uuids(tr.Entries), []string{q.UUID, foreign[0].UUID, a.UUID}) {
			t.Errorf("Load(all=%v) = %v, want the prompt, the foreign line and the reply", all, uuids(tr.Entries))
		}
	}
}

func testUpdate(t *testing.T, s session.Store) {
	sess := create(t, s, project(t))
	appendOK(t, s, sess.ID, user(t, "original prompt"))
	got, err := s.Update(t.Context(), sess.ID, func(m *session.Session) error {
		if m.Title != "original prompt" || m.Entries != 1 {
			t.Errorf("Update's fn sees Title %q, Entries %d; want the current metadata", m.Title, m.Entries)
		}
		m.Title = "Renamed"
		m.Model = "gpt-5"
		m.Metadata = map[string]string{"tag": "x"}
		m.Entries = 999 // not the caller's: ignored
		m.Project = "/elsewhere"
		m.ID = "other-id"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := get(t, s, sess.ID)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Update's result differs from Get (-get +update):\n%s", d)
	}
	if want.Title != "Renamed" || want.Model != "gpt-5" || want.Metadata["tag"] != "x" {
		t.Errorf("Update did not store Title, Model, Metadata: %+v", want)
	}
	if want.Entries != 1 || want.Project != sess.Project || want.ID != sess.ID {
		t.Errorf("Update changed fields it does not own: %+v", want)
	}
	// The set title survives later appends.
	appendOK(t, s, sess.ID, user(t, "another prompt"))
	if title := get(t, s, sess.ID).Title; title != "Renamed" {
		t.Errorf("Title after an append = %q, want the one set by Update", title)
	}
	// Read-modify-write: a second Update sees the first.
	if _, err := s.Update(t.Context(), sess.ID, func(m *session.Session) error {
		m.Metadata["n"] = "2"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if md := get(t, s, sess.ID).Metadata; md["tag"] != "x" || md["n"] != "2" {
		t.Errorf("Metadata after two Updates = %v", md)
	}
}

func testUpdateFnError(t *testing.T, s session.Store) {
	sess := create(t, s, project(t))
	before := get(t, s, sess.ID)
	_, err := s.Update(t.Context(), sess.ID, func(m *session.Session) error {
		m.Title = "should not stick"
		m.Metadata = map[string]string{"a": "b"}
		return errFn
	})
	if !errors.Is(err, errFn) {
		t.Errorf("Update returned %v, want fn's error", err)
	}
	if d := cmp.Diff(before, get(t, s, sess.ID)); d != "" {
		t.Errorf("a failed Update changed the session (-before +after):\n%s", d)
	}
}

func testDelete(t *testing.T, s session.Store) {
	p := project(t)
	keep := create(t, s, p)
	sess := create(t, s, p)
	appendOK(t, s, sess.ID, user(t, "q"), assistant(t, "a"))
	if err := s.Delete(t.Context(), sess.ID); err != nil {
		t.Fatal(err)
	}
	_, err := s.Get(t.Context(), sess.ID)
	isErr(t, "Get after Delete", err, session.ErrNotFound)
	_, err = s.Load(t.Context(), sess.ID, session.LoadOptions{All: true})
	isErr(t, "Load after Delete", err, session.ErrNotFound)
	_, err = s.Append(t.Context(), sess.ID, user(t, "x"))
	isErr(t, "Append after Delete", err, session.ErrNotFound)
	isErr(t, "Delete after Delete", s.Delete(t.Context(), sess.ID), session.ErrNotFound)
	ss, err := s.List(t.Context(), session.ListOptions{})
	if err != nil || !cmp.Equal(sessionIDs(ss), []string{keep.ID}) {
		t.Errorf("List after Delete = %v, %v; want only %s", sessionIDs(ss), err, keep.ID)
	}
	// The id can be used again, and starts empty.
	if _, err := s.Create(t.Context(), session.Session{ID: sess.ID, Project: p}); err != nil {
		t.Fatalf("Create after Delete: %v", err)
	}
	if tr := load(t, s, sess.ID, true); len(tr.Entries) != 0 {
		t.Errorf("recreated session has %d entries", len(tr.Entries))
	}
	// Deleting the last session of a project leaves the store usable.
	for _, id := range []string{keep.ID, sess.ID} {
		if err := s.Delete(t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}
	create(t, s, p)
}

func testSync(t *testing.T, s session.Store) {
	sess := create(t, s, project(t))
	if err := s.Sync(t.Context(), sess.ID); err != nil {
		t.Errorf("Sync before any append: %v", err)
	}
	appendOK(t, s, sess.ID, user(t, "q"))
	if err := s.Sync(t.Context(), sess.ID); err != nil {
		t.Errorf("Sync: %v", err)
	}
	if n := len(load(t, s, sess.ID, true).Entries); n != 1 {
		t.Errorf("after Sync: %d entries, want 1", n)
	}
}

func testClosed(t *testing.T, s session.Store) {
	sess := create(t, s, project(t))
	appendOK(t, s, sess.ID, user(t, "q"))
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ctx := t.Context()
	_, err := s.Create(ctx, session.Session{Project: project(t)})
	isErr(t, "Create", err, session.ErrClosed)
	_, err = s.Append(ctx, sess.ID, user(t, "x"))
	isErr(t, "Append", err, session.ErrClosed)
	_, err = s.Load(ctx, sess.ID, session.LoadOptions{})
	isErr(t, "Load", err, session.ErrClosed)
	_, err = s.Get(ctx, sess.ID)
	isErr(t, "Get", err, session.ErrClosed)
	_, err = s.List(ctx, session.ListOptions{})
	isErr(t, "List", err, session.ErrClosed)
	_, err = s.Update(ctx, sess.ID, func(*session.Session) error { return nil })
	isErr(t, "Update", err, session.ErrClosed)
	isErr(t, "Delete", s.Delete(ctx, sess.ID), session.ErrClosed)
	isErr(t, "Sync", s.Sync(ctx, sess.ID), session.ErrClosed)
}

func testCanceled(t *testing.T, s session.Store) {
	sess := create(t, s, project(t))
	appendOK(t, s, sess.ID, user(t, "q"))
	ctx := canceled(t)
	_, err := s.Create(ctx, session.Session{Project: project(t)})
	isErr(t, "Create", err, context.Canceled)
	_, err = s.Append(ctx, sess.ID, user(t, "x"))
	isErr(t, "Append", err, context.Canceled)
	_, err = s.Load(ctx, sess.ID, session.LoadOptions{})
	isErr(t, "Load", err, context.Canceled)
	_, err = s.Get(ctx, sess.ID)
	isErr(t, "Get", err, context.Canceled)
	_, err = s.List(ctx, session.ListOptions{})
	isErr(t, "List", err, context.Canceled)
	_, err = s.Update(ctx, sess.ID, func(m *session.Session) error { m.Title = "x"; return nil })
	isErr(t, "Update", err, context.Canceled)
	isErr(t, "Delete", s.Delete(ctx, sess.ID), context.Canceled)
	isErr(t, "Sync", s.Sync(ctx, sess.ID), context.Canceled)
	// Nothing was written or removed.
	got := get(t, s, sess.ID)
	if got.Entries != 1 || got.Title == "x" {
		t.Errorf("canceled calls changed the session: %+v", got)
	}
	ss, err := s.List(t.Context(), session.ListOptions{})
	if err != nil || len(ss) != 1 {
		t.Errorf("canceled Create made a session: %v, %v", sessionIDs(ss), err)
	}
}

func testResume(t *testing.T, s session.Store) {
	ctx := t.Context()
	sess := create(t, s, project(t))
	rec := session.NewRecorder(s, sess.ID)
	w, err := window.New(window.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// check loads the session, restores its window and compares it with
	// w: the window the process had.
	check := func(step string) {
		t.Helper()
		tr := load(t, s, sess.ID, false)
		got, probs, err := session.Restore(tr.Entries, window.Options{})
		if err != nil {
			t.Fatalf("%s: Restore: %v", step, err)
		}
		if len(probs) != 0 || len(tr.Problems) != 0 {
			t.Errorf("%s: problems: load %v, restore %v", step, tr.Problems, probs)
		}
		if d := cmp.Diff(w.Messages(), got.Messages()); d != "" {
			t.Fatalf("%s: resumed messages (-live +resumed):\n%s", step, d)
		}
		if w.Tokens() != got.Tokens() || w.Note() != got.Note() || w.Anchor() != got.Anchor() {
			t.Errorf("%s: resumed Tokens %d, Note %d, Anchor %+v; live %d, %d, %+v", step, got.Tokens(), got.Note(), got.Anchor(), w.Tokens(), w.Note(), w.Anchor())
		}
		if d := cmp.Diff(w.Dropped(), got.Dropped()); d != "" {
			t.Errorf("%s: resumed Dropped (-live +resumed):\n%s", step, d)
		}
	}
	add := func(ms ...chat.Message) {
		t.Helper()
		for _, m := range ms {
			if err := w.Add(m); err != nil {
				t.Fatalf("window.Add: %v", err)
			}
		}
		if err := rec.Add(ctx, ms...); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("after %d messages", w.Len()))
	}
	compact := func(start, end int, note string) {
		t.Helper()
		pre := w.Tokens()
		if err := w.Remove(start, end); err != nil {
			t.Fatalf("window.Remove: %v", err)
		}
		w.SetNote(note)
		w.SetAnchor(token.Anchor{Reported: w.Tokens() + 17, Counted: w.Tokens(), Set: true})
		if err := rec.Compacted(ctx, w, session.CompactMetadata{Trigger: "auto", PreTokens: pre, Strategy: "sessiontest"}); err != nil {
			t.Fatal(err)
		}
		check("after compaction: " + note)
	}
	call := func(id, name, args string) chat.ToolCall {
		return chat.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
	}
	result := func(id, name, content string, isErr bool) chat.Message {
		return chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{ToolCallID: id, ToolName: name, Content: content, IsError: isErr}}}
	}
	add(chat.NewText(chat.RoleSystem, "You are a coding agent."), chat.NewText(chat.RoleUser, "Fix the failing test"))
	add(chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Text{Text: "Let me look."}, call("c1", "ls", `{"path":"."}`)}})
	add(result("c1", "ls", "a.go\nb.go\n", false))
	add(chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
		chat.Thinking{Text: "two files", Signature: "sig"}, call("c2", "read", `{"path":"a.go"}`), call("c3", "read", `{"path": "b.go"}`)}})
	add(result("c2", "read", "package a\n\nfunc A() {}\n", false), result("c3", "read", "permission denied", true))
	add(chat.Message{Role: chat.RoleAssistant, Model: "claude-sonnet-4-5", Usage: &chat.Usage{InputTokens: 900, OutputTokens: 40, CacheReadTokens: 100},
		Parts: []chat.Part{chat.Text{Text: "Found it: <b> & \"quotes\" \u2028"}}})
	add(chat.NewText(chat.RoleUser, "Now run the tests"))
	compact(2, 7, "Summary: listed the folder, read a.go; b.go was unreadable.")
	add(chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{call("c4", "bash", `{"cmd":"go test ./..."}`)}})
	add(result("c4", "bash", "ok  \tpkg\t0.1s\n", false))
	add(chat.NewText(chat.RoleAssistant, "Tests pass."))
	compact(w.Len()-3, w.Len()-1, "Summary: fixed the test; go test passes.")
	add(chat.NewText(chat.RoleUser, "thanks"), chat.NewText(chat.RoleAssistant, "You are welcome."))
}

// testRewind: a rewind boundary ([session.TriggerRewind]) with its
// Branch and the kept messages after it. The live part starts at it; the
// abandoned messages before it stay in a whole load, and the boundary's
// Branch round-trips.
func testRewind(t *testing.T, s session.Store) {
	sess := create(t, s, project(t))
	old := appendOK(t, s, sess.ID, user(t, "q1"), assistant(t, "a1"), user(t, "abandoned q2"), assistant(t, "abandoned a2"))
	b := boundary(2)
	b.CompactMetadata.Trigger = session.TriggerRewind
	b.CompactMetadata.Branch = &session.Branch{At: 2, From: 4}
	rew := appendOK(t, s, sess.ID, b, user(t, "q1"), assistant(t, "a1"))
	last := appendOK(t, s, sess.ID, user(t, "q2 instead"))
	tr := load(t, s, sess.ID, false)
	want := append(append([]session.Entry{}, rew...), last...)
	if d := cmp.Diff(want, tr.Entries, stored); d != "" {
		t.Errorf("live entries after a rewind (-append +load):\n%s", d)
	}
	if len(tr.Entries) == 0 || tr.Entries[0].CompactMetadata == nil || !cmp.Equal(tr.Entries[0].CompactMetadata.Branch, b.CompactMetadata.Branch) {
		t.Errorf("rewind boundary's branch not kept: %+v", tr.Entries)
	}
	all := load(t, s, sess.ID, true)
	everything := append(append(append([]session.Entry{}, old...), rew...), last...)
	if d := cmp.Diff(everything, all.Entries, stored); d != "" {
		t.Errorf("All entries after a rewind (-append +load):\n%s", d)
	}
	if len(tr.Problems)+len(all.Problems) != 0 {
		t.Errorf("problems: %v %v", tr.Problems, all.Problems)
	}
	// A rewind is no compaction; the live window holds three messages.
	if got := get(t, s, sess.ID); got.Compactions != 0 || got.Messages != 3 || got.Entries != 8 {
		t.Errorf("after a rewind: Compactions %d, Messages %d, Entries %d; want 0, 3, 8", got.Compactions, got.Messages, got.Entries)
	}
}
