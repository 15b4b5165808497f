package transcript_test

import (
	"bytes"
	"database/sql"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/transcript"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/crush/crush.db from crush.sql (TestReadCrush)")

const (
	crushSQL = "testdata/crush/crush.sql"
	crushDB  = "testdata/crush/crush.db"
)

// buildSQLite runs the SQL script at script on a new database at path.
func buildSQLite(t testing.TB, path, script string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(script); err != nil {
		t.Fatalf("build %s: %v", path, err)
	}
}

// TestReadCrush builds a crush store from crush.sql and reads it, and
// checks that the committed crush.db (which `agentctx replay` reads) is
// read the same: two sessions (the main one, summarized once, and a
// sub-agent's), an empty one left out.
func TestReadCrush(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "crush.db")
	buildSQLite(t, path, string(mustRead(t, crushSQL)))
	if *update {
		_ = os.Remove(crushDB)
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(crushDB)
		if _, err := db.Exec("VACUUM INTO ?", abs); err != nil {
			t.Fatal(err)
		}
		_ = db.Close()
	}
	trs, err := transcript.ReadFile(path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(trs) != 2 || trs[0].Format != transcript.FormatCrush {
		t.Fatalf("got %d trajectories of format %q, want 2 of crush", len(trs), trs[0].Format)
	}
	want := [][]string{{
		`user text="TestRetry in retry_test.go fails one run in ten. Fix it." text="see CI run 123"`,
		`assistant think="A timing-dependent test; look at the backoff."/sig=sig-1 text="Let me read the test and find who calls Retry." call=toolu_01/view{"file_path":"retry_test.go"} call=toolu_02/agent{"prompt":"Find the callers of Retry"}`,
		`tool result=toolu_01/view="<file>\n     1|func TestRetry(t *testing.T) {\n     2|\tif time.Since(start) > 10*time.Millisecond {\n</file>"`,
		`tool result=toolu_02/agent="Retry is called from client.go:41 and worker.go:88."`,
		`assistant text="The test asserts a 10ms bound on a sleep of 10ms. I will allow for scheduling." call=toolu_03/edit{"file_path":"retry_test.go","old_string":"10*time.Millisecond","new_string":"50*time.Millisecond"}`,
		`tool result=toolu_03/edit="old_string not found in retry_test.go"!`,
		`user text="Summary: TestRetry bounds a 10ms sleep by 10ms; the edit to loosen it failed because the literal differs. Next: view the exact line and edit it."`,
		`assistant call=toolu_04/bash{"command":"go test -run TestRetry -count=20 ./..."}`,
		`tool result=toolu_04/bash="ok  \texample.com/retry\t0.412s"`,
		`assistant text="Twenty runs pass; the test no longer depends on exact scheduling."`,
	}, {
		`user text="Find the callers of Retry"`,
		`assistant call=toolu_s1/grep{"pattern":"Retry\\("}`,
		`tool result=toolu_s1/grep="client.go:41: Retry(ctx, op)\nworker.go:88: Retry(ctx, job)"`,
		`assistant text="Retry is called from client.go:41 and worker.go:88."`,
	}}
	committed, err := transcript.ReadFile(crushDB, transcript.Options{})
	if err != nil {
		t.Fatalf("the committed %s: %v", crushDB, err)
	}
	for i, tr := range trs {
		got := render(tr.Messages)
		if diff := cmp.Diff(want[i], got); diff != "" {
			t.Errorf("session %d: messages (-want +got):\n%s", i, diff)
		}
		if diff := cmp.Diff(got, render(committed[i].Messages)); diff != "" {
			t.Errorf("session %d: %s differs from %s (go test -run TestReadCrush -update):\n%s", i, crushDB, crushSQL, diff)
		}
		checkPairs(t, tr.Messages)
		if len(tr.Problems) > 0 || len(tr.Times) != len(tr.Messages) {
			t.Errorf("session %d: problems %v, %d times for %d messages", i, tr.Problems, len(tr.Times), len(tr.Messages))
		}
	}
	main, sub := trs[0], trs[1]
	calls, toolCalls, results, paired := countCalls(main.Messages)
	if calls != 4 || toolCalls != 4 || results != 4 || paired != 4 {
		t.Errorf("main: calls %d, tool calls %d, results %d, paired %d; want 4 each", calls, toolCalls, results, paired)
	}
	if main.ID != "9f0c2a1e-5b7d-4c3e-8a21-6d0e4f1b2c3d" || main.Model != "claude-sonnet-4-5-20250929" || sub.Model != "claude-haiku-4-5-20251001" {
		t.Errorf("ids %q, %q; models %q, %q", main.ID, sub.ID, main.Model, sub.Model)
	}
	if len(main.Compactions) != 1 || main.Compactions[0].At != 6 || !strings.HasPrefix(main.Compactions[0].Summary, "Summary: TestRetry") {
		t.Errorf("compactions %+v, want the summary at message 6", main.Compactions)
	}
	if main.Started.Unix() != 1762182000 {
		t.Errorf("started %v", main.Started)
	}
}

// TestReadCrushReadOnly checks that reading leaves the database file as
// it was, and reads it from a stream (a temporary copy) the same way.
func TestReadCrushReadOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "crush.db")
	data := mustRead(t, crushDB)
	if err := os.WriteFile(path, data, 0o400); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
	fromFile, err := transcript.ReadFile(path, transcript.Options{Format: transcript.FormatCrush})
	if err != nil {
		t.Fatalf("read-only folder: %v", err)
	}
	fromStream, err := transcript.Read(bytes.NewReader(data), "stream.db", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fromFile) != len(fromStream) || cmp.Diff(render(fromFile[0].Messages), render(fromStream[0].Messages)) != "" {
		t.Errorf("file and stream read differently")
	}
	if after := mustRead(t, path); !bytes.Equal(after, data) {
		t.Errorf("the database changed")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files beside the database after reading: %d entries", len(entries))
	}
}

func TestDetectCrush(t *testing.T) {
	t.Parallel()
	if f, err := transcript.Detect(mustRead(t, crushDB)); err != nil || f != transcript.FormatCrush {
		t.Errorf("Detect = %q, %v", f, err)
	}
	path := filepath.Join(t.TempDir(), "other.db")
	buildSQLite(t, path, "CREATE TABLE notes (id TEXT)")
	if _, err := transcript.ReadFile(path, transcript.Options{}); !errors.Is(err, transcript.ErrUnknownFormat) {
		t.Errorf("a SQLite database of another shape: err = %v, want ErrUnknownFormat", err)
	}
	if _, err := transcript.ReadFile(crushDB, transcript.Options{Format: transcript.FormatCodex}); err == nil || !strings.Contains(err.Error(), "SQLite") {
		t.Errorf("a forced JSONL format on a database: err = %v", err)
	}
}

func TestHostileCrush(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	schema := string(mustRead(t, crushSQL))
	schema = schema[:strings.Index(schema, "INSERT INTO sessions")]
	cases := map[string]string{
		"wrong types": `INSERT INTO sessions VALUES (7, NULL, 'x', 0, 0, 0, 0, 'now', 'then', 42);
INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES
 ('a', 7, 'user', '7', NULL, 'x', 0),
 ('b', 7, 5, '[1, "s", null, {"type": 3, "data": []}]', 5, -1, 0),
 ('c', 7, 'assistant', '[{"type":"tool_call","data":{"id":7,"input":{"a":1}}},{"type":"binary","data":{"Data":"!!"}}]', NULL, 0, 0),
 ('d', 7, 'tool', '{"type":"tool_result"}', NULL, 0, 0),
 ('e', 7, 'user', x'00ff', NULL, 0, 0);`,
		"huge field": `INSERT INTO sessions VALUES ('s', NULL, 'x', 0, 0, 0, 0, 0, 0, NULL);
INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES
 ('a', 's', 'user', '[{"type":"text","data":{"text":"' || printf('%.*c', 4000000, 'x') || '"}}]', 0, 0);`,
		"no messages": `INSERT INTO sessions VALUES ('s', NULL, 'x', 0, 0, 0, 0, 0, 0, NULL);`,
	}
	for name, rows := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".db")
			buildSQLite(t, path, schema+rows)
			trs, err := transcript.ReadFile(path, transcript.Options{})
			if err != nil {
				var pe *transcript.ParseError
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), path) {
					t.Errorf("error %v: want a *ParseError naming the file", err)
				}
				return
			}
			for _, tr := range trs {
				checkPairs(t, tr.Messages)
			}
		})
	}
	// A database cut short, or with a damaged page.
	data := mustRead(t, crushDB)
	for _, in := range [][]byte{data[:len(data)/2], data[:100], append(append([]byte{}, data[:4096]...), bytes.Repeat([]byte{0xA5}, len(data)-4096)...)} {
		checkHostile(t, transcript.FormatCrush, in, nil)
	}
}

func FuzzReadCrush(f *testing.F) {
	f.Add(mustReadF(f, crushDB))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, transcript.FormatCrush, data) })
}
