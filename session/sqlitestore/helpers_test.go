package sqlitestore_test

import (
	"errors"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/sqlitestore"
)

// open opens a store and closes it at the end of the test.
func open(t testing.TB, opts sqlitestore.Options) *sqlitestore.Store {
	t.Helper()
	if opts.GitBranch == nil {
		opts.GitBranch = func(string) string { return "" }
	}
	s, err := sqlitestore.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, session.ErrClosed) {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// newSession creates a session in project /p.
func newSession(t testing.TB, s session.Store) session.Session {
	t.Helper()
	sess, err := s.Create(t.Context(), session.Session{Project: "/p"})
	if err != nil {
		t.Fatal(err)
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

func summaryEntry(t testing.TB, text string) session.Entry {
	e := userMsg(t, text)
	e.IsCompactSummary = true
	return e
}

func mustAppend(t testing.TB, s session.Store, id string, es ...session.Entry) []session.Entry {
	t.Helper()
	out, err := s.Append(t.Context(), id, es...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mustLoad(t testing.TB, s session.Store, id string, all bool) *session.Transcript {
	t.Helper()
	tr, err := s.Load(t.Context(), id, session.LoadOptions{All: all})
	if err != nil {
		t.Fatal(err)
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
