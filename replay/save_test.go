package replay_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/replay"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/transcript"
	"github.com/agentctx/agentctx/window"
)

// synthetic returns a trajectory of n rounds, each reading a big file, so
// that a small budget forces compaction, with a tool result that answers
// no call in the middle.
func synthetic(n int) *transcript.Trajectory {
	tr := &transcript.Trajectory{File: "synthetic.json", Format: transcript.FormatOpenAI, Model: "gpt-4o"}
	add := func(m chat.Message) { tr.Messages = append(tr.Messages, m) }
	add(chat.NewText(chat.RoleSystem, "You are a careful coding agent."))
	add(chat.NewText(chat.RoleUser, "Fix the failing test in parser.go\nand explain why."))
	for i := range n {
		id := fmt.Sprintf("call-%d", i)
		args, _ := json.Marshal(map[string]string{"file_path": fmt.Sprintf("src/file%d.go", i)})
		add(chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
			chat.Text{Text: fmt.Sprintf("Reading file %d.", i)},
			chat.ToolCall{ID: id, Name: "Read", Arguments: args},
		}, Usage: &chat.Usage{InputTokens: 1000 + 700*i, OutputTokens: 20}})
		add(chat.NewToolResult(id, "Read", strings.Repeat(fmt.Sprintf("line %d of file %d: some code here\n", i, i), 60), false))
		if i == n/2 {
			add(chat.NewToolResult("nobody-called-this", "Bash", "stray output", false))
		}
	}
	add(chat.NewText(chat.RoleAssistant, "Done: the parser now handles empty input."))
	return tr
}

func openStore(t *testing.T) *jsonlstore.Store {
	t.Helper()
	st, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Sync: jsonlstore.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// restore loads session id and restores its window under res's options.
func restore(t *testing.T, st session.Store, res *replay.Result) (*window.Window, *session.Transcript) {
	t.Helper()
	loaded, err := st.Load(t.Context(), res.SessionID, session.LoadOptions{})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	c, err := model.Counter(model.Lookup(res.Model))
	if err != nil {
		t.Fatal(err)
	}
	w, probs, err := session.Restore(loaded.Entries, window.Options{Budget: res.Budget, Counter: c, Reserved: res.ToolTokens})
	if err != nil || len(probs) > 0 {
		t.Fatalf("Restore: %v, problems %v", err, probs)
	}
	return w, loaded
}

func TestSaveSynthetic(t *testing.T) {
	t.Parallel()
	tr := synthetic(20)
	tests := []struct {
		name      string
		budget    int
		stop      int
		wantComp  bool
		wantStray bool // the orphan result is in the saved history
	}{
		{"whole run, compacting", 3000, 0, true, true},
		{"stopped before the orphan", 3000, 18, true, false},
		{"no budget pressure", 1_000_000, 0, false, true},
		{"stopped after the first message", 3000, 1, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := openStore(t)
			res, err := replay.Run(t.Context(), tr, replay.Options{Budget: tt.budget, Store: st, Project: "/work/p", StopAfter: tt.stop})
			if err != nil {
				t.Fatal(err)
			}
			wantMsgs := len(tr.Messages)
			if tt.stop > 0 {
				wantMsgs = tt.stop
			}
			if res.Messages != wantMsgs {
				t.Errorf("Messages = %d, want %d", res.Messages, wantMsgs)
			}
			w, loaded := restore(t, st, res)
			assertSameWindow(t, tt.name, res.Window, w)
			s := loaded.Session
			if s.Project != "/work/p" || s.Origin != "replay:openai:"+mustAbs(t, "synthetic.json") {
				t.Errorf("project %q origin %q", s.Project, s.Origin)
			}
			if (s.Compactions > 0) != tt.wantComp {
				t.Errorf("compactions = %d, want some: %v", s.Compactions, tt.wantComp)
			}
			if s.Title != "Fix the failing test in parser.go" && tt.stop != 1 {
				t.Errorf("title %q", s.Title)
			}
			all, err := st.Load(t.Context(), res.SessionID, session.LoadOptions{All: true})
			if err != nil {
				t.Fatal(err)
			}
			msgs, probs := session.Messages(all.Entries)
			if len(probs) > 0 {
				t.Fatalf("Messages: %v", probs)
			}
			stray := false
			for _, m := range msgs {
				if m.Role == chat.RoleTool {
					if r, _ := m.ToolResult(); r.ToolCallID == "nobody-called-this" {
						t.Errorf("the orphan result was saved as a tool result")
					}
				}
				if m.Role == chat.RoleUser && strings.Contains(m.Text(), "stray output") {
					stray = true
				}
			}
			if stray != tt.wantStray {
				t.Errorf("orphan saved as user text: %v, want %v", stray, tt.wantStray)
			}
		})
	}
}

func TestSaveOptions(t *testing.T) {
	t.Parallel()
	tr := synthetic(3)
	st := openStore(t)
	ctx := t.Context()
	res, err := replay.Run(ctx, tr, replay.Options{Store: st, SessionID: "my-session"})
	if err != nil {
		t.Fatal(err)
	}
	if res.SessionID != "my-session" {
		t.Errorf("SessionID = %q", res.SessionID)
	}
	s, err := st.Get(ctx, "my-session")
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if s.Project != wd {
		t.Errorf("default project %q, want the working directory %q", s.Project, wd)
	}
	if len(s.Metadata) != 0 {
		t.Errorf("metadata %v: the engine records the replay's configuration, not the session's metadata", s.Metadata)
	}
	// The id is taken: a second replay under it fails and writes nothing.
	_, err = replay.Run(ctx, tr, replay.Options{Store: st, SessionID: "my-session"})
	if !errors.Is(err, session.ErrExists) {
		t.Errorf("second Run under the same id: %v, want ErrExists", err)
	}
	if _, err := replay.Run(ctx, tr, replay.Options{Store: st, SessionID: "../escape"}); !errors.Is(err, session.ErrInvalidID) {
		t.Errorf("Run with a bad id: %v, want ErrInvalidID", err)
	}
	// Without a store nothing is saved and the window is still returned.
	res, err = replay.Run(ctx, tr, replay.Options{})
	if err != nil || res.SessionID != "" || res.Window == nil || res.Window.Len() != len(tr.Messages) {
		t.Errorf("no store: err %v, id %q, window %v", err, res.SessionID, res.Window)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd + "/" + p
}

// BenchmarkReplaySave replays the largest real session (the 2.9 MB Claude
// Code file, 323 messages) at a budget of 16,000 tokens with and without
// saving it into a JSONL store (no fsync), reading excluded: the cost of
// recording every message and a snapshot per compaction.
func BenchmarkReplaySave(b *testing.B) {
	file := filepath.Join(sharedtest.Dir(b), "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	trs, err := transcript.ReadFile(file, transcript.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := model.Counter(model.Lookup(trs[0].Model)); err != nil {
		b.Fatal(err)
	}
	for _, save := range []bool{false, true} {
		b.Run(fmt.Sprintf("save=%v", save), func(b *testing.B) {
			var st session.Store
			if save {
				s, err := jsonlstore.Open(jsonlstore.Options{Root: b.TempDir(), Sync: jsonlstore.SyncNever})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				st = s
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := replay.Run(b.Context(), trs[0], replay.Options{Budget: 16000, Store: st, Project: "/bench"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
