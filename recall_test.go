package agentctx_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentctx/agentctx"
	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/session"
	"github.com/agentctx/agentctx/session/jsonlstore"
)

// TestRecallCutOutput: a search result the limiter cut is read back, by
// lines and by bytes, exactly as the tool returned it, with a store and
// without one.
func TestRecallCutOutput(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "src/pkg%d/file.go:%d:\tif err := parse(%d); err != nil {\n", i%17, i, i)
	}
	full := b.String()
	lines := strings.SplitAfter(full, "\n")
	for _, withStore := range []bool{true, false} {
		t.Run(fmt.Sprint("store=", withStore), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			opts := agentctx.Options{Dir: t.TempDir(), Budget: 8000, NoWorkspace: true, Tools: []chat.ToolDef{agentctx.RecallTool()}}
			if withStore {
				opts.Store = newStore(t)
			}
			e := openEngine(t, opts)
			if err := e.Add(ctx, chat.NewText(chat.RoleUser, "find the parse calls"),
				call("s1", "Grep", `{"pattern":"parse("}`),
				chat.NewToolResult("s1", "Grep", full, false)); err != nil {
				t.Fatal(err)
			}
			msgs := e.Messages()
			cut, _ := msgs[len(msgs)-1].ToolResult()
			if len(cut.Content) >= len(full) {
				t.Fatalf("the limiter did not cut a %d-byte result at an 8,000-token budget", len(full))
			}
			// The model asks for lines 1001-1040.
			res := e.HandleRecall(ctx, chat.ToolCall{ID: "r1", Name: agentctx.RecallToolName,
				Arguments: json.RawMessage(`{"call_id":"s1","start_line":1001,"end_line":1040}`)})
			if res.IsError {
				t.Fatalf("recall failed: %s", res.Content)
			}
			head, body, _ := strings.Cut(res.Content, "\n")
			if want := strings.Join(lines[1000:1040], ""); body != want {
				t.Fatalf("recalled lines differ:\n%q\nwant\n%q", body, want)
			}
			if !strings.Contains(head, "lines 1001-1040 of 3000") {
				t.Errorf("header %q does not say which lines", head)
			}
			// By bytes.
			got, err := e.Recall(ctx, agentctx.RecallArgs{CallID: "s1", Offset: 100, Length: 50})
			if err != nil {
				t.Fatal(err)
			}
			if _, body, _ := strings.Cut(got, "\n"); body != full[100:150] {
				t.Fatalf("recalled bytes %q, want %q", body, full[100:150])
			}
			// The whole output comes back in pieces of at most 400 lines.
			got, err = e.Recall(ctx, agentctx.RecallArgs{CallID: "s1"})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, "ask again from line 401") || strings.Count(got, "\n") != agentctx.RecallMaxLines+1 {
				t.Errorf("an unbounded recall is not cut at %d lines: %d lines, %.200q", agentctx.RecallMaxLines, strings.Count(got, "\n"), got)
			}
			// Bad calls are errors the model can read.
			for _, args := range []string{`{"call_id":"nope"}`, `{"call_id":"s1","start_line":5000}`, `{`} {
				res := e.HandleRecall(ctx, chat.ToolCall{ID: "r2", Name: agentctx.RecallToolName, Arguments: json.RawMessage(args)})
				if !res.IsError || res.Content == "" {
					t.Errorf("recall %s: not an error: %q", args, res.Content)
				}
			}
			if _, err := e.Recall(ctx, agentctx.RecallArgs{CallID: "nope"}); !errors.Is(err, agentctx.ErrNoOutput) {
				t.Errorf("Recall(unknown id) = %v, want ErrNoOutput", err)
			}
		})
	}
}

// TestRecallMemoryCap: without a store, full outputs are kept in memory up
// to RecallCacheBytes, the oldest forgotten first.
func TestRecallMemoryCap(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e := openEngine(t, agentctx.Options{Dir: t.TempDir(), NoWorkspace: true, RecallCacheBytes: 1000})
	out := strings.Repeat("x", 599) + "\n"
	if err := e.Add(ctx, chat.NewText(chat.RoleUser, "go"),
		call("a", "Bash", `{"command":"a"}`), chat.NewToolResult("a", "Bash", out, false),
		call("b", "Bash", `{"command":"b"}`), chat.NewToolResult("b", "Bash", out, false)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Recall(ctx, agentctx.RecallArgs{CallID: "a"}); !errors.Is(err, agentctx.ErrNoOutput) {
		t.Errorf("the oldest output over the cap: Recall = %v, want ErrNoOutput", err)
	}
	if got, err := e.Recall(ctx, agentctx.RecallArgs{CallID: "b"}); err != nil || !strings.HasSuffix(got, out) {
		t.Errorf("the newest output: Recall = %.80q, %v", got, err)
	}
}

// FuzzRecall: any output and any recall_output arguments give a result
// or an error the model can read, never a panic; a result holds only
// bytes of the output, after its one header line.
func FuzzRecall(f *testing.F) {
	f.Add("a\nb\nc\n", `{"call_id":"x","start_line":2,"end_line":3}`)
	f.Add("one long line", `{"call_id":"x","offset":4,"length":3}`)
	f.Add("", `{"call_id":"x"}`)
	f.Add("a\n", `{"call_id":"x","start_line":-5,"end_line":-1,"offset":-3}`)
	f.Add("alpha\nBeta\ngamma beta\n", `{"call_id":"x","query":"BETA"}`)
	f.Add("a\n", `{"span_id":"s1","query":"a"}`)
	f.Fuzz(func(t *testing.T, out, args string) {
		ctx := t.Context()
		e, err := agentctx.Open(ctx, agentctx.Options{Dir: t.TempDir(), NoWorkspace: true, NoWorkingMemory: true, NoReminders: true})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if err := e.Add(ctx, chat.NewText(chat.RoleUser, "go"), call("x", "Bash", `{}`), chat.NewToolResult("x", "Bash", out, false)); err != nil {
			t.Fatal(err)
		}
		res := e.HandleRecall(ctx, chat.ToolCall{ID: "r", Name: agentctx.RecallToolName, Arguments: json.RawMessage(args)})
		if res.Content == "" {
			t.Fatalf("empty recall answer for %q", args)
		}
		if res.IsError {
			return
		}
		_, body, _ := strings.Cut(res.Content, "\n")
		var a agentctx.RecallArgs
		if json.Unmarshal([]byte(args), &a) == nil && a.Query != "" {
			// Numbered lines of the output, each holding the query.
			for line := range strings.Lines(body) {
				_, text, ok := strings.Cut(line, ": ")
				text = strings.TrimRight(text, "\n")
				if !ok || !strings.Contains(out, text) || !strings.Contains(strings.ToLower(text), strings.ToLower(a.Query)) {
					t.Fatalf("query %q of %q returned a line not in the output or without the query: %q", a.Query, out, line)
				}
			}
			return
		}
		if !strings.Contains(out, body) {
			t.Fatalf("recall of %q with %s returned bytes not in the output: %q", out, args, body)
		}
	})
}

// loadCounter counts the session loads made through a store.
type loadCounter struct {
	session.Store
	loads atomic.Int32
}

func (s *loadCounter) Load(ctx context.Context, id string, opts session.LoadOptions) (*session.Transcript, error) {
	s.loads.Add(1)
	return s.Store.Load(ctx, id, opts)
}

// TestRecallUnknownReadsOnce: a recall of a call the session has no result
// for is answered without reading the session back when the engine has
// seen every result (a session it created, or one it read whole once);
// a known output the memory cap forgot is still read from the store
// (issue 29: every such recall loaded the whole session).
func TestRecallUnknownReadsOnce(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	js, err := jsonlstore.Open(jsonlstore.Options{Root: t.TempDir(), Sync: jsonlstore.SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	st := &loadCounter{Store: js}
	opts := agentctx.Options{Dir: t.TempDir(), NoWorkspace: true, Store: st, RecallCacheBytes: 1000}
	e := openEngine(t, opts)
	out := strings.Repeat("y", 599) + "\n"
	if err := e.Add(ctx, chat.NewText(chat.RoleUser, "go"),
		call("a", "Bash", `{"command":"a"}`), chat.NewToolResult("a", "Bash", out, false),
		call("b", "Bash", `{"command":"b"}`), chat.NewToolResult("b", "Bash", out, false)); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := e.Recall(ctx, agentctx.RecallArgs{CallID: "nope"}); !errors.Is(err, agentctx.ErrNoOutput) {
			t.Fatalf("unknown call: Recall = %v, want ErrNoOutput", err)
		}
	}
	if n := st.loads.Load(); n != 0 {
		t.Errorf("a new session's unknown recalls loaded it %d times, want 0", n)
	}
	// "a" was forgotten by the cap: read from the store.
	if got, err := e.Recall(ctx, agentctx.RecallArgs{CallID: "a"}); err != nil || !strings.HasSuffix(got, out) {
		t.Errorf("forgotten output: Recall = %.80q, %v", got, err)
	}
	if n := st.loads.Load(); n != 1 {
		t.Errorf("the forgotten output: %d loads, want 1", n)
	}
	id := e.ID()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := agentctx.Resume(ctx, id, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	before := st.loads.Load()
	for range 3 {
		if _, err := r.Recall(ctx, agentctx.RecallArgs{CallID: "nope"}); !errors.Is(err, agentctx.ErrNoOutput) {
			t.Fatalf("resumed, unknown call: Recall = %v, want ErrNoOutput", err)
		}
	}
	if n := st.loads.Load() - before; n != 1 {
		t.Errorf("a resumed session's unknown recalls loaded it %d times, want 1 (the first)", n)
	}
	if got, err := r.Recall(ctx, agentctx.RecallArgs{CallID: "b"}); err != nil || !strings.HasSuffix(got, out) {
		t.Errorf("resumed: Recall(b) = %.80q, %v", got, err)
	}
	if err := r.Add(ctx, call("c", "Bash", `{"command":"c"}`), chat.NewToolResult("c", "Bash", "new\n", false)); err != nil {
		t.Fatal(err)
	}
	if got, err := r.Recall(ctx, agentctx.RecallArgs{CallID: "c"}); err != nil || !strings.HasSuffix(got, "new\n") {
		t.Errorf("resumed: Recall(c) = %q, %v", got, err)
	}
}
