package compact_test

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
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
		{"top 8 of 20 at 50%", grepOutput(20), 0.5, 20, 8, true, []string{"src/pkg7/", "showing 8 of 20 matches"}, []string{"src/pkg8/"}},
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
