package pgstore_test

import (
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/pgtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/pgstore"
)

// open opens a store on opts (DSN and MaxConns defaulted for the
// tests), closed when the test ends.
func open(t testing.TB, opts pgstore.Options) *pgstore.Store {
	t.Helper()
	pgtest.Need(t)
	if opts.DSN == "" {
		opts.DSN = pgtest.DSN()
	}
	if opts.MaxConns == 0 {
		opts.MaxConns = 3
	}
	s, err := pgstore.Open(t.Context(), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// openFresh opens a store on a fresh schema.
func openFresh(t testing.TB) *pgstore.Store {
	t.Helper()
	return open(t, pgstore.Options{Schema: pgtest.Schema(t, "test_")})
}

// newSession creates a session in a temporary project.
func newSession(t testing.TB, s session.Store) session.Session {
	t.Helper()
	sess, err := s.Create(t.Context(), session.Session{Project: t.TempDir()})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return sess
}

func msgEntry(t testing.TB, m chat.Message) session.Entry {
	t.Helper()
	e, err := session.NewMessageEntry(m)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func userMsg(t testing.TB, text string) session.Entry {
	return msgEntry(t, chat.NewText(chat.RoleUser, text))
}

func assistantMsg(t testing.TB, text string) session.Entry {
	return msgEntry(t, chat.NewText(chat.RoleAssistant, text))
}

func boundaryEntry(n int) session.Entry {
	return session.Entry{Type: session.TypeSystem, Subtype: session.SubtypeCompactBoundary,
		CompactMetadata: &session.CompactMetadata{Trigger: "auto", PreTokens: 1000, Messages: n}}
}

func mustAppend(t testing.TB, s session.Store, id string, es ...session.Entry) []session.Entry {
	t.Helper()
	out, err := s.Append(t.Context(), id, es...)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	return out
}

func mustLoad(t testing.TB, s session.Store, id string, all bool) *session.Transcript {
	t.Helper()
	tr, err := s.Load(t.Context(), id, session.LoadOptions{All: all})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return tr
}

func uuidsOf(es []session.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.UUID
	}
	return out
}

// linear fails the test unless es form one parentUuid chain (a compact
// boundary's logical parent counts) and returns the last uuid.
func linear(t testing.TB, es []session.Entry) string {
	t.Helper()
	prev := ""
	for i, e := range es {
		parent := e.ParentUUID
		if e.IsBoundary() {
			parent = e.LogicalParentUUID
		}
		if parent != prev {
			t.Fatalf("entry %d (%s): parent %q, want %q", i, e.UUID, parent, prev)
		}
		prev = e.UUID
	}
	return prev
}
