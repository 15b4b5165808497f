package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/sqlitestore"
	"github.com/agentctx/agentctx/transcript"
)

// jsonLines decodes one JSON object per line of out into T.
func jsonLines[T any](t *testing.T, out string) []T {
	t.Helper()
	var rs []T
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var r T
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q is not a JSON object: %v", sc.Text(), err)
		}
		rs = append(rs, r)
	}
	return rs
}

// mustRun runs the command line and fails t unless it exits with want.
func mustRun(t *testing.T, want int, args ...string) string {
	t.Helper()
	code, out, errOut := run(t, args...)
	if code != want {
		t.Fatalf("agentctx %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, cut(out, 2000), errOut)
	}
	return out
}

// importShared imports the Claude Code and Codex files of the shared data
// into a fresh store and returns its folder and the results.
func importShared(t *testing.T, extra ...string) (string, []importResult) {
	t.Helper()
	root := sharedtest.Dir(t)
	home := t.TempDir()
	args := append([]string{"sessions", "import", "--home", home, "--json", filepath.Join(root, "claude-code"), filepath.Join(root, "codex")}, extra...)
	return home, jsonLines[importResult](t, mustRun(t, ExitOK, args...))
}

const (
	bigSession   = "8463c716-a2ea-4c14-9efa-87158ebd9f20" // the Claude Code session with a compaction
	shortSession = "55604662-cf2a-4331-851a-ec234028f8ca"
	codexSession = "019c8a4d-8f45-7010-8b5d-7fad920aa6f9"
)

// TestSessionsRealData imports the real Claude Code and Codex files, then
// lists, shows, inspects, checks and removes them through the command
// line.
func TestSessionsRealData(t *testing.T) {
	t.Parallel()
	home, results := importShared(t)
	status := map[string]int{}
	byID := map[string]importResult{}
	for _, r := range results {
		status[r.Status]++
		byID[r.ID] = r
	}
	if d := cmp.Diff(map[string]int{statusImported: 6, statusSkipped: 2}, status); d != "" {
		t.Fatalf("import statuses (-want +got):\n%s\n%+v", d, results)
	}
	big := byID[bigSession]
	if big.Status != statusImported || big.Compactions != 1 || big.Format != "claude-code" ||
		big.Project != "/home/USER/projects/spotter-worktrees/spotter-fum" || !strings.HasPrefix(big.Title, "Work on bead spotter-fum") {
		t.Errorf("big session import: %+v", big)
	}
	if cx := byID[codexSession]; cx.Status != statusImported || cx.Format != "codex" || cx.Project != "/redacted/path/da0ba47443" {
		t.Errorf("codex import: %+v", cx)
	}

	t.Run("import again is idempotent", func(t *testing.T) {
		root := sharedtest.Dir(t)
		out := mustRun(t, ExitOK, "sessions", "import", "--home", home, filepath.Join(root, "claude-code"), filepath.Join(root, "codex"))
		if !strings.Contains(out, "0 imported, 8 skipped, 0 failed") || !strings.Contains(out, "already imported as "+bigSession) {
			t.Errorf("second import:\n%s", out)
		}
	})

	t.Run("list", func(t *testing.T) {
		all := jsonLines[session.Session](t, mustRun(t, ExitOK, "sessions", "list", "--home", home, "--all", "--json"))
		if len(all) != 6 {
			t.Fatalf("list --all: %d sessions, want 6", len(all))
		}
		if !slices.IsSortedFunc(all, func(a, b session.Session) int { return b.LastActivity.Compare(a.LastActivity) }) {
			t.Errorf("list is not most recent first")
		}
		for _, s := range all {
			if s.Title == "" || s.Messages == 0 || s.Origin == "" || s.Created.IsZero() || s.Created.Year() != 2026 {
				t.Errorf("session %+v", s)
			}
		}
		some := jsonLines[session.Session](t, mustRun(t, ExitOK, "sessions", "list", "--home", home, "--project", "/redacted/path/da0ba47443", "--json"))
		if len(some) != 2 {
			t.Errorf("list --project: %d sessions, want the 2 Codex rollouts of that folder", len(some))
		}
		table := mustRun(t, ExitOK, "sessions", "list", "--home", home, "--all")
		for _, s := range []string{"ID", "TITLE", "MSGS", "TOKENS", "ACTIVE", "PROJECT", bigSession, "mix phx.server doesnt seem to start", "132,648"} {
			if !strings.Contains(table, s) {
				t.Errorf("table lacks %q:\n%s", s, table)
			}
		}
		if out := mustRun(t, ExitOK, "sessions", "list", "--home", home, "--project", t.TempDir()); !strings.Contains(out, "no sessions for project") {
			t.Errorf("empty project: %q", out)
		}
	})

	t.Run("show", func(t *testing.T) {
		out := mustRun(t, ExitOK, "sessions", "show", "--home", home, bigSession)
		full := mustRun(t, ExitOK, "sessions", "show", "--home", home, bigSession, "--full")
		for _, s := range []string{"session " + bigSession, "live window: 163 messages", "#0 summary (compaction)", "→ Bash {", "tool result Read", "more lines"} {
			if !strings.Contains(out, s) {
				t.Errorf("show lacks %q", s)
			}
		}
		if len(full) <= len(out) || strings.Contains(full, "more lines") {
			t.Errorf("--full (%d bytes) is not longer than the cut view (%d) or still cuts", len(full), len(out))
		}
		var js shown
		if err := json.Unmarshal([]byte(mustRun(t, ExitOK, "sessions", "show", "--home", home, bigSession, "--json")), &js); err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, m := range js.Messages {
			sum += m.Tokens
		}
		if len(js.Messages) != 163 || !js.Messages[0].Summary || js.Messages[1].Summary || sum >= js.Tokens || js.Tokens-sum > 10 {
			t.Errorf("show --json: %d messages, summary flags %v %v, tokens %d of %d", len(js.Messages), js.Messages[0].Summary, js.Messages[1].Summary, sum, js.Tokens)
		}
		if js.Messages[0].Message.Role != chat.RoleUser || !strings.HasPrefix(js.Messages[0].Message.Text(), "This session is being continued") {
			t.Errorf("first message is not the summary: %v", js.Messages[0].Message.Role)
		}
	})

	t.Run("inspect", func(t *testing.T) {
		for _, id := range []string{bigSession, shortSession, codexSession} {
			reps := jsonLines[inspectReport](t, mustRun(t, ExitOK, "inspect", "--home", home, "--json", id))
			if len(reps) != 1 {
				t.Fatalf("%s: %d reports", id, len(reps))
			}
			assertInspect(t, id, reps[0])
		}
		rep := jsonLines[inspectReport](t, mustRun(t, ExitOK, "inspect", "--home", home, "--json", bigSession))[0]
		if rep.Breakdown.Summary < 1000 || rep.ToolResultsByTool[0].Name != "Read" || rep.Model != "claude-opus-4-6" || rep.ContextWindow != 200_000 || rep.Budget != 167_000 {
			t.Errorf("big session: summary %d, tools %v, model %s, window %d, budget %d", rep.Breakdown.Summary, rep.ToolResultsByTool, rep.Model, rep.ContextWindow, rep.Budget)
		}
		// Claude Opus 4.6: $5 input, $0.50 cache read per million tokens.
		size := rep.Tokens
		if rep.ProviderTokens > 0 {
			size = rep.ProviderTokens
		}
		if c := rep.NextCall; c == nil || c.Tokens != size || math.Abs(c.UncachedUSD-float64(size)*5/1e6) > 1e-9 ||
			math.Abs(c.CachedUSD-float64(size)*0.5/1e6) > 1e-9 || c.PriceAsOf == "" {
			t.Errorf("big session: next call cost %+v for %d tokens", c, size)
		}
		// The original file restores to the same window as its import.
		file := filepath.Join(sharedtest.Dir(t), "claude-code", bigSession+".jsonl")
		fromFile := jsonLines[inspectReport](t, mustRun(t, ExitOK, "inspect", "--json", file))[0]
		if fromFile.Tokens != rep.Tokens || fromFile.Messages != rep.Messages || fromFile.Breakdown.Summary != rep.Breakdown.Summary {
			t.Errorf("file: %d tokens %d messages %d summary; imported: %d %d %d",
				fromFile.Tokens, fromFile.Messages, fromFile.Breakdown.Summary, rep.Tokens, rep.Messages, rep.Breakdown.Summary)
		}
		text := mustRun(t, ExitOK, "inspect", "--home", home, bigSession, "--model", "gpt-4o", "--budget", "100000")
		for _, s := range []string{"gpt-4o · context window 128,000 tokens · budget 100,000 (flag)", "tool results", "free space", "reserved", "tool results by tool", "█"} {
			if !strings.Contains(text, s) {
				t.Errorf("inspect lacks %q:\n%s", s, text)
			}
		}
		if strings.Contains(text, "\x1b[") {
			t.Errorf("colors written to a buffer, not a terminal")
		}
	})

	t.Run("rm", func(t *testing.T) {
		if out := mustRun(t, ExitOK, "sessions", "rm", "--home", home, shortSession); !strings.Contains(out, "removed "+shortSession) {
			t.Errorf("rm: %q", out)
		}
		all := jsonLines[session.Session](t, mustRun(t, ExitOK, "sessions", "list", "--home", home, "--all", "--json"))
		for _, s := range all {
			if s.ID == shortSession {
				t.Errorf("removed session still listed")
			}
		}
		code, _, errOut := run(t, "sessions", "rm", "--home", home, shortSession)
		if code != ExitError || !strings.Contains(errOut, "no such session") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("rm again: exit %d, stderr %q", code, errOut)
		}
		code, _, errOut = run(t, "sessions", "show", "--home", home, shortSession)
		if code != ExitError || !strings.Contains(errOut, "no such session") {
			t.Errorf("show removed: exit %d, stderr %q", code, errOut)
		}
	})
}

// assertInspect checks an inspect report: categories sum to the total,
// percentages are consistent and within 0..100, the free and reserved
// space complete the context window.
func assertInspect(t *testing.T, name string, r inspectReport) {
	t.Helper()
	sum, pct := 0, 0.0
	for _, c := range r.Categories {
		if c.Tokens < 0 || c.Percent < 0 || c.Percent > 100 {
			t.Errorf("%s: category %+v", name, c)
		}
		sum += c.Tokens
		pct += c.Percent
	}
	if sum != r.Tokens || r.Breakdown.Total != r.Tokens || r.Tokens == 0 {
		t.Errorf("%s: categories sum to %d, tokens %d, breakdown total %d", name, sum, r.Tokens, r.Breakdown.Total)
	}
	if math.Abs(pct-r.Percent) > 0.01 || math.Abs(r.Percent-100*float64(r.Tokens)/float64(r.ContextWindow)) > 0.01 {
		t.Errorf("%s: percents sum to %.3f, total %.3f", name, pct, r.Percent)
	}
	if r.Tokens+r.FreeTokens+r.ReservedTokens != r.ContextWindow && r.OverBudget == 0 {
		t.Errorf("%s: used %d + free %d + reserved %d != window %d", name, r.Tokens, r.FreeTokens, r.ReservedTokens, r.ContextWindow)
	}
	tr := 0
	for _, c := range r.ToolResultsByTool {
		tr += c.Tokens
	}
	if tr != r.Breakdown.ToolResults {
		t.Errorf("%s: tool results by tool sum to %d, category %d", name, tr, r.Breakdown.ToolResults)
	}
	if r.Messages == 0 || r.Model == "" || r.Budget <= 0 || r.Budget > r.ContextWindow {
		t.Errorf("%s: report %+v", name, r)
	}
}

func TestSessionsImportSidechains(t *testing.T) {
	t.Parallel()
	_, results := importShared(t, "--sidechains")
	var ids []string
	for _, r := range results {
		if r.Status != statusImported {
			t.Errorf("%s: %s %s", r.File, r.Status, r.Reason)
		}
		ids = append(ids, r.ID)
	}
	for _, id := range []string{"6c2214d7-b87e-4432-8e41-22ba294ea584-agent-afc096d", bigSession + "-agent-acompact-f46190"} {
		if !slices.Contains(ids, id) {
			t.Errorf("side chain %s not imported: %v", id, ids)
		}
	}
}

// TestInspectFiles inspects every real file directly: each format
// restores a window whose breakdown sums up.
func TestInspectFiles(t *testing.T) {
	t.Parallel()
	for _, f := range sharedtest.Files(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			reps := jsonLines[inspectReport](t, mustRun(t, ExitOK, "inspect", "--json", f))
			if len(reps) == 0 {
				t.Fatal("no report")
			}
			for _, r := range reps {
				assertInspect(t, f, r)
			}
		})
	}
}

// TestCheckRealFiles checks every real Claude Code file: none may crash
// the checker; what each holds is logged.
func TestCheckRealFiles(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(sharedtest.Dir(t), "claude-code", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Claude Code files: %v", err)
	}
	subs, _ := filepath.Glob(filepath.Join(sharedtest.Dir(t), "claude-code", "*", "subagents", "*.jsonl"))
	for _, f := range append(files, subs...) {
		code, out, errOut := run(t, "sessions", "check", "--json", f)
		if code != ExitOK && code != ExitError {
			t.Fatalf("%s: exit %d: %s", f, code, errOut)
		}
		var cj checkJSON
		if err := json.Unmarshal([]byte(out), &cj); err != nil {
			t.Fatalf("%s: %v\n%s", f, err, out)
		}
		if cj.OK != (code == ExitOK) || cj.Report.Lines == 0 || cj.Report.Entries > cj.Report.Lines {
			t.Errorf("%s: exit %d, report %+v", f, code, cj.Report)
		}
		t.Logf("%s: %d lines, %d messages, %d boundaries, %d abandoned, %d problems", filepath.Base(f), cj.Report.Lines, cj.Report.Messages, cj.Report.Boundaries, cj.Report.Abandoned, len(cj.Report.Problems))
	}
	code, _, errOut := run(t, "sessions", "check", filepath.Join(sharedtest.Dir(t), "swe-agent", "pydicom__pydicom-1458.traj"))
	if code != ExitError || !strings.Contains(errOut, "swe-agent transcript") {
		t.Errorf("check on a SWE-agent file: exit %d, %q", code, errOut)
	}
}

// damage writes a copy of src into dir with line 11's parent dangling and
// a torn copy of line 6 at the end.
func damage(t *testing.T, src, dir string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	var obj map[string]any
	if err := json.Unmarshal([]byte(lines[10]), &obj); err != nil {
		t.Fatal(err)
	}
	obj["parentUuid"] = "00000000-dead-beef-0000-000000000000"
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	lines[10] = string(b)
	out := strings.Join(lines, "\n") + "\n" + lines[5][:len(lines[5])/2]
	dst := filepath.Join(dir, "damaged.jsonl")
	if err := os.WriteFile(dst, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestCheckRepair(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := damage(t, filepath.Join(sharedtest.Dir(t), "claude-code", "tool_heavy.jsonl"), dir)
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}

	code, out, _ := run(t, "sessions", "check", file)
	if code != ExitError || !strings.Contains(out, "damaged.jsonl:11 (byte ") || !strings.Contains(out, "dangling-parent") || !strings.Contains(out, "torn-line") {
		t.Fatalf("check: exit %d\n%s", code, out)
	}
	var cj checkJSON
	if err := json.Unmarshal([]byte(mustRun(t, ExitOK, "sessions", "check", "--repair", "--json", file)), &cj); err != nil {
		t.Fatal(err)
	}
	rep := cj.Repaired
	if cj.OK || rep == nil || !rep.OK || rep.File != filepath.Join(dir, "damaged.repaired.jsonl") || len(rep.Fixes) != 1 || len(rep.Dropped) != 1 {
		t.Fatalf("repair: %+v", cj)
	}
	if rep.Fixes[0].Kind != session.ProblemDanglingParent || rep.Dropped[0].Kind != session.ProblemTornLine {
		t.Errorf("fixes %+v, dropped %+v", rep.Fixes, rep.Dropped)
	}
	after, err := os.ReadFile(file)
	if err != nil || string(after) != string(before) {
		t.Errorf("the original changed (err %v)", err)
	}
	st, err := os.Stat(rep.File)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("repaired copy: %v, mode %v", err, st.Mode())
	}
	if out := mustRun(t, ExitOK, "sessions", "check", rep.File); !strings.Contains(out, "no problems: OK") {
		t.Errorf("check of the repaired copy:\n%s", out)
	}
	// The repaired copy keeps the conversation: same messages.
	if a, b := cj.Report.Messages, rep.Report.Messages; a != b {
		t.Errorf("messages %d before, %d after repair", a, b)
	}
	code, _, errOut := run(t, "sessions", "check", "--repair", file)
	if code != ExitError || !strings.Contains(errOut, "exists; remove it or pass --force") {
		t.Errorf("second repair: exit %d, %q", code, errOut)
	}
	mustRun(t, ExitOK, "sessions", "check", "--repair", "--force", file)
	other := filepath.Join(dir, "elsewhere.jsonl")
	mustRun(t, ExitOK, "sessions", "check", "--repair", "--out", other, file)
	if _, err := os.Stat(other); err != nil {
		t.Errorf("--out: %v", err)
	}
}

// TestCheckStored checks a stored session by id, in the default store (a
// database: its lines are checked as stored); a repaired copy of it needs
// --out, and --in-place is for JSONL files.
func TestCheckStored(t *testing.T) {
	t.Parallel()
	home, _ := importShared(t)
	if out := mustRun(t, ExitOK, "sessions", "check", "--home", home, shortSession); !strings.Contains(out, "no problems: OK") || !strings.Contains(out, shortSession) {
		t.Errorf("check stored:\n%s", out)
	}
	for _, args := range [][]string{{"--repair"}, {"--repair", "--in-place"}} {
		if code, _, errOut := run(t, append([]string{"sessions", "check", "--home", home, shortSession}, args...)...); code != ExitUsage || !strings.Contains(errOut, "--out") {
			t.Errorf("check %v of a database session: exit %d, %q", args, code, errOut)
		}
	}
	copied := filepath.Join(t.TempDir(), "copy.jsonl")
	if out := mustRun(t, ExitOK, "sessions", "check", "--home", home, shortSession, "--repair", "--out", copied); !strings.Contains(out, "no problems: OK") || !strings.Contains(out, copied) {
		t.Errorf("check --repair --out:\n%s", out)
	}
	if out := mustRun(t, ExitOK, "sessions", "check", copied); !strings.Contains(out, "no problems: OK") {
		t.Errorf("check of the repaired copy:\n%s", out)
	}
	all := jsonLines[session.Session](t, mustRun(t, ExitOK, "sessions", "list", "--home", home, "--all", "--json"))
	if len(all) != 6 {
		t.Errorf("the store holds %d sessions after check, want 6", len(all))
	}
}

// TestSessionsRmBusy: a session another store is writing (its lease, in
// the default store) is not removed, and is once the writer closes.
func TestSessionsRmBusy(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	st, err := sqlitestore.Open(sqlitestore.Options{Path: filepath.Join(home, sqlitestore.FileName)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := t.Context()
	s, err := st.Create(ctx, session.Session{Project: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := session.NewMessageEntry(chat.NewText(chat.RoleUser, "hello"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(ctx, s.ID, e); err != nil { // takes the session's lease
		t.Fatal(err)
	}
	code, _, errOut := run(t, "sessions", "rm", "--home", home, s.ID)
	if code != ExitError || !strings.Contains(errOut, "another process is writing this session") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("rm of a busy session: exit %d, stderr %q", code, errOut)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	mustRun(t, ExitOK, "sessions", "rm", "--home", home, s.ID)
}

func TestReplaySave(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	file := filepath.Join(sharedtest.Dir(t), "claude-code", "tool_heavy.jsonl")
	out := mustRun(t, ExitOK, "replay", "--save", "--home", home, "--project", "/work/p", "--budget", "1000", "--json", file)
	var res struct {
		SessionID string `json:"session_id"`
		Final     int    `json:"final_prompt_tokens"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.SessionID == "" {
		t.Fatalf("replay --save --json: %v\n%s", err, out)
	}
	rep := jsonLines[inspectReport](t, mustRun(t, ExitOK, "inspect", "--home", home, "--json", res.SessionID))[0]
	if rep.Tokens != res.Final || rep.Budget != 1000 || rep.BudgetSource != agentctx.BudgetFromOption {
		t.Errorf("inspect of the saved replay: %d tokens (replay ended at %d), budget %d from %s", rep.Tokens, res.Final, rep.Budget, rep.BudgetSource)
	}
	if rep.Session == nil || rep.Session.Compactions == 0 || rep.Session.Project != "/work/p" {
		t.Errorf("saved session %+v: want compactions in project /work/p", rep.Session)
	}
	text := mustRun(t, ExitOK, "replay", "--save", "--home", home, "--project", "/work/p", file)
	if !strings.Contains(text, "saved "+file+" as session ") {
		t.Errorf("replay --save:\n%s", text)
	}
	if list := mustRun(t, ExitOK, "sessions", "list", "--home", home, "--project", "/work/p"); strings.Count(list, "start phoenix in background") != 2 {
		t.Errorf("list after two saves:\n%s", list)
	}
}

func TestSessionsUsageErrors(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{"list: project and all", []string{"sessions", "list", "--home", home, "--all", "--project", "/x"}, ExitUsage, "exclude each other"},
		{"list: argument", []string{"sessions", "list", "--home", home, "extra"}, ExitUsage, "unknown command"},
		{"show: no id", []string{"sessions", "show", "--home", home}, ExitUsage, "accepts 1 arg"},
		{"show: a path", []string{"sessions", "show", "--home", home, "../no/etc"}, ExitError, "../no/etc: no such file"},
		{"show: unknown id", []string{"sessions", "show", "--home", home, "nope"}, ExitError, "no such session"},
		{"rm: no id", []string{"sessions", "rm", "--home", home}, ExitUsage, "requires at least 1 arg"},
		{"rm: bad id", []string{"sessions", "rm", "--home", home, "a/b"}, ExitUsage, "path separator"},
		{"check: force without repair", []string{"sessions", "check", "--home", home, "--force", "x"}, ExitUsage, "need --repair"},
		{"check: unknown", []string{"sessions", "check", "--home", home, "nope"}, ExitError, "no such session"},
		{"import: nothing", []string{"sessions", "import", "--home", home}, ExitUsage, "give a FILE or DIR"},
		{"import: bad from", []string{"sessions", "import", "--home", home, "--from", "word"}, ExitUsage, "want one of claude-code, codex"},
		{"import: no folder", []string{"sessions", "import", "--home", home, "--from", "openhands"}, ExitUsage, "only claude and codex have a folder"},
		{"import: missing", []string{"sessions", "import", "--home", home, filepath.Join(home, "none.jsonl")}, ExitError, "none.jsonl"},
		{"inspect: no arg", []string{"inspect", "--home", home}, ExitUsage, "accepts 1 arg"},
		{"inspect: negative budget", []string{"inspect", "--home", home, "--budget", "-1", "x"}, ExitUsage, "--budget"},
		{"inspect: unknown", []string{"inspect", "--home", home, "nope"}, ExitError, "no such session"},
		{"replay: project without save", []string{"replay", "--project", "/x", "f.jsonl"}, ExitUsage, "need --save"},
		{"bad flag", []string{"sessions", "list", "--frobnicate"}, ExitUsage, "unknown flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := run(t, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.inStderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, tt.code, tt.inStderr)
			}
			if strings.Count(errOut, "agentctx:") != 1 {
				t.Errorf("error printed %d times: %q", strings.Count(errOut, "agentctx:"), errOut)
			}
		})
	}
}

// TestImportEveryFormat: every format replay reads is imported, one
// session per trajectory, and a second import skips them all.
func TestImportEveryFormat(t *testing.T) {
	t.Parallel()
	root := sharedtest.Dir(t)
	home := t.TempDir()
	// The shared data, and the fixtures of the formats it has no file of.
	paths := []string{root}
	for _, d := range []string{"cline", "gemini-cli", "copilot-cli", "aider", "crush"} {
		paths = append(paths, filepath.Join("..", "..", "transcript", "testdata", d))
	}
	out := mustRun(t, ExitOK, append([]string{"sessions", "import", "--home", home, "--json"}, paths...)...)
	formats := map[string]int{}
	n, skipped := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r importResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		switch r.Status {
		case statusImported:
			formats[r.Format]++
			n++
		case statusSkipped:
			skipped++
		default:
			t.Errorf("%s #%d failed: %s", r.File, r.Index, r.Reason)
		}
	}
	for _, f := range transcript.Formats() {
		if f != transcript.FormatOpenAI && formats[string(f)] == 0 {
			t.Errorf("no %s trajectory imported: %v", f, formats)
		}
	}
	if formats[string(transcript.FormatOpenHands)] < 2 {
		t.Errorf("OpenHands output.jsonl: %d sessions, want one per line", formats[string(transcript.FormatOpenHands)])
	}
	again := mustRun(t, ExitOK, append([]string{"sessions", "import", "--home", home}, paths...)...)
	if !strings.Contains(again, fmt.Sprintf("0 imported, %d skipped, 0 failed", n+skipped)) {
		t.Errorf("second import, want all %d skipped:\n%s", n, again)
	}
}

// TestImportMissingAndStray: a missing path is reported and the others
// still imported (exit 1 at the end); a stray manifest.json found in a
// folder is skipped with a note, and an error when named.
func TestImportMissingAndStray(t *testing.T) {
	t.Parallel()
	root := sharedtest.Dir(t)
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(root, "claude-code", "short.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"s.jsonl": string(data), "manifest.json": `{"name":"set","files":["s.jsonl"]}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := run(t, "sessions", "import", "--home", t.TempDir(), filepath.Join(dir, "nope"), dir)
	if code != ExitError || !strings.Contains(errOut, "nope") {
		t.Errorf("exit %d, stderr %q; want 1 naming the missing path", code, errOut)
	}
	if !strings.Contains(out, "1 imported, 1 skipped, 0 failed") || !strings.Contains(out, "manifest.json: not a transcript") {
		t.Errorf("want the session imported and the manifest skipped:\n%s", out)
	}
	code, _, errOut = run(t, "sessions", "import", "--home", t.TempDir(), filepath.Join(dir, "manifest.json"))
	if code != ExitError || !strings.Contains(errOut, "manifest.json") {
		t.Errorf("named manifest.json: exit %d, stderr %q; want an error", code, errOut)
	}
}
