package pgstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/pgstore"
)

// defaultDSN is the local server's test database, which the tests use
// unless AGENTCTX_PG_DSN names another.
const defaultDSN = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// dsn returns the DSN of the test database.
func dsn() string {
	if d := os.Getenv("AGENTCTX_PG_DSN"); d != "" {
		return d
	}
	return defaultDSN
}

var (
	reachOnce sync.Once
	reachErr  error
)

// needPG skips the test when the test database is unreachable, or fails
// it when CI=true: CI starts PostgreSQL (.ci/run).
func needPG(t testing.TB) {
	t.Helper()
	reachOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn())
		if err == nil {
			err = conn.Ping(ctx)
			_ = conn.Close(ctx)
		}
		reachErr = err
	})
	if reachErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL at %s unreachable (CI=true): %v", dsn(), reachErr)
		}
		t.Skipf("PostgreSQL at %s unreachable (set AGENTCTX_PG_DSN): %v", dsn(), reachErr)
	}
}

// newSchema returns a fresh schema name for one test, dropped (with its
// tables) when the test ends.
func newSchema(t testing.TB) string {
	t.Helper()
	needPG(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "test_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn())
		if err != nil {
			t.Errorf("drop schema %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	return name
}

// open opens a store on opts (DSN and MaxConns defaulted for the
// tests), closed when the test ends.
func open(t testing.TB, opts pgstore.Options) *pgstore.Store {
	t.Helper()
	needPG(t)
	if opts.DSN == "" {
		opts.DSN = dsn()
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
	return open(t, pgstore.Options{Schema: newSchema(t)})
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
