package sqlitestore_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/agentctx/agentctx/session/sqlitestore"
)

// TestBackgroundCheckpoint: what a Store commits reaches the database
// file itself, not only its write-ahead log, while the Store is open and
// without another commit: the background checkpointer copies it (a
// commit never does, so a turn never waits for it). The database file is
// read as immutable, which ignores the log.
func TestBackgroundCheckpoint(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	s := open(t, sqlitestore.Options{Path: path})
	sess := newSession(t, s)
	const n = 5
	for i := range n {
		mustAppend(t, s, sess.ID, userMsg(t, "entry "+string(rune('a'+i))))
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(0) // a fresh connection each query: an immutable one caches pages
	var got int
	for deadline := time.Now().Add(10 * time.Second); ; {
		err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM entries WHERE session_id = ?`, sess.ID).Scan(&got)
		if err == nil && got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the database file holds %d of the %d committed entries (err %v) after 10 s: the log was not checkpointed", got, n, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
