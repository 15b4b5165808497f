package jsonlstore_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// FuzzStore drops arbitrary bytes in as a transcript, with an arbitrary
// sidecar (or none), and checks that the store reads it without error or
// panic, and that an appended entry then loads: torn lines, malformed
// lines, bogus indexes and broken chains are never fatal.
func FuzzStore(f *testing.F) {
	const id = "fuzz-session"
	good := `{"uuid":"u1","parentUuid":null,"sessionId":"fuzz-session","type":"user","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","parts":[{"type":"text","text":"hi"}]}}` + "\n"
	boundary := `{"uuid":"b1","parentUuid":null,"logicalParentUuid":"u1","sessionId":"fuzz-session","type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":5,"messages":1}}` + "\n"
	summary := `{"uuid":"s1","parentUuid":"b1","sessionId":"fuzz-session","type":"user","isCompactSummary":true,"message":{"role":"user","parts":[{"type":"text","text":"sum"}]}}` + "\n"
	transcript := good + boundary + summary
	side := fmt.Sprintf(`{"format":1,"session":{"id":%q,"project":"/p"},"size":%d,"boundaries":[%d],"last_uuid":"s1"}`, id, len(transcript), len(good))
	f.Add([]byte(transcript), []byte(side))
	f.Add([]byte(transcript), []byte(nil))
	f.Add([]byte(transcript+`{"uuid":"t","type":"us`), []byte(side))
	f.Add([]byte(good+"garbage\n\n"+boundary), []byte(`{"format":1,"session":{"id":"fuzz-session"},"size":5,"boundaries":[1,2]}`))
	f.Add([]byte(boundary+boundary), []byte(`{}`))
	f.Add([]byte("\n\n\r\n"), []byte(`{"format":1,"session":{"id":"fuzz-session"},"size":1}`))
	f.Add([]byte(`{"uuid":"a","parentUuid":"a","type":"user"}`+"\n"+`{"uuid":"a","parentUuid":"b","type":"assistant","isSidechain":true}`+"\n"), []byte(nil))
	f.Fuzz(func(t *testing.T, data, meta []byte) {
		root := t.TempDir()
		dir := filepath.Join(root, "projects", jsonlstore.EscapeProject("/p"))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, id+".jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if meta != nil {
			if err := os.WriteFile(filepath.Join(dir, id+".meta.json"), meta, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		s, err := jsonlstore.Open(jsonlstore.Options{Root: root, Sync: jsonlstore.SyncNever})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ctx := t.Context()
		if _, err := s.Get(ctx, id); err != nil {
			t.Fatalf("Get: %v", err)
		}
		if _, err := s.List(ctx, session.ListOptions{}); err != nil {
			t.Fatalf("List: %v", err)
		}
		for _, all := range []bool{false, true} {
			if _, err := s.Load(ctx, id, session.LoadOptions{All: all}); err != nil {
				t.Fatalf("Load(all=%v): %v", all, err)
			}
		}
		e, err := session.NewMessageEntry(userMsgPlain("appended"))
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.Append(ctx, id, e)
		if err != nil {
			t.Fatalf("Append: %v", err)
		}
		for _, all := range []bool{false, true} {
			tr, err := s.Load(ctx, id, session.LoadOptions{All: all})
			if err != nil {
				t.Fatalf("Load(all=%v) after Append: %v", all, err)
			}
			if !slices.ContainsFunc(tr.Entries, func(x session.Entry) bool { return x.UUID == out[0].UUID }) {
				t.Fatalf("Load(all=%v): the appended entry is missing from %d entries", all, len(tr.Entries))
			}
		}
		sess, err := s.Get(ctx, id)
		if err != nil || sess.Entries < 1 {
			t.Fatalf("Get after Append: %+v, %v", sess, err)
		}
	})
}
