package track

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentctx/agentctx/chat"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func call(name string, args any) chat.ToolCall {
	b, _ := json.Marshal(args)
	return chat.ToolCall{ID: "c", Name: name, Arguments: b}
}

func ok(content string) chat.ToolResult { return chat.ToolResult{ToolCallID: "c", Content: content} }
func bad(content string) chat.ToolResult {
	return chat.ToolResult{ToolCallID: "c", Content: content, IsError: true}
}

type step struct {
	c chat.ToolCall
	r chat.ToolResult
}

func noStat(string) (time.Time, int64, error) { return time.Time{}, 0, errors.New("no disk") }

func TestRecord(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 150)
	tests := []struct {
		name  string
		steps []step
		want  State
	}{
		{"read keeps first 3 lines, dedupe by path", []step{
			{call("Read", map[string]any{"file_path": "a.go"}), ok("1\n2\n3\n4\n5")},
			{call("Read", map[string]any{"file_path": "a.go"}), ok("x\ny\nz\nw")},
		}, State{Files: []FileRead{{Path: "a.go", Preview: "x\ny\nz", Reads: 2}}}},
		{"failed read not recorded, but failure is", []step{
			{call("Read", map[string]any{"file_path": "nope"}), bad("File does not exist.")},
		}, State{Commands: []FailedCommand{{Command: "Read nope", Error: "File does not exist.", Failures: 1}}}},
		{"failed command cut to 100, dedupe", []step{
			{call("Bash", map[string]any{"command": long}), bad("Exit code 1\nboom\nmore")},
			{call("Bash", map[string]any{"command": long + "yy"}), bad("Exit code 2\nbang")},
		}, State{Commands: []FailedCommand{{Command: long[:100], Error: "bang", Failures: 2}}}},
		{"exit code without flag is a failure", []step{
			{call("bash", map[string]any{"command": "pytest"}), ok("<returncode>1</returncode>\n<output>\nE assert 1 == 2\n</output>")},
			{call("bash", map[string]any{"command": "ls"}), ok("<returncode>0</returncode>\n<output>\na\n</output>")},
		}, State{Commands: []FailedCommand{{Command: "pytest", Error: "E assert 1 == 2", Failures: 1}}}},
		{"the word 错误 is not a failure", []step{
			{call("Bash", map[string]any{"command": "echo 错误"}), ok("错误")},
		}, State{}},
		{"5-search window, summary cut to 200", func() []step {
			var s []step
			for i := range 7 {
				s = append(s, step{call("Grep", map[string]any{"pattern": fmt.Sprint("q", i)}), ok(strings.Repeat("r", 300) + "\nsecond")})
			}
			return s
		}(), func() State {
			var st State
			for i := 2; i < 7; i++ {
				st.Searches = append(st.Searches, Search{Query: fmt.Sprint("q", i), Summary: strings.Repeat("r", 200)})
			}
			st.SearchCount = 7
			return st
		}()},
		{"shell read, search and write", []step{
			{call("exec_command", map[string]any{"cmd": "cat -n src/a.py | head -5 && grep -rn foo . > out.txt 2>&1"}), ok("1 import x\n2\n3\n4")},
		}, State{
			Files:       []FileRead{{Path: "src/a.py", Preview: "1 import x\n2\n3", Reads: 1}},
			Searches:    []Search{{Query: "grep -rn foo . > out.txt 2>&1", Summary: "1 import x"}},
			Changes:     []FileChange{{Path: "out.txt", Op: "write", Count: 1}},
			SearchCount: 1,
		}},
		{"heredoc body is not classified", []step{
			{call("bash", map[string]any{"command": "cat > t.py <<'EOF'\ncat secret\ngrep x\nEOF\npython t.py"}), ok("<returncode>0</returncode>\n<output>\n</output>")},
		}, State{
			// python t.py reads the script the same command wrote.
			Files:   []FileRead{{Path: "t.py", Reads: 1, Stale: true}},
			Changes: []FileChange{{Path: "t.py", Op: "write", Count: 1}},
		}},
		{"sed -n reads, sed -i edits and makes the read stale", []step{
			{call("bash", map[string]any{"command": "sed -n '1,20p' m.py"}), ok("<returncode>0</returncode>\n<output>\nimport os\n</output>")},
			{call("bash", map[string]any{"command": "sed -i 's/a/b/' m.py"}), ok("<returncode>0</returncode>\n<output>\n</output>")},
		}, State{
			Files:   []FileRead{{Path: "m.py", Preview: "import os", Reads: 1, Stale: true}},
			Changes: []FileChange{{Path: "m.py", Op: "edit", Count: 1}},
		}},
		{"editor view/str_replace, apply_patch, swe-agent text open", []step{
			{call("str_replace_editor", map[string]any{"command": "view", "path": "/w/x.c"}), ok("Here's the result\n1 int")},
			{call("str_replace_editor", map[string]any{"command": "str_replace", "path": "/w/x.c"}), ok("edited")},
			{call("apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: y.go\n*** Add File: z.go\n*** End Patch"}), ok("Done")},
			{call("open", map[string]any{"command": "open src/q.py 10"}), ok("[File: src/q.py]\nline")},
			{call("search_dir", map[string]any{"command": "search_dir \"needle\" src"}), ok("Found 2 matches")},
		}, State{
			Files:       []FileRead{{Path: "/w/x.c", Preview: "Here's the result\n1 int", Reads: 1, Stale: true}, {Path: "src/q.py", Preview: "[File: src/q.py]\nline", Reads: 1}},
			Changes:     []FileChange{{Path: "/w/x.c", Op: "edit", Count: 1}, {Path: "y.go", Op: "edit", Count: 1}, {Path: "z.go", Op: "create", Count: 1}},
			Searches:    []Search{{Query: "needle", Summary: "Found 2 matches"}},
			SearchCount: 1,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := New(Options{Stat: noStat})
			for _, s := range tt.steps {
				tr.Record(s.c, s.r)
			}
			// The calls that recorded each entry: TestSectionShown.
			if d := cmp.Diff(tt.want, tr.State(), ignoreCalls); d != "" {
				t.Errorf("state (-want +got):\n%s", d)
			}
		})
	}
}

func TestSection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		steps []step
		want  string
	}{
		{"empty", nil, ""},
		{"only files, preview cut to 80", []step{
			{call("Read", map[string]any{"file_path": "a"}), ok(strings.Repeat("é", 90) + "\nl2")},
		}, "## Files read\n\n- a: " + strings.Repeat("é", 80)},
		{"commands and searches, summary cut to 100", []step{
			{call("Bash", map[string]any{"command": "make"}), bad("Exit code 2\nmake: *** no rule")},
			{call("Glob", map[string]any{"pattern": "**/*.go"}), ok(strings.Repeat("s", 150))},
		}, "## Failed commands\n\n- `make`: make: *** no rule\n\n## Recent searches\n\n- \"**/*.go\": " + strings.Repeat("s", 100)},
		{"changes", []step{
			{call("Write", map[string]any{"file_path": "n.txt", "content": "x"}), ok("ok")},
		}, "## Files changed\n\n- n.txt: write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := New(Options{Stat: noStat})
			for _, s := range tt.steps {
				tr.Record(s.c, s.r)
			}
			if d := cmp.Diff(tt.want, tr.Section()); d != "" {
				t.Errorf("section (-want +got):\n%s", d)
			}
		})
	}
}

func TestCapsAndOmitted(t *testing.T) {
	t.Parallel()
	tr := New(Options{Stat: noStat, MaxFiles: 3, MaxCommands: 2})
	for i := range 5 {
		tr.Record(call("Read", map[string]any{"file_path": fmt.Sprint("f", i)}), ok("x"))
		tr.Record(call("Bash", map[string]any{"command": fmt.Sprint("c", i)}), bad("e"))
	}
	st := tr.State()
	if len(st.Files) != 3 || st.OmittedFiles != 2 || st.Files[0].Path != "f2" {
		t.Errorf("files = %+v omitted %d", st.Files, st.OmittedFiles)
	}
	if len(st.Commands) != 2 || st.OmittedCommands != 3 {
		t.Errorf("commands = %+v omitted %d", st.Commands, st.OmittedCommands)
	}
	sec := tr.Section()
	for _, want := range []string{"- (2 earlier files omitted)", "- (3 earlier commands omitted)"} {
		if !strings.Contains(sec, want) {
			t.Errorf("section lacks %q:\n%s", want, sec)
		}
	}
}

func TestTokenCap(t *testing.T) {
	t.Parallel()
	tr := New(Options{Stat: noStat, MaxFiles: -1, MaxCommands: -1, MaxTokens: 200})
	for i := range 300 {
		tr.Record(call("Read", map[string]any{"file_path": fmt.Sprintf("dir/file%03d.go", i)}), ok("package main // some preview text here"))
	}
	sec := tr.Section()
	if n := tr.opts.Counter.Count(sec); n > 200 || n == 0 {
		t.Fatalf("section has %d tokens, want 1..200", n)
	}
	if !strings.Contains(sec, "dir/file299.go") || !strings.Contains(sec, "earlier files omitted") {
		t.Errorf("section should keep the newest file and say what it omitted:\n%s", sec)
	}
}

func TestStale(t *testing.T) {
	t.Parallel()
	disk := map[string]time.Time{"a": time.Unix(100, 0), "b": time.Unix(100, 0)}
	stat := func(p string) (time.Time, int64, error) {
		m, ok := disk[p]
		if !ok {
			return time.Time{}, 0, errors.New("missing")
		}
		return m, 10, nil
	}
	tr := New(Options{Stat: stat})
	for _, p := range []string{"a", "b", "c"} {
		tr.Record(call("Read", map[string]any{"file_path": p}), ok("x"))
	}
	if got := tr.Stale(); len(got) != 0 {
		t.Fatalf("Stale() = %v before any change", got)
	}
	disk["a"] = time.Unix(200, 0)
	delete(disk, "b")
	if d := cmp.Diff([]string{"a", "b"}, tr.Stale()); d != "" {
		t.Errorf("Stale (-want +got):\n%s", d)
	}
	if got := tr.StaleExternal(); cmp.Diff([]string{"a", "b"}, got) != "" {
		t.Errorf("StaleExternal() = %v before the agent changed any, want [a b]", got)
	}
	// A file the agent edits itself is stale but not changed by others.
	tr.Record(call("Edit", map[string]any{"file_path": "b"}), ok("ok"))
	if d := cmp.Diff([]string{"a", "b"}, tr.Stale()); d != "" {
		t.Errorf("Stale after the agent's edit (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"a"}, tr.StaleExternal()); d != "" {
		t.Errorf("StaleExternal after the agent's edit of b (-want +got):\n%s", d)
	}
	if !strings.Contains(tr.Section(), "- a: x (stale") {
		t.Errorf("section does not mark a stale:\n%s", tr.Section())
	}
	// Reading again clears the mark and notes the change between reads.
	tr.Record(call("Read", map[string]any{"file_path": "a"}), ok("y"))
	st := tr.State()
	a := st.Files[len(st.Files)-1]
	if a.Path != "a" || a.Stale || !a.ChangedOnReread || a.Reads != 2 {
		t.Errorf("re-read entry = %+v", a)
	}
}

func TestStateRoundTrip(t *testing.T) {
	t.Parallel()
	tr := New(Options{Stat: func(string) (time.Time, int64, error) { return time.Unix(1700000000, 5).UTC(), 42, nil }, MaxFiles: 2})
	tr.Record(call("Read", map[string]any{"file_path": "a"}), ok("1\n2"))
	tr.Record(call("Read", map[string]any{"file_path": "b"}), ok("x"))
	tr.Record(call("Read", map[string]any{"file_path": "c"}), ok("y"))
	tr.Record(call("Edit", map[string]any{"file_path": "b"}), ok("ok"))
	tr.Record(call("Bash", map[string]any{"command": "go test"}), bad("FAIL"))
	tr.Record(call("Grep", map[string]any{"pattern": "TODO"}), ok("a:1"))
	st := tr.State()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"files_read"`) || !strings.Contains(string(b), `"omitted_files":1`) {
		t.Errorf("json = %s", b)
	}
	var back State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	tr2 := New(Options{Stat: noStat, MaxFiles: 2})
	tr2.SetState(back)
	if d := cmp.Diff(st, tr2.State()); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
	if tr.Section() != tr2.Section() {
		t.Errorf("sections differ after round trip")
	}
}

// TestRecordNoMatchIsNotFailure: grep exiting 1 found nothing, a search
// like any other; exit 2 is a failure; the last command of a list or
// pipeline decides; pytest exiting 1 failed.
func TestRecordNoMatchIsNotFailure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, cmd, content string
		failed             bool
	}{
		{"grep no match", "grep -r foo .", "Exit code 1", false},
		{"grep error", "grep -r foo nope", "Exit code 2\ngrep: nope: No such file or directory", true},
		{"list ending in grep", "cd x && grep foo", "Exit code 1", false},
		{"pipeline into grep", "ls | grep foo", "<returncode>1</returncode>\n<output>\n</output>", false},
		{"pytest", "pytest", "Exit code 1\nFAILED test_a.py::test_x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := New(Options{Stat: noStat})
			tr.Record(call("Bash", map[string]any{"command": tt.cmd}), bad(tt.content))
			if got := len(tr.State().Commands) > 0; got != tt.failed {
				t.Errorf("%q, %q: failed command recorded %v, want %v", tt.cmd, tt.content, got, tt.failed)
			}
		})
	}
}

// TestSeedTools: the seeds' and the reference agent's tool names are in
// the default table, with their argument names.
func TestSeedTools(t *testing.T) {
	t.Parallel()
	tr := New(Options{Stat: noStat})
	tr.Record(call("read_file", map[string]any{"path": "a.go"}), ok("package a\n"))
	tr.Record(call("search", map[string]any{"query": "Parse"}), ok("a.go:3: func Parse"))
	tr.Record(call("list_files", map[string]any{"path": "pkg"}), ok("a.go\nb.go"))
	tr.Record(call("run_command", map[string]any{"command": "go test ./..."}), ok("Exit code 1\n--- FAIL: TestParse"))
	tr.Record(call("write_file", map[string]any{"path": "b.go", "content": "package a"}), ok("ok"))
	tr.Record(call("edit_file", map[string]any{"path": "a.go", "old_string": "a", "new_string": "b"}), ok("ok"))
	tr.Record(call("todo_write", map[string]any{"todos": []any{}}), ok("ok"))
	tr.Record(call("note_finding", map[string]any{"finding": "x"}), ok("ok"))
	want := State{
		Files:       []FileRead{{Path: "a.go", Preview: "package a", Reads: 1, Stale: true}},
		Commands:    []FailedCommand{{Command: "go test ./...", Error: "--- FAIL: TestParse", Failures: 1}},
		Searches:    []Search{{Query: "Parse", Summary: "a.go:3: func Parse"}, {Query: "pkg", Summary: "a.go"}},
		Changes:     []FileChange{{Path: "b.go", Op: "write", Count: 1}, {Path: "a.go", Op: "edit", Count: 1}},
		SearchCount: 2,
	}
	if diff := cmp.Diff(want, tr.State(), ignoreCalls); diff != "" {
		t.Errorf("state mismatch (-want +got):\n%s", diff)
	}
}

// TestRecordParsedShell: shell commands are parsed, not tokenized, so the
// tracker sees writes inside if bodies, reads inside { …; } blocks and
// $(…), and quotes resolved as the shell resolves them.
func TestRecordParsedShell(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, cmd string
		want      State
	}{
		{"sed -i inside if", `if [ -f x.py ]; then sed -i 's/old/new/' x.py; fi`, State{
			Changes: []FileChange{{Path: "x.py", Op: "edit", Count: 1}},
		}},
		{"grep in an if condition", `if grep -q old x.py; then echo found; fi`, State{
			// grep names its file: a read, and a search recorded by
			// its command without the list's ';'.
			Files:       []FileRead{{Path: "x.py", Preview: "done", Reads: 1}},
			Searches:    []Search{{Query: "grep -q old x.py", Summary: "done"}},
			SearchCount: 1,
		}},
		{"find -exec keeps its escaped ;", `find . -name "*.py" -exec grep -l x {} \;`, State{
			Searches:    []Search{{Query: `find . -name "*.py" -exec grep -l x {} \;`, Summary: "done"}},
			SearchCount: 1,
		}},
		{"cat inside a block", `{ cat a.txt; echo; } > /dev/null`, State{
			Files: []FileRead{{Path: "a.txt", Preview: "done", Reads: 1}},
		}},
		{"cat inside $(…)", `echo "$(cat f)"`, State{
			Files: []FileRead{{Path: "f", Preview: "done", Reads: 1}},
		}},
		{"escaped quotes in a file name", `cat "say \"hi\".txt"`, State{
			Files: []FileRead{{Path: `say "hi".txt`, Preview: "done", Reads: 1}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := New(Options{Stat: noStat})
			tr.Record(call("Bash", map[string]any{"command": tc.cmd}), ok("done"))
			if diff := cmp.Diff(tc.want, tr.State(), ignoreCalls); diff != "" {
				t.Errorf("%s: state (-want +got):\n%s", tc.cmd, diff)
			}
		})
	}
}

// ignoreCalls leaves out the entries' recording calls (Call) when states
// are compared.
var ignoreCalls = cmp.Options{
	cmpopts.IgnoreFields(FileRead{}, "Call"), cmpopts.IgnoreFields(FailedCommand{}, "Call"),
	cmpopts.IgnoreFields(Search{}, "Call"), cmpopts.IgnoreFields(FileChange{}, "Call"),
}

// TestSectionShown: the section leaves out the entries recorded last by a
// call whose result the caller's window shows, lists the others, and
// follows a change of what is shown once SetShown is called again.
func TestSectionShown(t *testing.T) {
	t.Parallel()
	tr := New(Options{Stat: noStat})
	read := call("Read", map[string]any{"file_path": "/w/a.go"})
	read.ID = "r1"
	edit := call("Edit", map[string]any{"file_path": "/w/a.go", "old_string": "x", "new_string": "y"})
	edit.ID = "e1"
	grep := call("Grep", map[string]any{"pattern": "needle"})
	grep.ID = "g1"
	tr.Record(read, ok("package a"))
	tr.Record(edit, ok("edited"))
	tr.Record(grep, ok("a.go:3: needle"))
	all := tr.Section()
	for _, want := range []string{"/w/a.go: package a", "/w/a.go: edit", `"needle"`} {
		if !strings.Contains(all, want) {
			t.Fatalf("without SetShown the section lacks %q:\n%s", want, all)
		}
	}
	shown := map[string]bool{"r1": true, "e1": true, "g1": true}
	tr.SetShown(func(id string) bool { return shown[id] })
	if s := tr.Section(); s != "" {
		t.Errorf("every entry's call shown: section %q, want none", s)
	}
	delete(shown, "r1") // the read's round was compacted away
	tr.SetShown(func(id string) bool { return shown[id] })
	s := tr.Section()
	if !strings.Contains(s, "## Files read") || !strings.Contains(s, "/w/a.go: package a (stale") {
		t.Errorf("the read whose result left the window is not listed:\n%s", s)
	}
	if strings.Contains(s, "## Files changed") || strings.Contains(s, "needle") {
		t.Errorf("entries of shown calls are listed:\n%s", s)
	}
	// A state without calls (saved before entries named them) is listed.
	st := tr.State()
	for i := range st.Files {
		st.Files[i].Call = ""
	}
	tr.SetState(st)
	tr.SetShown(func(string) bool { return true })
	if s := tr.Section(); !strings.Contains(s, "/w/a.go: package a") {
		t.Errorf("an entry without a call is left out:\n%s", s)
	}
}
