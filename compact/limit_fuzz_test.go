package compact_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
)

// FuzzLimitJSON checks that a JSON tool result stays valid JSON after
// cutting, at every quota tier.
func FuzzLimitJSON(f *testing.F) {
	for _, s := range []string{
		`{"matches":[{"file":"a.go","line":1,"code":"x"}],"total":1}`,
		`[1,2,3,"` + strings.Repeat("日本", 300) + `"]`,
		`{"a":{"b":{"c":[` + strings.Repeat(`{"d":"e"},`, 90) + `1]}}}`,
		`"` + strings.Repeat("\\u00e9", 150) + `"`,
		`[` + strings.Repeat(`1.5e300,`, 110) + `null]`,
	} {
		f.Add(s, 0.9)
	}
	f.Fuzz(func(t *testing.T, s string, ratio float64) {
		if !json.Valid([]byte(s)) {
			return
		}
		got, info := compact.LimitToolResult(chat.ToolResult{Content: s}, "tool", ratio)
		if info.Kind != compact.LimitJSON {
			return // a bare scalar is text
		}
		if !json.Valid([]byte(got.Content)) {
			t.Fatalf("invalid JSON after cutting %q:\n%s", s, got.Content)
		}
		if !info.Cut && got.Content != s {
			t.Fatal("not cut but changed")
		}
	})
}

// FuzzLimitText checks that text, search and file cuts fall on rune
// boundaries: valid UTF-8 stays valid, within its quota plus the note.
func FuzzLimitText(f *testing.F) {
	f.Add(strings.Repeat("héllo wörld ✅ 🐛\n", 60), "Bash", 0.9)
	f.Add(strings.Repeat("a.go:1:日本語のテキスト\n", 60), "Grep", 0.9)
	f.Add(strings.Repeat("  1→ñ\n", 200), "Read", 0.9)
	f.Add(strings.Repeat("é", 900), "", 0.9)
	f.Fuzz(func(t *testing.T, s, tool string, ratio float64) {
		got, info := compact.LimitToolResult(chat.ToolResult{Content: s}, tool, ratio)
		if utf8.ValidString(s) && !utf8.ValidString(got.Content) {
			t.Fatalf("%v cut split a rune: %q", info.Kind, got.Content)
		}
		q := compact.QuotaFor(ratio)
		if n := utf8.RuneCountInString(got.Content); info.Kind != compact.LimitJSON && n > q.Chars+noteRoom {
			t.Fatalf("%v kept %d runes, quota %d", info.Kind, n, q.Chars)
		}
		if !info.Cut && got.Content != s {
			t.Fatal("not cut but changed")
		}
	})
}

// FuzzLimitRecall checks the limiter with a recall tool: the same content
// is kept as without it, valid UTF-8 and JSON stay valid, and the note is
// under 200 runes.
func FuzzLimitRecall(f *testing.F) {
	f.Add(strings.Repeat("héllo wörld ✅ 🐛\n", 600), "Bash", 0.9)
	f.Add(strings.Repeat("a.go:1:日本語のテキスト\n--\n", 60), "Grep", 0.5)
	f.Add(strings.Repeat("  1→ñ\n", 2000), "Read", 0.9)
	f.Add(strings.Repeat("é", 9000), "", 0.9)
	f.Add(`{"a":[`+strings.Repeat(`"xyz",`, 2000)+`1]}`, "read_file", 0.9)
	f.Fuzz(func(t *testing.T, s, tool string, ratio float64) {
		r := chat.ToolResult{ToolCallID: "toolu_01A09q90qw90lq917835lq9Z", Content: s}
		plain, _ := compact.LimitToolResult(r, tool, ratio)
		got, info := compact.LimitToolResultWith(r, tool, ratio, compact.LimitOptions{RecallTool: "recall_output"})
		if !info.Cut {
			if got.Content != s {
				t.Fatal("not cut but changed")
			}
			return
		}
		if utf8.ValidString(s) && !utf8.ValidString(got.Content) {
			t.Fatalf("%v cut split a rune: %q", info.Kind, got.Content)
		}
		if info.Kind == compact.LimitJSON {
			if !json.Valid([]byte(got.Content)) {
				t.Fatalf("invalid JSON after cutting %q:\n%s", s, got.Content)
			}
			return
		}
		note := ""
		for l := range strings.SplitSeq(got.Content, "\n") {
			if strings.HasPrefix(l, "…[agentctx:") && strings.Contains(l, "recall_output") {
				note = l
			}
		}
		if note == "" || utf8.RuneCountInString(note) >= 200 {
			t.Fatalf("%v: note %q", info.Kind, note)
		}
		if n := utf8.RuneCountInString(got.Content); n > compact.QuotaFor(ratio).Chars+noteRoom {
			t.Fatalf("%v kept %d runes", info.Kind, n)
		}
		if strip(got.Content) != strip(plain.Content) {
			t.Fatalf("%v: kept content differs from the plain limiter's", info.Kind)
		}
	})
}
