package agentctx_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/internal/sharedtest"
	"github.com/agentctx/agentctx/prompt"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/transcript"
)

// newStore opens a jsonlstore in a temporary folder.
func newStore(t testing.TB) session.Store {
	t.Helper()
	s, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Sync: jsonlstore.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// wire returns the request as the provider would see it: the messages in
// the OpenAI and the Anthropic shapes, and the tools, as JSON.
func wire(t testing.TB, req *agentctx.Request) string {
	t.Helper()
	oa, err := chat.ToOpenAI(req.Messages)
	if err != nil {
		t.Fatal(err)
	}
	// A system message in mid-conversation (Codex's developer messages)
	// has no Anthropic shape: compare the OpenAI one alone then.
	system, an, err := chat.ToAnthropic(req.Messages)
	if err != nil {
		system, an = chat.AnthropicContent{}, nil
	}
	b, err := json.Marshal(struct {
		OpenAI     any
		System     any
		Anthropic  any
		Tools      []chat.ToolDef
		CacheAfter []int
		Tokens     int
	}{oa, system, an, req.Tools, req.CacheAfter, req.Tokens})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertPaired checks the provider ordering rule both APIs share: every
// tool call is answered by its result before any other message, and every
// result answers a call of the message before it.
func assertPaired(t testing.TB, where string, msgs []chat.Message) {
	t.Helper()
	open := map[string]bool{}
	for i, m := range msgs {
		switch m.Role {
		case chat.RoleTool:
			r, _ := m.ToolResult()
			if !open[r.ToolCallID] {
				t.Fatalf("%s: message %d: tool result %s answers no open call", where, i, r.ToolCallID)
			}
			delete(open, r.ToolCallID)
		default:
			if len(open) > 0 {
				t.Fatalf("%s: message %d (%s) follows %d unanswered tool calls", where, i, m.Role, len(open))
			}
			for _, c := range m.ToolCalls() {
				open[c.ID] = true
			}
		}
	}
	if len(open) > 0 {
		t.Fatalf("%s: the request ends with %d unanswered tool calls", where, len(open))
	}
}

func TestInterruptedCalls(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, tc := range []struct {
		name     string
		answered []string // results that came before the interrupt
		want     []string // calls answered as interrupted
	}{
		{"after the call", nil, []string{"a"}},
		{"after some of several parallel calls", []string{"b"}, []string{"a", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := newStore(t)
			e := openEngine(t, agentctx.Options{Store: store, Dir: t.TempDir(), Budget: 20_000, NoWorkspace: true})
			calls := chat.Message{Role: chat.RoleAssistant}
			for _, id := range []string{"a", "b", "c"}[:max(1, len(tc.want)+len(tc.answered))] {
				calls.Parts = append(calls.Parts, chat.ToolCall{ID: id, Name: "Bash", Arguments: json.RawMessage(`{"command":"sleep 30"}`)})
			}
			msgs := []chat.Message{chat.NewText(chat.RoleUser, "run it"), calls}
			for _, id := range tc.answered {
				msgs = append(msgs, chat.NewToolResult(id, "Bash", "ok", false))
			}
			msgs = append(msgs, chat.NewText(chat.RoleUser, "stop, do something else"))
			if err := e.Add(ctx, msgs...); err != nil {
				t.Fatal(err)
			}
			if vs := e.Check(); len(vs) > 0 {
				t.Fatalf("Check: %v", vs)
			}
			req, err := e.Request(ctx)
			if err != nil {
				t.Fatal(err)
			}
			assertPaired(t, "request", req.Messages)
			if got := e.Stats().Interrupted; got != len(tc.want) {
				t.Errorf("Stats().Interrupted = %d, want %d", got, len(tc.want))
			}
			// The session records the synthetic results as such, in the
			// calls' order, before the user's message.
			tr, err := store.Load(ctx, e.ID(), session.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			stored, _ := session.Messages(tr.Entries)
			var got []string
			for _, m := range stored {
				if r, ok := m.ToolResult(); ok && r.Content == agentctx.InterruptedResult {
					if !r.IsError {
						t.Errorf("synthetic result of %s without the error flag", r.ToolCallID)
					}
					got = append(got, r.ToolCallID)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("stored synthetic results %v, want %v", got, tc.want)
			}
			if last := stored[len(stored)-1]; last.Role != chat.RoleUser {
				t.Errorf("the user's message is not last in the session: %s", last.Role)
			}
		})
	}

	t.Run("across a resume", func(t *testing.T) {
		t.Parallel()
		store := newStore(t)
		e := openEngine(t, agentctx.Options{Store: store, Dir: t.TempDir(), Budget: 20_000, NoWorkspace: true})
		if err := e.Add(ctx, chat.NewText(chat.RoleUser, "run it"), call("a", "Bash", `{"command":"make"}`)); err != nil {
			t.Fatal(err)
		}
		// The process dies before the tool returns; a new one resumes
		// and asks for the next request at once.
		id := e.ID()
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := agentctx.Resume(ctx, id, agentctx.Options{Store: store})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		req, err := r.Request(ctx)
		if err != nil {
			t.Fatal(err)
		}
		assertPaired(t, "resumed request", req.Messages)
		if len(req.Interrupted) != 1 || req.Interrupted[0].ID != "a" {
			t.Fatalf("Interrupted = %v, want call a", req.Interrupted)
		}
		// A retry does not answer it twice.
		again, err := r.Request(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(again.Interrupted) != 0 || wire(t, again) != wire(t, req) {
			t.Fatalf("the retried request differs from the first")
		}
	})
}

// TestRetryIsIdentical: at every model call of every real trajectory, a
// request built again before the first was sent (a provider failure and
// a retry) is the same request, byte for byte, with the same reminders;
// and the reminders are recorded once, when the reply comes.
func TestRetryIsIdentical(t *testing.T) {
	t.Parallel()
	for _, file := range sharedtest.Files(t) {
		trs, err := transcript.ReadFile(file, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tr := trs[0]
		for _, strategy := range []string{"summarize", "tiered", "mask"} {
			t.Run(filepath.Base(file)+"/"+strategy, func(t *testing.T) {
				t.Parallel()
				ctx := t.Context()
				store := newStore(t)
				e := openEngine(t, agentctx.Options{Store: store, Dir: t.TempDir(), Model: tr.Model, Budget: 8000,
					Tools: tr.Tools, SystemPrompt: "You are a coding agent.", NoWorkspace: true, Strategy: strategyNamed(strategy)})
				sent := 0
				for i, m := range tr.Messages {
					if m.Role == chat.RoleAssistant {
						first, err := e.Request(ctx)
						if err != nil {
							t.Fatal(err)
						}
						retry, err := e.Request(ctx)
						if err != nil {
							t.Fatal(err)
						}
						if a, b := wire(t, first), wire(t, retry); a != b {
							t.Fatalf("message %d: the retried request differs: %s", i, firstDiff(a, b))
						}
						if len(retry.Compactions) > 0 {
							t.Fatalf("message %d: the retry compacted again: %v", i, retry.Compactions)
						}
						if err := first.Sent(ctx); !errors.Is(err, agentctx.ErrStaleRequest) {
							t.Fatalf("Sent on a replaced request = %v, want ErrStaleRequest", err)
						}
						sent += len(retry.Tail) - countTail(retry)
					}
					if err := e.Add(ctx, m); err != nil {
						t.Fatalf("message %d: %v", i, err)
					}
				}
				st, err := store.Load(ctx, e.ID(), session.LoadOptions{All: true})
				if err != nil {
					t.Fatal(err)
				}
				if got := len(session.Reminders(st.Entries)); got != e.Stats().Reminders || got != sent {
					t.Errorf("recorded %d reminders, Stats says %d, the requests carried %d", got, e.Stats().Reminders, sent)
				}
			})
		}
	}
}

// countTail counts the tail parts of req that are not reminders.
func countTail(req *agentctx.Request) int {
	n := 0
	for _, r := range req.Tail {
		if r.Kind == prompt.KindTracker || r.Kind == prompt.KindWorkingMemory {
			n++
		}
	}
	return n
}

func strategyNamed(name string) compact.Strategy {
	switch name {
	case "tiered":
		return &compact.Tiered{}
	case "mask":
		return &compact.Mask{}
	}
	return &compact.Summarize{}
}

// TestResumeContinuesIdentically: a session opened with a budget, tool
// schemas, a system prompt and a strategy, stopped at several points and
// resumed with nothing but the store, sends the very requests the
// uninterrupted session sends, on every real trajectory.
func TestResumeContinuesIdentically(t *testing.T) {
	t.Parallel()
	for _, file := range sharedtest.Files(t) {
		trs, err := transcript.ReadFile(file, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tr := trs[0]
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			opts := agentctx.Options{Dir: t.TempDir(), Model: tr.Model, Budget: 6000, Tools: tr.Tools,
				SystemPrompt: "You are a coding agent.", NoWorkspace: true, Strategy: &compact.Tiered{L1: 0.5}}
			base := opts
			base.Store = newStore(t)
			want := openEngine(t, base)
			live := opts
			live.Store = newStore(t)
			e := openEngine(t, live)
			stops := map[int]bool{len(tr.Messages) / 3: true, 2 * len(tr.Messages) / 3: true, len(tr.Messages) - 1: true}
			for i, m := range tr.Messages {
				if stops[i] {
					id := e.ID()
					if err := e.Close(); err != nil {
						t.Fatal(err)
					}
					e, err = agentctx.Resume(ctx, id, agentctx.Options{Store: live.Store})
					if err != nil {
						t.Fatal(err)
					}
					if e.Budget() != 6000 || e.BudgetSource() != agentctx.BudgetFromOption {
						t.Fatalf("resumed with budget %d (%s), want 6000 (option)", e.Budget(), e.BudgetSource())
					}
					if w, w0 := e.Warnings(), want.Warnings(); fmt.Sprint(w) != fmt.Sprint(w0) {
						t.Fatalf("resume warned: %v", w)
					}
				}
				if m.Role == chat.RoleAssistant {
					a, err := want.Request(ctx)
					if err != nil {
						t.Fatal(err)
					}
					b, err := e.Request(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if wa, wb := wire(t, a), wire(t, b); wa != wb {
						t.Fatalf("message %d: the resumed session's request differs: %s", i, firstDiff(wa, wb))
					}
				}
				if err := want.Add(ctx, m); err != nil {
					t.Fatal(err)
				}
				if err := e.Add(ctx, m); err != nil {
					t.Fatal(err)
				}
			}
			e.Close()
		})
	}
}

func TestResumeOverride(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store := newStore(t)
	tools := []chat.ToolDef{{Name: "read_file", Parameters: json.RawMessage(`{"type":"object"}`)}}
	e := openEngine(t, agentctx.Options{Store: store, Dir: t.TempDir(), Budget: 4000, Tools: tools,
		SystemPrompt: "Be brief.", NoWorkspace: true})
	if err := e.Add(ctx, chat.NewText(chat.RoleUser, "hello")); err != nil {
		t.Fatal(err)
	}
	id := e.ID()
	e.Close()
	r, err := agentctx.Resume(ctx, id, agentctx.Options{Store: store, Budget: 9000})
	if err != nil {
		t.Fatal(err)
	}
	if r.Budget() != 9000 || !strings.Contains(strings.Join(r.Warnings(), "\n"), "budget (was 4000)") {
		t.Fatalf("override: budget %d, warnings %v", r.Budget(), r.Warnings())
	}
	req, err := r.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Tools) != 1 || req.Messages[0].Text() != "Be brief." {
		t.Fatalf("resumed request lost the tools or the system prompt: %d tools, first %q", len(req.Tools), req.Messages[0].Text())
	}
	r.Close()
	// The override is recorded: the next resume comes back with it.
	r2, err := agentctx.Resume(ctx, id, agentctx.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if r2.Budget() != 9000 {
		t.Fatalf("second resume: budget %d, want the recorded override 9000", r2.Budget())
	}
}

// firstDiff shows where a and b first differ, with some context.
func firstDiff(a, b string) string {
	k := 0
	for k < min(len(a), len(b)) && a[k] == b[k] {
		k++
	}
	from := max(0, k-200)
	return fmt.Sprintf("at byte %d of %d/%d:\n…%.400s\n…%.400s", k, len(a), len(b), a[from:], b[from:])
}

// TestResumeHostileConfig: a recorded configuration that is damaged (an
// unknown strategy, a negative budget, a state that is not an object)
// gives a warning on Resume and defaults, never a panic or a failure, and the
// session's messages are untouched.
func TestResumeHostileConfig(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, tc := range []struct {
		name, state string
	}{
		{"unknown strategy", `{"config":{"model":"gpt-4o","budget":5000,"budget_source":"option","strategy":{"name":"nope"}}}`},
		{"negative budget", `{"config":{"model":"gpt-4o","budget":-7,"budget_source":"option","strategy":{"name":"tiered"}}}`},
		{"not an object", `[1,2,3]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := newStore(t)
			e := openEngine(t, agentctx.Options{Store: store, Dir: t.TempDir(), Budget: 9000, NoWorkspace: true})
			mustAdd(t, e, chat.NewText(chat.RoleUser, "hello"), chat.NewText(chat.RoleAssistant, "hi"))
			id := e.ID()
			e.Close()
			en, err := session.NewStateEntry(json.RawMessage(tc.state))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := store.Append(ctx, id, en); err != nil {
				t.Fatal(err)
			}
			r, err := agentctx.Resume(ctx, id, agentctx.Options{Store: store})
			{
				if err != nil {
					t.Fatalf("Resume: %v", err)
				}
				if got := len(r.Messages()); got != 2 {
					t.Errorf("resumed with %d messages, want 2", got)
				}
				if r.Budget() <= 0 {
					t.Errorf("resumed with budget %d", r.Budget())
				}
				if tc.name != "not an object" && len(r.Warnings()) == 0 {
					t.Errorf("no warning for a damaged configuration")
				}
				r.Close()
			}
			tr, err := store.Load(ctx, id, session.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if msgs, _ := session.Messages(tr.Entries); len(msgs) != 2 {
				t.Errorf("the session holds %d messages after the resume, want 2", len(msgs))
			}
		})
	}
}
