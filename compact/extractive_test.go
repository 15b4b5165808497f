package compact_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/transcript"
)

// fxSession is a small session with every kind of fact.
func fxSession() []chat.Message {
	return []chat.Message{
		sys("You are a coding agent."),
		user("Fix the failing parser test in pkg/parse."),
		asst("Let me look."),
		fxCall("1", "Read", map[string]any{"file_path": "/repo/pkg/parse/parse.go"}),
		fxResult("1", "Read", "package parse", false),
		fxCall("2", "Bash", map[string]any{"command": "go test ./pkg/parse"}),
		fxResult("2", "Bash", "Exit code 1\n--- FAIL: TestParseEmpty (0.00s)\nparse_test.go:12: got nil", true),
		user("No, don't change the public API; keep Parse's signature."),
		fxCall("3", "Edit", map[string]any{"file_path": "/repo/pkg/parse/parse.go", "old_string": "a", "new_string": "b"}),
		fxResult("3", "Edit", "ok", false),
		fxCall("4", "TodoWrite", map[string]any{"todos": []any{
			map[string]any{"content": "fix empty input", "status": "completed"},
			map[string]any{"content": "add a fuzz test", "status": "in_progress"},
			map[string]any{"content": "update the docs", "status": "pending"},
		}}),
		fxResult("4", "TodoWrite", "ok", false),
		fxCall("5", "Bash", map[string]any{"command": "go test ./pkg/parse"}),
		fxResult("5", "Bash", "ok  \tpkg/parse\t0.01s", false),
		asst("The parser test passes now. Next I will add the fuzz test."),
	}
}

func TestExtractiveSections(t *testing.T) {
	t.Parallel()
	res, err := compact.Extractive{Counter: quarterCounter{}}.Summarize(t.Context(), compact.SummaryRequest{
		Messages:     fxSession(),
		Instructions: "focus on the parser",
		Files:        []compact.FileContext{{Path: "/repo/pkg/parse/parse.go", Modified: true, Mentions: 2, Content: "package parse\n"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Usage != nil {
		t.Errorf("Usage = %+v, want nil", res.Usage)
	}
	for _, want := range []string{
		compact.SummaryHeader + "\n",
		"## Focus\n  focus on the parser\n",
		"1. Fix the failing parser test in pkg/parse.\n2. No, don't change the public API; keep Parse's signature.\n",
		"## Files modified\n- /repo/pkg/parse/parse.go (Edit)\n",
		"- go test ./pkg/parse\n  → --- FAIL: TestParseEmpty (0.00s) (a later run succeeded)\n",
		"## Failing tests\n- TestParseEmpty\n",
		"## Open tasks\n- [in_progress] add a fuzz test\n- [pending] update the docs\n",
		"## Last assistant message (where work stopped)\n  The parser test passes now. Next I will add the fuzz test.\n",
		"## Important files\n- /repo/pkg/parse/parse.go (modified, 2 mentions)\n  ```\n  package parse\n",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("summary lacks %q\nsummary:\n%s", want, res.Text)
		}
	}
	if strings.Contains(res.Text, "## Files read") {
		t.Errorf("a modified file is listed as read:\n%s", res.Text)
	}
	if strings.Contains(res.Text, "fix empty input") {
		t.Errorf("a completed todo is listed:\n%s", res.Text)
	}
}

func TestExtractiveDeterministic(t *testing.T) {
	t.Parallel()
	req := compact.SummaryRequest{Messages: fxSession(), MaxTokens: 120}
	e := compact.Extractive{Counter: quarterCounter{}}
	a, err := e.Summarize(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		b, _ := e.Summarize(t.Context(), req)
		if a.Text != b.Text {
			t.Fatalf("not deterministic:\n%s\n---\n%s", a.Text, b.Text)
		}
	}
}

// TestExtractiveBudget: the summary fits MaxTokens, and user messages and
// modified files are the last things to go.
func TestExtractiveBudget(t *testing.T) {
	t.Parallel()
	var msgs []chat.Message
	for i := range 40 {
		msgs = append(msgs,
			user(fmt.Sprintf("request %d: %s", i, strings.Repeat("please be careful ", 30))),
			fxCall(fmt.Sprint("r", i), "Read", map[string]any{"file_path": fmt.Sprintf("/repo/read/file%02d.go", i)}),
			fxResult(fmt.Sprint("r", i), "Read", "x", false),
			fxCall(fmt.Sprint("e", i), "Edit", map[string]any{"file_path": fmt.Sprintf("/repo/mod/file%02d.go", i)}),
			fxResult(fmt.Sprint("e", i), "Edit", "ok", false),
			fxCall(fmt.Sprint("b", i), "Bash", map[string]any{"command": fmt.Sprintf("make target%d", i)}),
			fxResult(fmt.Sprint("b", i), "Bash", fmt.Sprintf("Exit code 2\nmake: *** no rule for target%d %s", i, strings.Repeat("detail ", 30)), true),
		)
	}
	msgs = append(msgs, asst(strings.Repeat("conclusion ", 400)))
	files := []compact.FileContext{{Path: "/repo/mod/file00.go", Modified: true, Content: strings.Repeat("code line\n", 500)}}
	counter, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	facts := compact.ExtractFacts(msgs)
	tests := []struct {
		max                int
		users, mods, reads bool // all kept
	}{
		{max: 0, users: true, mods: true, reads: true},
		{max: 6000, users: true, mods: true, reads: true},
		{max: 3000, users: true, mods: true},
		{max: 1500, users: true, mods: true},
		{max: 200},
		{max: 5},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			t.Parallel()
			res, err := compact.Extractive{Counter: counter}.Summarize(t.Context(), compact.SummaryRequest{Messages: msgs, Files: files, MaxTokens: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			n := counter.Count(res.Text)
			if tt.max > 0 && n > tt.max {
				t.Errorf("summary has %d tokens, max %d", n, tt.max)
			}
			r := compact.MeasureRetention(facts, []chat.Message{user(res.Text)})
			t.Logf("max %d: %d tokens, retention user %.2f modified %.2f read %.2f errors %.2f overall %.2f",
				tt.max, n, r.UserMessages, r.FilesModified, r.FilesRead, r.Errors, r.Overall)
			if tt.users && r.UserMessages != 1 {
				t.Errorf("user messages retention %.2f, want 1", r.UserMessages)
			}
			if tt.mods && r.FilesModified != 1 {
				t.Errorf("modified files retention %.2f, want 1", r.FilesModified)
			}
			if tt.reads && r.FilesRead != 1 {
				t.Errorf("read files retention %.2f, want 1", r.FilesRead)
			}
		})
	}
}

func TestExtractiveRollsPrevious(t *testing.T) {
	t.Parallel()
	e := compact.Extractive{Counter: quarterCounter{}}
	first, err := e.Summarize(t.Context(), compact.SummaryRequest{Messages: fxSession()})
	if err != nil {
		t.Fatal(err)
	}
	later := []chat.Message{
		user("Also handle tabs."),
		fxCall("9", "Write", map[string]any{"file_path": "/repo/pkg/parse/tabs.go", "content": "x"}),
		fxResult("9", "Write", "ok", false),
		asst("Tabs are handled."),
	}
	second, err := e.Summarize(t.Context(), compact.SummaryRequest{Messages: later, Previous: first.Text})
	if err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(second.Text, compact.SummaryHeader); c != 1 {
		t.Errorf("header appears %d times, want 1 (summaries roll, they do not nest):\n%s", c, second.Text)
	}
	for _, want := range []string{
		"1. Fix the failing parser test in pkg/parse.\n2. No, don't change the public API; keep Parse's signature.\n3. Also handle tabs.\n",
		"- /repo/pkg/parse/parse.go (Edit)\n- /repo/pkg/parse/tabs.go (Write)\n",
		"- go test ./pkg/parse\n  → --- FAIL: TestParseEmpty (0.00s) (a later run succeeded)\n",
		"- [in_progress] add a fuzz test\n",
		"## Last assistant message (where work stopped)\n  Tabs are handled.",
	} {
		if !strings.Contains(second.Text, want) {
			t.Errorf("rolled summary lacks %q\nsummary:\n%s", want, second.Text)
		}
	}
	facts := compact.ExtractFacts(fxSession())
	if r := compact.MeasureRetention(facts, []chat.Message{user(second.Text)}); r.Overall != 1 {
		t.Errorf("rolled summary lost facts of the first: %q", r.Missing)
	}
	// A previous summary in another format is kept under "Earlier summary".
	third, err := e.Summarize(t.Context(), compact.SummaryRequest{Messages: later, Previous: "The user wants a parser."})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(third.Text, "## Earlier summary\n  The user wants a parser.") {
		t.Errorf("foreign previous summary lost:\n%s", third.Text)
	}
}

func TestExtractivePlanLines(t *testing.T) {
	t.Parallel()
	msgs := []chat.Message{user("go"), asst("Plan:\n1. read the code\n2. write a test\n- [x] done already\n- [ ] fix the bug")}
	res, err := compact.Extractive{Counter: quarterCounter{}}.Summarize(t.Context(), compact.SummaryRequest{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if want := "## Open tasks\n- read the code\n- write a test\n- fix the bug\n"; !strings.Contains(res.Text, want) {
		t.Errorf("summary lacks %q:\n%s", want, res.Text)
	}
}

func TestExtractiveCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := (compact.Extractive{}).Summarize(ctx, compact.SummaryRequest{Messages: fxSession()}); err == nil {
		t.Fatal("no error for a cancelled context")
	}
	if got := (compact.Extractive{}).Name(); got != "extractive" {
		t.Errorf("Name = %q", got)
	}
}

// BenchmarkExtractive summarizes the largest example trajectory (Claude
// Code, 2.9 MB) at 3,000 tokens with the exact o200k counter.
func BenchmarkExtractive(b *testing.B) {
	path := filepath.Join(sharedtest.Dir(b), "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	trs, err := transcript.ReadFile(path, transcript.Options{})
	if err != nil {
		b.Fatal(err)
	}
	counter, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	msgs := trs[0].Messages
	req := compact.SummaryRequest{Messages: msgs, MaxTokens: 3000, Files: compact.FileAnalyzer{}.Analyze(msgs)}
	e := compact.Extractive{Counter: counter}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Summarize(b.Context(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExtractFacts extracts and measures retention on the largest
// example trajectory.
func BenchmarkExtractFacts(b *testing.B) {
	path := filepath.Join(sharedtest.Dir(b), "claude-code", "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	trs, err := transcript.ReadFile(path, transcript.Options{})
	if err != nil {
		b.Fatal(err)
	}
	msgs := trs[0].Messages
	b.ReportAllocs()
	for b.Loop() {
		f := compact.ExtractFacts(msgs)
		compact.MeasureRetention(f, msgs)
	}
}

// TestExtractiveCauseLine: when the first line of a failed result is
// noise (a build banner, "Traceback …"), the summary also quotes the last
// line that names the error, where compilers and tracebacks put the cause.
func TestExtractiveCauseLine(t *testing.T) {
	t.Parallel()
	msgs := []chat.Message{
		user("Parse the fixture."),
		fxCall("1", "Bash", map[string]any{"command": "python3 load.py"}),
		fxResult("1", "Bash", "Traceback (most recent call last):\n  File \"load.py\", line 3, in <module>\n    json.loads(s)\njson.decoder.JSONDecodeError: Unterminated string\n", true),
		fxCall("2", "Bash", map[string]any{"command": "mix test"}),
		fxResult("2", "Bash", "Getting extensions in current project...\nCompiling 4 files\n58 tests, 1 failure\n", true),
	}
	res, err := compact.Extractive{Counter: quarterCounter{}}.Summarize(t.Context(), compact.SummaryRequest{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"- python3 load.py\n  → Traceback (most recent call last):\n  → … json.decoder.JSONDecodeError: Unterminated string (not run again)\n",
		"- mix test\n  → Getting extensions in current project...\n  → … 58 tests, 1 failure (not run again)",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("summary lacks %q\nsummary:\n%s", want, res.Text)
		}
	}
}
