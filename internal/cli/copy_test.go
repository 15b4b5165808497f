package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/session/sqlitestore"
)

// TestCopyRoundTrip imports every real Claude Code and Codex transcript
// (side chains included) into a JSONL store, adds generated sessions
// with compactions, foreign lines, a side chain and caller metadata,
// copies them all to SQLite and back to another JSONL store with
// `sessions copy`, and checks that every transcript file comes back byte
// for byte and every session's metadata is the same in all three
// stores.
func TestCopyRoundTrip(t *testing.T) {
	t.Parallel()
	home, results := importShared(t, "--sidechains", "--store", "jsonl:")
	imported := 0
	for _, r := range results {
		if r.Status == statusImported {
			imported++
		}
	}
	if imported < 6 {
		t.Fatalf("%d transcripts imported, want at least 6", imported)
	}
	js, err := jsonlstore.Open(jsonlstore.Options{Root: home})
	if err != nil {
		t.Fatal(err)
	}
	generated(t, js, 3)
	if err := js.Close(); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "s.db")
	back := t.TempDir()
	out := mustRun(t, ExitOK, "sessions", "copy", "--from", "jsonl:"+home, "--to", "sqlite:"+db)
	if n := strings.Count(out, "copied "); n != imported+3 {
		t.Fatalf("copied %d sessions to SQLite, want %d:\n%s", n, imported+3, out)
	}
	mustRun(t, ExitOK, "sessions", "copy", "--from", "sqlite:"+db, "--to", "jsonl:"+back)
	// Copying again skips what the destination has.
	if out := mustRun(t, ExitOK, "sessions", "copy", "--from", "sqlite:"+db, "--to", back); strings.Count(out, "skipped ") != imported+3 {
		t.Errorf("second copy did not skip every session:\n%s", out)
	}

	src, err := jsonlstore.Open(jsonlstore.Options{Root: home})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := jsonlstore.Open(jsonlstore.Options{Root: back})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	mid, err := sqlitestore.Open(sqlitestore.Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	defer mid.Close()
	ss, err := src.List(t.Context(), session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, s := range ss {
		a, err := src.Path(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		b, err := dst.Path(s.ID)
		if err != nil {
			t.Fatalf("session %s missing after the round trip: %v", s.ID, err)
		}
		want, _ := os.ReadFile(a)
		got, _ := os.ReadFile(b)
		if !bytes.Equal(want, got) {
			t.Errorf("session %s: JSONL -> SQLite -> JSONL changed the transcript (%d bytes, now %d)", s.ID, len(want), len(got))
		}
		lines += bytes.Count(want, []byte("\n"))
		for name, st := range map[string]session.Store{"sqlite": mid, "jsonl": dst} {
			m, err := st.Get(t.Context(), s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(s, m); d != "" {
				t.Errorf("session %s: metadata in %s (-source +copy):\n%s", s.ID, name, d)
			}
		}
		// The live part loads the same from SQLite.
		lw, err := src.Load(t.Context(), s.ID, session.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lm, err := mid.Load(t.Context(), s.ID, session.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if lw.Offset != lm.Offset || len(lw.Entries) != len(lm.Entries) {
			t.Errorf("session %s: live part at byte %d (%d entries) in JSONL, %d (%d) in SQLite", s.ID, lw.Offset, len(lw.Entries), lm.Offset, len(lm.Entries))
		}
	}
	t.Logf("%d sessions, %d lines round-tripped", len(ss), lines)
}

// generated adds n sessions to st: turns with tool calls, two
// compactions, a foreign line, a side-chain entry and metadata set by
// Update.
func generated(t *testing.T, st session.Store, n int) {
	t.Helper()
	ctx := t.Context()
	msg := func(m chat.Message) session.Entry {
		e, err := session.NewMessageEntry(m)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for k := range n {
		s, err := st.Create(ctx, session.Session{Project: "/gen", Origin: fmt.Sprint("test:", k)})
		if err != nil {
			t.Fatal(err)
		}
		app := func(es ...session.Entry) []session.Entry {
			out, err := st.Append(ctx, s.ID, es...)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		for i := range 3 {
			app(msg(chat.NewText(chat.RoleUser, fmt.Sprintf("task %d of session %d: fix <b> & \"q\"", i, k))),
				msg(chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: fmt.Sprint("c", i), Name: "bash", Arguments: json.RawMessage(`{"cmd": "go test"}`)}}}),
				msg(chat.Message{Role: chat.RoleTool, Parts: []chat.Part{chat.ToolResult{ToolCallID: fmt.Sprint("c", i), ToolName: "bash", Content: "ok\n\u2028"}}}),
				msg(chat.Message{Role: chat.RoleAssistant, Model: "m1", Usage: &chat.Usage{InputTokens: 100 * (i + 1)}, Parts: []chat.Part{chat.Text{Text: "done"}}}))
			sum := msg(chat.NewText(chat.RoleUser, fmt.Sprint("summary ", i)))
			sum.IsCompactSummary = true
			app(session.Entry{Type: session.TypeSystem, Subtype: session.SubtypeCompactBoundary,
				CompactMetadata: &session.CompactMetadata{Trigger: "auto", PreTokens: 5000, PostTokens: 300, Messages: 1}}, sum)
		}
		foreign, err := session.DecodeLine([]byte(`{"type":"progress","data":{"x":[1, 2]},"uuid":"f-` + s.ID + `","timestamp":"2026-01-01T00:00:00.000Z"}`))
		if err != nil {
			t.Fatal(err)
		}
		side := msg(chat.NewText(chat.RoleUser, "sub-agent"))
		side.IsSidechain = true
		app(foreign, side, msg(chat.NewText(chat.RoleUser, "last")))
		if _, err := st.Update(ctx, s.ID, func(m *session.Session) error {
			m.Title, m.Metadata = "Generated", map[string]string{"k": fmt.Sprint(k)}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStoreFlag: --store and AGENTCTX_STORE select the store of list,
// show and rm; check says it works on JSONL stores only.
func TestStoreFlag(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "s.db")
	st, err := sqlitestore.Open(sqlitestore.Options{Path: db})
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Create(t.Context(), session.Session{Project: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := session.NewMessageEntry(chat.NewText(chat.RoleUser, "hello from sqlite"))
	if _, err := st.Append(t.Context(), s.ID, e); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if out := mustRun(t, ExitOK, "sessions", "list", "--all", "--home", home, "--store", "sqlite:"+db); !strings.Contains(out, s.ID) || !strings.Contains(out, "hello from sqlite") {
		t.Errorf("list --store sqlite: %s", out)
	}
	if out := mustRun(t, ExitOK, "sessions", "list", "--all", "--home", home); strings.Contains(out, s.ID) {
		t.Errorf("list without --store shows the SQLite session: %s", out)
	}
	t.Setenv(storeEnv, "sqlite:"+db)
	if out := mustRun(t, ExitOK, "sessions", "show", s.ID); !strings.Contains(out, "hello from sqlite") {
		t.Errorf("show with AGENTCTX_STORE: %s", out)
	}
	if out := mustRun(t, ExitOK, "sessions", "check", s.ID); !strings.Contains(out, "no problems: OK") {
		t.Errorf("check on an SQLite store: %s", out)
	}
	mustRun(t, ExitOK, "sessions", "rm", s.ID)
	if code, _, _ := run(t, "sessions", "show", s.ID); code != ExitError {
		t.Errorf("show after rm: exit %d", code)
	}
	if code, _, errOut := run(t, "sessions", "list", "--store", "mysql://x"); code != ExitUsage && !strings.Contains(errOut, "unknown store scheme") {
		t.Errorf("unknown scheme: exit %d, %s", code, errOut)
	}
}
