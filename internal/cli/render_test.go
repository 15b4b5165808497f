package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/model"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/window"
)

func TestAgo(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "just now"},
		{59 * time.Second, "just now"},
		{5 * time.Minute, "5m ago"},
		{3 * time.Hour, "3h ago"},
		{47 * time.Hour, "47h ago"},
		{3 * 24 * time.Hour, "3d ago"},
		{-time.Hour, "just now"}, // a clock that went back
	}
	for _, tt := range tests {
		if got := ago(now, now.Add(-tt.d)); got != tt.want {
			t.Errorf("ago(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
	if got := ago(now, now.AddDate(0, -2, 0)); got != now.AddDate(0, -2, 0).Local().Format("2006-01-02") {
		t.Errorf("two months ago = %q, want the date", got)
	}
	if got := ago(now, time.Time{}); got != "-" {
		t.Errorf("zero time = %q", got)
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"two\nlines  and   spaces", 30, "two lines and spaces"},
		{"abcdefghij", 5, "abcd…"},
		{"日本語のテキスト", 4, "日本語…"},
		{"", 3, ""},
	}
	for _, tt := range tests {
		if got := cut(tt.in, tt.n); got != tt.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestBar(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n, total, width int
		want            string
	}{
		{0, 100, 10, ""},
		{100, 100, 10, "██████████"},
		{50, 100, 10, "█████"},
		{1, 100000, 10, "▏"}, // never invisible
		{55, 100, 10, "█████▌"},
		{200, 100, 10, "██████████"}, // capped
		{5, 0, 10, ""},
	}
	for _, tt := range tests {
		if got := bar(tt.n, tt.total, tt.width); got != tt.want {
			t.Errorf("bar(%d, %d, %d) = %q, want %q", tt.n, tt.total, tt.width, got, tt.want)
		}
	}
}

func TestWriteBlock(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("line\n", 25)
	tests := []struct {
		name string
		text string
		full bool
		want string
	}{
		{"short", "a\nb\n", false, "  a\n  b\n"},
		{"cut at 10 lines", long, false, strings.Repeat("  line\n", 10) + "  … 15 more lines\n"},
		{"full", long, true, strings.Repeat("  line\n", 25)},
		{"cut at 1000 chars", strings.Repeat(strings.Repeat("x", 399)+"\n", 4), false, strings.Repeat("  "+strings.Repeat("x", 399)+"\n", 2) + "  … 2 more lines\n"},
		{"one huge line", strings.Repeat("y", 5000), false, "  " + strings.Repeat("y", 999) + "…\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			writeBlock(&b, tt.text, tt.full)
			if d := cmp.Diff(tt.want, b.String()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestRepairedPath(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		path   string
		stored bool
		want   string
	}{
		{"/d/s.jsonl", false, "/d/s.repaired.jsonl"},
		{"/d/s.log", false, "/d/s.log.repaired.jsonl"},
		{"/root/projects/p/id.jsonl", true, "/root/projects/p/id.jsonl.repaired"},
	} {
		if got := repairedPath(tt.path, tt.stored); got != tt.want {
			t.Errorf("repairedPath(%q, %v) = %q, want %q", tt.path, tt.stored, got, tt.want)
		}
	}
}

func TestProblemLine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		p    session.Problem
		want string
	}{
		{session.Problem{Kind: session.ProblemTornLine, File: "f.jsonl", Line: 3, Offset: 99, Detail: "cut"}, "f.jsonl:3 (byte 99) torn-line: cut"},
		{session.Problem{Kind: session.ProblemCycle, Line: 3, Offset: 99, UUID: "u"}, "line 3 (byte 99) cycle uuid u"},
		{session.Problem{Kind: session.ProblemMalformed, File: "f", Offset: 7}, "f (byte 7) malformed"},
		{session.Problem{Kind: session.ProblemMalformed, Offset: 7}, "byte 7 malformed"},
	} {
		if got := problemLine(tt.p); got != tt.want {
			t.Errorf("problemLine = %q, want %q", got, tt.want)
		}
	}
}

// TestPrintInspectColors checks that colors appear only when asked for,
// and that the table lists every category.
func TestPrintInspectColors(t *testing.T) {
	t.Parallel()
	w, err := window.New(window.Options{Budget: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []chat.Message{
		chat.NewText(chat.RoleSystem, "system"), chat.NewText(chat.RoleUser, "do it"),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "1", Name: "Read", Arguments: []byte(`{"file_path":"a"}`)}}},
		chat.NewToolResult("1", "Read", strings.Repeat("text ", 1500), false),
	} {
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	lv := &live{Source: "x", Info: model.Lookup("gpt-4o"), Budget: 1000, BudgetSource: "flag", Window: w, SummaryAt: -1}
	rep := newInspectReport(lv)
	if rep.OverBudget == 0 || rep.FreeTokens != 0 {
		t.Errorf("over budget %d, free %d: the window holds more than 1,000 tokens", rep.OverBudget, rep.FreeTokens)
	}
	var plain, color bytes.Buffer
	printInspect(&plain, rep, false)
	printInspect(&color, rep, true)
	if strings.Contains(plain.String(), "\x1b[") || !strings.Contains(color.String(), "\x1b[38;5;") {
		t.Errorf("colors: plain has escapes %v, color has none %v", strings.Contains(plain.String(), "\x1b["), !strings.Contains(color.String(), "\x1b["))
	}
	for _, s := range []string{"system messages", "user text", "tool results", "tool schemas + static prompt", "overhead", "used", "over budget", "reserved (outside the budget)", "tool results by tool", "Read"} {
		if !strings.Contains(plain.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, plain.String())
		}
	}
}
