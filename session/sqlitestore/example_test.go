package sqlitestore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/sqlitestore"
)

// Example opens a database, records a session with a compaction and
// loads its live part: the boundary and what follows it.
func Example() {
	dir, err := os.MkdirTemp("", "sqlitestore")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	st, err := sqlitestore.Open(sqlitestore.Options{Path: filepath.Join(dir, "sessions.db")})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	sess, err := st.Create(ctx, session.Session{Project: "/src/app"})
	if err != nil {
		log.Fatal(err)
	}
	entry := func(role chat.Role, text string) session.Entry {
		e, err := session.NewMessageEntry(chat.NewText(role, text))
		if err != nil {
			log.Fatal(err)
		}
		return e
	}
	summary := entry(chat.RoleUser, "Summary: the user asked to fix a test.")
	summary.IsCompactSummary = true
	boundary := session.Entry{Type: session.TypeSystem, Subtype: session.SubtypeCompactBoundary,
		CompactMetadata: &session.CompactMetadata{Trigger: "auto", PreTokens: 90000}}
	if _, err := st.Append(ctx, sess.ID,
		entry(chat.RoleUser, "Fix the failing test"), entry(chat.RoleAssistant, "Done."),
		boundary, summary, entry(chat.RoleUser, "Now the docs")); err != nil {
		log.Fatal(err)
	}
	tr, err := st.Load(ctx, sess.ID, session.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	got, _ := st.Get(ctx, sess.ID)
	fmt.Printf("%q: %d entries, %d compaction, %d live\n", got.Title, got.Entries, got.Compactions, len(tr.Entries))
	// Output: "Fix the failing test": 5 entries, 1 compaction, 3 live
}
