package compact_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
)

func TestMeasureRetention(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 60) // 300 runes
	tests := []struct {
		name    string
		removed compact.Facts
		window  []chat.Message
		want    map[string][2]int
		missing []string
	}{
		{"nothing to keep", compact.Facts{}, nil, map[string][2]int{}, nil},
		{"user message whitespace-insensitive", compact.Facts{UserMessages: []string{"fix the parser"}},
			[]chat.Message{user("1. fix   the\n   parser")}, map[string][2]int{"user_messages": {1, 1}}, nil},
		{"user message cut to its first 100 runes", compact.Facts{UserMessages: []string{strings.TrimSpace(long)[:200]}},
			[]chat.Message{user(strings.TrimSpace(long)[:120] + "…")}, map[string][2]int{"user_messages": {1, 1}}, nil},
		{"user message shorter than 100 runes must be whole", compact.Facts{UserMessages: []string{"please fix the parser bug"}},
			[]chat.Message{user("please fix the")}, map[string][2]int{"user_messages": {0, 1}}, []string{"user_messages: please fix the parser bug"}},
		{"path by parent and base name", compact.Facts{FilesModified: []string{"/home/u/repo/compact/facts.go"}, FilesRead: []string{"/x/y/z.md"}},
			[]chat.Message{asst("I edited compact/facts.go")}, map[string][2]int{"files_modified": {1, 1}, "files_read": {0, 1}}, []string{"files_read: /x/y/z.md"}},
		{"path in tool-call arguments", compact.Facts{FilesRead: []string{"/r/a.go"}},
			[]chat.Message{fxCall("1", "Read", map[string]any{"file_path": "/r/a.go"})}, map[string][2]int{"files_read": {1, 1}}, nil},
		{"escaped argument strings are decoded", compact.Facts{FailedCommands: []string{`grep "<x>" a.go`}},
			[]chat.Message{{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "1", Name: "bash", Arguments: []byte(`{"command":"grep \"\u003cx\u003e\" a.go"}`)}}}},
			map[string][2]int{"failed_commands": {1, 1}}, nil},
		{"errors, tests and commands in tool results", compact.Facts{Errors: []string{"boom"}, FailingTests: []string{"TestX"}, FailedCommands: []string{"go test"}},
			[]chat.Message{fxResult("1", "bash", "--- FAIL: TestX\nboom", true)}, map[string][2]int{"errors": {1, 1}, "failing_tests": {1, 1}, "failed_commands": {0, 1}},
			[]string{"failed_commands: go test"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := compact.MeasureRetention(tt.removed, tt.window)
			got := map[string][2]int{}
			for k, v := range r.Counts {
				if v[1] > 0 {
					got[k] = v
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.missing, r.Missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
			kept, total := 0, 0
			for _, v := range tt.want {
				kept += v[0]
				total += v[1]
			}
			if r.Kept != kept || r.Total != total {
				t.Errorf("kept/total %d/%d, want %d/%d", r.Kept, r.Total, kept, total)
			}
			wantOverall := 1.0
			if total > 0 {
				wantOverall = float64(kept) / float64(total)
			}
			if r.Overall != wantOverall {
				t.Errorf("overall %v, want %v", r.Overall, wantOverall)
			}
		})
	}
}

// TestRetentionRestoredBySummary: a fact removed from the window and
// restored by the summary counts as kept.
func TestRetentionRestoredBySummary(t *testing.T) {
	t.Parallel()
	old := []chat.Message{
		user("rename the Foo type to Bar everywhere"),
		fxCall("1", "Edit", map[string]any{"file_path": "/repo/pkg/foo.go"}),
		fxResult("1", "Edit", "ok", false),
		fxCall("2", "Bash", map[string]any{"command": "go build ./..."}),
		fxResult("2", "Bash", "Exit code 1\npkg/foo.go:3: undefined: Foo", true),
	}
	kept := []chat.Message{user("now run the tests")}
	facts := compact.ExtractFacts(old)
	if r := compact.MeasureRetention(facts, kept); r.Kept != 0 || r.Total != 4 {
		t.Fatalf("without summary: %d/%d kept, want 0/4", r.Kept, r.Total)
	}
	res, err := compact.Extractive{Counter: quarterCounter{}}.Summarize(t.Context(), compact.SummaryRequest{Messages: old, Kept: kept, MaxTokens: 1000})
	if err != nil {
		t.Fatal(err)
	}
	r := compact.MeasureRetention(facts, append([]chat.Message{user(res.Text)}, kept...))
	if r.Kept != 4 || r.Overall != 1 {
		t.Errorf("with summary: %d/%d kept, missing %q\nsummary:\n%s", r.Kept, r.Total, r.Missing, res.Text)
	}
}

func TestRetentionAdd(t *testing.T) {
	t.Parallel()
	var total compact.Retention
	total.Add(compact.Retention{Counts: map[string][2]int{"user_messages": {1, 2}, "errors": {0, 1}}, Missing: []string{"a"}})
	total.Add(compact.Retention{Counts: map[string][2]int{"user_messages": {3, 3}, "files_read": {1, 4}}, Missing: []string{"b"}})
	want := compact.Retention{
		Overall: 5.0 / 10, UserMessages: 4.0 / 5, FilesModified: 1, FilesRead: 1.0 / 4, Errors: 0, FailingTests: 1, FailedCommands: 1,
		Kept: 5, Total: 10, Missing: []string{"a", "b"},
		Counts: map[string][2]int{"user_messages": {4, 5}, "errors": {0, 1}, "files_read": {1, 4}, "files_modified": {}, "failing_tests": {}, "failed_commands": {}},
	}
	if diff := cmp.Diff(want, total); diff != "" {
		t.Errorf("Add (-want +got):\n%s", diff)
	}
}
