package agentctx_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/session/jsonlstore"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/window"
)

// The engine reports its window through snapshots (WindowStats, Check,
// Breakdown), what the limiter did (Limited), and hands the window out
// only when closed (CloseWindow).
func TestEngineInspection(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := openEngine(t, agentctx.Options{Dir: t.TempDir(), NoWorkspace: true, Budget: 4000})
	if err := e.Add(ctx, chat.NewText(chat.RoleUser, "list the files")); err != nil {
		t.Fatal(err)
	}
	s := e.WindowStats()
	if s.Messages != 1 || s.LastRole != chat.RoleUser || s.LastTokens <= 0 || s.Budget != 4000 || s.Size != s.Tokens {
		t.Fatalf("after one user message: %+v", s)
	}
	args, _ := json.Marshal(map[string]string{"command": "ls"})
	if err := e.Add(ctx, chat.NewAssistant("listing", chat.ToolCall{ID: "c1", Name: "Bash", Arguments: args})); err != nil {
		t.Fatal(err)
	}
	if r, n := e.Limited(); r != 0 || n != 0 {
		t.Fatalf("Limited before a long result = %d, %d", r, n)
	}
	long := strings.Repeat("file.go\n", 4000)
	if err := e.Add(ctx, chat.NewToolResult("c1", "Bash", long, false)); err != nil {
		t.Fatal(err)
	}
	results, runes := e.Limited()
	if results != 1 || runes <= 0 {
		t.Fatalf("Limited after a long result = %d, %d; want 1 result cut", results, runes)
	}
	after := e.WindowStats()
	if after.Messages != 3 || after.LastRole != chat.RoleTool || after.LastTokens >= e.Counter().Count(long) {
		t.Fatalf("after the cut result: %+v (whole result %d tokens)", after, e.Counter().Count(long))
	}
	// The tokens kept out: the whole message's size less the cut one's.
	whole := token.Message(e.Counter(), after.Overhead, chat.NewToolResult("c1", "Bash", long, false))
	if got, want := e.LimitedTokens(), whole-after.LastTokens; got != want || got <= 0 {
		t.Errorf("LimitedTokens = %d, want %d (whole message %d, cut %d)", got, want, whole, after.LastTokens)
	}
	if after.Tokens <= s.Tokens || after.Size > after.Budget {
		t.Errorf("sizes: before %+v, after %+v", s, after)
	}
	if vs := e.Check(); len(vs) > 0 {
		t.Errorf("Check = %v", vs)
	}
	if b := e.Breakdown(); b.User <= 0 || b.Assistant <= 0 {
		t.Errorf("Breakdown = %+v; want user and assistant text", b)
	}
	req, err := e.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p := req.Provider(); len(p.Messages) != len(req.Messages) || p.Model != req.Model {
		t.Errorf("Provider() = %d messages, model %q; request %d, %q", len(p.Messages), p.Model, len(req.Messages), req.Model)
	}
	w, err := e.CloseWindow()
	if err != nil {
		t.Fatal(err)
	}
	if w.Len() != 3 || w.Tokens() != e.WindowStats().Tokens {
		t.Errorf("CloseWindow: %d messages, %d tokens; stats %+v", w.Len(), w.Tokens(), e.WindowStats())
	}
	if err := e.Add(ctx, chat.NewText(chat.RoleUser, "more")); err == nil {
		t.Error("Add after CloseWindow: no error")
	}
}

// ownStrategy is a caller's strategy: it records its parameters, keeps
// per-window state and names its threshold, and the engine drives it
// through compact's interfaces alone.
type ownStrategy struct {
	Keep  int `json:"keep"`
	calls int
	// fresh, when set, sees every copy Fresh makes.
	fresh func(*ownStrategy)
}

func (s *ownStrategy) Name() string { return "own-engine-test" }
func (s *ownStrategy) Compact(context.Context, *window.Window) ([]compact.Record, error) {
	s.calls++
	return nil, nil
}
func (s *ownStrategy) Config() (json.RawMessage, error) { return json.Marshal(s) }
func (s *ownStrategy) Fresh() compact.Stateful {
	c := &ownStrategy{Keep: s.Keep, fresh: s.fresh}
	if c.fresh != nil {
		c.fresh(c)
	}
	return c
}
func (s *ownStrategy) MarshalState() (json.RawMessage, error) {
	return json.Marshal(map[string]int{"calls": s.calls})
}
func (s *ownStrategy) UnmarshalState(b json.RawMessage) error {
	var st map[string]int
	if err := json.Unmarshal(b, &st); err != nil {
		return err
	}
	s.calls = st["calls"]
	return nil
}
func (s *ownStrategy) Calls() int     { return s.calls }
func (s *ownStrategy) SetCalls(n int) { s.calls = n }

func TestOwnStrategyResumes(t *testing.T) {
	t.Parallel()
	var (
		built []string
		live  *ownStrategy
	)
	compact.Register("own-engine-test", func(c json.RawMessage, _ compact.BuildOptions) (compact.Strategy, error) {
		built = append(built, string(c))
		s := &ownStrategy{fresh: func(c *ownStrategy) { live = c }}
		return s, json.Unmarshal(c, s)
	})
	store, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	e, err := agentctx.Open(ctx, agentctx.Options{Dir: t.TempDir(), NoWorkspace: true, Budget: 4000, Store: store, Strategy: &ownStrategy{Keep: 7}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Add(ctx, chat.NewText(chat.RoleUser, "hello")); err != nil {
		t.Fatal(err)
	}
	for range 2 { // a retry counts one model call
		if _, err := e.Request(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Add(ctx, chat.NewText(chat.RoleAssistant, "hi")); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := agentctx.Resume(ctx, e.ID(), agentctx.Options{Store: store, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if len(built) != 1 || built[0] != `{"keep":7}` {
		t.Fatalf("builder called with %q; want the recorded {\"keep\":7}", built)
	}
	for _, w := range r.Warnings() {
		if strings.Contains(w, "strategy") {
			t.Errorf("warning: %s", w)
		}
	}
	// The resumed strategy got the saved state: one committed model call
	// (the request built twice counts once), and counts the next.
	if live == nil || live.Keep != 7 || live.calls != 1 {
		t.Fatalf("resumed strategy %+v; want keep 7 and 1 call", live)
	}
	req, err := r.Request(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := req.Sent(ctx); err != nil {
		t.Fatal(err)
	}
	if live.calls != 2 {
		t.Errorf("after one more model call: %d calls, want 2", live.calls)
	}
}
