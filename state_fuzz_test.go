package agentctx_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// fuzzStateID is the session FuzzResumeState writes in each run.
const fuzzStateID = "fuzz-state"

// fuzzHistory is the conversation of the session FuzzResumeState resumes:
// a todo list, a file read and a command, so that the tracker, the
// working memory and the reminders all have state.
func fuzzHistory(dir string) []chat.Message {
	return []chat.Message{
		chat.NewText(chat.RoleUser, "Fix Parse."),
		call("t1", "TodoWrite", `{"todos":[{"content":"fix Parse","status":"in_progress","activeForm":"Fixing"}]}`),
		chat.NewToolResult("t1", "TodoWrite", "ok", false),
		call("r1", "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(dir, "parse.go"))),
		chat.NewToolResult("r1", "Read", "package demo\n\nfunc Parse(s string) int { return len(s) }\n", false),
		call("b1", "Bash", `{"command":"go test ./..."}`),
		chat.NewToolResult("b1", "Bash", "FAIL demo 0.01s\nexit status 1", true),
	}
}

// fuzzStateOptions are the options of the session FuzzResumeState writes.
func fuzzStateOptions(store session.Store, dir string) agentctx.Options {
	return agentctx.Options{Store: store, Dir: dir, SessionID: fuzzStateID, Model: "gpt-4o", Budget: 30_000,
		NoWorkspace: true, Tools: []chat.ToolDef{{Name: "TodoWrite"}}, Strategy: &compact.Summarize{KeepRatio: 0.01}}
}

// engineStates returns the agentctx_state payloads a real engine writes
// (its configuration when opened, its state after a compaction and when
// closed), as the seeds of FuzzResumeState.
func engineStates(tb testing.TB) [][]byte {
	tb.Helper()
	ctx := tb.Context()
	dir := project(tb)
	store, err := jsonlstore.Open(jsonlstore.Options{Root: tb.TempDir(), Sync: jsonlstore.SyncNever})
	if err != nil {
		tb.Fatal(err)
	}
	defer store.Close()
	e, err := agentctx.Open(ctx, fuzzStateOptions(store, dir))
	if err != nil {
		tb.Fatal(err)
	}
	if err := e.Add(ctx, fuzzHistory(dir)...); err != nil {
		tb.Fatal(err)
	}
	if _, err := e.Request(ctx); err != nil {
		tb.Fatal(err)
	}
	if _, err := e.Compact(ctx, "keep the todo list"); err != nil {
		tb.Fatal(err)
	}
	if err := e.Close(); err != nil {
		tb.Fatal(err)
	}
	tr, err := store.Load(ctx, fuzzStateID, session.LoadOptions{All: true})
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for _, en := range tr.Entries {
		if en.Type == session.TypeState {
			out = append(out, bytes.Clone(en.State))
		}
	}
	if len(out) < 2 {
		tb.Fatalf("the engine wrote %d states, want at least 2", len(out))
	}
	return out
}

// FuzzResumeState resumes a session whose last agentctx_state entry is
// arbitrary JSON. Whatever the state says, Resume succeeds (a state it
// cannot read is a warning naming the entry's line), the window is the
// one the session recorded, the engine still takes messages and builds
// requests, and the state it writes back is a fixed point: resuming and
// closing again writes the same state.
func FuzzResumeState(f *testing.F) {
	for _, s := range engineStates(f) {
		f.Add(s)
	}
	for _, s := range []string{
		`{}`, `[]`, `"x"`, `1`, `{"tracker":null,"workmem":null,"engine":null,"config":null}`,
		`{"tracker":[1],"workmem":"x","engine":{"summarize":"bad","todos":{}}}`,
		`{"workmem":{"plan":"not a list"},"engine":{"rehydration":"sk-ant-api03-` + strings.Repeat("A", 90) + `"}}`,
		`{"config":{"model":"","budget":-5,"strategy":{"name":"nope"},"tools":[{"name":"x","parameters":"{"}]}}`,
		`{"config":{"model":"gpt-4o","budget":1,"static":{"text":"big","tokens":-3},"context_tokens":-1,"rehydrate_files":-2}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, state []byte) {
		entry, err := session.NewStateEntry(json.RawMessage(state))
		if err != nil {
			return // FuzzStateEntry covers what cannot be written
		}
		ctx := t.Context()
		dir := t.TempDir()
		store, err := jsonlstore.Open(jsonlstore.Options{Root: filepath.Join(dir, "store"), Sync: jsonlstore.SyncNever})
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		opts := fuzzStateOptions(store, dir)
		e, err := agentctx.Open(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Add(ctx, fuzzHistory(dir)...); err != nil {
			t.Fatal(err)
		}
		want := e.Messages()
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Append(ctx, fuzzStateID, entry); err != nil {
			t.Fatal(err)
		}
		tr, err := store.Load(ctx, fuzzStateID, session.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		line := tr.Entries[len(tr.Entries)-1].Line

		// Resume with no options but the store: the fuzzed state's
		// configuration, when it has one, is all there is.
		resume := func() *agentctx.Engine {
			t.Helper()
			r, err := agentctx.Resume(ctx, fuzzStateID, agentctx.Options{Store: store, Dir: dir})
			if err != nil {
				t.Fatalf("Resume with state %s: %v", state, err)
			}
			for _, w := range r.Warnings() {
				if strings.Contains(w, "resume: state at line") && !strings.Contains(w, fmt.Sprintf("line %d ", line)) {
					t.Fatalf("warning %q does not name line %d", w, line)
				}
			}
			return r
		}
		r := resume()
		if got := r.Messages(); !messagesEqual(got, want) {
			t.Fatalf("resumed window differs:\n got %v\nwant %v", got, want)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		first := lastState(t, store)
		r = resume()
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if second := lastState(t, store); !bytes.Equal(first, second) {
			t.Fatalf("the state is not a fixed point of resume and close:\nfirst  %s\nsecond %s\nfrom   %s", first, second, state)
		}
		// The engine still works.
		r = resume()
		if err := r.Add(ctx, chat.NewText(chat.RoleUser, "go on")); err != nil {
			t.Fatalf("Add after resume: %v", err)
		}
		_, _ = r.Request(ctx) // may fail (a recorded budget too small); must not panic
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// lastState returns the last agentctx_state the session holds.
func lastState(t *testing.T, store session.Store) json.RawMessage {
	t.Helper()
	tr, err := store.Load(t.Context(), fuzzStateID, session.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, ok := session.LastState(tr.Entries)
	if !ok {
		t.Fatal("no state in the session")
	}
	return s
}

// messagesEqual compares messages by their JSON encoding.
func messagesEqual(a, b []chat.Message) bool {
	ja, erra := json.Marshal(a)
	jb, errb := json.Marshal(b)
	return erra == nil && errb == nil && bytes.Equal(ja, jb)
}
