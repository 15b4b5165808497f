package sqlitestore_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/sqlitestore"
)

// FuzzStoredRow stores arbitrary bytes as a session's line and metadata
// column, as a damaged or hand-edited database would hold them, and
// reads the session back: Load never fails or panics on a bad line (it
// is a Problem naming its offset), Export stops with an error, and Get
// reports a bad metadata column as an error.
func FuzzStoredRow(f *testing.F) {
	for _, s := range []string{
		`{"type":"user","uuid":"u","message":{"role":"user","parts":[{"type":"text","text":"x"}]}}`,
		`{"type":"system","subtype":"compact_boundary","uuid":"b","compactMetadata":{"trigger":"auto","preTokens":1,"messages":2}}`,
		`{"type":`, "", "\n\n", `{"type":"progress"}` + "\n" + `{"type":"user"}`, "\x00\xff",
	} {
		f.Add([]byte(s), []byte(`{"k":"v"}`))
	}
	f.Add([]byte(`{"type":"user"}`), []byte(`[1,2]`))
	path := filepath.Join(f.TempDir(), "fuzz.db")
	st := open(f, sqlitestore.Options{Path: path})
	sess := newSession(f, st)
	mustAppend(f, st, sess.ID, userMsg(f, "first"))
	db, err := sql.Open("sqlite", path+"?_busy_timeout=5000")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = db.Close() })
	f.Fuzz(func(t *testing.T, line, meta []byte) {
		if _, err := db.Exec(`INSERT OR REPLACE INTO entries (session_id, seq, off, uuid, type, boundary, line) VALUES (?, 1, 1000, '', 'x', 1, ?)`, sess.ID, line); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`UPDATE sessions SET metadata = ?, entries = 2 WHERE id = ?`, string(meta), sess.ID); err != nil {
			t.Fatal(err)
		}
		for _, all := range []bool{false, true} {
			tr, err := st.Load(t.Context(), sess.ID, session.LoadOptions{All: all})
			if err != nil {
				continue // a bad metadata column
			}
			for _, p := range tr.Problems {
				if p.File == "" {
					t.Errorf("problem without a file: %+v", p)
				}
			}
		}
		_, es, err := st.Export(t.Context(), sess.ID)
		if err == nil {
			for _, err := range es {
				if err != nil {
					break
				}
			}
		}
		_, _ = st.Get(t.Context(), sess.ID)
	})
}
