package compact_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/compact"
	"github.com/agentctx/agentctx/window"
)

// anchorNames are the anchors' strategies and the truncation floor.
var anchorNames = []string{"claude-code", "codex", "opencode", "openhands", "gemini-cli", "truncate"}

// has reports whether some message of w holds s in its text or a tool
// result's content.
func has(w *window.Window, s string) bool {
	for _, m := range w.Messages() {
		if strings.Contains(m.Text(), s) {
			return true
		}
		if r, ok := m.ToolResult(); ok && strings.Contains(r.Content, s) {
			return true
		}
	}
	return false
}

// noteText returns the text of w's compaction note, "" when none.
func noteText(w *window.Window) string {
	if n := w.Note(); n >= 0 {
		return w.At(n).Text()
	}
	return ""
}

func TestAnchorsRegistered(t *testing.T) {
	t.Parallel()
	names := compact.Names()
	for _, n := range anchorNames {
		if !slices.Contains(names, n) {
			t.Errorf("Names() = %v lacks %q", names, n)
		}
		s, err := compact.Build(n, nil, compact.BuildOptions{})
		if err != nil {
			t.Fatalf("Build(%q): %v", n, err)
		}
		if s.Name() != n {
			t.Errorf("Build(%q).Name() = %q", n, s.Name())
		}
		if th, ok := s.(compact.Thresholder); !ok || th.ThresholdRatio() <= 0 || th.ThresholdRatio() > 1 {
			t.Errorf("%s: not a Thresholder with a ratio in (0, 1]", n)
		}
		c, ok := s.(compact.Configurable)
		if !ok {
			continue
		}
		cfg, err := c.Config()
		if err != nil {
			t.Fatalf("%s: Config: %v", n, err)
		}
		again, err := compact.Build(n, cfg, compact.BuildOptions{})
		if err != nil {
			t.Fatalf("%s: Build(Config()): %v", n, err)
		}
		if cfg2, _ := again.(compact.Configurable).Config(); string(cfg2) != string(cfg) {
			t.Errorf("%s: config %s rebuilt as %s", n, cfg, cfg2)
		}
	}
	if _, err := compact.Build("codex", []byte(`{"threshold":"x"}`), compact.BuildOptions{}); err == nil {
		t.Error("Build(codex, a bad config) = nil error")
	}
}

// TestAnchorsInvariants grows a conversation of several user turns,
// rounds of every size and a huge tool output, compacting before each
// model call as the Engine does, and checks after every call, for every
// anchor strategy, that the window is sound (pairing, pinned messages)
// and within its budget: the pinned parts always fit here.
func TestAnchorsInvariants(t *testing.T) {
	t.Parallel()
	for _, name := range anchorNames {
		for _, budget := range []int{900, 2500, 6000} {
			t.Run(fmt.Sprint(name, budget), func(t *testing.T) {
				t.Parallel()
				s, err := compact.Build(name, nil, compact.BuildOptions{})
				if err != nil {
					t.Fatal(err)
				}
				w := newWindow(t, window.Options{Budget: budget}, sys("You are a coding agent."), user("Fix the failing test in pkg/a.go. Never touch vendor/."))
				summaries := 0
				for i := range 60 {
					var msgs []chat.Message
					switch {
					case i%17 == 16:
						msgs = one(user(fmt.Sprintf("user turn %d: also check b%d.go", i, i)))
					case i%11 == 10:
						msgs = round(fmt.Sprint("c", i), "Bash", "", lines(9000)) // larger than the budget
					case i%3 == 0:
						msgs = round(fmt.Sprint("c", i), "Read", fmt.Sprintf("src/f%d.go", i), lines(400+37*i))
					default:
						msgs = concat(one(asst(fmt.Sprintf("step %d", i))), round(fmt.Sprint("c", i), "Edit", fmt.Sprintf("src/f%d.go", i), "ok"))
					}
					for _, m := range msgs {
						if err := w.Add(m); err != nil {
							t.Fatalf("call %d: Add: %v", i, err)
						}
					}
					before := w.Size()
					recs, err := s.Compact(context.Background(), w)
					if err != nil {
						t.Fatalf("call %d: Compact: %v", i, err)
					}
					checkWindow(t, w)
					if !w.Fits() {
						t.Fatalf("call %d: %d tokens over the budget of %d after %v", i, w.Size(), budget, levels(recs))
					}
					if w.Len() < 2 || w.At(0).Role != chat.RoleSystem || !strings.Contains(w.At(1).Text(), "Never touch vendor/") {
						t.Fatalf("call %d: the system prompt or the first user message is gone", i)
					}
					if len(recs) > 0 && recs[len(recs)-1].TokensAfter != w.Size() {
						t.Fatalf("call %d: last record says %d tokens, window %d (before %d)", i, recs[len(recs)-1].TokensAfter, w.Size(), before)
					}
					for _, r := range recs {
						if r.Strategy != name {
							t.Fatalf("call %d: record of %q", i, r.Strategy)
						}
						if r.Level == compact.LevelSummary {
							summaries++
						}
					}
				}
				if summary := name != "truncate"; summary != (summaries > 0) {
					t.Errorf("%d summaries in 60 calls", summaries)
				}
			})
		}
	}
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	msgs := concat(one(sys("system")), one(user("task")))
	for i := range 10 {
		msgs = append(msgs, round(fmt.Sprint("c", i), "Read", fmt.Sprintf("f%d.go", i), fmt.Sprintf("content %d ", i)+lines(396))...)
	}
	w := newWindow(t, window.Options{Budget: 100000}, withIDs(msgs)...)
	tr := &compact.Truncate{}
	if recs, _ := tr.Compact(context.Background(), w); len(recs) != 0 {
		t.Fatalf("a window within its budget: %v", levels(recs))
	}
	w.SetBudget(w.Size() * 6 / 10)
	recs, err := tr.Compact(context.Background(), w)
	if err != nil || len(recs) != 1 || recs[0].Level != compact.LevelTruncate {
		t.Fatalf("Compact = %v, %v; want one truncate record", levels(recs), err)
	}
	checkWindow(t, w)
	if !w.Fits() || w.Note() >= 0 {
		t.Fatalf("fits %v, note %d", w.Fits(), w.Note())
	}
	// The newest rounds are kept, the oldest removed, nothing in between.
	if !has(w, "content 9 ") || has(w, "content 0 ") {
		t.Errorf("kept %v", ids(w))
	}
	gap := false
	for i := range 10 {
		kept := has(w, fmt.Sprintf("content %d ", i))
		if gap && !kept {
			t.Fatalf("round %d removed after a kept one: %v", i, ids(w))
		}
		gap = gap || kept
	}
	// Room for one more round would have been used.
	if w.Budget()-w.Size() > recs[0].TokensBefore/10 {
		t.Errorf("left %d of %d tokens unused", w.Budget()-w.Size(), w.Budget())
	}

	// A newest round larger than the budget is cut to fit.
	w = newWindow(t, window.Options{Budget: 600}, withIDs(concat(one(sys("system")), one(user("task")), round("a", "Bash", "", lines(8000))))...)
	recs, _ = tr.Compact(context.Background(), w)
	checkWindow(t, w)
	if !w.Fits() || !slices.Contains(levels(recs), compact.LevelCut) {
		t.Fatalf("huge last round: fits %v, levels %v", w.Fits(), levels(recs))
	}
}

// readWindow returns a system prompt, a first user message and n rounds
// reading src/f<i>.go, each result starting "body of f<i>" and
// size runes long.
func readWindow(t *testing.T, n, size, budget int) *window.Window {
	msgs := concat(one(sys("system")), one(user("task")))
	for i := range n {
		msgs = append(msgs, round(fmt.Sprint("c", i), "Read", fmt.Sprintf("src/f%d.go", i), fmt.Sprintf("body of f%d\n", i)+lines(size))...)
	}
	return newWindow(t, window.Options{Budget: budget}, withIDs(msgs)...)
}

func TestClaudeCode(t *testing.T) {
	t.Parallel()
	w := readWindow(t, 8, 2000, 0)
	size := w.Size()
	c := &compact.ClaudeCode{}
	w.SetBudget(int(float64(size) / 0.83)) // just under the 0.835 threshold
	if recs, _ := c.Compact(context.Background(), w); len(recs) != 0 {
		t.Fatalf("ratio %.3f: compacted %v", w.Ratio(), levels(recs))
	}
	w.SetBudget(int(float64(size) / 0.84))
	recs, err := c.Compact(context.Background(), w)
	if err != nil || len(recs) == 0 || recs[0].Level != compact.LevelSummary {
		t.Fatalf("ratio over the threshold: %v, %v", levels(recs), err)
	}
	checkWindow(t, w)
	// The whole history is summarized: system prompt, first user message
	// and the note are all that is left.
	if w.Len() != 3 || w.Note() != 2 {
		t.Fatalf("left %d messages, note at %d", w.Len(), w.Note())
	}
	n := noteText(w)
	if !strings.HasPrefix(n, compact.SummaryHeader) || !strings.Contains(n, "## Files restored after the summary") {
		t.Fatalf("note:\n%s", n)
	}
	// The 5 most recently read files, newest first, each cut to 2.5 % of
	// the budget.
	restored := n[strings.Index(n, "## Files restored"):]
	last := -1
	for i := 7; i >= 0; i-- {
		at := strings.Index(restored, fmt.Sprintf("### src/f%d.go", i))
		if (at >= 0) != (i >= 3) {
			t.Fatalf("file %d restored: %v\n%s", i, at >= 0, restored)
		}
		if at >= 0 {
			if at < last {
				t.Errorf("file %d before a newer one", i)
			}
			last = at
		}
	}
	if got, limit := w.Counter().Count(restored), int(0.025*float64(w.Budget()))*5+60; got > limit {
		t.Errorf("restored files hold %d tokens, over 5 × 2.5 %% of %d", got, w.Budget())
	}
	if !strings.Contains(restored, "body of f7") || !strings.Contains(restored, "restored file cut to its token cap") {
		t.Errorf("restored block lacks the newest file's head or the cut marker:\n%s", restored)
	}

	// RestoreFiles −1 leaves restoring to the Engine.
	w = readWindow(t, 8, 2000, 0)
	w.SetBudget(w.Size())
	if _, err := (&compact.ClaudeCode{RestoreFiles: -1}).Compact(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(noteText(w), "Files restored") {
		t.Error("RestoreFiles -1 restored files")
	}
}

func TestCodex(t *testing.T) {
	t.Parallel()
	msgs := concat(one(sys("system")), one(user("task")))
	for i := range 9 {
		if i%3 == 2 {
			msgs = append(msgs, user(fmt.Sprintf("user says %d: ", i)+lines(300)))
		}
		msgs = append(msgs, round(fmt.Sprint("c", i), "Bash", "", fmt.Sprintf("output %d ", i)+lines(1500))...)
	}
	w := newWindow(t, window.Options{}, withIDs(msgs)...)
	size := w.Size()
	c := &compact.Codex{}
	w.SetBudget(int(float64(size) / 0.93))
	if recs, _ := c.Compact(context.Background(), w); len(recs) != 0 {
		t.Fatalf("ratio %.3f under 0.94: %v", w.Ratio(), levels(recs))
	}
	// 0.0735 of the budget holds the two newest user messages (≈ 80
	// tokens each), not three.
	w.SetBudget(2100)
	recs, err := c.Compact(context.Background(), w)
	if err != nil || len(recs) == 0 || recs[0].Level != compact.LevelSummary {
		t.Fatalf("Compact = %v, %v", levels(recs), err)
	}
	checkWindow(t, w)
	for i := range 9 {
		if has(w, fmt.Sprintf("output %d ", i)) {
			t.Errorf("tool output %d kept", i)
		}
	}
	var kept []string
	for i, m := range w.Messages() {
		if m.Role == chat.RoleUser && !w.IsNote(i) && strings.HasPrefix(m.Text(), "user says") {
			kept = append(kept, m.Text()[:12])
		}
	}
	// The newest whole, the next cut to what is left of the cap, the
	// oldest summarized.
	if want := []string{"user says 5:", "user says 8:"}; !slices.Equal(kept, want) {
		t.Errorf("kept user messages %q, want %q", kept, want)
	}
	if n := w.Note(); n < 0 || !strings.Contains(w.At(n).Text(), "user says 2:") {
		t.Errorf("the oldest user message is not in the summary")
	}
	for _, m := range w.Messages() {
		if m.Role == chat.RoleAssistant || m.Role == chat.RoleTool {
			t.Errorf("kept a %s message", m.Role)
		}
	}
}

// textsOf returns the text of every message of w.
func textsOf(w *window.Window) []string {
	var out []string
	for _, m := range w.Messages() {
		out = append(out, m.Text())
	}
	return out
}

func TestOpenCodePrune(t *testing.T) {
	t.Parallel()
	// Three user turns, each with three 1,000-rune outputs (≈ 250
	// tokens): the last two turns are protected, then 20 % of the
	// budget.
	build := func(turns int) []chat.Message {
		msgs := one(sys("system"))
		for u := range turns {
			msgs = append(msgs, user(fmt.Sprint("turn ", u)))
			for i := range 3 {
				id := fmt.Sprintf("t%dc%d", u, i)
				msgs = append(msgs, round(id, "Bash", "", "out "+id+" "+lines(1000))...)
			}
		}
		return withIDs(msgs)
	}
	w := newWindow(t, window.Options{Budget: 4000}, build(4)...)
	c := &compact.OpenCode{}
	recs, err := c.Compact(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	checkWindow(t, w)
	if len(recs) != 1 || recs[0].Level != compact.LevelMask {
		t.Fatalf("levels %v; want one prune record", levels(recs))
	}
	// Turns 2 and 3 protected; of turn 1, 800 tokens (20 % of 4,000)
	// protect all three outputs; turn 0's three outputs (≈ 750 tokens,
	// over the 400-token minimum) are erased.
	for u := range 4 {
		for i := range 3 {
			id := fmt.Sprintf("t%dc%d", u, i)
			if kept := has(w, "out "+id); kept != (u >= 1) {
				t.Errorf("output %s kept: %v", id, kept)
			}
		}
	}
	if n := recs[0].ResultsCut; n != 3 {
		t.Errorf("ResultsCut = %d, want 3", n)
	}

	// One user turn: nothing is pruned, as in opencode.
	w = newWindow(t, window.Options{Budget: 4000}, build(1)...)
	if recs, _ := c.Compact(context.Background(), w); len(recs) != 0 {
		t.Errorf("single turn: %v", levels(recs))
	}
}

func TestOpenCodeSummary(t *testing.T) {
	t.Parallel()
	w := readWindow(t, 10, 800, 0)
	w.SetBudget(int(float64(w.Size()) / 0.75)) // over the 0.74 overflow
	recs, err := (&compact.OpenCode{}).Compact(context.Background(), w)
	if err != nil || len(recs) == 0 || recs[len(recs)-1].Level != compact.LevelSummary {
		t.Fatalf("Compact = %v, %v", levels(recs), err)
	}
	checkWindow(t, w)
	// 7.5 % of the budget (≈ 300 tokens) keeps the newest round (≈ 215
	// tokens) only.
	if !has(w, "body of f9") || has(w, "body of f8\n") {
		t.Errorf("kept %v", ids(w))
	}
}

func TestOpenHands(t *testing.T) {
	t.Parallel()
	// 30 rounds = 62 messages, over a max_size of 40: the pinned two and
	// the newest 40/2 − 2 − 1 = 17 messages (8 rounds) are kept.
	w := readWindow(t, 30, 40, 100000)
	c := &compact.OpenHands{MaxSize: 40}
	recs, err := c.Compact(context.Background(), w)
	if err != nil || len(recs) != 1 || recs[0].Level != compact.LevelSummary {
		t.Fatalf("Compact = %v, %v", levels(recs), err)
	}
	checkWindow(t, w)
	if got := w.Len(); got != 2+1+16 {
		t.Errorf("%d messages left; want 2 pinned, the note and 8 rounds", got)
	}
	if !has(w, "body of f22") || has(w, "body of f21\n") {
		t.Errorf("kept %v", ids(w))
	}
	if recs, _ := c.Compact(context.Background(), w); len(recs) != 0 {
		t.Errorf("condensed again at once: %v", levels(recs))
	}

	// Over budget with few messages: the recent half is kept.
	w = readWindow(t, 10, 400, 0)
	w.SetBudget(w.Size() - 10)
	if _, err := (&compact.OpenHands{}).Compact(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	checkWindow(t, w)
	if !w.Fits() || !has(w, "body of f5") || has(w, "body of f4\n") {
		t.Errorf("over budget: fits %v, kept %v", w.Fits(), ids(w))
	}
}

func TestGeminiCLI(t *testing.T) {
	t.Parallel()
	c := &compact.GeminiCLI{}
	// An agent's run: one (pinned) user message, ten equal rounds. No user
	// turn to split at: the split falls at the first unit boundary past
	// 70 % of the history, and the newest 3 rounds are kept.
	w := readWindow(t, 10, 400, 0)
	w.SetBudget(int(float64(w.Size()) / 0.49))
	if recs, _ := c.Compact(context.Background(), w); len(recs) != 0 {
		t.Fatalf("ratio %.2f: %v", w.Ratio(), levels(recs))
	}
	w.SetBudget(int(float64(w.Size()) / 0.51))
	recs, err := c.Compact(context.Background(), w)
	if err != nil || len(recs) == 0 || recs[len(recs)-1].Level != compact.LevelSummary {
		t.Fatalf("Compact = %v, %v", levels(recs), err)
	}
	checkWindow(t, w)
	if !has(w, "body of f7") || has(w, "body of f6\n") {
		t.Errorf("kept %v", ids(w))
	}

	// A user turn past 70 % is where the kept part starts.
	msgs := concat(one(sys("system")), one(user("task")))
	for i := range 10 {
		if i == 8 {
			msgs = append(msgs, user("second request"))
		}
		msgs = append(msgs, round(fmt.Sprint("c", i), "Read", fmt.Sprintf("src/f%d.go", i), fmt.Sprintf("body of f%d\n", i)+lines(400))...)
	}
	w = newWindow(t, window.Options{}, withIDs(msgs)...)
	w.SetBudget(w.Size())
	if _, err := c.Compact(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	checkWindow(t, w)
	if !has(w, "second request") || !has(w, "body of f8") || has(w, "body of f7\n") {
		t.Errorf("user-turn split: kept %v", ids(w))
	}

	// Tool outputs past 4.8 % of the budget, from the newest back, are cut
	// to their last 30 lines.
	w = readWindow(t, 4, 6000, 0)
	w.SetBudget(w.Size() * 3)
	w.SetBudget(int(float64(w.Size()) / 0.6))
	recs, _ = c.Compact(context.Background(), w)
	if len(recs) == 0 || recs[0].Level != compact.LevelL1 || recs[0].ResultsCut == 0 {
		t.Fatalf("tool outputs: %v", levels(recs))
	}
	checkWindow(t, w)
	if !has(w, "older tool output cut to its last 30 of") {
		t.Errorf("no cut marker in %v", textsOf(w))
	}
}

func TestMaskDefaultIsThePapers(t *testing.T) {
	t.Parallel()
	// Lindenbauer et al. 2025 keep the observations of the latest M = 10
	// turns.
	if compact.DefaultMaskKeepRounds != 10 {
		t.Errorf("DefaultMaskKeepRounds = %d", compact.DefaultMaskKeepRounds)
	}
}
