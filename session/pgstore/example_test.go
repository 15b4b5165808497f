package pgstore_test

import (
	"context"
	"fmt"
	"os"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/pgtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/pgstore"
)

// Example opens a store on a PostgreSQL database (several servers can
// open the same one), writes a session and reads it back.
func Example() {
	ctx := context.Background()
	s, err := pgstore.Open(ctx, pgstore.Options{DSN: pgtest.DSN(), Schema: "example_pgstore", Tenant: "team-a"})
	if err != nil {
		fmt.Println("no database:", err != nil)
		return
	}
	defer s.Close()
	sess, err := s.Create(ctx, session.Session{Project: "/work/app"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = s.Delete(ctx, sess.ID) }()
	e, _ := session.NewMessageEntry(chat.NewText(chat.RoleUser, "Fix the failing test"))
	if _, err := s.Append(ctx, sess.ID, e); err != nil {
		fmt.Println(err)
		return
	}
	// Release the lease at the end of a request: another server can
	// write the session at once.
	_ = s.Unlock(ctx, sess.ID)
	tr, _ := s.Load(ctx, sess.ID, session.LoadOptions{})
	got, _ := s.Get(ctx, sess.ID)
	fmt.Println(len(tr.Entries), got.Title)
	// The session as a JSONL transcript, byte for byte jsonlstore's.
	_, _ = s.WriteJSONL(ctx, sess.ID, os.Stdout)
}

// The example needs a database, so it has no Output: go test compiles it
// but does not run it.
