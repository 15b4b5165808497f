package storeurl_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/pgtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/pgstore"
	"github.com/agentctx/agentctx/session/storeurl"
)

// TestOpenPostgres: a postgres:// URL opens package pgstore with the
// URL's schema and lease (the server's --store), and what one store
// wrote another store of the same URL reads. It needs the local
// PostgreSQL (AGENTCTX_PG_DSN, else the test database on 127.0.0.1):
// skipped where unreachable, failed when CI=true.
func TestOpenPostgres(t *testing.T) {
	dsn := pgtest.DSN()
	if !strings.HasPrefix(dsn, "postgres") {
		t.Skip("AGENTCTX_PG_DSN is not a URL")
	}
	schema := pgtest.Schema(t, "storeurl_")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	raw := dsn + sep + "schema=" + schema + "&lease=5s"

	st, err := storeurl.OpenContext(ctx, raw, storeurl.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.(*pgstore.Store); !ok {
		t.Fatalf("%s opened a %T, want *pgstore.Store", raw, st)
	}
	s, err := st.Create(ctx, session.Session{Project: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := session.NewMessageEntry(chat.NewText(chat.RoleUser, "hello"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(ctx, s.ID, e); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	other, err := storeurl.OpenContext(ctx, strings.Replace(raw, "postgres://", "postgresql://", 1), storeurl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tr, err := other.Load(ctx, s.ID, session.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Entries) != 1 || tr.Entries[0].Version != "test" {
		t.Fatalf("loaded %d entries (%+v), want the one appended with version test", len(tr.Entries), tr.Entries)
	}
	if _, err := storeurl.Open(dsn+sep+"lease=forever", storeurl.Options{}); err == nil {
		t.Error("lease=forever accepted")
	}
}
