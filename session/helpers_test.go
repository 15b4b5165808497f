package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/window"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// quarterCounter is a fast deterministic stand-in for a tokenizer: one
// token per 4 bytes, rounded up.
type quarterCounter struct{}

func (quarterCounter) Count(s string) int { return (len(s) + 3) / 4 }
func (quarterCounter) Name() string       { return "quarter" }

// memStore is a slice-backed [session.Store] for tests: each session is a
// list of lines, written with MarshalLine and read back with Read, so that
// what a test restores went through the line format. It fills UUID,
// parent, session id and timestamp as the Store contract says.
type memStore struct {
	mu       sync.Mutex
	sessions map[string]*memSession
	appends  int
	clock    time.Time
}

type memSession struct {
	meta  session.Session
	lines [][]byte
	last  string // uuid of the last entry
}

func newMemStore() *memStore {
	return &memStore{sessions: map[string]*memSession{}, clock: time.Date(2026, 2, 10, 21, 0, 0, 0, time.UTC)}
}

func (m *memStore) Create(_ context.Context, s session.Session) (session.Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.ID == "" {
		s.ID = session.NewID()
	}
	if err := session.ValidateID(s.ID); err != nil {
		return session.Session{}, err
	}
	if _, ok := m.sessions[s.ID]; ok {
		return session.Session{}, fmt.Errorf("mem: create %s: %w", s.ID, session.ErrExists)
	}
	if s.Created.IsZero() {
		s.Created = m.clock
	}
	m.sessions[s.ID] = &memSession{meta: s}
	return s, nil
}

func (m *memStore) Append(_ context.Context, id string, entries ...session.Entry) ([]session.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return nil, fmt.Errorf("mem: append %s: %w", id, session.ErrNotFound)
	}
	m.appends++
	out := make([]session.Entry, len(entries))
	var lines [][]byte
	last := s.last
	for i, e := range entries {
		if e.UUID == "" {
			e.UUID = session.NewID()
		}
		if e.SessionID == "" {
			e.SessionID = id
		}
		if e.Timestamp.IsZero() {
			m.clock = m.clock.Add(time.Millisecond)
			e.Timestamp = m.clock
		}
		if e.IsBoundary() {
			e.ParentUUID = ""
			if e.LogicalParentUUID == "" {
				e.LogicalParentUUID = last
			}
		} else if e.ParentUUID == "" {
			e.ParentUUID = last
		}
		line, err := session.MarshalLine(e)
		if err != nil {
			return nil, fmt.Errorf("mem: append %s: %w", id, err)
		}
		lines = append(lines, line)
		out[i] = e
		last = e.UUID
	}
	s.lines = append(s.lines, lines...)
	s.last = last
	for _, e := range out {
		s.meta.Observe(e)
	}
	return out, nil
}

func (m *memStore) Sync(context.Context, string) error { return nil }

// data returns session id's transcript file.
func (m *memStore) data(id string) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b bytes.Buffer
	for _, l := range m.sessions[id].lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func (m *memStore) Load(ctx context.Context, id string, opts session.LoadOptions) (*session.Transcript, error) {
	sess, err := m.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	es, ps, err := session.Read(bytes.NewReader(m.data(id)), session.ReadOptions{File: id, FirstLine: 1})
	if err != nil {
		return nil, err
	}
	resolved, rps := session.Resolve(es)
	ps = append(ps, rps...)
	if !opts.All {
		start, lps := session.Live(resolved)
		ps = append(ps, lps...)
		resolved = resolved[start:]
	}
	return &session.Transcript{Session: sess, Entries: resolved, Problems: ps}, nil
}

func (m *memStore) Get(_ context.Context, id string) (session.Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return session.Session{}, fmt.Errorf("mem: get %s: %w", id, session.ErrNotFound)
	}
	return s.meta, nil
}

func (m *memStore) List(_ context.Context, opts session.ListOptions) ([]session.Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []session.Session
	for _, s := range m.sessions {
		if opts.Project == "" || s.meta.Project == opts.Project {
			out = append(out, s.meta)
		}
	}
	slices.SortFunc(out, func(a, b session.Session) int { return b.LastActivity.Compare(a.LastActivity) })
	if opts.Limit > 0 && len(out) > opts.Limit {
		out = out[:opts.Limit]
	}
	return out, nil
}

func (m *memStore) Update(_ context.Context, id string, fn func(*session.Session) error) (session.Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return session.Session{}, fmt.Errorf("mem: update %s: %w", id, session.ErrNotFound)
	}
	c := s.meta
	if err := fn(&c); err != nil {
		return session.Session{}, err
	}
	s.meta.Title, s.meta.Model, s.meta.Metadata = c.Title, c.Model, c.Metadata
	return s.meta, nil
}

func (m *memStore) Delete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.sessions[id]; !ok {
		return fmt.Errorf("mem: delete %s: %w", id, session.ErrNotFound)
	}
	delete(m.sessions, id)
	return nil
}

func (m *memStore) Close() error { return nil }

var _ session.Store = (*memStore)(nil)

// newSession creates a session in st and returns its id.
func newSession(t testing.TB, st session.Store) string {
	t.Helper()
	s, err := st.Create(context.Background(), session.Session{Project: "/work/project"})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return s.ID
}

// restored loads session id from st and restores its window under opts,
// failing t on any error or problem.
func restored(t testing.TB, st session.Store, id string, opts window.Options) *window.Window {
	t.Helper()
	tr, err := st.Load(context.Background(), id, session.LoadOptions{})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(tr.Problems) > 0 {
		t.Fatalf("Load problems: %v", tr.Problems)
	}
	w, ps, err := session.Restore(tr.Entries, opts)
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if len(ps) > 0 {
		t.Fatalf("Restore problems: %v", ps)
	}
	return w
}

// diffWindows describes how got differs from want: messages (cmp.Equal),
// note flags, per-message token counts, the total, the anchor and the
// tally of dropped messages; "" when they are the same.
func diffWindows(got, want *window.Window) string {
	var b strings.Builder
	if got.Len() != want.Len() {
		fmt.Fprintf(&b, "Len() = %d, want %d\n", got.Len(), want.Len())
	}
	for i := range min(got.Len(), want.Len()) {
		if d := cmp.Diff(want.At(i), got.At(i)); d != "" {
			fmt.Fprintf(&b, "message %d (-want +got):\n%s", i, d)
		}
		if got.IsNote(i) != want.IsNote(i) {
			fmt.Fprintf(&b, "IsNote(%d) = %v, want %v\n", i, got.IsNote(i), want.IsNote(i))
		}
		if got.TokensAt(i) != want.TokensAt(i) {
			fmt.Fprintf(&b, "TokensAt(%d) = %d, want %d\n", i, got.TokensAt(i), want.TokensAt(i))
		}
	}
	if got.Tokens() != want.Tokens() {
		fmt.Fprintf(&b, "Tokens() = %d, want %d\n", got.Tokens(), want.Tokens())
	}
	if got.Anchor() != want.Anchor() {
		fmt.Fprintf(&b, "Anchor() = %+v, want %+v\n", got.Anchor(), want.Anchor())
	}
	if d := cmp.Diff(want.Dropped(), got.Dropped(), cmpopts.EquateEmpty()); d != "" {
		fmt.Fprintf(&b, "Dropped() (-want +got):\n%s", d)
	}
	if vs := got.Check(); len(vs) > 0 {
		fmt.Fprintf(&b, "restored window: Check() = %v\n", vs)
	}
	return b.String()
}

// lines joins JSON lines into a transcript, each ended by a newline.
func lines(ls ...string) []byte {
	var b bytes.Buffer
	for _, l := range ls {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// ccLine returns a Claude Code style line: uuid, parent ("" for null),
// type and message (a JSON value or "" for none), plus extra raw fields.
func ccLine(uuid, parent, typ, message string, extra ...string) string {
	p := "null"
	if parent != "" {
		p = fmt.Sprintf("%q", parent)
	}
	s := fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"sessionId":"s1","type":%q,"uuid":%q,"timestamp":"2026-02-10T21:11:56.846Z"`, p, typ, uuid)
	if message != "" {
		s += `,"message":` + message
	}
	for _, x := range extra {
		s += "," + x
	}
	return s + "}"
}

// read decodes a transcript held in memory as file name.
func read(t testing.TB, name string, data []byte) ([]session.Entry, []session.Problem) {
	t.Helper()
	es, ps, err := session.Read(bytes.NewReader(data), session.ReadOptions{File: name, FirstLine: 1})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return es, ps
}

// uuids returns the entries' uuids.
func uuids(es []session.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.UUID
	}
	return out
}

// kinds returns the problems' kinds.
func kinds(ps []session.Problem) []session.ProblemKind {
	out := []session.ProblemKind{}
	for _, p := range ps {
		out = append(out, p.Kind)
	}
	return out
}

// mustEntry returns the entry recording m.
func mustEntry(t testing.TB, m chat.Message) session.Entry {
	t.Helper()
	e, err := session.NewMessageEntry(m)
	if err != nil {
		t.Fatalf("NewMessageEntry: %v", err)
	}
	return e
}

// marshalAll writes entries as a transcript.
func marshalAll(t testing.TB, es []session.Entry) []byte {
	t.Helper()
	var b bytes.Buffer
	for i, e := range es {
		l, err := session.MarshalLine(e)
		if err != nil {
			t.Fatalf("MarshalLine(entry %d): %v", i, err)
		}
		b.Write(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func rawJSON(s string) json.RawMessage { return json.RawMessage(s) }

func user(s string) chat.Message   { return chat.NewText(chat.RoleUser, s) }
func asst(s string) chat.Message   { return chat.NewText(chat.RoleAssistant, s) }
func system(s string) chat.Message { return chat.NewText(chat.RoleSystem, s) }

func call(id, name, args string) chat.Message {
	return chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: id, Name: name, Arguments: rawJSON(args)}}}
}
