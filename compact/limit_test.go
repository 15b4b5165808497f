package compact_test

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/google/go-cmp/cmp"
)

// noteRoom is the most a limiter note adds on top of the quota, in runes.
const noteRoom = 200

func TestQuotaFor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ratio float64
		want  compact.Quota
	}{
		{-1, compact.Quota{Chars: 6000, Matches: 15}},
		{0, compact.Quota{Chars: 6000, Matches: 15}},
		{0.3999, compact.Quota{Chars: 6000, Matches: 15}},
		{0.40, compact.Quota{Chars: 3000, Matches: 8}},
		{0.5999, compact.Quota{Chars: 3000, Matches: 8}},
		{0.60, compact.Quota{Chars: 1500, Matches: 5}},
		{0.7999, compact.Quota{Chars: 1500, Matches: 5}},
		{0.80, compact.Quota{Chars: 800, Matches: 3}},
		{1.5, compact.Quota{Chars: 800, Matches: 3}},
		{math.Inf(1), compact.Quota{Chars: 800, Matches: 3}},
		{math.NaN(), compact.Quota{Chars: 800, Matches: 3}},
	} {
		t.Run(fmt.Sprint(c.ratio), func(t *testing.T) {
			t.Parallel()
			if got := compact.QuotaFor(c.ratio); got != c.want {
				t.Errorf("QuotaFor(%v) = %+v, want %+v", c.ratio, got, c.want)
			}
		})
	}
}

func grepOutput(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "src/pkg%d/file.go:%d:\tif err := run(%d); err != nil {\n", i, 10+i, i)
	}
	return b.String()
}

func numberedFile(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%6d→\tline %d of the file, ünïcode ✅\n", i, i)
	}
	return b.String()
}

func TestDetectLimitKind(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, tool, content string
		want                compact.LimitKind
	}{
		{"Grep by name", "Grep", "anything", compact.LimitSearch},
		{"search_dir by name", "search_dir", "Found 3 matches", compact.LimitSearch},
		{"find_file", "find_file", "x", compact.LimitSearch},
		{"Glob", "Glob", "a/b.go", compact.LimitSearch},
		{"Read by name", "Read", "hello", compact.LimitFile},
		{"open by name", "open", "hello", compact.LimitFile},
		{"grep output from Bash", "Bash", grepOutput(5), compact.LimitSearch},
		{"find output from bash", "bash", "./a/b.go\n./a/c.go\n./d/e.py\n", compact.LimitSearch},
		{"cat -n from str_replace_editor", "str_replace_editor", "Here's the result of running `cat -n` on /x.c:\n     1\t#include <a.h>\n     2\t\n     3\tint x;\n", compact.LimitFile},
		{"Read arrows from anything", "tool", numberedFile(5), compact.LimitFile},
		{"json object", "exec_command", `{"a": [1, 2, {"b": "c"}]}`, compact.LimitJSON},
		{"json array", "", `  [1, 2]  `, compact.LimitJSON},
		{"broken json", "", `{"a": `, compact.LimitText},
		{"plain text", "Bash", "Compiling 7 files\nok\nall tests passed", compact.LimitText},
		{"empty", "", "", compact.LimitText},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := compact.DetectLimitKind(c.tool, c.content); got != c.want {
				t.Errorf("DetectLimitKind(%q, …) = %v, want %v", c.tool, got, c.want)
			}
		})
	}
}

func TestLimitSearch(t *testing.T) {
	t.Parallel()
	long := "path/a.go:1:" + strings.Repeat("é", 800) + "\n"
	ctxMatch := "a.go:1:match\n" + strings.Repeat("a.go-2-context "+strings.Repeat("-", 80)+"\n", 12) + "--\nb.go:3:second\n"
	for _, c := range []struct {
		name        string
		content     string
		ratio       float64
		matches     int
		kept        int
		cut         bool
		wantInclude []string
		wantExclude []string
	}{
		{"under quota unchanged", grepOutput(10), 0, 10, 10, false, nil, nil},
		{"top 3 of 20 at 90%", grepOutput(20), 0.9, 20, 3, true, []string{"src/pkg0/", "src/pkg2/", "showing 3 of 20 matches", "the full output was"}, []string{"src/pkg3/"}},
		{"top 8 of 100 at 50%", grepOutput(100), 0.5, 100, 8, true, []string{"src/pkg7/", "showing 8 of 100 matches"}, []string{"src/pkg8/"}},
		{"20 matches under the quota at 50%", grepOutput(20), 0.5, 20, 20, false, nil, nil},
		{"long match cut to 500 runes", strings.Repeat(long, 20), 0.1, 20, 11, true, []string{"…[match cut]"}, nil},
		{"context cut to 7 lines", ctxMatch, 0.9, 2, 2, true, []string{"b.go:3:second", "…[match cut]"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := chat.ToolResult{ToolCallID: "c1", ToolName: "Grep", Content: c.content}
			got, info := compact.LimitToolResult(r, "", c.ratio)
			if info.Kind != compact.LimitSearch || info.Matches != c.matches || info.KeptMatches != c.kept || info.Cut != c.cut {
				t.Errorf("info = %+v, want search, %d matches, %d kept, cut %v", info, c.matches, c.kept, c.cut)
			}
			if got.ToolCallID != "c1" || got.ToolName != "Grep" {
				t.Errorf("call id or name changed: %+v", got)
			}
			if !c.cut && got.Content != c.content {
				t.Error("content under quota changed")
			}
			q := compact.QuotaFor(c.ratio)
			if n := utf8.RuneCountInString(got.Content); n > q.Chars+noteRoom {
				t.Errorf("kept %d runes, quota %d", n, q.Chars)
			}
			if info.Chars != utf8.RuneCountInString(c.content) || info.Bytes != len(c.content) {
				t.Errorf("info sizes %d/%d, want %d/%d", info.Chars, info.Bytes, utf8.RuneCountInString(c.content), len(c.content))
			}
			for _, s := range c.wantInclude {
				if !strings.Contains(got.Content, s) {
					t.Errorf("content lacks %q:\n%s", s, got.Content)
				}
			}
			for _, s := range c.wantExclude {
				if strings.Contains(got.Content, s) {
					t.Errorf("content has %q", s)
				}
			}
			if strings.Count(got.Content, "a.go-2-context") > 6 {
				t.Error("a match kept more than 7 lines")
			}
			if !utf8.ValidString(got.Content) {
				t.Error("invalid UTF-8")
			}
		})
	}
}

func TestLimitFile(t *testing.T) {
	t.Parallel()
	content := numberedFile(400)
	for _, ratio := range []float64{0.1, 0.5, 0.7, 0.9} {
		t.Run(fmt.Sprint(ratio), func(t *testing.T) {
			t.Parallel()
			q := compact.QuotaFor(ratio)
			got, info := compact.LimitToolResult(chat.ToolResult{ToolName: "Read", Content: content}, "", ratio)
			if info.Kind != compact.LimitFile || !info.Cut || info.Lines != 400 {
				t.Fatalf("info = %+v", info)
			}
			body, note, ok := strings.Cut(got.Content, "…[agentctx: file cut")
			if !ok {
				t.Fatalf("no note:\n%s", got.Content)
			}
			if !strings.HasPrefix(content, body) || !strings.HasSuffix(body, "\n") {
				t.Error("the kept part is not whole lines of the file")
			}
			if n := utf8.RuneCountInString(body); n > q.Chars {
				t.Errorf("kept %d runes, quota %d", n, q.Chars)
			}
			want := fmt.Sprintf("showing lines 1-%d of 400 lines; the full content was %d bytes", strings.Count(body, "\n"), len(content))
			if !strings.Contains(note, want) {
				t.Errorf("note %q lacks %q", note, want)
			}
		})
	}
	t.Run("one huge line", func(t *testing.T) {
		t.Parallel()
		got, info := compact.LimitToolResult(chat.ToolResult{Content: strings.Repeat("日本", 5000)}, "Read", 0.9)
		if !info.Cut || !strings.Contains(got.Content, "file cut inside line 1 of 1 lines") || !utf8.ValidString(got.Content) {
			t.Errorf("got %+v %q", info, got.Content[len(got.Content)-120:])
		}
	})
}

func TestLimitJSON(t *testing.T) {
	t.Parallel()
	items := make([]map[string]any, 300)
	for i := range items {
		items[i] = map[string]any{"file": fmt.Sprintf("src/%d.go", i), "code": strings.Repeat("x", 50), "score": i}
	}
	raw, err := json.Marshal(map[string]any{"matches": items, "total": 300})
	if err != nil {
		t.Fatal(err)
	}
	got, info := compact.LimitToolResult(chat.ToolResult{Content: string(raw)}, "search_project_code_json", 0.9)
	if info.Kind != compact.LimitJSON || !info.Cut {
		t.Fatalf("info = %+v", info)
	}
	if len(got.Content) > 800 {
		t.Errorf("kept %d bytes, quota 800", len(got.Content))
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(got.Content), &v); err != nil {
		t.Fatalf("not valid JSON: %v\n%s", err, got.Content)
	}
	if note, _ := v["agentctx_cut"].(string); !strings.Contains(note, fmt.Sprintf("%d bytes", len(raw))) {
		t.Errorf("agentctx_cut = %q", v["agentctx_cut"])
	}
	if v["total"] == nil {
		t.Error("lost the total key")
	}
}

func TestLimitText(t *testing.T) {
	t.Parallel()
	content := strings.Repeat("build log 🐛 line\n", 2000) + "FAIL: TestX at the end"
	got, info := compact.LimitToolResult(chat.ToolResult{Content: content, IsError: true}, "Grep", 0.9)
	if info.Kind != compact.LimitText || !info.Cut {
		t.Fatalf("info = %+v (an error result is text whatever the tool)", info)
	}
	if !strings.HasSuffix(got.Content, "FAIL: TestX at the end") {
		t.Error("the tail was lost")
	}
	if !strings.Contains(got.Content, fmt.Sprintf("of %d chars kept", utf8.RuneCountInString(content))) {
		t.Errorf("note lacks the total length")
	}
	if n := utf8.RuneCountInString(got.Content); n > 800+noteRoom {
		t.Errorf("kept %d runes", n)
	}
	small := chat.ToolResult{Content: "ok"}
	if got, info := compact.LimitToolResult(small, "Bash", 0.99); got != small || info.Cut {
		t.Errorf("small result changed: %+v %+v", got, info)
	}
}

// TestLimitReal runs the limiter on every tool result of the shared
// trajectories: search and file tools are detected as such, and the
// limited content keeps its quota, valid UTF-8 and valid JSON.
func TestLimitReal(t *testing.T) {
	t.Parallel()
	kinds := map[string]compact.LimitKind{
		"Grep": compact.LimitSearch, "Glob": compact.LimitSearch, "find_file": compact.LimitSearch, "search_dir": compact.LimitSearch,
		"Read": compact.LimitFile, "open": compact.LimitFile,
	}
	seen := map[compact.LimitKind]int{}
	for _, tr := range realTrajectories(t) {
		name := filepath.Base(tr.File)
		for _, m := range tr.Messages {
			r, ok := m.ToolResult()
			if !ok {
				continue
			}
			k := compact.DetectLimitKind(r.ToolName, r.Content)
			if want, ok := kinds[r.ToolName]; ok && k != want {
				t.Errorf("%s: %s result detected as %v, want %v", name, r.ToolName, k, want)
			}
			for _, ratio := range []float64{0.1, 0.9} {
				got, info := compact.LimitToolResult(r, "", ratio)
				seen[info.Kind]++
				q := compact.QuotaFor(ratio)
				if n := utf8.RuneCountInString(got.Content); n > q.Chars+noteRoom && info.Kind != compact.LimitJSON {
					t.Errorf("%s: %s %v result kept %d runes at quota %d", name, r.ToolName, info.Kind, n, q.Chars)
				}
				if utf8.ValidString(r.Content) && !utf8.ValidString(got.Content) {
					t.Errorf("%s: cut made invalid UTF-8", name)
				}
				if info.Kind == compact.LimitJSON && !json.Valid([]byte(got.Content)) {
					t.Errorf("%s: JSON result no longer valid", name)
				}
			}
		}
	}
	if seen[compact.LimitSearch] == 0 || seen[compact.LimitFile] == 0 {
		t.Errorf("kinds seen %v: no search or no file result in the shared data", seen)
	}
}

func TestLimitInfoSizes(t *testing.T) {
	t.Parallel()
	got := func(s string) compact.LimitInfo {
		_, i := compact.LimitToolResult(chat.ToolResult{Content: s}, "", 0)
		return i
	}
	want := compact.LimitInfo{Kind: compact.LimitText, Chars: 3, Bytes: 5, Lines: 2, KeptChars: 3}
	if d := cmp.Diff(want, got("é\nö")); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// lsOutput is Claude Code's LS output for a small project: 8 entries, 130
// characters.
const lsOutput = "- /home/dev/projects/\n  - README.md\n  - cmd/\n    - main.go\n  - go.mod\n  - go.sum\n  - internal/\n    - app.go\n    - server_test.go\n\n"

// A result under the limit it is checked against passes unchanged,
// whatever its kind: a 130-char listing used to be cut to "5 of 8
// matches" at a usage ratio of 0.6-0.8 because it had more entries than
// the quota's matches.
func TestLimitUnderQuotaUnchanged(t *testing.T) {
	t.Parallel()
	paths := "src/a.go\nsrc/b.go\nsrc/c/d.go\nsrc/c/e.go\ncmd/x/main.go\ncmd/y/main.go\ninternal/z.go\ninternal/w.go\n"
	for _, c := range []struct {
		name, tool, content string
		kind                compact.LimitKind
	}{
		{"LS", "LS", lsOutput, compact.LimitSearch},
		{"Glob", "Glob", paths, compact.LimitSearch},
		{"find from Bash", "Bash", paths, compact.LimitSearch},
		{"Grep", "Grep", grepOutput(12), compact.LimitSearch},
	} {
		for _, ratio := range []float64{0, 0.5, 0.7, 0.9} {
			t.Run(fmt.Sprintf("%s/%v", c.name, ratio), func(t *testing.T) {
				t.Parallel()
				if n := utf8.RuneCountInString(c.content); n > compact.QuotaFor(ratio).Chars {
					t.Skipf("%d runes: over the quota at %v", n, ratio)
				}
				r := chat.ToolResult{ToolCallID: callID, ToolName: c.tool, Content: c.content}
				for _, opts := range []compact.LimitOptions{{}, {RecallTool: "recall_output"}} {
					got, info := compact.LimitToolResultWith(r, "", ratio, opts)
					if got.Content != c.content || info.Cut {
						t.Fatalf("%d runes at quota %+v changed (info %+v):\n%s", info.Chars, compact.QuotaFor(ratio), info, got.Content)
					}
					if info.Kind != c.kind || info.Matches == 0 || info.KeptMatches != info.Matches || info.KeptChars != info.Chars {
						t.Errorf("info = %+v", info)
					}
				}
			})
		}
	}
	if n := utf8.RuneCountInString(lsOutput); n != 130 {
		t.Errorf("lsOutput has %d runes, want 130", n)
	}
}

// buildLog is a 61-line build log whose lines begin with ISO 8601
// timestamps, in both forms build tools print, and whose last line is the
// error that failed the build.
func buildLog() string {
	var b strings.Builder
	for i := range 60 {
		if i%2 == 0 {
			fmt.Fprintf(&b, "2026-11-27T10:15:%02dZ INFO compiling internal/pkg%02d (%d files)\n", i, i, 3+i%7)
		} else {
			fmt.Fprintf(&b, "2026-11-27 10:15:%02d,%03d DEBUG cache miss for internal/pkg%02d: hash 9f%04x\n", i, 100+i, i, i*37)
		}
	}
	b.WriteString("2026-11-27 10:16:41,907 ERROR build failed: internal/store/sqlite.go:88:14: undefined: sql.NullTime\n")
	return b.String()
}

// Lines that begin with a timestamp are log lines, not grep matches
// ("2026-11-27T10:15:03Z …" has "2026-11-27T10", "15" and ":" where a
// match has a path, a line number and ":"), and a cut log keeps its end.
func TestLimitLog(t *testing.T) {
	t.Parallel()
	log := buildLog()
	if n := strings.Count(log, "\n"); n != 61 {
		t.Fatalf("the log has %d lines, want 61", n)
	}
	last := log[strings.LastIndex(strings.TrimSuffix(log, "\n"), "\n")+1:]
	for _, tool := range []string{"Bash", "exec_command", "mcp__ci__build_log", ""} {
		if k := compact.DetectLimitKind(tool, log); k != compact.LimitLog {
			t.Errorf("DetectLimitKind(%q, build log) = %v, want log", tool, k)
		}
	}
	for _, c := range []struct {
		name    string
		isError bool
		opts    compact.LimitOptions
	}{
		{"ok", false, compact.LimitOptions{}},
		{"failed", true, compact.LimitOptions{}},
		{"recall", true, compact.LimitOptions{RecallTool: "recall_output"}},
	} {
		for _, ratio := range []float64{0.5, 0.7, 0.9} {
			t.Run(fmt.Sprintf("%s/%v", c.name, ratio), func(t *testing.T) {
				t.Parallel()
				r := chat.ToolResult{ToolCallID: callID, ToolName: "Bash", Content: log, IsError: c.isError}
				got, info := compact.LimitToolResultWith(r, "", ratio, c.opts)
				if info.Kind != compact.LimitLog || !info.Cut || info.Matches != 0 {
					t.Fatalf("info = %+v, want a cut log", info)
				}
				if !strings.HasSuffix(got.Content, last) {
					t.Errorf("the last line (the error) was lost:\n%s", got.Content)
				}
				if n := utf8.RuneCountInString(strip(got.Content)); n > compact.QuotaFor(ratio).Chars {
					t.Errorf("kept %d runes, quota %d", n, compact.QuotaFor(ratio).Chars)
				}
				// Whole lines of the log, in order: a first part and a last.
				kept := strings.Split(strings.TrimSuffix(strip(got.Content), "\n"), "\n")
				all := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
				if !slices.Equal(kept, append(slices.Clone(all[:len(kept)-countSuffix(kept, all)]), all[len(all)-countSuffix(kept, all):]...)) {
					t.Errorf("the kept lines are not a head and a tail of the log's lines:\n%s", got.Content)
				}
				note := noteOf(t, got.Content)
				if !strings.Contains(note, "lines ") || strings.Contains(note, "matches") {
					t.Errorf("note %q", note)
				}
			})
		}
	}
}

// countSuffix returns how many last elements of kept are the last
// elements of all.
func countSuffix(kept, all []string) int {
	n := 0
	for n < len(kept) && n < len(all) && kept[len(kept)-1-n] == all[len(all)-1-n] {
		n++
	}
	return n
}

// Grep's own output is still search output, and the time-of-day and
// numbered forms are told apart.
func TestDetectLimitKindTimestamps(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, content string
		want          compact.LimitKind
	}{
		{"ISO T", "2026-11-27T10:15:03Z INFO a\n2026-11-27T10:15:04Z INFO b\n2026-11-27T10:15:05Z ERROR c\n", compact.LimitLog},
		{"ISO blank and millis", "2026-11-27 10:15:03,123 INFO a\n2026-11-27 10:15:04,456 ERROR b\n", compact.LimitLog},
		{"bracketed", "[2026-11-27T10:15:03.120+01:00] start\n[2026-11-27T10:15:04.001+01:00] stop\n", compact.LimitLog},
		{"time of day", "10:15:03 INFO a\n10:15:04 WARN b\n10:15:05 ERROR c\n", compact.LimitLog},
		{"log with a stack trace", "2026-11-27T10:15:03Z ERROR panic\ngoroutine 1 [running]:\n2026-11-27T10:15:03Z INFO exit\n", compact.LimitLog},
		{"grep -n", grepOutput(6), compact.LimitSearch},
		{"grep of files named by dates", "logs/2026-11-27.txt:12:ERROR a\nlogs/2026-11-28.txt:3:ERROR b\n", compact.LimitSearch},
		{"swe-agent numbered lines", "1:import os\n2:import sys\n3:\n4:def main():\n", compact.LimitFile},
		{"a number is not a path", "10:15: a\n11:16: b\n12:17: c\n", compact.LimitFile},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := compact.DetectLimitKind("Bash", c.content); got != c.want {
				t.Errorf("DetectLimitKind = %v, want %v", got, c.want)
			}
		})
	}
}

// The note after a cut says how to get the rest in a way the tool
// allows: an offset for a file read, recall_output or the command run
// again with a filter for a command's output, the sizes alone for
// other tools.
func TestLimitNoteFitsTheTool(t *testing.T) {
	t.Parallel()
	call := func(name, args string) chat.ToolCall {
		return chat.ToolCall{ID: callID, Name: name, Arguments: json.RawMessage(args)}
	}
	cat := numberedFile(400)
	output := strings.Repeat("ok  \tgithub.com/acme/app/internal/pkg\t0.012s\n", 200)
	for _, c := range []struct {
		name, tool, content string
		call                chat.ToolCall
		recall              string
		want, not           []string
	}{
		{"Read", "Read", cat, call("Read", `{"file_path":"/src/app.go"}`), "",
			[]string{"file cut: showing lines 1-", "read the rest with an offset, from line "}, []string{"run the command", "recall_output"}},
		{"Read by name only", "Read", cat, chat.ToolCall{}, "",
			[]string{"read the rest with an offset"}, []string{"run the command"}},
		{"read_file", "read_file", cat, call("read_file", `{"path":"src/app.go"}`), "",
			[]string{"read the rest with an offset"}, []string{"run the command"}},
		{"str_replace_editor view", "str_replace_editor", cat, call("str_replace_editor", `{"command":"view","path":"/repo/app.py"}`), "",
			[]string{"read the rest with an offset"}, []string{"run the command"}},
		{"cat -n from Bash", "Bash", cat, call("Bash", `{"command":"cat -n src/app.go"}`), "",
			[]string{"output cut: lines ", "run the command again with a filter", "| sed -n '", "| tail -n 200", "| grep PATTERN"}, []string{"offset", "file cut"}},
		{"go test from Bash", "Bash", output, call("Bash", `{"command":"go test ./..."}`), "",
			[]string{"output cut: lines ", "run the command again with a filter"}, []string{"offset", "chars kept"}},
		{"exec_command by name only", "exec_command", output, chat.ToolCall{}, "",
			[]string{"run the command again with a filter"}, []string{"offset"}},
		{"go test with recall", "Bash", output, call("Bash", `{"command":"go test ./..."}`), "recall_output",
			[]string{"call recall_output with call_id=", "start_line/end_line"}, []string{"offset", "file cut"}},
		{"cat -n with recall", "Bash", cat, call("Bash", `{"command":"cat -n src/app.go"}`), "recall_output",
			[]string{"call recall_output with call_id="}, []string{"read the rest with an offset", "file cut"}},
		{"a web page", "WebFetch", output, call("WebFetch", `{"url":"https://example.com"}`), "",
			[]string{"chars kept"}, []string{"offset", "run the command"}},
		{"numbered lines from an MCP tool", "mcp__jira__get_issue", cat, call("mcp__jira__get_issue", `{"key":"APP-1"}`), "",
			[]string{"output cut: lines "}, []string{"offset", "run the command", "file cut"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := chat.ToolResult{ToolCallID: callID, ToolName: c.tool, Content: c.content}
			got, info := compact.LimitToolResultWith(r, "", 0.9, compact.LimitOptions{RecallTool: c.recall, Call: c.call})
			if !info.Cut {
				t.Fatalf("not cut: %+v", info)
			}
			note := noteOf(t, got.Content)
			if n := utf8.RuneCountInString(note); n >= noteRoom {
				t.Errorf("note of %d runes: %s", n, note)
			}
			for _, s := range c.want {
				if !strings.Contains(note, s) {
					t.Errorf("note lacks %q: %s", s, note)
				}
			}
			for _, s := range c.not {
				if strings.Contains(note, s) {
					t.Errorf("note has %q: %s", s, note)
				}
			}
			plain, _ := compact.LimitToolResultWith(r, "", 0.9, compact.LimitOptions{RecallTool: c.recall})
			if strip(plain.Content) != strip(got.Content) {
				t.Error("the call changed the content kept, not only the note")
			}
		})
	}
}

func TestRoomQuota(t *testing.T) {
	t.Parallel()
	seed := compact.QuotaFor(0.1)
	for _, c := range []struct {
		name                string
		ratio               float64
		room, tokens, runes int
		want                compact.Quota
	}{
		{"no room", 0.1, 0, 20000, 80000, seed},
		{"room under the seed's quota", 0.1, 1000, 20000, 80000, seed},
		{"nothing counted", 0.1, 5000, 0, 80000, seed},
		// 4 runes per token: 10,000 tokens hold 40,000 runes, less a
		// twentieth; matches grow in proportion (15 per 6,000 runes).
		{"room", 0.1, 10000, 20000, 80000, compact.Quota{Chars: 38000, Matches: 95}},
		{"full window's floor", 0.9, 2000, 20000, 80000, compact.Quota{Chars: 7600, Matches: 28}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := compact.RoomQuota(c.ratio, c.room, c.tokens, c.runes); got != c.want {
				t.Errorf("RoomQuota(%v, %d, %d, %d) = %+v, want %+v", c.ratio, c.room, c.tokens, c.runes, got, c.want)
			}
		})
	}
}
