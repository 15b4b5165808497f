package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/transcript"
)

// entryShape is what the import mapping decides about an entry.
type entryShape struct {
	Type     string
	Text     string
	Summary  bool
	Boundary string // "trigger/preTokens/messages" on a boundary
	Time     time.Time
}

func shapes(t *testing.T, es []session.Entry) []entryShape {
	t.Helper()
	var out []entryShape
	for _, e := range es {
		s := entryShape{Type: e.Type, Summary: e.IsCompactSummary, Time: e.Timestamp}
		if e.IsBoundary() {
			m := e.CompactMetadata
			s.Boundary = m.Trigger + "/" + itoa(m.PreTokens) + "/" + itoa(m.Messages)
		} else {
			msgs, err := e.Messages()
			if err != nil || len(msgs) != 1 {
				t.Fatalf("entry %+v: %v", e, err)
			}
			s.Text = msgs[0].Text()
			if r, ok := msgs[0].ToolResult(); ok {
				s.Text = "result:" + r.Content
			}
		}
		out = append(out, s)
	}
	return out
}

func itoa(n int) string { return num(n) }

func TestImportEntries(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 2, 10, 21, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	u := func(s string) chat.Message { return chat.NewText(chat.RoleUser, s) }
	a := func(s string) chat.Message { return chat.NewText(chat.RoleAssistant, s) }
	tests := []struct {
		name  string
		tr    transcript.Trajectory
		want  []entryShape
		notes int
	}{
		{
			name: "claude code: boundary before the summary, which is marked",
			tr: transcript.Trajectory{
				Format:      transcript.FormatClaudeCode,
				Messages:    []chat.Message{u("hi"), a("hello"), u("Summary: we said hi"), a("go on")},
				Compactions: []transcript.Compaction{{At: 2, Trigger: "auto", PreTokens: 167000, Summary: "Summary: we said hi"}},
				Times:       []time.Time{at(0), at(1), at(2), at(3)},
			},
			want: []entryShape{
				{Type: "user", Text: "hi", Time: at(0)},
				{Type: "assistant", Text: "hello", Time: at(1)},
				{Type: "system", Boundary: "auto/167,000/0", Time: at(2)},
				{Type: "user", Text: "Summary: we said hi", Summary: true, Time: at(2)},
				{Type: "assistant", Text: "go on", Time: at(3)},
			},
		},
		{
			name: "claude code: a boundary without its summary is left out",
			tr: transcript.Trajectory{
				Format:      transcript.FormatClaudeCode,
				Messages:    []chat.Message{u("hi"), a("hello")},
				Compactions: []transcript.Compaction{{At: 1, Trigger: "manual"}, {At: 2, Trigger: "auto"}},
			},
			want:  []entryShape{{Type: "user", Text: "hi"}, {Type: "assistant", Text: "hello"}},
			notes: 2,
		},
		{
			name: "codex: boundary, replacement history, then what followed",
			tr: transcript.Trajectory{
				Format:   transcript.FormatCodex,
				Messages: []chat.Message{u("task"), a("working"), a("more"), u("next")},
				Compactions: []transcript.Compaction{{At: 3, Summary: "the summary", Replacement: []chat.Message{
					u("task"), u("the summary"),
				}}},
				Times: []time.Time{at(0), {}, at(5), at(6)},
			},
			want: []entryShape{
				{Type: "user", Text: "task", Time: at(0)},
				{Type: "assistant", Text: "working", Time: at(0)}, // no time: the last known
				{Type: "assistant", Text: "more", Time: at(5)},
				{Type: "system", Boundary: "/0/2", Time: at(6)},
				{Type: "user", Text: "task", Time: at(6)},
				{Type: "user", Text: "the summary", Summary: true, Time: at(6)},
				{Type: "user", Text: "next", Time: at(6)},
			},
		},
		{
			name: "codex: compaction at the end, and one without replacement",
			tr: transcript.Trajectory{
				Format:   transcript.FormatCodex,
				Messages: []chat.Message{u("task"), a("done")},
				Compactions: []transcript.Compaction{
					{At: 1},
					{At: 2, Replacement: []chat.Message{u("task")}},
				},
			},
			want: []entryShape{
				{Type: "user", Text: "task"},
				{Type: "assistant", Text: "done"},
				{Type: "system", Boundary: "/0/1"},
				{Type: "user", Text: "task"},
			},
			notes: 1,
		},
		{
			name: "tool calls and results",
			tr: transcript.Trajectory{
				Format: transcript.FormatCodex,
				Messages: []chat.Message{u("ls"), {Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "c", Name: "sh", Arguments: []byte(`{}`)}}},
					chat.NewToolResult("c", "sh", "a b", false)},
			},
			want: []entryShape{{Type: "user", Text: "ls"}, {Type: "assistant"}, {Type: "tool_result", Text: "result:a b"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			es, notes, err := importEntries(&tt.tr)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, shapes(t, es)); d != "" {
				t.Errorf("entries (-want +got):\n%s", d)
			}
			if len(notes) != tt.notes {
				t.Errorf("notes %q, want %d", notes, tt.notes)
			}
		})
	}
}

func TestImportID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		id, path  string
		sidechain bool
		want      string
	}{
		{"own id", "55604662-cf2a-4331-851a-ec234028f8ca", "/x/short.jsonl", false, "55604662-cf2a-4331-851a-ec234028f8ca"},
		{"side chain", "6c2214d7", "/x/6c2214d7/subagents/agent-afc096d.jsonl", true, "6c2214d7-agent-afc096d"},
		{"no id", "", "/x/a.jsonl", false, "import-"},
		{"invalid id", "../../etc", "/x/a.jsonl", false, "import-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := importID(&transcript.Trajectory{ID: tt.id, Format: transcript.FormatClaudeCode}, tt.path, tt.sidechain)
			if !strings.HasPrefix(got, tt.want) || session.ValidateID(got) != nil {
				t.Errorf("importID = %q, want %q…", got, tt.want)
			}
			if again := importID(&transcript.Trajectory{ID: tt.id, Format: transcript.FormatClaudeCode}, tt.path, tt.sidechain); again != got {
				t.Errorf("not deterministic: %q then %q", got, again)
			}
		})
	}
	if importID(&transcript.Trajectory{}, "/a", false) == importID(&transcript.Trajectory{}, "/b", false) {
		t.Errorf("two files without ids get the same id")
	}
}

func TestIsSidechainFile(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{
		"/p/6c22/subagents/agent-afc096d.jsonl":         true,
		"/p/8463/subagents/agent-acompact-f46190.jsonl": true,
		"/p/8463.jsonl":            false,
		"/p/agent-x.jsonl":         false,
		"/p/subagents/notes.jsonl": false,
	} {
		if got := isSidechainFile(path); got != want {
			t.Errorf("isSidechainFile(%q) = %v", path, got)
		}
	}
}

// TestImportFrom imports the agents' own folders under a fake home. It
// sets HOME, so it does not run in parallel.
func TestImportFrom(t *testing.T) {
	root := sharedtest.Dir(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	claude := filepath.Join(home, ".claude", "projects", "-home-marco-projects-spotter")
	codex := filepath.Join(home, ".codex", "sessions", "2026", "02", "23")
	for dir, src := range map[string]string{
		claude: filepath.Join(root, "claude-code", "short.jsonl"),
		codex:  filepath.Join(root, "codex", "rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"),
	} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(src)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	store := t.TempDir()
	for from, id := range map[string]string{"claude": shortSession, "codex": "019c8a70-dda7-7f33-98ea-f30553347322"} {
		rs := jsonLines[importResult](t, mustRun(t, ExitOK, "sessions", "import", "--home", store, "--from", from, "--json"))
		if len(rs) != 1 || rs[0].ID != id || rs[0].Status != statusImported {
			t.Errorf("--from %s: %+v", from, rs)
		}
	}
	if err := os.RemoveAll(filepath.Join(home, ".codex")); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "sessions", "import", "--home", store, "--from", "codex")
	if code != ExitError || !strings.Contains(errOut, ".codex/sessions") {
		t.Errorf("--from codex without the folder: exit %d, %q", code, errOut)
	}
}

// TestImportAfterKilledImport imports a file whose session an earlier,
// killed import (before imports were written in one step) left empty:
// the empty session is replaced by the whole one, not skipped as
// "already imported"; a second import then skips it.
func TestImportAfterKilledImport(t *testing.T) {
	t.Parallel()
	file := filepath.Join(sharedtest.Dir(t), "claude-code", "short.jsonl")
	home := t.TempDir()
	st, err := jsonlstore.Open(jsonlstore.Options{Root: home})
	if err != nil {
		t.Fatal(err)
	}
	// What the old import left when killed between Create and Append.
	if _, err := st.Create(t.Context(), session.Session{ID: shortSession, Project: "/p", Origin: "claude-code:" + file}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	rs := jsonLines[importResult](t, mustRun(t, ExitOK, "sessions", "import", "--home", home, "--json", file))
	if len(rs) != 1 || rs[0].Status != statusImported || rs[0].Entries == 0 {
		t.Fatalf("import over the empty leftover: %+v", rs)
	}
	rs = jsonLines[importResult](t, mustRun(t, ExitOK, "sessions", "import", "--home", home, "--json", file))
	if len(rs) != 1 || rs[0].Status != statusSkipped {
		t.Errorf("second import: %+v", rs)
	}
}

// TestImportSubAgents imports a real Claude Code session with its
// sub-agent's file (<session>/subagents/agent-*.jsonl): the sub-agent's
// session is linked to its parent as chat's task tool links the sessions
// it starts, so sessions show lists it under the parent, with its task,
// and names the parent from the sub-agent's side.
// largestSessionCopy returns a temporary copy of root's claude-code folder
// holding only the largest session and its sub-agents' transcripts.
func largestSessionCopy(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "claude-code"))); err != nil {
		t.Fatal(err)
	}
	for _, other := range []string{"short.jsonl", "tool_heavy.jsonl", "6c2214d7-b87e-4432-8e41-22ba294ea584"} {
		if err := os.RemoveAll(filepath.Join(dir, other)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestImportSubAgents(t *testing.T) {
	root := sharedtest.Dir(t)
	const parent = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
	dir := largestSessionCopy(t, root)
	store := t.TempDir()
	rs := jsonLines[importResult](t, mustRun(t, ExitOK, "sessions", "import", "--home", store, "--sidechains", dir, "--json"))
	var sub string
	for _, r := range rs {
		if r.Status != statusImported {
			t.Fatalf("import: %+v", r)
		}
		if r.ID != parent {
			sub = r.ID
		}
	}
	if sub == "" {
		t.Fatalf("no sub-agent session among %+v", rs)
	}
	var got shown
	if err := json.Unmarshal([]byte(mustRun(t, ExitOK, "sessions", "show", parent, "--home", store, "--json")), &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.SubAgents, []string{sub}) || len(got.Forks) != 0 {
		t.Errorf("sessions show %s: sub-agents %q, forks %q; want sub-agents [%s]", parent, got.SubAgents, got.Forks, sub)
	}
	out := mustRun(t, ExitOK, "sessions", "show", sub, "--home", store)
	if !strings.Contains(out, "sub-agent of "+parent+", for the task ") {
		t.Errorf("sessions show %s does not name its parent:\n%s", sub, out)
	}
}

// TestReplaySaveSubAgents: replay --save of a real Claude Code session
// with its sub-agent's file links the sub-agent's saved session to the
// parent's, as sessions import does: sessions show lists it under the
// parent.
func TestReplaySaveSubAgents(t *testing.T) {
	root := sharedtest.Dir(t)
	dir := largestSessionCopy(t, root)
	store := t.TempDir()
	res := jsonLines[struct {
		File      string `json:"file"`
		SessionID string `json:"session_id"`
	}](t, mustRun(t, ExitOK, "replay", dir, "--budget", "16000", "--save", "--home", store, "--json"))
	var parent, sub string
	for _, r := range res {
		if strings.Contains(r.File, "subagents") {
			sub = r.SessionID
		} else {
			parent = r.SessionID
		}
	}
	if parent == "" || sub == "" {
		t.Fatalf("replay --save: %+v", res)
	}
	var got shown
	if err := json.Unmarshal([]byte(mustRun(t, ExitOK, "sessions", "show", parent, "--home", store, "--json")), &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.SubAgents, []string{sub}) {
		t.Errorf("sessions show %s: sub-agents %q, want [%s]", parent, got.SubAgents, sub)
	}
}
