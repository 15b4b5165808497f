package window_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/token"
	"github.com/agentctx/agentctx/window"
	"github.com/google/go-cmp/cmp"
)

func TestNew(t *testing.T) {
	t.Parallel()
	for _, opts := range []window.Options{{Budget: -1}, {Reserved: -1}} {
		if _, err := window.New(opts); err == nil {
			t.Errorf("New(%+v) = nil error, want one", opts)
		}
	}
	// The zero Options: the exact o200k_base counter and OpenAI overhead.
	w, err := window.New(window.Options{})
	if err != nil {
		t.Fatalf("New(zero): %v", err)
	}
	if got := w.Counter().Name(); got != token.O200kBase {
		t.Errorf("default counter = %q, want %q", got, token.O200kBase)
	}
	if got := w.Overhead(); got != token.OpenAIOverhead {
		t.Errorf("default overhead = %+v, want %+v", got, token.OpenAIOverhead)
	}
	if got, want := w.Tokens(), token.OpenAIOverhead.ReplyPriming; got != want {
		t.Errorf("empty window Tokens() = %d, want the reply priming %d", got, want)
	}
	mustAdd(t, w, user("Fix the failing test in 中文 parser.go, please."))
	check(t, w)
}

func TestAddAccounting(t *testing.T) {
	t.Parallel()
	thinking := chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{
		chat.Thinking{Text: "let me look", Encrypted: strings.Repeat("QUJD", 40)},
		chat.Text{Text: "I'll read it."},
		call("c1", "read", `{"file_path":"a.go"}`),
		call("c2", "bash", `{"command":"go test ./..."}`),
	}}
	named := user("hi")
	named.Name = "alice"
	image := chat.Message{Role: chat.RoleUser, Parts: []chat.Part{chat.Text{Text: "see"}, chat.Image{Width: 100, Height: 100}, chat.Text{Text: "this"}}}
	seqs := []struct {
		name     string
		reserved int
		overhead *token.Overhead
		msgs     []chat.Message
	}{
		{"text", 0, nil, []chat.Message{sys("be brief"), user("hello"), asst("hi"), user("")}},
		{"rounds", 0, nil, []chat.Message{user("go"), thinking, result("c2", "ok"), chat.NewToolResult("c1", "", "package a", true)}},
		{"name and image", 0, nil, []chat.Message{named, image}},
		{"reserved", 1234, nil, []chat.Message{sys("s"), user("u")}},
		{"seed overhead", 0, &token.SeedOverhead, []chat.Message{user("u"), calls("x"), result("x", "r")}},
	}
	for _, tc := range seqs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWindow(t, window.Options{Reserved: tc.reserved, Overhead: tc.overhead})
			check(t, w)
			for _, m := range tc.msgs {
				before := w.Tokens()
				mustAdd(t, w, m)
				check(t, w)
				if got, want := w.Tokens()-before, w.Count(m); got != want {
					t.Errorf("Add(%s) grew Tokens by %d, want Count = %d", m.Role, got, want)
				}
			}
			if got, want := w.Len(), len(tc.msgs); got != want {
				t.Errorf("Len() = %d, want %d", got, want)
			}
		})
	}
}

func TestAddByteCounts(t *testing.T) {
	t.Parallel()
	// Worked out by hand with one token per byte: a check that Add counts
	// what token.Message documents, not just what it computes.
	w := newWindow(t, window.Options{Reserved: 7})
	mustAdd(t, w, user("hello"))                                                                        // 3+1+5
	mustAdd(t, w, chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{call("id", "read", `{}`)}}) // 3+1 + 4+2+10
	mustAdd(t, w, result("id", "abc"))                                                                  // 3+1+3
	want := 7 + 3 + 9 + 20 + 7
	if got := w.Tokens(); got != want {
		t.Errorf("Tokens() = %d, want %d", got, want)
	}
	w.SetReserved(-5)
	if got, want := w.Reserved(), 0; got != want {
		t.Errorf("SetReserved(-5): Reserved() = %d, want %d", got, want)
	}
	if got := w.Tokens(); got != want-7 {
		t.Errorf("Tokens() after SetReserved = %d, want %d", got, want-7)
	}
	check(t, w)
}

func TestSizeRatioFits(t *testing.T) {
	t.Parallel()
	// user("0123456789") costs 4+10; with priming 3 and reserve 6, Tokens = 23.
	const size = 23
	cases := []struct {
		name   string
		budget int
		ratio  float64
		fits   bool
	}{
		{"no budget", 0, 0, true},
		{"negative budget is none", -10, 0, true},
		{"exact fit", size, 1, true},
		{"one over", size - 1, float64(size) / float64(size-1), false},
		{"half", 2 * size, 0.5, true},
		{"tiny", 1, size, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWindow(t, window.Options{Reserved: 6})
			mustAdd(t, w, user("0123456789"))
			w.SetBudget(tc.budget)
			if got := w.Tokens(); got != size {
				t.Fatalf("Tokens() = %d, want %d", got, size)
			}
			if got := w.Size(); got != size {
				t.Errorf("Size() = %d, want %d", got, size)
			}
			if got := w.Budget(); got != max(tc.budget, 0) {
				t.Errorf("Budget() = %d, want %d", got, max(tc.budget, 0))
			}
			if got := w.Ratio(); got != tc.ratio {
				t.Errorf("Ratio() = %v, want %v", got, tc.ratio)
			}
			if got := w.Fits(); got != tc.fits {
				t.Errorf("Fits() = %v, want %v", got, tc.fits)
			}
		})
	}
}

func TestAnchored(t *testing.T) {
	t.Parallel()
	w := newWindow(t, window.Options{Budget: 1000})
	mustAdd(t, w, sys("system"), user("question"))
	if n, ok := w.Anchored(); ok || n != w.Tokens() {
		t.Fatalf("Anchored() before any usage = %d, %v; want %d, false", n, ok, w.Tokens())
	}
	// The provider says the prompt of the call was 500 tokens (incl. cache).
	reply := calls("c1")
	reply.Usage = &chat.Usage{InputTokens: 100, CacheReadTokens: 350, CacheWriteTokens: 50, OutputTokens: 30}
	mustAdd(t, w, reply)
	want := 500 + w.TokensAt(2)
	if n, ok := w.Anchored(); !ok || n != want {
		t.Fatalf("Anchored() after usage = %d, %v; want reported 500 + the reply %d = %d", n, ok, w.TokensAt(2), want)
	}
	if a := w.Anchor(); !a.Set || a.Reported != 500 {
		t.Errorf("Anchor() = %+v, want Reported 500, Set", a)
	}
	mustAdd(t, w, result("c1", "file content"), user("and now?"))
	want += w.TokensAt(3) + w.TokensAt(4)
	if n, _ := w.Anchored(); n != want {
		t.Errorf("Anchored() = %d, want reported + later additions = %d", n, want)
	}
	// Options.Anchored is off: Size is the local count.
	if got := w.Size(); got != w.Tokens() {
		t.Errorf("Size() = %d, want Tokens() = %d without Options.Anchored", got, w.Tokens())
	}
	// All-zero usage means unknown: it does not move the anchor.
	zero := asst("done")
	zero.Usage = &chat.Usage{}
	mustAdd(t, w, zero)
	want += w.TokensAt(5)
	if n, _ := w.Anchored(); n != want {
		t.Errorf("Anchored() after zero usage = %d, want %d (anchor kept)", n, want)
	}
	// Output-only usage has no prompt size either.
	out := asst("more")
	out.Usage = &chat.Usage{OutputTokens: 9}
	mustAdd(t, w, out)
	want += w.TokensAt(6)
	if n, _ := w.Anchored(); n != want {
		t.Errorf("Anchored() after output-only usage = %d, want %d", n, want)
	}
	// Removal lowers the anchored size by what it removed.
	removed := w.TokensAt(2) + w.TokensAt(3)
	if err := w.Remove(2, 4); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	want -= removed
	if n, _ := w.Anchored(); n != want {
		t.Errorf("Anchored() after Remove = %d, want %d", n, want)
	}
	// A newer usage replaces the anchor.
	again := asst("again")
	again.Usage = &chat.Usage{InputTokens: 7}
	mustAdd(t, w, again)
	if n, _ := w.Anchored(); n != 7+w.TokensAt(w.Len()-1) {
		t.Errorf("Anchored() after new usage = %d, want %d", n, 7+w.TokensAt(w.Len()-1))
	}
	check(t, w)
}

func TestAnchoredNeverNegative(t *testing.T) {
	t.Parallel()
	w := newWindow(t, window.Options{Anchored: true, Budget: 100})
	mustAdd(t, w, user("u"), user(strings.Repeat("x", 1000)))
	reply := asst("r")
	reply.Usage = &chat.Usage{InputTokens: 1} // the provider counted far less
	mustAdd(t, w, reply)
	if err := w.Remove(1, 2); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if n, _ := w.Anchored(); n != 0 {
		t.Errorf("Anchored() = %d, want 0 (never negative)", n)
	}
	if !w.Fits() || w.Ratio() != 0 {
		t.Errorf("Fits() = %v, Ratio() = %v; want true, 0", w.Fits(), w.Ratio())
	}
}

func TestOptionsAnchored(t *testing.T) {
	t.Parallel()
	for _, anchored := range []bool{false, true} {
		w := newWindow(t, window.Options{Budget: 500, Anchored: anchored})
		mustAdd(t, w, user("u"))
		before := w.Size()
		reply := asst("reply")
		// The provider saw a hidden 900-token system prompt.
		reply.Usage = &chat.Usage{InputTokens: w.Tokens() + 900}
		mustAdd(t, w, reply)
		anch, ok := w.Anchored()
		if !ok {
			t.Fatalf("Anchored() not set")
		}
		want, fits := w.Tokens(), true
		if anchored {
			want, fits = anch, false
		}
		if got := w.Size(); got != want {
			t.Errorf("Anchored=%v: Size() = %d, want %d", anchored, got, want)
		}
		if got := w.Ratio(); got != float64(want)/500 {
			t.Errorf("Anchored=%v: Ratio() = %v, want %v", anchored, got, float64(want)/500)
		}
		if got := w.Fits(); got != fits {
			t.Errorf("Anchored=%v: Fits() = %v, want %v (size %d)", anchored, got, fits, w.Size())
		}
		if before != w.Tokens()-w.TokensAt(1) {
			t.Errorf("Anchored=%v: Size() before usage = %d, want the local count", anchored, before)
		}
	}
}

func TestPairingRepeatedIDs(t *testing.T) {
	t.Parallel()
	t.Run("most recent unanswered call", func(t *testing.T) {
		t.Parallel()
		w := newWindow(t, window.Options{})
		mustAdd(t, w, user("u"), calls("x"), calls("x"), result("x", "second"))
		checkExcept(t, w, window.InvariantUnanswered) // a call answered out of order, then answered below
		// The result answered the second call: the first one's round is the
		// lone assistant message, and the second round can go on its own.
		want := []window.Unit{{Start: 0, End: 1, Pinned: true}, {Start: 1, End: 2, Round: true}, {Start: 2, End: 4, Round: true}}
		assertUnits(t, w, want)
		before := snap(w)
		if err := w.Remove(1, 3); !errors.Is(err, window.ErrSplitRound) {
			t.Fatalf("Remove(first call, second call) = %v, want ErrSplitRound", err)
		}
		assertUnchanged(t, before, w)
		// The next result with the same id answers the first call.
		mustAdd(t, w, result("x", "first"))
		check(t, w)
		assertUnits(t, w, []window.Unit{{Start: 0, End: 1, Pinned: true}, {Start: 1, End: 5, Round: true}})
		// No unanswered call of that id is left.
		err := w.Add(result("x", "third"))
		if !errors.Is(err, window.ErrOrphanToolResult) {
			t.Fatalf("third result = %v, want ErrOrphanToolResult", err)
		}
	})
	t.Run("answered call is not reused", func(t *testing.T) {
		t.Parallel()
		w := newWindow(t, window.Options{})
		mustAdd(t, w, user("u"), calls("x"), result("x", "1"), calls("x"), result("x", "2"))
		check(t, w)
		assertUnits(t, w, []window.Unit{{Start: 0, End: 1, Pinned: true}, {Start: 1, End: 3, Round: true}, {Start: 3, End: 5, Round: true}})
		if err := w.Add(result("x", "3")); !errors.Is(err, window.ErrOrphanToolResult) {
			t.Fatalf("result for answered calls = %v, want ErrOrphanToolResult", err)
		}
	})
	t.Run("same id twice in one message", func(t *testing.T) {
		t.Parallel()
		w := newWindow(t, window.Options{})
		mustAdd(t, w, user("u"), calls("x", "x"), result("x", "1"), result("x", "2"))
		check(t, w)
		if err := w.Add(result("x", "3")); !errors.Is(err, window.ErrOrphanToolResult) {
			t.Fatalf("third result = %v, want ErrOrphanToolResult", err)
		}
	})
	t.Run("call removed by compaction", func(t *testing.T) {
		t.Parallel()
		w := newWindow(t, window.Options{})
		mustAdd(t, w, user("u"), calls("x"), calls("y"))
		if err := w.Remove(1, 2); err != nil {
			t.Fatal(err)
		}
		check(t, w)
		if err := w.Add(result("x", "late")); !errors.Is(err, window.ErrOrphanToolResult) {
			t.Fatalf("result for removed call = %v, want ErrOrphanToolResult", err)
		}
		mustAdd(t, w, result("y", "ok"))
		check(t, w)
	})
	t.Run("removed call falls back to an older open one", func(t *testing.T) {
		t.Parallel()
		w := newWindow(t, window.Options{})
		mustAdd(t, w, user("u"), calls("x"), asst("thinking"), calls("x"))
		if err := w.Remove(3, 4); err != nil {
			t.Fatal(err)
		}
		mustAdd(t, w, result("x", "answers the first"))
		check(t, w)
		assertUnits(t, w, []window.Unit{{Start: 0, End: 1, Pinned: true}, {Start: 1, End: 4, Round: true}})
	})
}

func TestAddOrphan(t *testing.T) {
	t.Parallel()
	w := newWindow(t, window.Options{Budget: 100})
	mustAdd(t, w, user("u"), calls("a"))
	before := snap(w)
	err := w.Add(chat.NewToolResult("zz", "grep", "out", false))
	var oe *window.OrphanError
	if !errors.As(err, &oe) {
		t.Fatalf("Add(orphan) = %v, want *OrphanError", err)
	}
	if oe.ToolCallID != "zz" || oe.ToolName != "grep" {
		t.Errorf("OrphanError = %+v, want id zz, tool grep", oe)
	}
	if !errors.Is(err, window.ErrOrphanToolResult) {
		t.Errorf("errors.Is(%v, ErrOrphanToolResult) = false", err)
	}
	if !strings.Contains(err.Error(), "zz") {
		t.Errorf("error %q does not name the call id", err)
	}
	assertUnchanged(t, before, w)
	// The open call is still open.
	mustAdd(t, w, result("a", "ok"))
	check(t, w)
}

func TestAddInvalid(t *testing.T) {
	t.Parallel()
	two := chat.Message{Role: chat.RoleTool, Parts: []chat.Part{
		chat.ToolResult{ToolCallID: "a", Content: "1"}, chat.ToolResult{ToolCallID: "a", Content: "2"},
	}}
	cases := []struct {
		name string
		m    chat.Message
	}{
		{"empty role", chat.Message{Parts: []chat.Part{chat.Text{Text: "x"}}}},
		{"unknown role", chat.NewText("developer", "x")},
		{"tool message without result", chat.NewText(chat.RoleTool, "x")},
		{"tool message with two results", two},
		{"tool message without parts", chat.Message{Role: chat.RoleTool}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWindow(t, window.Options{})
			mustAdd(t, w, user("u"), calls("a", "a"))
			before := snap(w)
			if err := w.Add(tc.m); !errors.Is(err, window.ErrInvalidMessage) {
				t.Fatalf("Add = %v, want ErrInvalidMessage", err)
			}
			assertUnchanged(t, before, w)
			// No call was consumed by the rejected message.
			mustAdd(t, w, result("a", "1"), result("a", "2"))
			check(t, w)
		})
	}
}

func TestPinned(t *testing.T) {
	t.Parallel()
	w := newWindow(t, window.Options{})
	mustAdd(t, w, sys("s"), asst("hello"), user("first"), user("second"), sys("late system"))
	// The system prompt, the first user message and every other system
	// message (instructions in place) are pinned.
	want := []bool{true, false, true, false, true}
	for i, p := range want {
		if got := w.Pinned(i); got != p {
			t.Errorf("Pinned(%d) = %v, want %v", i, got, p)
		}
	}
	// A system message that is not first is not the system prompt, but
	// it is pinned all the same.
	w2 := newWindow(t, window.Options{})
	mustAdd(t, w2, user("u"), sys("s"))
	if !w2.Pinned(1) {
		t.Errorf("a system message added after the first message is not pinned")
	}
	if err := w2.Remove(1, 2); err == nil {
		t.Errorf("a late system message was removed")
	}
	check(t, w2)
	// A message holding a provider-written compaction is pinned too.
	w3 := newWindow(t, window.Options{})
	mustAdd(t, w3, user("u"), chat.Message{Role: chat.RoleAssistant, Parts: []chat.Part{chat.Opaque{Wire: chat.WireAnthropic, Kind: "compaction", Raw: []byte(`{"type":"compaction","content":"s"}`), Boundary: true}}}, user("next"))
	if !w3.Pinned(1) || w3.Pinned(2) {
		t.Errorf("compaction pinned %v, the message after it %v", w3.Pinned(1), w3.Pinned(2))
	}
}

func TestUnansweredCalls(t *testing.T) {
	t.Parallel()
	w := newWindow(t, window.Options{})
	mustAdd(t, w, user("u"), calls("a", "b", "c"), result("b", "2"))
	// The last round may wait for its results.
	check(t, w)
	got := w.Unanswered()
	if len(got) != 2 || got[0].ID != "a" || got[1].ID != "c" {
		t.Fatalf("Unanswered() = %v, want calls a and c in order", got)
	}
	// A user message after it breaks the rule, at the assistant message.
	mustAdd(t, w, user("stop"))
	vs := w.Check()
	if len(vs) != 1 || vs[0].Invariant != window.InvariantUnanswered || vs[0].Index != 1 {
		t.Fatalf("Check() = %v, want one %s at 1", vs, window.InvariantUnanswered)
	}
	// Answering them (late) mends the round.
	mustAdd(t, w, result("a", "1"), result("c", "3"))
	check(t, w)
	if u := w.Unanswered(); u != nil {
		t.Fatalf("Unanswered() = %v after every result", u)
	}
}

// TestAppendMessages: AppendMessages appends what Messages returns, in
// order, after what dst holds, and leaves dst's elements alone.
func TestAppendMessages(t *testing.T) {
	t.Parallel()
	w, err := window.New(window.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []chat.Message{sys("s"), user("go"), calls("x"), result("x", "r"), asst("done")} {
		if err := w.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	head := []chat.Message{user("before")}
	got := w.AppendMessages(head)
	want := append([]chat.Message{user("before")}, w.Messages()...)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("AppendMessages (-want +got):\n%s", d)
	}
	if empty := w.AppendMessages(nil); len(empty) != w.Len() {
		t.Errorf("AppendMessages(nil) holds %d messages, want %d", len(empty), w.Len())
	}
}
