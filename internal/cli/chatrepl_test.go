package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
	"github.com/agentctx/agentctx/provider/providertest"
)

// summaryReply answers a summary request of the engine's LLM summarizer
// (no tools, the summary prompt's first words) with a summary; ok is false
// for any other request.
func summaryReply(r providertest.Request) (providertest.Reply, bool) {
	if len(r.Tools) > 0 {
		return providertest.Reply{}, false
	}
	for _, m := range r.Messages {
		if m.Role == chat.RoleUser && strings.HasPrefix(m.Text(), "Summarize the conversation below") {
			return providertest.Reply{Text: "## Task\nThe user asked for a change; it is done.\n## State\nb.txt holds HELLO."}, true
		}
	}
	return providertest.Reply{}, false
}

// withSummaries wraps a task script so that it also answers summary
// requests.
func withSummaries(s providertest.Script) providertest.Script {
	return func(r providertest.Request) providertest.Reply {
		if rep, ok := summaryReply(r); ok {
			return rep
		}
		return s(r)
	}
}

// runIn runs the command line with stdin.
func runIn(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(t.Context(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// TestChatInteractivePiped drives the interactive chat through a pipe (no
// terminal: the line editor reads plain lines): a task whose write is
// asked and allowed, the slash commands, /clear, then --continue and
// --resume of the sessions left.
func TestChatInteractivePiped(t *testing.T) {
	srv := providertest.NewOpenAI(providertest.Options{Script: withSummaries(copyScript)})
	defer srv.Close()
	t.Setenv("AGENTCTX_PROVIDER", "openai")
	t.Setenv("OPENAI_BASE_URL", srv.BaseURL)
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("AGENTCTX_MODEL", "gpt-4o")
	home := t.TempDir()
	t.Setenv("AGENTCTX_HOME", home)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	in := strings.Join([]string{
		"upper-case a.txt into b.txt",
		"y", // the permission question of write_file
		"do it again",
		"a", // always for write_file
		"and once more",
		"/context",
		"/plan",
		"/findings",
		"/pin Never touch the tests.",
		"/pins",
		"/pin Keep b.txt upper case.",
		"/unpin 1",
		"/pins",
		"/budget 9000",
		"/budget",
		"/compact keep the file names",
		"/sessions",
		"/nonsense",
		"/help",
		"/exit",
	}, "\n") + "\n"
	code, out, errOut := runIn(t, in, "chat", dir)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "b.txt")); err != nil || string(b) != "HELLO\n" {
		t.Fatalf("b.txt = %q, %v\n%s", b, err, out)
	}
	for _, want := range []string{
		"agentctx chat",        // the banner
		"Reading it.",          // streamed text
		"● read_file a.txt · ", // a tool call's line with its result size
		"allow write_file b.txt?",
		"All done: b.txt holds HELLO.",
		"tokens (",      // the status line
		"0 compactions", // before /compact
		"$0.",           // gpt-4o is priced
		"free space",    // /context
		"no plan yet",
		"no findings noted yet",
		"pinned p1: Never touch the tests.",
		"1. (p1) Never touch the tests.",
		"unpinned p1",
		"1. (p2) Keep b.txt upper case.",
		"9,000 tokens (option)", // /budget after /budget 9000
		"✻ compacted",           // /compact
		"unknown command /nonsense",
		"/resume", // /help
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the chat did not show %q", want)
		}
	}
	if t.Failed() {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	// The summary request went to the same model, without tools.
	summaries := 0
	for _, r := range srv.Requests() {
		if _, ok := summaryReply(r); ok {
			summaries++
		}
	}
	if strings.Count(out, "allow write_file") != 2 {
		t.Errorf("asked %d times, want 2 (the third write was allowed always)", strings.Count(out, "allow write_file"))
	}
	if summaries != 1 {
		t.Errorf("%d summary requests, want 1 (from /compact)", summaries)
	}

	// --continue resumes that session under the budget it recorded.
	code, out, errOut = runIn(t, "/budget\n/context\n", "chat", dir, "--continue")
	if code != 0 || !strings.Contains(out, "resumed session") || !strings.Contains(out, "9,000 tokens") {
		t.Fatalf("--continue: exit %d\n%s\n%s", code, out, errOut)
	}
	id := between(out, "resumed session ", "\n")
	if id == "" {
		t.Fatalf("no session id in the banner:\n%s", out)
	}
	// --resume ID, then /clear starts a new session, /resume goes back,
	// /model switches the model for the next turn.
	code, out, errOut = runIn(t, "/clear\n/resume 0192f3c4-0000-7000-8000-000000000000\n/resume "+id+"\n/model gpt-4o-mini\nupper-case it again\n", "chat", dir, "--resume", id, "--yes")
	if code != 0 || !strings.Contains(out, "new session") || strings.Count(out, "resumed session "+id) != 3 ||
		!strings.Contains(out, "openai/gpt-4o-mini · budget") || !strings.Contains(out, "All done") ||
		!strings.Contains(out, "error: resume 0192f3c4-0000-7000-8000-000000000000: no such session") {
		t.Fatalf("/clear, /resume, /model: exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if m := reqs[len(reqs)-1].Model; m != "gpt-4o-mini" {
		t.Errorf("after /model the request names %q", m)
	}
	code, out, _ = run(t, "sessions", "list", "--project", dir)
	if code != 0 || strings.Count(out, "\n") != 3 { // the header and two sessions
		t.Fatalf("sessions after /clear:\n%s", out)
	}
	if code, _, errOut := runIn(t, "", "chat", dir, "--continue", "--resume", id); code != ExitUsage {
		t.Fatalf("--continue with --resume: exit %d %s", code, errOut)
	}
	empty := t.TempDir()
	if code, _, errOut := runIn(t, "", "chat", empty, "--continue"); code != ExitError || !strings.Contains(errOut, "no chat session") {
		t.Fatalf("--continue without a session: exit %d %s", code, errOut)
	}
}

// between returns the text of s between the first start and the next end.
func between(s, start, end string) string {
	_, after, ok := strings.Cut(s, start)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(after, end)
	return strings.TrimSpace(v)
}

func TestChatHint(t *testing.T) {
	s := &chatSession{cfg: provider.Config{Provider: provider.ProviderOpenAI, BaseURL: "http://127.0.0.1:11434/v1"}}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("x: %w", provider.ErrUnavailable), "is the server at http://127.0.0.1:11434/v1 up? OPENAI_BASE_URL"},
		{fmt.Errorf("x: %w", provider.ErrAuth), "check OPENAI_API_KEY"},
		{fmt.Errorf("x: %w", provider.ErrUnknownModel), "AGENTCTX_MODEL"},
		{errors.New("other"), ""},
	} {
		if got := s.hint(tc.err); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("hint(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
