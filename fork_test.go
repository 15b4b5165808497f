package agentctx_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/pgtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/session/pgstore"
	"github.com/agentctx/agentctx/session/sqlitestore"
)

// forkStores opens each real store once for a test: JSONL files, SQLite
// and PostgreSQL (skipped when the local server is unreachable, unless
// CI=true). root is the JSONL folder, to look at its files.
func forkStores(t *testing.T) map[string]func(t *testing.T) (session.Store, string) {
	return map[string]func(t *testing.T) (session.Store, string){
		"jsonl": func(t *testing.T) (session.Store, string) {
			root := t.TempDir()
			s, err := jsonlstore.Open(jsonlstore.Options{Root: root})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s, root
		},
		"sqlite": func(t *testing.T) (session.Store, string) {
			s, err := sqlitestore.Open(sqlitestore.Options{Path: filepath.Join(t.TempDir(), "s.db"), GitBranch: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s, ""
		},
		"postgres": func(t *testing.T) (session.Store, string) {
			s, err := pgstore.Open(t.Context(), pgstore.Options{DSN: pgtest.DSN(), Schema: pgtest.Schema(t, "fork_"), MaxConns: 3})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s, ""
		},
	}
}

func texts(ms []chat.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = fmt.Sprintf("%s:%s", m.Role, m.Text())
		for _, c := range m.ToolCalls() {
			out[i] += " call " + c.ID
		}
	}
	return out
}

// resumeTexts closes e, resumes its session from store and returns the
// resumed engine's messages.
func resumeTexts(t *testing.T, e *agentctx.Engine, opts agentctx.Options) (*agentctx.Engine, []string) {
	t.Helper()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := agentctx.Resume(t.Context(), e.ID(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	if w := r.Warnings(); len(w) > 0 {
		t.Errorf("resume %s warns: %q", e.ID(), w)
	}
	return r, texts(r.Messages())
}

func TestForkRewind(t *testing.T) {
	for name, open := range forkStores(t) {
		t.Run(name, func(t *testing.T) {
			store, root := open(t)
			testForkRewind(t, store, root)
		})
	}
}

func testForkRewind(t *testing.T, store session.Store, root string) {
	ctx := t.Context()
	dir := project(t)
	opts := agentctx.Options{Store: store, Dir: dir, Model: "gpt-4o", Budget: 20_000, NoWorkspace: true}
	e := openEngine(t, opts)
	mustAdd(t, e, chat.NewText(chat.RoleUser, "Fix Parse."),
		call("r1", "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(dir, "parse.go"))),
		chat.NewToolResult("r1", "Read", "package demo\n\nfunc Parse(s string) int { return len(s) }\n", false),
		chat.NewText(chat.RoleAssistant, "Parse counts bytes."),
		chat.NewText(chat.RoleUser, "Now add tests."),
		chat.NewText(chat.RoleAssistant, "Added TestParse."))
	before := texts(e.Messages())

	if _, err := e.Fork(ctx, 7); !errors.Is(err, agentctx.ErrMessageIndex) {
		t.Fatalf("Fork(7) of 6 messages = %v, want ErrMessageIndex", err)
	}
	child, err := e.Fork(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Close() })
	if child.ID() == e.ID() {
		t.Fatal("the fork has its parent's id")
	}
	if got := texts(child.Messages()); !cmp.Equal(got, before[:4]) {
		t.Fatalf("fork's messages:\n%s", cmp.Diff(before[:4], got))
	}
	if got := texts(e.Messages()); !cmp.Equal(got, before) {
		t.Fatalf("Fork changed the parent:\n%s", cmp.Diff(before, got))
	}
	s, err := store.Get(ctx, child.ID())
	if err != nil {
		t.Fatal(err)
	}
	if s.Metadata[session.MetaParent] != e.ID() || s.Metadata[session.MetaForkAt] != "4" {
		t.Fatalf("fork's metadata = %v, want parent %s at 4", s.Metadata, e.ID())
	}

	// Both diverge, and each resumes with its own history.
	mustAdd(t, e, chat.NewText(chat.RoleUser, "Parent goes on."))
	mustAdd(t, child, chat.NewText(chat.RoleUser, "Child goes elsewhere."), chat.NewText(chat.RoleAssistant, "Done elsewhere."))
	wantParent := append(append([]string{}, before...), "user:Parent goes on.")
	wantChild := append(append([]string{}, before[:4]...), "user:Child goes elsewhere.", "assistant:Done elsewhere.")
	e, got := resumeTexts(t, e, opts)
	if !cmp.Equal(got, wantParent) {
		t.Fatalf("resumed parent:\n%s", cmp.Diff(wantParent, got))
	}
	child, got = resumeTexts(t, child, opts)
	if !cmp.Equal(got, wantChild) {
		t.Fatalf("resumed fork:\n%s", cmp.Diff(wantChild, got))
	}
	// The fork's working memory was rebuilt from the kept messages: its
	// task is the first user message, and it saw the file read.
	if mem, _ := child.WorkingMemory(2000); !strings.Contains(mem, "Fix Parse.") || !strings.Contains(mem, "parse.go") {
		t.Errorf("resumed fork's working memory lacks its task or the file read:\n%s", mem)
	}

	// Rewind, add, resume: the rewound history with the new message.
	if err := e.Rewind(ctx, -1); !errors.Is(err, agentctx.ErrMessageIndex) {
		t.Fatalf("Rewind(-1) = %v, want ErrMessageIndex", err)
	}
	if err := e.Rewind(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if got := texts(e.Messages()); !cmp.Equal(got, before[:4]) {
		t.Fatalf("rewound messages:\n%s", cmp.Diff(before[:4], got))
	}
	mustAdd(t, e, chat.NewText(chat.RoleUser, "Instead, document Parse."))
	wantRewound := append(append([]string{}, before[:4]...), "user:Instead, document Parse.")
	if _, err := e.Request(ctx); err != nil {
		t.Fatal(err)
	}
	e, got = resumeTexts(t, e, opts)
	if !cmp.Equal(got, wantRewound) {
		t.Fatalf("resumed after rewind:\n%s", cmp.Diff(wantRewound, got))
	}
	if mem, _ := e.WorkingMemory(2000); !strings.Contains(mem, "Fix Parse.") {
		t.Errorf("working memory after rewind lacks its task:\n%s", mem)
	}

	// The abandoned branch is still in the store, before the rewind
	// boundary; the live part is clean.
	tr, err := store.Load(ctx, e.ID(), session.LoadOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	abandoned, rewind := -1, -1
	for i, en := range tr.Entries {
		if en.IsBoundary() && en.CompactMetadata.Trigger == session.TriggerRewind {
			rewind = i
			if b := en.CompactMetadata.Branch; b == nil || b.At != 4 || b.From != 7 {
				t.Errorf("rewind boundary's branch = %+v, want at 4 from 7", b)
			}
		}
		if ms, _ := en.Messages(); len(ms) == 1 && ms[0].Text() == "Parent goes on." {
			abandoned = i
		}
	}
	if abandoned < 0 || rewind < abandoned {
		t.Fatalf("abandoned message at entry %d, rewind boundary at %d: want the branch kept before the boundary", abandoned, rewind)
	}
	live, err := store.Load(ctx, e.ID(), session.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(live.Problems) > 0 || len(tr.Problems) > 0 {
		t.Errorf("store problems: live %v, all %v", live.Problems, tr.Problems)
	}
	if root != "" {
		found := false
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, e.ID()+".jsonl") {
				b, _ := os.ReadFile(p)
				found = strings.Contains(string(b), "Parent goes on.") && strings.Contains(string(b), "Instead, document Parse.")
				// `agentctx sessions check` finds the file clean.
				es, probs, err := session.ReadFile(p)
				if rep := session.Check(es, probs); err != nil || !rep.OK() {
					t.Errorf("check %s: %v %+v", p, err, rep.Problems)
				}
			}
			return nil
		})
		if !found {
			t.Error("the session file lacks the abandoned branch or the new message")
		}
	}
}

// TestRewindToZero empties the window; a resume comes back empty and the
// next message starts the working memory again.
func TestRewindToZero(t *testing.T) {
	store, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	opts := agentctx.Options{Store: store, Dir: project(t), Model: "gpt-4o", Budget: 20_000, NoWorkspace: true}
	e := openEngine(t, opts)
	mustAdd(t, e, chat.NewText(chat.RoleUser, "First task."), chat.NewText(chat.RoleAssistant, "Done."))
	if err := e.Rewind(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if n := len(e.Messages()); n != 0 {
		t.Fatalf("%d messages after Rewind(0)", n)
	}
	mustAdd(t, e, chat.NewText(chat.RoleUser, "Second task."))
	_, got := resumeTexts(t, e, opts)
	if want := []string{"user:Second task."}; !cmp.Equal(got, want) {
		t.Fatalf("resumed:\n%s", cmp.Diff(want, got))
	}
}

// TestForkAfterCompaction forks and rewinds a compacted session: the
// summary, first in the window, stays a summary in both branches, with
// its rehydration block, and each resumes as it was.
func TestForkAfterCompaction(t *testing.T) {
	store, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := t.Context()
	dir := project(t)
	opts := agentctx.Options{Store: store, Dir: dir, Model: "gpt-4o", Budget: 30_000, NoWorkspace: true,
		Strategy: &compact.Summarize{KeepRatio: 0.01}}
	e := openEngine(t, opts)
	mustAdd(t, e, chat.NewText(chat.RoleUser, "Fix Parse."),
		call("r1", "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(dir, "parse.go"))),
		chat.NewToolResult("r1", "Read", "package demo\n\nfunc Parse(s string) int { return len(s) }\n", false))
	for i := range 4 {
		id := fmt.Sprintf("g%d", i)
		mustAdd(t, e, call(id, "Bash", `{"command":"grep -rn Parse ."}`),
			chat.NewToolResult(id, "Bash", strings.Repeat("parse.go:3:func Parse(s string) int { return len(s) }\n", 40), false))
	}
	if _, err := e.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, e, chat.NewText(chat.RoleUser, "Next step."), chat.NewText(chat.RoleAssistant, "Done."))
	before := texts(e.Messages())
	n := len(before)
	note := e.WindowStats().Note
	if note < 0 || note+2 >= n || e.Rehydration() == "" {
		t.Fatalf("compaction left %d messages, the note at %d and rehydration %q", n, note, e.Rehydration())
	}
	child, err := e.Fork(ctx, n-1)
	if err != nil {
		t.Fatal(err)
	}
	if child.Rehydration() != e.Rehydration() {
		t.Errorf("fork's rehydration block differs:\n%s\nwant:\n%s", child.Rehydration(), e.Rehydration())
	}
	if st := child.WindowStats(); st.Note != note {
		t.Errorf("fork's summary is at %d, want a note at %d", st.Note, note)
	}
	_, got := resumeTexts(t, child, opts)
	if !cmp.Equal(got, before[:n-1]) {
		t.Fatalf("resumed fork:\n%s", cmp.Diff(before[:n-1], got))
	}
	// Back to the summary: the note and its block stay.
	if err := e.Rewind(ctx, note+1); err != nil {
		t.Fatal(err)
	}
	r, got := resumeTexts(t, e, opts)
	if !cmp.Equal(got, before[:note+1]) {
		t.Fatalf("resumed after rewind:\n%s", cmp.Diff(before[:note+1], got))
	}
	if st := r.WindowStats(); st.Note != note || r.Rehydration() == "" {
		t.Errorf("rewound to the summary: note at %d, rehydration %q; want the note at %d with its block", st.Note, r.Rehydration(), note)
	}
	// Before the summary: no note, no block.
	if err := r.Rewind(ctx, note); err != nil {
		t.Fatal(err)
	}
	if st := r.WindowStats(); st.Note != -1 || r.Rehydration() != "" {
		t.Errorf("rewound before the summary: note at %d, rehydration %q; want neither", st.Note, r.Rehydration())
	}
}
