package agentctx_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/secret/secrettest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/transcript"
	"github.com/agentctx/agentctx/workmem"
)

// leakySummarizer is an LLM summarizer that quotes its input: the summary
// holds the text of every message it replaces, secrets included.
type leakySummarizer struct{}

func (leakySummarizer) Name() string { return "leaky" }

func (leakySummarizer) Summarize(_ context.Context, req compact.SummaryRequest) (compact.SummaryResult, error) {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Text())
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.ToolCall:
				b.WriteString(" " + string(p.Arguments))
			case chat.ToolResult:
				b.WriteString(" " + p.Content)
			}
		}
		b.WriteString("\n")
	}
	return compact.SummaryResult{Text: compact.Head(b.String(), 2000)}, nil
}

// secretLedger counts where planted secrets appear: in the raw messages
// given to the Engine (the only copies allowed) and anywhere else.
type secretLedger struct {
	secrets []string
	// raw holds the texts of the raw messages: user and assistant text,
	// tool-call arguments, and tool results by call id.
	raw     map[string]bool
	results map[string]bool
	planted int // occurrences in the raw messages
}

func (l *secretLedger) count(s string) int {
	n := 0
	for _, sec := range l.secrets {
		n += strings.Count(s, sec)
	}
	return n
}

// add records msgs as raw messages.
func (l *secretLedger) add(msgs ...chat.Message) []chat.Message {
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.Text:
				l.raw[p.Text] = true
				l.planted += l.count(p.Text)
			case chat.ToolCall:
				l.planted += l.count(string(p.Arguments))
			case chat.ToolResult:
				l.results[p.ToolCallID] = true
				l.planted += l.count(p.Content)
			}
		}
	}
	return msgs
}

// derived counts the secrets in what a request carries beyond the raw
// messages: the static prompt, the rehydration block, notes, summaries
// and every tail part.
func (l *secretLedger) derived(req *agentctx.Request) int {
	n := 0
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case chat.Text:
				if !l.raw[p.Text] {
					n += l.count(p.Text)
				}
			case chat.ToolResult:
				if !l.results[p.ToolCallID] {
					n += l.count(p.Content)
				}
			}
		}
	}
	return n
}

// fileCounts counts the secrets in a session file: in its raw message
// entries (messages and full tool outputs, recorded as given, or copied
// into a compaction's snapshot of the window) and in everything else
// (compact boundaries, notes, saved state, reminders).
func (l *secretLedger) fileCounts(t *testing.T, path string) (raw, other int, where []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<26)
	for line := 1; sc.Scan(); line++ {
		var e session.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		n := l.count(sc.Text())
		switch {
		case n == 0:
		case !e.IsCompactSummary && (e.Type == session.TypeUser || e.Type == session.TypeAssistant ||
			e.Type == session.TypeToolUse || e.Type == session.TypeToolResult || e.Type == session.TypeToolOutput):
			raw += n
		default:
			other += n
			where = append(where, fmt.Sprintf("line %d (%s %s)", line, e.Type, e.Subtype))
		}
	}
	return raw, other, where
}

// TestSecretsNotMultiplied plants an AWS access key and a GitHub token in
// tool results, tool calls and user text, and runs a session through the
// Engine with working memory, a small budget, automatic and forced
// compactions, a finding and a plan that quote them: the session file
// holds them only where the raw messages are, exactly as often as they
// were given, and no request carries them beyond those raw messages.
func TestSecretsNotMultiplied(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		sum  compact.Summarizer
	}{
		{"extractive", nil},
		{"llm", leakySummarizer{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			aws, gh := secrettest.AWSKeyID, secrettest.GitHubPAT
			dir := project(t)
			env := "AWS_ACCESS_KEY_ID=" + aws + "\nAWS_REGION=eu-west-1\n"
			if err := os.WriteFile(filepath.Join(dir, "deploy.env"), []byte(env), 0o600); err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			store, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			e, err := agentctx.Open(ctx, agentctx.Options{Store: store, Dir: dir, Model: "gpt-4o", Budget: 6_000,
				Summarizer: tt.sum, Tools: []chat.ToolDef{{Name: "Read"}, {Name: "Bash"}, {Name: "TodoWrite"}}})
			if err != nil {
				t.Fatal(err)
			}
			l := &secretLedger{secrets: []string{aws, gh}, raw: map[string]bool{}, results: map[string]bool{}}
			var reqs []*agentctx.Request
			request := func() {
				t.Helper()
				req, err := e.Request(ctx)
				if err != nil {
					t.Fatal(err)
				}
				reqs = append(reqs, req)
			}
			add := func(msgs ...chat.Message) {
				t.Helper()
				if err := e.Add(ctx, l.add(msgs...)...); err != nil {
					t.Fatal(err)
				}
			}
			add(chat.NewText(chat.RoleUser, "Deploy the demo with the credentials in deploy.env."))
			request()
			add(call("r1", "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(dir, "deploy.env"))),
				chat.NewToolResult("r1", "Read", env, false))
			request()
			add(call("g1", "Bash", fmt.Sprintf(`{"command":"grep -rn %s ."}`, gh)),
				chat.NewToolResult("g1", "Bash", "Exit code 1", true))
			request()
			add(call("d1", "Bash", `{"command":"./deploy.sh"}`),
				chat.NewToolResult("d1", "Bash", "Exit code 2\nerror: token "+gh+" rejected for key "+aws, true))
			request()
			add(call("t1", "TodoWrite", fmt.Sprintf(`{"todos":[{"content":"rotate %s","status":"pending","activeForm":"Rotating"}]}`, aws)),
				chat.NewToolResult("t1", "TodoWrite", "ok", false))
			add(chat.NewText(chat.RoleUser, "Use the token "+gh+" to push."))
			if err := e.ExpectPlan(); err != nil {
				t.Fatal(err)
			}
			add(chat.NewText(chat.RoleAssistant, "Plan:\n1. Export AWS_ACCESS_KEY_ID="+aws+"\n2. Push with "+gh+"\n3. Rerun deploy.sh"))
			if ok, err := e.AddFinding(workmem.Finding{Finding: "the deploy token is " + gh, Importance: 9}); !ok || err != nil {
				t.Fatalf("AddFinding = %v, %v", ok, err)
			}
			request()
			// Enough work to push the secrets out of the recent history.
			for i := range 12 {
				id := fmt.Sprintf("f%d", i)
				add(call(id, "Bash", `{"command":"go test ./..."}`),
					chat.NewToolResult(id, "Bash", strings.Repeat(fmt.Sprintf("ok  \texample.com/demo/pkg%d\t0.%03ds\n", i, i), 40), false))
				request()
			}
			if _, err := e.Compact(ctx, ""); err != nil {
				t.Fatal(err)
			}
			request()
			add(chat.NewText(chat.RoleAssistant, "Deployed."))
			request()
			if e.Stats().Compactions["summary"] < 2 {
				t.Errorf("compactions %v: want an automatic and a forced summary", e.Stats().Compactions)
			}
			if e.Rehydration() == "" {
				t.Error("no rehydration block: the test proves less than it should")
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}

			derived := 0
			for i, req := range reqs {
				if n := l.derived(req); n > 0 {
					derived += n
					t.Errorf("request %d carries the secrets %d times beyond the raw messages", i, n)
				}
			}
			path, err := store.Path(e.ID())
			if err != nil {
				t.Fatal(err)
			}
			raw, other, where := l.fileCounts(t, path)
			t.Logf("planted %d times; session file: %d in raw messages, %d elsewhere; %d requests: %d beyond their raw messages",
				l.planted, raw, other, len(reqs), derived)
			if other > 0 {
				t.Errorf("the session file holds the secrets %d times outside raw messages: %v", other, where)
			}
			if raw != l.planted {
				t.Errorf("the session file's raw messages hold the secrets %d times, want %d (as planted)", raw, l.planted)
			}

			// The resumed engine's derived texts hold none either.
			r, err := agentctx.Resume(ctx, e.ID(), agentctx.Options{Store: store, Dir: dir, Summarizer: tt.sum})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			wm, _ := r.WorkingMemory(4000)
			for name, text := range map[string]string{"tracker": r.TrackerSection(), "working memory": wm, "rehydration": r.Rehydration()} {
				if n := l.count(text); n > 0 {
					t.Errorf("resumed %s holds the secrets %d times:\n%s", name, n, text)
				}
			}
		})
	}
}

// TestSecretPlantedInRealTrajectory replays a real Claude Code session
// through the Engine with an AWS key planted in one tool result: the
// session file holds it once, in that result, and no request carries it
// elsewhere.
func TestSecretPlantedInRealTrajectory(t *testing.T) {
	t.Parallel()
	root := sharedtest.Dir(t)
	paths, _ := filepath.Glob(filepath.Join(root, "claude-code", "*", "*.jsonl"))
	if len(paths) == 0 {
		paths, _ = filepath.Glob(filepath.Join(root, "claude-code", "*.jsonl"))
	}
	if len(paths) == 0 {
		t.Fatal("no Claude Code transcript in the shared data")
	}
	trajs, err := transcript.ReadFile(paths[0], transcript.Options{})
	if err != nil || len(trajs) == 0 {
		t.Fatalf("read %s: %v", paths[0], err)
	}
	msgs := trajs[0].Messages
	// Plant the key on the first line of the first file read: the
	// tracker's preview, the working memory and the summaries see it.
	planted := -1
	aws := secrettest.AWSKeyID
	names := map[string]string{}
	for i, m := range msgs {
		for _, c := range m.ToolCalls() {
			names[c.ID] = c.Name
		}
		if r, ok := m.ToolResult(); ok && names[r.ToolCallID] == "Read" && !r.IsError && i > 2 {
			r.Content = "AWS_ACCESS_KEY_ID=" + aws + "\n" + r.Content
			msgs[i] = chat.Message{Role: m.Role, Parts: []chat.Part{r}}
			planted = i
			break
		}
	}
	if planted < 0 {
		t.Fatalf("%s has no file read to plant a secret in", paths[0])
	}
	ctx := t.Context()
	store, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// NoLimit: a tool result the limiter cuts is recorded twice, cut in
	// the window and whole as its output; both are raw copies.
	e, err := agentctx.Open(ctx, agentctx.Options{Store: store, Dir: t.TempDir(), NoWorkspace: true, Model: "claude-sonnet-4-5", Budget: 20_000, NoLimit: true})
	if err != nil {
		t.Fatal(err)
	}
	l := &secretLedger{secrets: []string{aws}, raw: map[string]bool{}, results: map[string]bool{}}
	requests, derived := 0, 0
	for i, m := range msgs {
		if m.Role == chat.RoleSystem {
			continue
		}
		if err := e.Add(ctx, l.add(m)...); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		// A request before each model call, as an agent makes it (one
		// in mid-round would answer the other calls as interrupted).
		if (m.Role == chat.RoleUser || m.Role == chat.RoleTool) && (i+1 == len(msgs) || msgs[i+1].Role == chat.RoleAssistant) {
			req, err := e.Request(ctx)
			if err != nil {
				t.Fatal(err)
			}
			requests++
			derived += l.derived(req)
		}
	}
	if _, err := e.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	path, err := store.Path(e.ID())
	if err != nil {
		t.Fatal(err)
	}
	raw, other, where := l.fileCounts(t, path)
	t.Logf("%s: %d messages, secret planted in message %d; session file: %d in raw messages, %d elsewhere; %d requests: %d beyond their raw messages; compactions %v",
		filepath.Base(paths[0]), len(msgs), planted, raw, other, requests, derived, e.Stats().Compactions)
	if derived > 0 {
		t.Errorf("the requests carry the secret %d times beyond the raw messages", derived)
	}
	if other > 0 {
		t.Errorf("the session file holds the secret %d times outside raw messages: %v", other, where)
	}
	if raw < 1 {
		t.Errorf("the planted secret is not in the session file's raw messages")
	}
}
