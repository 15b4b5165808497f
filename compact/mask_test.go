package compact_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/window"
	"github.com/google/go-cmp/cmp"
)

// maskWindow returns a first user message and n rounds, each with a
// 3,000-rune result; round i calls tool "tool<i%3>" and, for odd i, the
// result does not repeat the tool's name.
func maskWindow(n int) []chat.Message {
	msgs := []chat.Message{user("u")}
	for i := range n {
		r := round(fmt.Sprint("c", i), fmt.Sprint("tool", i%3), fmt.Sprintf("f%d.go", i), lines(3000))
		if i%2 == 1 {
			tr, _ := r[1].ToolResult()
			tr.ToolName = ""
			r[1].Parts = []chat.Part{tr}
		}
		msgs = append(msgs, r...)
	}
	return withIDs(msgs)
}

func TestMask(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mask   compact.Mask
		rounds int
		masked int
	}{
		{"default keeps 10", compact.Mask{}, 15, 5},
		{"fewer rounds than kept", compact.Mask{}, 10, 0},
		{"keep 3", compact.Mask{KeepRounds: 3}, 15, 12},
		{"keep 1", compact.Mask{KeepRounds: 1}, 2, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msgs := maskWindow(tc.rounds)
			w := newWindow(t, window.Options{}, msgs...) // no budget: masking only
			recs := run(t, &tc.mask, w)
			if tc.masked == 0 {
				if len(recs) != 0 {
					t.Errorf("records %+v, want none", recs)
				}
			} else if d := cmp.Diff([]compact.Level{compact.LevelMask}, levels(recs)); d != "" || recs[0].ResultsCut != tc.masked {
				t.Fatalf("records %+v, want one mask record with %d results", recs, tc.masked)
			}
			if w.Len() != len(msgs) {
				t.Fatalf("masking removed messages: %d of %d left", w.Len(), len(msgs))
			}
			for i, m := range msgs {
				got := w.At(i)
				r, isResult := m.ToolResult()
				if !isResult || (i-1)/2 >= tc.masked {
					if d := cmp.Diff(m, got); d != "" {
						t.Errorf("message %d changed (-want +got):\n%s", i, d)
					}
					continue
				}
				g, _ := got.ToolResult()
				tool := fmt.Sprint("tool", ((i-1)/2)%3)
				if !strings.HasPrefix(g.Content, "[agentctx: tool output elided") || !strings.Contains(g.Content, tool) ||
					!strings.Contains(g.Content, "3000 chars") || strings.Contains(g.Content, "\n") {
					t.Errorf("message %d: placeholder does not name %s and the size on one line: %q", i, tool, g.Content)
				}
				if g.ToolCallID != r.ToolCallID || g.ToolName != r.ToolName || got.ID != m.ID {
					t.Errorf("message %d: identity changed: %+v", i, g)
				}
			}
			// Idempotent.
			if recs := run(t, &tc.mask, w); len(recs) != 0 {
				t.Errorf("second Compact: records %+v, want none", recs)
			}
		})
	}
}

func TestMaskKeepsShortResults(t *testing.T) {
	t.Parallel()
	msgs := concat(one(user("u")), round("a", "read", "a.go", "ok"), round("b", "read", "b.go", lines(3000)), round("c", "read", "c.go", "x"))
	w := newWindow(t, window.Options{}, msgs...)
	recs := run(t, &compact.Mask{KeepRounds: 1}, w)
	if len(recs) != 1 || recs[0].ResultsCut != 1 {
		t.Fatalf("records %+v, want one result masked", recs)
	}
	if r, _ := w.At(2).ToolResult(); r.Content != "ok" {
		t.Errorf("a result shorter than its placeholder was masked: %q", r.Content)
	}
}

func TestMaskEscalates(t *testing.T) {
	t.Parallel()
	msgs := maskWindow(15)
	w := newWindow(t, window.Options{}, msgs...)
	// Budget 40 % of the size: masking 5 of 15 results is not enough.
	w.SetBudget(w.Size() * 4 / 10)
	recs := run(t, &compact.Mask{}, w)
	if len(recs) < 2 || recs[0].Level != compact.LevelMask || recs[1].Level != compact.LevelL2 {
		t.Fatalf("levels %v, want mask then L2", levels(recs))
	}
	if !w.Fits() {
		t.Errorf("over budget: %d of %d", w.Size(), w.Budget())
	}
	if w.Note() < 0 {
		t.Errorf("no compaction note after escalation")
	}
}

func TestMaskHugeCallArguments(t *testing.T) {
	t.Parallel()
	// A Write call whose arguments alone exceed the budget: the cut must
	// leave valid JSON arguments and the call's identity.
	args, _ := json.Marshal(map[string]string{"file_path": "big.go", "content": lines(80000)})
	msgs := []chat.Message{
		user("write it"),
		{Role: chat.RoleAssistant, Parts: []chat.Part{chat.ToolCall{ID: "w", Name: "Write", Arguments: args}}},
	}
	for _, s := range []compact.Strategy{&compact.Tiered{}, &compact.Mask{}} {
		w := newWindow(t, window.Options{Budget: 1500}, msgs...)
		run(t, s, w)
		if !w.Fits() {
			t.Errorf("%s: over budget: %d of %d", s.Name(), w.Size(), w.Budget())
		}
		c := w.At(1).ToolCalls()
		if len(c) != 1 || c[0].ID != "w" || c[0].Name != "Write" || !json.Valid(c[0].Arguments) {
			t.Errorf("%s: call after the cut: %+v", s.Name(), c)
		}
	}
}

// TestMaskBatches: rounds falling out of the last KeepRounds are masked
// Batch at a time, so the history (and the prompt cache's prefix) is
// rewritten once per Batch calls, not on every call; over budget, masking
// does not wait.
func TestMaskBatches(t *testing.T) {
	t.Parallel()
	msgs := maskWindow(20)
	m := &compact.Mask{KeepRounds: 2, Batch: 4}
	w := newWindow(t, window.Options{}, msgs[:1]...)
	var maskedAt []int
	for r := range 20 {
		for _, msg := range msgs[1+2*r : 3+2*r] {
			if err := w.Add(msg); err != nil {
				t.Fatal(err)
			}
		}
		if recs := run(t, m, w); len(recs) > 0 {
			maskedAt = append(maskedAt, r+1)
			if recs[0].ResultsCut != 4 {
				t.Errorf("after %d rounds: %d results masked, want a batch of 4", r+1, recs[0].ResultsCut)
			}
		}
	}
	if want := []int{6, 10, 14, 18}; !reflect.DeepEqual(maskedAt, want) {
		t.Errorf("masked after rounds %v, want %v", maskedAt, want)
	}
	// Over budget: masking does not wait for a batch.
	w = newWindow(t, window.Options{}, msgs[:9]...) // 4 rounds: 2 old
	w.SetBudget(w.Tokens() - 1)
	if recs := run(t, m, w); len(recs) == 0 || recs[0].Level != compact.LevelMask || recs[0].ResultsCut != 2 {
		t.Errorf("over budget with 2 old rounds: %+v, want both masked at once", recs)
	}
}
