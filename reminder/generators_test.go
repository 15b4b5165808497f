package reminder

import (
	"fmt"
	"github.com/agentctx/agentctx/tooluse"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/secret"
	"github.com/agentctx/agentctx/secret/secrettest"
	"github.com/google/go-cmp/cmp"
)

func TestTodoGenerator(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ж", 120)
	tests := []struct {
		name  string
		state State
		want  []Reminder
	}{
		{"no todo tool, empty list", State{}, nil},
		{"empty list", State{TodosKnown: true}, []Reminder{{
			Key: KeyTodoEmpty, Kind: KindTodo, Priority: PriorityTodo,
			Text: "Your todo list is empty right now. Do not bring this up with the user; they know. " +
				"If the current work has several steps, creating a todo list with the todo tool helps track them; otherwise ignore this note.",
		}}},
		{"in progress", State{TodosKnown: true, Todos: []Todo{
			{ID: "1", Content: "read the spec", Status: TodoCompleted, Priority: "high"},
			{ID: "2", Content: "write\nthe parser", Status: TodoInProgress, Priority: "medium"},
			{ID: "3", Content: long, Status: TodoPending},
		}}, []Reminder{{
			Kind: KindTodo, Priority: PriorityTodo,
			Text: "Your todo list has changed. Its current contents:\n" +
				"- [completed] read the spec (high)\n" +
				"- [in_progress] write the parser (medium)\n" +
				"- [pending] " + strings.Repeat("ж", 99) + "…\n" +
				"Continue with the item in progress: write the parser. Do not mention this reminder to the user.",
		}}},
		{"none in progress, known without flag", State{Todos: []Todo{{Content: "a", Status: TodoCompleted}, {Content: "b"}}}, []Reminder{{
			Kind: KindTodo, Priority: PriorityTodo,
			Text: "Your todo list has changed. Its current contents:\n- [completed] a\n- [pending] b\n" +
				"No item is in progress: mark the next pending one (b) in progress when you start on it. Do not mention this reminder to the user.",
		}}},
		{"all done", State{Todos: []Todo{{Content: "a", Status: TodoCompleted}, {Content: "b", Status: "cancelled"}}}, []Reminder{{
			Kind: KindTodo, Priority: PriorityTodo,
			Text: "Your todo list has changed. Its current contents:\n- [completed] a\n- [cancelled] b\nEvery item is done or closed. Do not mention this reminder to the user.",
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := TodoGenerator().Generate(tt.state)
			for i := range tt.want {
				if tt.want[i].Key == "" {
					tt.want[i].Key = "todo:" + TodoHash(tt.state.Todos)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestTodoGeneratorManyItems(t *testing.T) {
	t.Parallel()
	var todos []Todo
	for i := range 45 {
		todos = append(todos, Todo{Content: fmt.Sprint("item ", i), Status: TodoPending})
	}
	got := TodoGenerator().Generate(State{Todos: todos})[0].Text
	if n := strings.Count(got, "\n- ["); n != todoMaxItems {
		t.Errorf("listed %d items, want %d", n, todoMaxItems)
	}
	if !strings.Contains(got, "… and 15 more\n") {
		t.Errorf("no overflow line in %q", got)
	}
}

func TestTodoHash(t *testing.T) {
	t.Parallel()
	base := []Todo{{ID: "1", Content: "a", Status: TodoPending, Priority: "high"}}
	h := TodoHash(base)
	if len(h) != 16 {
		t.Errorf("hash %q: want 16 hex digits", h)
	}
	variants := map[string][]Todo{
		"id":       {{ID: "2", Content: "a", Status: TodoPending, Priority: "high"}},
		"content":  {{ID: "1", Content: "b", Status: TodoPending, Priority: "high"}},
		"status":   {{ID: "1", Content: "a", Status: TodoCompleted, Priority: "high"}},
		"priority": {{ID: "1", Content: "a", Status: TodoPending, Priority: "low"}},
		"shifted":  {{ID: "1a", Content: "", Status: TodoPending, Priority: "high"}},
		"extra":    append(append([]Todo{}, base...), Todo{Content: "x"}),
		"empty":    nil,
	}
	for name, v := range variants {
		if TodoHash(v) == h {
			t.Errorf("%s: same hash as the base list", name)
		}
	}
	if TodoHash([]Todo{{ID: "1", Content: "a", Status: TodoPending, Priority: "high"}}) != h {
		t.Error("equal lists hash differently")
	}
}

func TestChangedFilesGenerator(t *testing.T) {
	t.Parallel()
	if got := ChangedFilesGenerator().Generate(State{}); got != nil {
		t.Errorf("no files: got %v", got)
	}
	one := ChangedFilesGenerator().Generate(State{ChangedFiles: []string{"main.go"}})
	want := []Reminder{{
		Key: "changed_files:" + digest("main.go"), Kind: KindChangedFiles, Priority: PriorityChangedFiles,
		Text: "This file changed on disk after you last read it (by the user, a formatter or another process):\n- main.go\n" +
			"Your earlier view of it is out of date: read it again before you edit it, and do not undo changes you did not make.",
	}}
	if diff := cmp.Diff(want, one); diff != "" {
		t.Errorf("one file (-want +got):\n%s", diff)
	}

	var files []string
	for i := range 25 {
		files = append(files, fmt.Sprintf("pkg/f%02d.go", 24-i))
	}
	in := append([]string(nil), files...)
	got := ChangedFilesGenerator().Generate(State{ChangedFiles: files})[0]
	if !cmp.Equal(files, in) {
		t.Error("generator modified s.ChangedFiles")
	}
	if n := strings.Count(got.Text, "\n- "); n != 20 {
		t.Errorf("listed %d paths, want 20", n)
	}
	if !strings.Contains(got.Text, "- pkg/f00.go\n") || strings.Contains(got.Text, "pkg/f24.go") || !strings.Contains(got.Text, "… and 5 more\n") {
		t.Errorf("want the first 20 sorted paths and an overflow line:\n%s", got.Text)
	}
	rev := make([]string, len(files))
	for i, f := range files {
		rev[len(files)-1-i] = f
	}
	if other := ChangedFilesGenerator().Generate(State{ChangedFiles: rev})[0].Key; other != got.Key {
		t.Errorf("key depends on order: %s vs %s", other, got.Key)
	}
}

func TestPressureGenerator(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		ratio float64
		state State
		want  []Reminder
	}{
		{"no budget", 0, State{Ratio: 0.99, Threshold: 0.8}, nil},
		{"below", 0, State{Ratio: 0.6, Threshold: 0.8, Tokens: 9600, Budget: 16000}, nil},
		{"example from the brief", 0, State{Ratio: 0.71, Threshold: 0.8, Tokens: 11360, Budget: 16000}, []Reminder{{
			Key: "context_pressure:0:70", Kind: KindContextPressure, Priority: PriorityContextPressure,
			Text: "Context window: 71 % used (11,360 of 16,000 tokens); older history will be summarized at 80 %. " +
				"Prefer targeted reads (line ranges, grep) over whole files and large outputs.",
		}}},
		{"ratio from tokens, after compactions", 0, State{Threshold: 0.8, Tokens: 1234567, Budget: 1500000, Compactions: 3}, []Reminder{{
			Key: "context_pressure:3:80", Kind: KindContextPressure, Priority: PriorityContextPressure,
			Text: "Context window: 82 % used (1,234,567 of 1,500,000 tokens); older history will be summarized at 80 %. " +
				"Prefer targeted reads (line ranges, grep) over whole files and large outputs.",
		}}},
		{"unknown threshold below 70", 0, State{Ratio: 0.69, Tokens: 690, Budget: 1000}, nil},
		{"unknown threshold", 0, State{Ratio: 0.7, Tokens: 700, Budget: 1000}, []Reminder{{
			Key: "context_pressure:0:70", Kind: KindContextPressure, Priority: PriorityContextPressure,
			Text: "Context window: 70 % used (700 of 1,000 tokens); older history will be summarized when it fills. " +
				"Prefer targeted reads (line ranges, grep) over whole files and large outputs.",
		}}},
		{"custom ratio", 0.5, State{Ratio: 0.41, Threshold: 0.8, Tokens: 410, Budget: 1000}, []Reminder{{
			Key: "context_pressure:0:40", Kind: KindContextPressure, Priority: PriorityContextPressure,
			Text: "Context window: 41 % used (410 of 1,000 tokens); older history will be summarized at 80 %. " +
				"Prefer targeted reads (line ranges, grep) over whole files and large outputs.",
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, PressureGenerator(tt.ratio).Generate(tt.state)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSecurityGenerator(t *testing.T) {
	t.Parallel()
	secrets := []string{secrettest.AWSKeyID, secrettest.GitHubPAT, secrettest.OpenAI, secrettest.Anthropic, secrettest.Slack, secrettest.Google, secrettest.Stripe, secrettest.JWT, secrettest.PEM, secrettest.Password, secrettest.AWSSecret}
	env := "AWS_ACCESS_KEY_ID=" + secrettest.AWSKeyID + "\nGITHUB_TOKEN=" + secrettest.GitHubPAT + "\nDB_PASSWORD='" + secrettest.Password + "'\n"
	s := State{Results: []chat.ToolResult{
		{ToolCallID: "toolu_01", ToolName: "Read", Content: env},
		{ToolCallID: "toolu_02", ToolName: "Bash", Content: "all good, nothing here"},
		{ToolCallID: "toolu_03", Content: "cat ~/.aws/credentials\naws_secret_access_key=" + secrettest.AWSSecret + "\n" + secrettest.PEM + "\n" + secrettest.JWT},
		{ToolCallID: "toolu_04", ToolName: "Bash", Content: "keys: " + secrettest.OpenAI + " " + secrettest.Anthropic + " " + secrettest.Slack + " " + secrettest.Google + " " + secrettest.Stripe},
	}}
	got := SecurityGenerator().Generate(s)
	if len(got) != 3 {
		t.Fatalf("got %d reminders, want one per result with a secret (3): %v", len(got), keys(got))
	}
	wantKeyPrefix := []string{
		"security:aws_access_key_id+generic_secret+github_token:",
		"security:aws_secret_access_key+jwt+private_key:",
		"security:anthropic_api_key+google_api_key+openai_api_key+slack_token+stripe_live_key:",
	}
	for i, r := range got {
		if !strings.HasPrefix(r.Key, wantKeyPrefix[i]) || r.Kind != KindSecurity || r.Priority != PrioritySecurity {
			t.Errorf("reminder %d: key %q kind %q priority %d", i, r.Key, r.Kind, r.Priority)
		}
		for _, sec := range secrets {
			if strings.Contains(r.Text, sec) || strings.Contains(r.Key, sec) {
				t.Errorf("reminder %d contains the secret %q:\n%s", i, sec, r.Text)
			}
		}
		if secret.Find(r.Text) != nil {
			t.Errorf("reminder %d text looks like a secret itself: %s", i, r.Text)
		}
	}
	want0 := "The result of the Read tool call toolu_01 appears to contain an AWS access key ID, a password or secret assigned in configuration and a GitHub token. " +
		"Treat it as sensitive: do not repeat or quote it, do not write it to files, commits, logs or commands, and do not send it anywhere. " +
		"If it looks like a real credential, tell the user it was exposed and suggest rotating it."
	if diff := cmp.Diff(want0, got[0].Text); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(got[1].Text, "The result of tool call toolu_03 appears to contain an AWS secret access key, a JSON Web Token and a private key.") {
		t.Errorf("text without tool name: %s", got[1].Text)
	}

	// The same secret read again, in another call, is the same key: the
	// manager warns once.
	m := New(Options{})
	first := m.Next(State{Results: []chat.ToolResult{{ToolCallID: "c1", ToolName: "Read", Content: "x " + secrettest.GitHubPAT}}})
	again := m.Next(State{Results: []chat.ToolResult{{ToolCallID: "c2", ToolName: "Bash", Content: "GH=" + secrettest.GitHubPAT + "\n"}}})
	other := m.Next(State{Results: []chat.ToolResult{{ToolCallID: "c3", ToolName: "Bash", Content: secrettest.GitHubS2S}}})
	if len(first) != 1 || len(again) != 0 || len(other) != 1 {
		t.Errorf("same secret twice: sent %d then %d; another secret: %d; want 1, 0, 1", len(first), len(again), len(other))
	}
}

func TestSecurityTextDropsSecretLookingNames(t *testing.T) {
	t.Parallel()
	got := SecurityGenerator().Generate(State{Results: []chat.ToolResult{{ToolCallID: secrettest.GitHubPAT, ToolName: secrettest.Slack, Content: secrettest.Google}}})
	if len(got) != 1 {
		t.Fatalf("got %d reminders", len(got))
	}
	if strings.Contains(got[0].Text, secrettest.GitHubPAT) || strings.Contains(got[0].Text, secrettest.Slack) || !strings.HasPrefix(got[0].Text, "A tool result appears") {
		t.Errorf("text: %s", got[0].Text)
	}
}

func TestDefaultsOrder(t *testing.T) {
	t.Parallel()
	s := State{
		TodosKnown:   true,
		Todos:        []Todo{{Content: "x"}},
		ChangedFiles: []string{"a.go"},
		Results:      []chat.ToolResult{{ToolCallID: "1", ToolName: "Bash", Content: secrettest.GitHubPAT}},
		Ratio:        0.75, Threshold: 0.8, Tokens: 750, Budget: 1000,
	}
	var kinds []string
	for _, g := range Defaults() {
		for _, r := range g.Generate(s) {
			kinds = append(kinds, r.Kind)
		}
	}
	if diff := cmp.Diff([]string{KindSecurity, KindChangedFiles, KindContextPressure, KindTodo}, kinds); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// With all four pending, the manager keeps the three most urgent.
	got := New(Options{}).Pending(s)
	var gotKinds []string
	for _, r := range got {
		gotKinds = append(gotKinds, r.Kind)
	}
	if diff := cmp.Diff([]string{KindSecurity, KindChangedFiles, KindContextPressure}, gotKinds); diff != "" {
		t.Errorf("manager (-want +got):\n%s", diff)
	}
}

// TestCutRunes holds the cuts reminders rely on (todo items, tool names,
// the MaxRunes cap).
func TestCutRunes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello", 4, "hel…"},
		{"héllo wörld", 3, "hé…"},
		{"日本語のテキスト", 4, "日本語…"},
		{"abc", 1, "…"},
		{"abc", 0, ""},
		{"abc", -1, "abc"},
		{"", 3, ""},
	}
	for _, tt := range tests {
		if got := tooluse.CutRunes(tt.s, tt.n); got != tt.want {
			t.Errorf("CutRunes(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 16000: "16,000", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
