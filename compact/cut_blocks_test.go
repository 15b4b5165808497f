package compact_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/window"
)

// claudeCodePrompt is a first user message as Claude Code sends it: the
// instruction files and the date in system reminders, the user's words,
// and a slash command's tags.
func claudeCodePrompt() string {
	var b strings.Builder
	b.WriteString("<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd\nContents of /home/dev/app/CLAUDE.md (project instructions, checked into the codebase):\n\n")
	for i := range 40 {
		fmt.Fprintf(&b, "- Rule %d: run `go test ./internal/pkg%d/...` before committing; never edit generated files under gen/.\n", i, i)
	}
	b.WriteString("\n      IMPORTANT: this context may or may not be relevant to your tasks.\n</system-reminder>\n")
	b.WriteString("<command-name>/review</command-name>\n<command-message>review</command-message>\n<command-args>the store package</command-args>\n")
	b.WriteString("Please review internal/store: the SQLite migration in 0007_sessions.sql fails on an existing database with \"duplicate column name: usage\". ")
	b.WriteString(strings.Repeat("Find why, fix it without losing data, and add a test that upgrades a database written by v0.6. ", 12))
	b.WriteString("\n<system-reminder>\nToday's date is 2026-11-27.\n</system-reminder>\n")
	b.WriteString("<environment_context>\n  <cwd>/home/dev/app</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n</environment_context>\n")
	return b.String()
}

var tagLine = regexp.MustCompile(`(?m)^\s*<(/?)([A-Za-z][\w:.-]*)[ >]`)

// unclosed returns the tags opened at the start of a line in s that are
// not closed, and closings without an opening.
func unclosed(s string) []string {
	var bad []string
	open := map[string]int{}
	for _, line := range strings.Split(s, "\n") {
		for _, m := range tagLine.FindAllStringSubmatch(line, -1) {
			if m[1] == "" {
				open[m[2]]++
			}
		}
		for name := range open {
			if strings.HasSuffix(strings.TrimSpace(line), "</"+name+">") {
				open[name]--
			}
		}
	}
	for name, n := range open {
		if n != 0 {
			bad = append(bad, fmt.Sprintf("%s (%+d)", name, n))
		}
	}
	return bad
}

func TestCutBlocks(t *testing.T) {
	t.Parallel()
	s := claudeCodePrompt()
	if bad := unclosed(s); len(bad) > 0 {
		t.Fatalf("the prompt itself is unbalanced: %v", bad)
	}
	total := utf8.RuneCountInString(s)
	for keep := 0; keep < total+50; keep += 37 {
		got := compact.CutBlocks(s, keep, "cut to fit the token budget")
		if keep >= total {
			if got != s {
				t.Fatalf("keep %d of %d: changed", keep, total)
			}
			continue
		}
		if bad := unclosed(got); len(bad) > 0 {
			t.Fatalf("keep %d: a block was cut open: %v\n%s", keep, bad, got)
		}
		if !utf8.ValidString(got) || len(got) >= len(s) {
			t.Fatalf("keep %d: %d bytes of %d, valid %v", keep, len(got), len(s), utf8.ValidString(got))
		}
		body, note, ok := strings.Cut(got, "…[agentctx: cut to fit the token budget;")
		if !ok || strings.Contains(note, "\n") {
			t.Fatalf("keep %d: no marker at the end:\n%s", keep, got)
		}
		if n := utf8.RuneCountInString(body); n > keep+1+2*64 {
			t.Errorf("keep %d: kept %d runes", keep, n)
		}
		// The user's words come first: with room for them, they are whole.
		if keep >= 1500 && !strings.Contains(body, "upgrades a database written by v0.6. \n") {
			t.Errorf("keep %d: the user's words were cut:\n%s", keep, body)
		}
		if keep >= 200 && !strings.Contains(body, "Please review internal/store") {
			t.Errorf("keep %d: the head of the user's words is missing", keep)
		}
	}
	// OpenHands puts the task itself in a block: the cut keeps its head,
	// closed, rather than leaving the task out.
	issue := "<uploaded_files>\n/workspace/ponylang__ponyc__0.1\n</uploaded_files>\nI've uploaded a C code repository in the directory ponylang__ponyc__0.1. Consider the following issue description:\n\n<issue_description>\nponyc segfaults when trying to match using a single element tuple form\n" +
		strings.Repeat("`ponyc` segfaults when trying to use `match` with a single element tuple destructure form.\n", 30) +
		"</issue_description>\n\nCan you help me implement the necessary changes to the repository so that the requirements specified in the <issue_description> are met?\n" +
		strings.Repeat("Follow these steps to resolve the issue.\n", 20)
	for _, keep := range []int{400, 1000, 2000} {
		got := compact.CutBlocks(issue, keep, "cut to fit the token budget")
		if bad := unclosed(got); len(bad) > 0 {
			t.Errorf("issue at %d: a block was cut open: %v\n%s", keep, bad, got)
		}
		for _, want := range []string{"<uploaded_files>", "<issue_description>\nponyc segfaults when trying to match", "…[agentctx: cut to fit the token budget]\n</issue_description>\n"} {
			if !strings.Contains(got, want) {
				t.Errorf("issue at %d: lacks %q:\n%s", keep, want, got)
			}
		}
		if n := utf8.RuneCountInString(got); n > keep+200 {
			t.Errorf("issue at %d: %d runes", keep, n)
		}
	}
	plain := strings.Repeat("no tags here, just words. ", 100)
	if got, want := compact.CutBlocks(plain, 300, "x"), compact.CutText(plain, 300, 0, "x"); got != want {
		t.Errorf("text without blocks: got %q, want CutText's %q", got, want)
	}
	unclosedTag := "<system-reminder>\n" + strings.Repeat("never closed ", 100)
	if got := compact.CutBlocks(unclosedTag, 200, "x"); got != compact.CutText(unclosedTag, 200, 0, "x") {
		t.Errorf("an opening tag never closed is plain text: %q", got)
	}
}

// When a window is cut to fit its budget, user text keeps its tagged
// blocks whole: at a 20,000 budget five system reminders used to lose
// their closing tags.
func TestCutToFitKeepsTaggedBlocks(t *testing.T) {
	t.Parallel()
	prompt := claudeCodePrompt()
	for _, budget := range []int{400, 700, 1000, 1500} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			t.Parallel()
			msgs := []chat.Message{sys("You are a coding agent."), user(prompt)}
			msgs = append(msgs, round("c1", "Read", "internal/store/migrate.go", lines(3000))...)
			msgs = append(msgs, user("<system-reminder>\nThe user opened internal/store/0007_sessions.sql.\n</system-reminder>\n"+strings.Repeat("Also check the down migration. ", 30)))
			w := newWindow(t, window.Options{Budget: budget}, msgs...)
			if _, err := (&compact.Tiered{}).Compact(context.Background(), w); err != nil {
				t.Fatal(err)
			}
			if !w.Fits() {
				t.Fatalf("over budget: %d of %d", w.Size(), w.Budget())
			}
			cut := 0
			for i := range w.Len() {
				m := w.At(i)
				if m.Role != chat.RoleUser {
					continue
				}
				text := m.Text()
				if strings.Contains(text, "cut to fit the token budget") {
					cut++
				}
				if bad := unclosed(text); len(bad) > 0 {
					t.Errorf("message %d: a tagged block was cut open: %v\n%s", i, bad, text)
				}
			}
			if cut == 0 {
				t.Fatal("no user text was cut: the test does not test the cut")
			}
		})
	}
}

// FuzzCutBlocks checks that CutBlocks never panics, keeps valid UTF-8
// valid, returns text within keep unchanged and, when the input's tagged
// blocks are balanced, leaves none cut open.
func FuzzCutBlocks(f *testing.F) {
	f.Add(claudeCodePrompt(), 300)
	f.Add("<a>\n<a>\nx</a>\n</a>\n", 3)
	f.Add("<x/>\n<y z=\"1\"/>\ntext\n<w>é</w>", 5)
	f.Add("<system-reminder>\n"+strings.Repeat("日本", 200), 50)
	f.Fuzz(func(t *testing.T, s string, keep int) {
		got := compact.CutBlocks(s, keep, "cut")
		if utf8.RuneCountInString(s) <= max(keep, 0) {
			if got != s {
				t.Fatal("text within keep changed")
			}
			return
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		if !strings.Contains(got, "…[agentctx: cut;") {
			t.Fatalf("no marker: %q", got)
		}
	})
}
