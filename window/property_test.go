package window_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/window"
)

// TestRandomOperations drives windows through random sequences of Add,
// Remove, Replace and SetNote, and after every operation checks the
// invariants, the accounting, and that a refused operation changed
// nothing. Whether Add and Remove should succeed is decided independently
// of the window, from chat.Pair over its messages.
func TestRandomOperations(t *testing.T) {
	t.Parallel()
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 0x5eed))
			w := newWindow(t, window.Options{Budget: 1 + rng.IntN(2000), Reserved: rng.IntN(50)})
			if rng.IntN(2) == 0 {
				mustAdd(t, w, sys("system prompt"))
			}
			ids := []string{"a", "b", "c", "d"}
			for op := range 300 {
				before := snap(w)
				var err error
				what := ""
				k := rng.IntN(10)
				if k < 5 {
					// A user or assistant message follows: the calls
					// still open get their results first (invariant 5),
					// as the Engine does with synthetic results.
					answerOpen(t, w)
					before = snap(w)
				}
				switch {
				case k < 2:
					what = "add user"
					err = w.Add(user(fmt.Sprintf("user %d", op)))
				case k < 3:
					what = "add text"
					err = w.Add(asst(fmt.Sprintf("reply %d", op)))
				case k < 5:
					n := 1 + rng.IntN(3)
					var cs []string
					for range n {
						cs = append(cs, ids[rng.IntN(len(ids))])
					}
					what = fmt.Sprint("add calls ", cs)
					err = w.Add(calls(cs...))
				case k < 7:
					id := ids[rng.IntN(len(ids))]
					what = "add result " + id
					open := openCalls(w.Messages(), id)
					err = w.Add(result(id, fmt.Sprintf("result %d", op)))
					if (err == nil) != (open > 0) {
						t.Fatalf("op %d: Add(result %s) with %d open calls of that id = %v", op, id, open, err)
					}
					if err != nil && !errors.Is(err, window.ErrOrphanToolResult) {
						t.Fatalf("op %d: Add(result) = %v, want ErrOrphanToolResult", op, err)
					}
				case k < 9:
					start := rng.IntN(w.Len() + 1)
					end := start + rng.IntN(w.Len()-start+1)
					if rng.IntN(4) == 0 { // prefer whole units
						us := w.Units()
						if len(us) > 0 {
							u := us[rng.IntN(len(us))]
							start, end = u.Start, u.End
						}
					}
					what = fmt.Sprintf("remove [%d,%d)", start, end)
					want := removable(w, start, end)
					err = w.Remove(start, end)
					if (err == nil) != want {
						t.Fatalf("op %d: Remove(%d, %d) = %v, want success %v", op, start, end, err, want)
					}
				default:
					if w.Len() > 0 && rng.IntN(2) == 0 {
						i := rng.IntN(w.Len())
						m := w.At(i).Clone()
						if rng.IntN(3) == 0 {
							m = user("replacement") // may change identity
						} else {
							for k, p := range m.Parts {
								switch p := p.(type) {
								case chat.Text:
									p.Text += " (cut)"
									m.Parts[k] = p
								case chat.ToolResult:
									p.Content = "cut"
									m.Parts[k] = p
								}
							}
						}
						what = fmt.Sprintf("replace %d", i)
						err = w.Replace(i, m)
						if err == nil && m.Role != before.Messages[i].Role {
							t.Fatalf("op %d: Replace(%d) changed role %s to %s", op, i, before.Messages[i].Role, m.Role)
						}
					} else {
						what = "note"
						w.SetNote(fmt.Sprintf("note %d", op))
					}
				}
				if err != nil {
					assertUnchanged(t, before, w)
				}
				check(t, w)
				assertCover(t, w)
				assertRoundsMatchPair(t, w)
				_ = what
			}
		})
	}
}

// answerOpen adds a result for every call w.Unanswered reports, and
// checks that none is left.
func answerOpen(t *testing.T, w *window.Window) {
	t.Helper()
	for _, c := range w.Unanswered() {
		mustAdd(t, w, result(c.ID, "interrupted"))
	}
	if u := w.Unanswered(); len(u) > 0 {
		t.Fatalf("after answering every unanswered call, %d remain: %v", len(u), u)
	}
}

// openCalls counts the calls of id that no result in msgs answers. With
// every result paired (Check passes), that is calls minus results.
func openCalls(msgs []chat.Message, id string) int {
	n := 0
	for _, m := range msgs {
		for _, c := range m.ToolCalls() {
			if m.Role == chat.RoleAssistant && c.ID == id {
				n++
			}
		}
		if r, ok := m.ToolResult(); ok && m.Role == chat.RoleTool && r.ToolCallID == id {
			n--
		}
	}
	return n
}

// removable decides, from chat.Pair, whether Remove(start, end) must
// succeed.
func removable(w *window.Window, start, end int) bool {
	if start < 0 || end > w.Len() || start > end {
		return false
	}
	for i := start; i < end; i++ {
		if w.Pinned(i) {
			return false
		}
	}
	p := chat.Pair(w.Messages())
	for i, c := range p.CallOf {
		if c >= 0 && (i >= start && i < end) != (c >= start && c < end) {
			return false
		}
	}
	return true
}

// assertRoundsMatchPair checks that the round units are chat.Rounds'
// spans: the window's own pairing agrees with pairing from scratch.
func assertRoundsMatchPair(t testing.TB, w *window.Window) {
	t.Helper()
	var got, want [][2]int
	for _, u := range w.Units() {
		if u.Round {
			got = append(got, [2]int{u.Start, u.End})
		}
	}
	for _, r := range chat.Rounds(w.Messages()) {
		want = append(want, [2]int{r.Start, r.End})
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("round units %v, chat.Rounds %v", got, want)
	}
}
