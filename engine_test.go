package agentctx_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/transcript"
	"github.com/agentctx/agentctx/workspace"
)

// project writes a small project into a temp folder: instruction files,
// a README and a few source files.
func project(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"AGENTS.md":     "# Agent rules\n\nRun `go test ./...` before you finish.\n@docs/style.md\n",
		"docs/style.md": "Use tabs. Keep functions short.\n",
		"README.md":     "# demo\n\nA demo project.\n",
		"go.mod":        "module example.com/demo\n\ngo 1.26\n",
		"parse.go":      "package demo\n\nfunc Parse(s string) int { return len(s) }\n",
		"parse_test.go": "package demo\n\nimport \"testing\"\n\nfunc TestParse(t *testing.T) {}\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func call(id, name, args string) chat.Message {
	return chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}}}
}

func openEngine(t testing.TB, opts agentctx.Options) *agentctx.Engine {
	t.Helper()
	e, err := agentctx.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// checkRequest asserts the accounting of a request: the token table sums
// to Tokens, Tokens is an independent count of what is sent, and the
// request fits the budget.
func checkRequest(t *testing.T, where string, e *agentctx.Engine, req *agentctx.Request, toolTokens int) {
	t.Helper()
	sum := 0
	for _, r := range req.Rows {
		sum += r.Tokens
	}
	if sum != req.Tokens {
		t.Errorf("%s: token table sums to %d, request says %d", where, sum, req.Tokens)
	}
	independent := token.Messages(e.Counter(), e.WindowStats().Overhead, req.Messages) + toolTokens
	if independent != req.Tokens {
		t.Errorf("%s: counting the messages sent gives %d tokens, the request says %d", where, independent, req.Tokens)
	}
	if req.Budget > 0 && req.Tokens > req.Budget {
		t.Errorf("%s: request of %d tokens over the %d-token budget (Over %d)", where, req.Tokens, req.Budget, req.Over)
	}
	if vs := e.Check(); len(vs) > 0 {
		t.Errorf("%s: window invariants: %v", where, vs)
	}
}

// TestPrefixStableAcrossTurns: over 10 turns, the static system prompt is
// byte-identical, and what a request marks as its cached prefix is a
// prefix of the next request (unless a compaction ran in between): the
// provider's prompt cache hits.
func TestPrefixStableAcrossTurns(t *testing.T) {
	t.Parallel()
	dir := project(t)
	ctx := t.Context()
	e := openEngine(t, agentctx.Options{Dir: dir, Model: "claude-sonnet-4-5", Budget: 60_000, SystemPrompt: "You are a careful coding agent.",
		Tools: []chat.ToolDef{{Name: "Read"}, {Name: "TodoWrite"}}})
	if err := e.Add(ctx, chat.NewText(chat.RoleUser, "Make Parse handle empty input.")); err != nil {
		t.Fatal(err)
	}
	var prev *agentctx.Request
	var static string
	compacted := 0
	for turn := range 10 {
		req, err := e.Request(ctx)
		if err != nil {
			t.Fatal(err)
		}
		where := fmt.Sprintf("turn %d", turn)
		checkRequest(t, where, e, req, token.Tools(e.Counter(), []chat.ToolDef{{Name: "Read"}, {Name: "TodoWrite"}}))
		sys := req.Messages[0]
		if sys.Role != chat.RoleSystem || !strings.Contains(sys.Text(), "Run `go test ./...`") || !strings.Contains(sys.Text(), "Use tabs.") {
			t.Fatalf("%s: first message is not the static prompt with the instruction files and their import:\n%s", where, sys.Text())
		}
		if turn == 0 {
			static = sys.Text()
		} else if sys.Text() != static {
			t.Fatalf("%s: static prompt changed:\n%s", where, cmp.Diff(static, sys.Text()))
		}
		if len(req.CacheAfter) == 0 || req.CacheAfter[0] != 0 {
			t.Errorf("%s: cache breakpoints %v, want one after the static prompt", where, req.CacheAfter)
		}
		if prev != nil && len(req.Compactions) == 0 {
			end := prev.CacheAfter[len(prev.CacheAfter)-1]
			if end >= len(req.Messages) || !reflect.DeepEqual(prev.Messages[:end+1], req.Messages[:end+1]) {
				t.Errorf("%s: the previous request's cached prefix (messages 0..%d) is not a prefix of this one", where, end)
			}
		}
		compacted += len(req.Compactions)
		prev = req
		id := fmt.Sprintf("c%d", turn)
		if turn == 3 {
			mustAdd(t, e, call(id, "TodoWrite", `{"todos":[{"content":"handle empty input","status":"in_progress","activeForm":"x"}]}`),
				chat.NewToolResult(id, "TodoWrite", "Todos updated", false))
			continue
		}
		mustAdd(t, e, call(id, "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(dir, "parse.go"))),
			chat.NewToolResult(id, "Read", strings.Repeat("func Parse(s string) int { return len(s) }\n", 20), false))
	}
	if compacted != 0 {
		t.Errorf("%d compactions at a 60,000-token budget: the test meant to measure the prefix without them", compacted)
	}
}

// TestRequestNeverOverBudget is the budget property: every real
// trajectory, replayed through an engine with the workspace context of a
// project, reminders and working memory, at random budgets, yields
// requests that fit, whose token table is exact.
func TestRequestNeverOverBudget(t *testing.T) {
	t.Parallel()
	files := sharedtest.Files(t)
	dir := project(t)
	rng := rand.New(rand.NewPCG(7, uint64(len(files))))
	for _, file := range files {
		trs, err := transcript.ReadFile(file, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tr := trs[0]
		budgets := []int{8000, 16000, 6000 + rng.IntN(30000)}
		for _, budget := range budgets {
			name := fmt.Sprintf("%s/%d", filepath.Base(file), budget)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				ctx := t.Context()
				e := openEngine(t, agentctx.Options{Dir: dir, Model: tr.Model, Budget: budget, Tools: tr.Tools,
					SystemPrompt: "You are a coding agent.", Strategy: &compact.Summarize{},
					Workspace: workspace.Options{Git: workspace.GitOptions{Disabled: true}}})
				tools := token.Tools(e.Counter(), tr.Tools)
				for i, m := range tr.Messages {
					if m.Role == chat.RoleAssistant {
						req, err := e.Request(ctx)
						if err != nil {
							t.Fatal(err)
						}
						checkRequest(t, fmt.Sprintf("before message %d", i), e, req, tools)
						if t.Failed() {
							return
						}
					}
					if err := e.Add(ctx, m); err != nil {
						t.Fatalf("message %d: %v", i, err)
					}
				}
			})
		}
	}
}

// TestResumeEngine: a session closed and resumed has the same window,
// tracker section, working memory, todo list and rehydration block, and
// does not repeat reminders already sent.
func TestResumeEngine(t *testing.T) {
	t.Parallel()
	dir := project(t)
	ctx := t.Context()
	store, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// KeepRatio 0.01: the manual compaction summarizes all but the last
	// message of this short history.
	opts := agentctx.Options{Store: store, Dir: dir, Model: "gpt-4o", Budget: 30_000, Tools: []chat.ToolDef{{Name: "TodoWrite"}},
		Strategy: &compact.Summarize{KeepRatio: 0.01}}
	e, err := agentctx.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	mustAdd(t, e, chat.NewText(chat.RoleUser, "Fix Parse."))
	first, err := e.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustAdd(t, e, call("t1", "TodoWrite", `{"todos":[{"content":"fix Parse","status":"in_progress","activeForm":"Fixing"}]}`),
		chat.NewToolResult("t1", "TodoWrite", "ok", false),
		call("r1", "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(dir, "parse.go"))),
		chat.NewToolResult("r1", "Read", "package demo\n\nfunc Parse(s string) int { return len(s) }\n", false))
	second, err := e.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		id := fmt.Sprintf("g%d", i)
		mustAdd(t, e, call(id, "Bash", `{"command":"grep -rn Parse ."}`),
			chat.NewToolResult(id, "Bash", strings.Repeat("parse.go:3:func Parse(s string) int { return len(s) }\n", 40), false))
	}
	if recs, err := e.Compact(ctx, "keep the todo list"); err != nil || !strings.Contains(fmt.Sprint(recs), "summary") {
		t.Fatalf("Compact = %v, %v; want a summary", recs, err)
	}
	if !strings.Contains(e.Rehydration(), "func Parse") || !strings.Contains(e.Rehydration(), "fix Parse") {
		t.Fatalf("rehydration lacks the file read or the todo list:\n%s", e.Rehydration())
	}
	mustAdd(t, e, chat.NewText(chat.RoleAssistant, "Parse is fixed."))
	live := e.Messages()
	liveStats := e.WindowStats()
	liveTokens, liveAnchor := liveStats.Tokens, liveStats.Anchor
	section, rehydration := e.TrackerSection(), e.Rehydration()
	wm, _ := e.WorkingMemory(2000)
	sent := map[string]bool{}
	for _, r := range append(first.Tail, second.Tail...) {
		if r.Key != "" {
			sent[r.Key] = true
		}
	}
	if len(sent) == 0 {
		t.Fatalf("no reminder sent before the resume (first tail %v, second %v): the test proves nothing", first.Tail, second.Tail)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := agentctx.Resume(ctx, e.ID(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if diff := cmp.Diff(live, r.Messages()); diff != "" {
		t.Errorf("resumed window differs (-live +resumed):\n%s", diff)
	}
	if got := r.WindowStats(); got.Tokens != liveTokens || got.Anchor != liveAnchor {
		t.Errorf("resumed window: %d tokens, anchor %+v; live %d, %+v", got.Tokens, got.Anchor, liveTokens, liveAnchor)
	}
	if r.TrackerSection() != section {
		t.Errorf("tracker section differs:\n%s\nwant\n%s", r.TrackerSection(), section)
	}
	if got, _ := r.WorkingMemory(2000); got != wm {
		t.Errorf("working memory differs:\n%s\nwant\n%s", got, wm)
	}
	if r.Rehydration() != rehydration {
		t.Errorf("rehydration differs after resume")
	}
	mustAdd(t, r, chat.NewText(chat.RoleUser, "Now add a test."))
	next, err := r.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, rm := range next.Tail {
		if sent[rm.Key] {
			t.Errorf("reminder %q sent again after the resume", rm.Key)
		}
	}
	if next.Messages[1].Role != chat.RoleSystem || !strings.Contains(next.Messages[1].Text(), "func Parse") {
		t.Errorf("the resumed request does not carry the rehydration block after the static prompt")
	}
}

// TestRehydrationCaps: after a summarizing compaction at most 5 recently
// read files are re-read, newest first, each within its token cap.
func TestRehydrationCaps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := t.Context()
	e := openEngine(t, agentctx.Options{Dir: dir, Budget: 40_000, NoWorkspace: true,
		Rehydrate: agentctx.RehydrateOptions{FileTokens: 300}})
	mustAdd(t, e, chat.NewText(chat.RoleUser, "Read every file."))
	for i := range 7 {
		name := fmt.Sprintf("f%d.go", i)
		body := fmt.Sprintf("package f%d\n", i) + strings.Repeat(fmt.Sprintf("var v%d = %d // line\n", i, i), 200)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("r%d", i)
		mustAdd(t, e, call(id, "Read", fmt.Sprintf(`{"file_path":%q}`, name)), chat.NewToolResult(id, "Read", body, false))
	}
	mustAdd(t, e, chat.NewText(chat.RoleAssistant, "Done."), chat.NewText(chat.RoleUser, "Thanks."))
	if _, err := e.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	reh := e.Rehydration()
	for i := range 7 {
		in := strings.Contains(reh, fmt.Sprintf("### f%d.go", i))
		if want := i >= 2; in != want {
			t.Errorf("f%d.go in the rehydration: %v, want %v", i, in, want)
		}
	}
	if strings.Index(reh, "f6.go") > strings.Index(reh, "f2.go") {
		t.Errorf("files not newest first")
	}
	for _, part := range strings.Split(reh, "### ")[1:] {
		if n := e.Counter().Count(part); n > 300+40 {
			t.Errorf("a rehydrated file takes %d tokens, over its 300-token cap:\n%.200s", n, part)
		}
	}
}

// TestRemindersNotStored: reminders travel with the request only; the
// window and the session's message entries never hold them, and they are
// recorded on their own entries.
func TestRemindersNotStored(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	e := openEngine(t, agentctx.Options{Store: store, Dir: t.TempDir(), Budget: 20_000, NoWorkspace: true})
	mustAdd(t, e, chat.NewText(chat.RoleUser, "Check the config."),
		call("c1", "Bash", `{"command":"cat .env"}`),
		chat.NewToolResult("c1", "Bash", "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLQ\n", false))
	req, err := e.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != chat.RoleUser || !strings.Contains(last.Text(), "<system-reminder>") {
		t.Fatalf("the request's last message carries no reminder: %+v", last)
	}
	security := false
	for _, r := range req.Tail {
		if r.Kind == "security" {
			security = true
			if strings.Contains(r.Text, "AKIAIOSFODNN7EXAMPLQ") || !strings.Contains(last.Text(), r.Text) {
				t.Errorf("security reminder repeats the secret, or is not in the request: %q", r.Text)
			}
		}
	}
	if !security {
		t.Errorf("no security reminder for an AWS key in a tool result; tail %+v", req.Tail)
	}
	for i, m := range e.Messages() {
		if strings.Contains(m.Text(), "<system-reminder>") {
			t.Errorf("window message %d holds a reminder", i)
		}
	}
	// Building the request recorded nothing: the provider call may fail.
	tr, err := store.Load(ctx, e.ID(), session.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rs := session.Reminders(tr.Entries); len(rs) != 0 {
		t.Fatalf("reminders recorded before the request was sent: %+v", rs)
	}
	if err := req.Sent(ctx); err != nil {
		t.Fatal(err)
	}
	tr, err = store.Load(ctx, e.ID(), session.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := session.Messages(tr.Entries)
	for i, m := range msgs {
		if strings.Contains(m.Text(), "<system-reminder>") {
			t.Errorf("stored message %d holds a reminder", i)
		}
	}
	rs := session.Reminders(tr.Entries)
	if len(rs) == 0 || rs[0].Kind != "security" {
		t.Errorf("recorded reminders %+v, want the security reminder first", rs)
	}
}

// TestConcurrentEngines: engines on one store work in parallel, and one
// engine's methods called from several goroutines are serialized (run
// with -race).
func TestConcurrentEngines(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Sync: jsonlstore.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	dir := project(t)
	var wg sync.WaitGroup
	for s := range 4 {
		e := openEngine(t, agentctx.Options{Store: store, Dir: dir, Budget: 8000,
			Workspace: workspace.Options{Git: workspace.GitOptions{Disabled: true}}})
		mustAdd(t, e, chat.NewText(chat.RoleUser, fmt.Sprintf("task %d", s)))
		for g := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 20 {
					id := fmt.Sprintf("s%dg%di%d", s, g, i)
					if err := e.Add(ctx, call(id, "Read", `{"file_path":"parse.go"}`), chat.NewToolResult(id, "Read", strings.Repeat("x", 400), false)); err != nil {
						t.Error(err)
						return
					}
					if _, err := e.Request(ctx); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
}

// TestEngineErrors: bad input gets a clear error and leaves what is
// stored intact.
func TestEngineErrors(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := agentctx.Open(ctx, agentctx.Options{Store: store, SessionID: "../../etc", NoWorkspace: true}); !errors.Is(err, session.ErrInvalidID) {
		t.Errorf("Open with a path as id: %v, want ErrInvalidID", err)
	}
	if _, err := agentctx.Resume(ctx, "no-such-session", agentctx.Options{Store: store, NoWorkspace: true}); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Resume of a missing session: %v, want ErrNotFound", err)
	}
	if _, err := agentctx.Resume(ctx, "x", agentctx.Options{}); !errors.Is(err, agentctx.ErrNoStore) {
		t.Errorf("Resume without a store: %v, want ErrNoStore", err)
	}
	if _, err := agentctx.Open(ctx, agentctx.Options{Dir: filepath.Join(t.TempDir(), "missing")}); err == nil {
		t.Errorf("Open in a missing folder: nil error")
	}
	e, err := agentctx.Open(ctx, agentctx.Options{Store: store, NoWorkspace: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Add(ctx, chat.NewText(chat.RoleUser, "hello")); err != nil {
		t.Fatal(err)
	}
	err = e.Add(ctx, chat.NewText(chat.RoleAssistant, "kept"), chat.Message{Role: "robot"})
	if err == nil || !strings.Contains(err.Error(), "message 1") {
		t.Errorf("Add of an invalid message: %v, want an error naming message 1", err)
	}
	if got := len(e.Messages()); got != 2 {
		t.Errorf("%d messages after the failed Add, want 2 (the valid one before it kept)", got)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Add(ctx, chat.NewText(chat.RoleUser, "late")); !errors.Is(err, agentctx.ErrClosed) {
		t.Errorf("Add after Close: %v, want ErrClosed", err)
	}
	if _, err := e.Request(ctx); !errors.Is(err, agentctx.ErrClosed) {
		t.Errorf("Request after Close: %v, want ErrClosed", err)
	}
	r, err := agentctx.Resume(ctx, e.ID(), agentctx.Options{Store: store, NoWorkspace: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Messages(); len(got) != 2 || got[1].Text() != "kept" {
		t.Errorf("resumed %d messages, want the 2 stored", len(got))
	}
}

// mustAdd adds msgs to e and fails the test on an error.
func mustAdd(t testing.TB, e *agentctx.Engine, msgs ...chat.Message) {
	t.Helper()
	if err := e.Add(t.Context(), msgs...); err != nil {
		t.Fatal(err)
	}
}
