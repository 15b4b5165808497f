package compact_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Fatalf("%s differs (-want +got; -update rewrites it):\n%s", path, diff)
	}
}

func promptRequest() compact.SummaryRequest {
	args, _ := json.Marshal(map[string]any{"file_path": "/repo/parse.go", "old_string": "a\nb", "new_string": "c"})
	return compact.SummaryRequest{
		Messages: []chat.Message{
			user("Fix the off-by-one in parse.go. Do not touch the tests."),
			{Role: chat.RoleAssistant, Parts: []chat.Part{
				chat.Thinking{Text: "secret reasoning"},
				chat.Text{Text: "I'll look at the parser."},
				chat.ToolCall{ID: "c1", Name: "Read", Arguments: json.RawMessage(`{"file_path":"/repo/parse.go"}`)},
			}},
			chat.NewToolResult("c1", "Read", lines(6000), false),
			{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "c2", Name: "Edit", Arguments: args}}},
			chat.NewToolResult("c2", "", "Error: old_string not found", true),
			user("no, use the lexer instead"),
		},
		Kept:     []chat.Message{asst("Now running go test ./..."), user("and keep going")},
		Previous: compact.SummaryHeader + "\n\nEarlier: the user asked for a parser.",
		Files: []compact.FileContext{
			{Path: "/repo/parse.go", Modified: true, Mentions: 3, LastMention: 4, Content: "package parse\n\n```go\nfunc x() {}\n```\n"},
			{Path: "/repo/lex.go", Mentions: 1, LastMention: 5},
		},
		Instructions: "focus on the parser",
		MaxTokens:    1200,
	}
}

func TestSummaryPrompt(t *testing.T) {
	t.Parallel()
	req := promptRequest()
	msgs := compact.SummaryPrompt(req)
	if len(msgs) != 2 || msgs[0].Role != chat.RoleSystem || msgs[1].Role != chat.RoleUser {
		t.Fatalf("roles %v", msgs)
	}
	body := msgs[1].Text()
	for _, want := range []string{
		"Fix the off-by-one in parse.go. Do not touch the tests.",
		"→ Read({\"file_path\":\"/repo/parse.go\"})",
		"← tool (error): Error: old_string not found",
		"message cut for the summary request",
		"<previous-summary>",
		"### /repo/parse.go (modified, named 3 times)",
		"````\npackage parse", // a fence longer than the content's
		"focus on the parser",
		"every user message",
		"verbatim quote",
		"Keep the summary under 1200 tokens",
		"[6] user: no, use the lexer instead",
		"[8] user: and keep going",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if strings.Contains(body, "secret reasoning") {
		t.Errorf("prompt holds the model's reasoning")
	}
	// Deterministic.
	if again := compact.SummaryPrompt(req); again[1].Text() != body {
		t.Fatalf("two prompts of one request differ")
	}
	golden(t, "summary_prompt.golden", msgs[0].Text()+"\n-----\n"+body)
}

func TestSummaryPromptMinimal(t *testing.T) {
	t.Parallel()
	msgs := compact.SummaryPrompt(compact.SummaryRequest{Messages: []chat.Message{user("hi")}})
	body := msgs[1].Text()
	for _, absent := range []string{"Previous summary", "Important files", "After the summary", "Instructions from the user", "Keep the summary under"} {
		if strings.Contains(body, absent) {
			t.Errorf("minimal prompt holds %q", absent)
		}
	}
	if !strings.Contains(body, "[1] user: hi\n") {
		t.Errorf("prompt lacks the message:\n%s", body)
	}
}
