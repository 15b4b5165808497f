package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/workmem"
)

// engineSession writes, into the store in home, a session the way an agent
// embedding the Engine does: a recorded configuration (a 6,000-token
// budget, a system prompt, a tool), files read from its project, a
// relative path (notes/plan.txt) named in its history whose content is on
// disk only, and a finding in the working memory. It returns the session's id and the path
// of its file.
func engineSession(t *testing.T, home string) (id, path string) {
	t.Helper()
	ctx := t.Context()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "parse.go"), []byte("package demo\n\nfunc Parse(s string) int { return len(s) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes", "plan.txt"), []byte("plan-on-disk-only: handle runes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := jsonlstore.Open(jsonlstore.Options{Root: home})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	e, err := agentctx.Open(ctx, agentctx.Options{
		Store: store, Dir: dir, Model: "gpt-4o", Budget: 6000,
		SystemPrompt: "You are the parser agent. Keep answers short.",
		Tools:        []chat.ToolDef{{Name: "Read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object"}`)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		cid := fmt.Sprintf("r%d", i)
		err := e.Add(ctx, chat.NewText(chat.RoleUser, fmt.Sprintf("Step %d: look at parse.go again, as notes/plan.txt says.", i)),
			chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: cid, Name: "Read", Arguments: json.RawMessage(fmt.Sprintf(`{"file_path":%q}`, filepath.Join(dir, "parse.go")))}}},
			chat.NewToolResult(cid, "Read", "package demo\n\nfunc Parse(s string) int { return len(s) }\n"+strings.Repeat("// padding line\n", 60), false),
			chat.NewText(chat.RoleAssistant, "Parse counts bytes, not runes. "+strings.Repeat("detail ", 40)))
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.AddFinding(workmem.Finding{Finding: "Parse counts bytes, not runes", Evidence: "parse.go:3", Importance: 9}); err != nil {
		t.Fatal(err)
	}
	id = e.ID()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if path, err = store.Path(id); err != nil {
		t.Fatal(err)
	}
	return id, path
}

// resumed is what a resume of an engine session restores.
type resumed struct {
	Budget       int
	BudgetSource string
	Static       string
	Files        []string
	Memory       string
}

func resumeEngineSession(t *testing.T, home, id string) (resumed, []string) {
	t.Helper()
	store, err := jsonlstore.Open(jsonlstore.Options{Root: home})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	e, err := agentctx.Resume(t.Context(), id, agentctx.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r := resumed{Budget: e.Budget(), BudgetSource: e.BudgetSource(), Static: e.Static().Text}
	ts, ok := e.TrackerState()
	if !ok {
		t.Fatal("no tracker")
	}
	for _, f := range ts.Files {
		r.Files = append(r.Files, f.Path)
	}
	r.Memory, _ = e.WorkingMemory(2000)
	return r, e.Warnings()
}

// TestCompactEngineSession: `agentctx compact ID` on a session an Engine
// wrote compacts it under the configuration it recorded, not under values
// the CLI guessed: a resume afterwards has the same budget, tool schemas,
// system prompt, tracker and working memory, and no override is recorded
// (the tool schemas are the recorded ones: a different set would be one),
// and the summary holds the content of a file the history names relative
// to the session's project.
func TestCompactEngineSession(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	id, path := engineSession(t, home)
	before, _ := resumeEngineSession(t, home, id)
	if before.Budget != 6000 || before.BudgetSource != agentctx.BudgetFromOption || len(before.Files) == 0 || !strings.Contains(before.Memory, "counts bytes") || !strings.Contains(before.Static, "parser agent") {
		t.Fatalf("the session before compaction: %+v", before)
	}
	out := mustRun(t, ExitOK, "compact", id, "--store", "jsonl:"+home, "--summarizer", "extractive", "--json") // the Engine's JSONL store
	var r compactReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !r.Written || r.Budget != 6000 || r.TokensAfter >= r.TokensBefore {
		t.Fatalf("compaction: %+v", r)
	}
	// The summary read notes/plan.txt from the session's project, not
	// from the test's working directory.
	if _, err := os.Stat("notes/plan.txt"); err == nil {
		t.Fatal("notes/plan.txt in the working directory: the test proves nothing")
	}
	if !strings.Contains(r.Summary, "plan-on-disk-only") {
		t.Errorf("the summary lacks notes/plan.txt's content (files %v):\n%s", r.FilesIncluded, r.Summary)
	}
	after, warnings := resumeEngineSession(t, home, id)
	if diff := gocmp.Diff(before, after); diff != "" {
		t.Errorf("resume after compact differs (-before +after):\n%s", diff)
	}
	for _, w := range warnings {
		if strings.Contains(w, "override") {
			t.Errorf("warning after compact: %s", w)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(`"overrides"`)) {
		t.Errorf("the session records an override after compact")
	}
	if cs := configs(t, data); len(cs) > 1 && string(cs[len(cs)-1]) != string(cs[0]) {
		t.Errorf("the configuration recorded changed with compact:\n%s\n→\n%s", cs[0], cs[len(cs)-1])
	}
}

// configs returns the engine configurations a session file records, in
// order.
func configs(t *testing.T, data []byte) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for line := range bytes.Lines(data) {
		var en struct {
			Type  string `json:"type"`
			State struct {
				Config json.RawMessage `json:"config"`
			} `json:"state"`
		}
		if json.Unmarshal(line, &en) == nil && en.Type == "agentctx_state" && len(en.State.Config) > 0 {
			out = append(out, en.State.Config)
		}
	}
	if len(out) == 0 {
		t.Fatal("no configuration recorded")
	}
	return out
}

// TestInspectEngineSession: `agentctx inspect ID` restores a session as
// the library resumes it, with the budget it recorded and its breakdown,
// and writes nothing: the session file stays byte-identical, for a
// session an Engine wrote as for an imported one that recorded no
// configuration (which a plain Resume would record), with or without
// --budget. It runs on a JSONL store, whose files it compares.
func TestInspectEngineSession(t *testing.T) {
	t.Parallel()
	home, _ := importShared(t, "--store", "jsonl:") // this test reads the files
	id, path := engineSession(t, home)
	store, err := jsonlstore.Open(jsonlstore.Options{Root: home})
	if err != nil {
		t.Fatal(err)
	}
	imported, err := store.Path(bigSession)
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, p := range []string{path, imported} {
		if files[p], err = os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
	}
	rep := jsonLines[inspectReport](t, mustRun(t, ExitOK, "inspect", "--store", "jsonl:"+home, "--json", id))[0]
	if rep.Budget != 6000 || rep.BudgetSource != agentctx.BudgetFromOption || rep.Model != "gpt-4o" || rep.Tokens == 0 || rep.Breakdown.ToolResults == 0 {
		t.Errorf("inspect: budget %d (%s), model %s, %d tokens, breakdown %+v", rep.Budget, rep.BudgetSource, rep.Model, rep.Tokens, rep.Breakdown)
	}
	if rep.Breakdown.Reserved == 0 {
		t.Errorf("inspect: the recorded tool schemas are not reserved: %+v", rep.Breakdown)
	}
	text := mustRun(t, ExitOK, "inspect", "--store", "jsonl:"+home, id, "--budget", "5000")
	if !strings.Contains(text, "budget 5,000 (flag)") {
		t.Errorf("inspect --budget:\n%s", text)
	}
	mustRun(t, ExitOK, "inspect", "--store", "jsonl:"+home, bigSession)
	mustRun(t, ExitOK, "sessions", "show", "--store", "jsonl:"+home, id)
	for p, data := range files {
		if again, err := os.ReadFile(p); err != nil || !bytes.Equal(again, data) {
			t.Errorf("inspect changed %s (%v)", p, err)
		}
	}
}
