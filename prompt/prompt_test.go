package prompt_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/reminder"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/window"
	"github.com/agentctx/agentctx/workspace"
)

func counter(t testing.TB) token.Counter {
	t.Helper()
	c, err := token.ForEncoding(token.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func wsContext(c token.Counter) *workspace.Context {
	block := func(name, text string) workspace.Block {
		return workspace.Block{Name: name, Text: text, Tokens: c.Count(text)}
	}
	return &workspace.Context{
		Instructions: []workspace.Instruction{
			{Rel: "AGENTS.md", Scope: workspace.ScopeProject, Text: "Run the tests before finishing.\n" + strings.Repeat("Rule.\n", 50)},
			{Rel: "AGENTS.md", Scope: workspace.ScopeUser, Text: "Answer tersely."},
		},
		Blocks: []workspace.Block{
			block(workspace.BlockDirectory, strings.Repeat("src/file.go\n", 100)),
			block(workspace.BlockGit, "Current branch: main"),
			block(workspace.BlockCodeStyle, "Go: gofmt"),
			block(workspace.BlockReadme, strings.Repeat("readme line\n", 100)),
			block("team", "Prefer small commits."),
		},
	}
}

func TestBuildStatic(t *testing.T) {
	t.Parallel()
	c := counter(t)
	ws := wsContext(c)
	s := prompt.BuildStatic("You are a coding agent.", ws, c, prompt.StaticOptions{})
	for _, want := range []string{
		"You are a coding agent.\n\n# Project instructions",
		"## AGENTS.md\n\nRun the tests",
		"## user instructions (AGENTS.md)\n\nAnswer tersely.",
		"As you answer the user's questions, you can use the following context:\n<context name=\"directoryStructure\">\nsrc/file.go",
		"<context name=\"team\">\nPrefer small commits.\n</context>",
	} {
		if !strings.Contains(s.Text, want) {
			t.Errorf("static prompt lacks %q:\n%s", want, s.Text)
		}
	}
	if s.Tokens != c.Count(s.Text) {
		t.Errorf("Tokens %d, count of Text %d", s.Tokens, c.Count(s.Text))
	}
	if again := prompt.BuildStatic("You are a coding agent.", ws, c, prompt.StaticOptions{}); again.Text != s.Text {
		t.Errorf("the same inputs gave different prompts")
	}
	names := []string{}
	for _, r := range s.Rows {
		names = append(names, r.Name)
	}
	want := []string{prompt.PartSystem, prompt.PartInstructions, "context:directoryStructure", "context:gitStatus", "context:codeStyle", "context:readme", "context:team"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("rows %v, want %v", names, want)
	}

	// Caps: blocks go first, least useful first, then instructions are cut.
	capped := prompt.BuildStatic("You are a coding agent.", ws, c, prompt.StaticOptions{MaxTokens: s.Tokens - 10})
	if capped.Tokens > s.Tokens-10 || !reflect.DeepEqual(capped.Dropped, []string{workspace.BlockReadme}) || capped.Cut {
		t.Errorf("cap %d: %d tokens, dropped %v, cut %v; want the README dropped only", s.Tokens-10, capped.Tokens, capped.Dropped, capped.Cut)
	}
	tiny := prompt.BuildStatic("You are a coding agent.", ws, c, prompt.StaticOptions{MaxTokens: 60})
	if tiny.Tokens > 60 || !tiny.Cut || len(tiny.Dropped) != 5 || !strings.HasPrefix(tiny.Text, "You are a coding agent.") {
		t.Errorf("cap 60: %d tokens, dropped %v, cut %v:\n%s", tiny.Tokens, tiny.Dropped, tiny.Cut, tiny.Text)
	}
	if got := prompt.BuildStatic("", nil, c, prompt.StaticOptions{}); got.Text != "" || got.Tokens != 0 {
		t.Errorf("empty static prompt: %+v", got)
	}
}

func TestAssemble(t *testing.T) {
	t.Parallel()
	c := counter(t)
	w, err := window.New(window.Options{Budget: 10_000, Counter: c})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []chat.Message{
		chat.NewText(chat.RoleUser, "Fix the parser."),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "1", Name: "Read", Arguments: []byte(`{"file_path":"p.go"}`)}}},
		chat.NewToolResult("1", "Read", "package p", false),
	}
	for _, m := range msgs {
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	before := w.Messages()
	static := prompt.BuildStatic("You are a coding agent.", wsContext(c), c, prompt.StaticOptions{})
	tools := []chat.ToolDef{{Name: "Read", Description: "Read a file."}}
	in := prompt.Input{Static: static, Rehydration: "# Context restored\n", Window: w, Tracker: "## Files read\n- p.go",
		Reminders: []reminder.Reminder{{Kind: "todo", Key: "todo:1", Text: "Your todo list changed."}},
		Tools:     tools, ToolTokens: token.Tools(c, tools), Model: "m", MaxTokens: 100}
	req := prompt.Assemble(in)
	if !reflect.DeepEqual(before, w.Messages()) {
		t.Fatalf("Assemble changed the window")
	}
	if len(req.Messages) != 6 || req.Messages[0].Text() != static.Text || req.Messages[1].Role != chat.RoleSystem {
		t.Fatalf("messages %d: want static, rehydration, 3 history, 1 tail", len(req.Messages))
	}
	last := req.Messages[5]
	if last.Role != chat.RoleUser || !strings.HasPrefix(last.Text(), "<system-reminder>\n## Files read") || !strings.Contains(last.Text(), "Your todo list changed.") {
		t.Errorf("tail message: %q", last.Text())
	}
	if !reflect.DeepEqual(req.CacheAfter, []int{0, 1, 4}) {
		t.Errorf("CacheAfter %v, want [0 1 4]", req.CacheAfter)
	}
	sum := 0
	for _, r := range req.Rows {
		sum += r.Tokens
	}
	want := token.Messages(c, w.Overhead(), req.Messages) + in.ToolTokens
	if sum != req.Tokens || req.Tokens != want {
		t.Errorf("rows sum %d, Tokens %d, independent count %d", sum, req.Tokens, want)
	}
	if req.CachedTokens <= static.Tokens || req.CachedTokens >= req.Tokens {
		t.Errorf("CachedTokens %d not between the static prompt (%d) and the whole (%d)", req.CachedTokens, static.Tokens, req.Tokens)
	}
	if req.Model != "m" || req.MaxTokens != 100 || len(req.Tools) != 1 || req.Over != 0 {
		t.Errorf("request fields %+v", req.Request)
	}

	// A user message last: the tail is prepended to it.
	if err := w.Add(chat.NewText(chat.RoleUser, "And add a test.")); err != nil {
		t.Fatal(err)
	}
	req = prompt.Assemble(in)
	last = req.Messages[len(req.Messages)-1]
	if len(req.Messages) != 6 || !strings.HasPrefix(last.Text(), "<system-reminder>") || !strings.HasSuffix(last.Text(), "And add a test.") {
		t.Errorf("prepend to the user message: %d messages, last %q", len(req.Messages), last.Text())
	}
	if got := req.CacheAfter[len(req.CacheAfter)-1]; got != 4 {
		t.Errorf("last breakpoint %d, want 4 (before the user message carrying the tail)", got)
	}
	if want := token.Messages(c, w.Overhead(), req.Messages) + in.ToolTokens; req.Tokens != want {
		t.Errorf("Tokens %d, independent count %d", req.Tokens, want)
	}

	// Over budget is reported.
	w.SetBudget(50)
	if req := prompt.Assemble(in); req.Over != req.Tokens-50 {
		t.Errorf("Over %d, want %d", req.Over, req.Tokens-50)
	}
}

func TestCutTokens(t *testing.T) {
	t.Parallel()
	c := counter(t)
	text := strings.Repeat("línea de texto número uno\n", 200)
	for _, n := range []int{0, 5, 20, 100, 1000, 100000} {
		out := prompt.CutTokens(text, n, c)
		if c.Count(out) > n {
			t.Errorf("CutTokens(%d) gave %d tokens", n, c.Count(out))
		}
		if out != text && out != "" && !strings.HasSuffix(out, "[cut to fit the token budget]") {
			t.Errorf("CutTokens(%d) cut without a marker", n)
		}
		if !strings.HasPrefix(text, strings.TrimSuffix(out, "\n[cut to fit the token budget]")) {
			t.Errorf("CutTokens(%d) is not a prefix", n)
		}
	}
}
