package workmem

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/agentctx/agentctx/chat"
)

var words = []string{"foo", "bar.go", "错误", "ünïcode", "\n", "  ", "```", "- item", "1. step", "{\"a\":1}", "\t", "error:", "🙂", "x"}

func randText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range r.IntN(n + 1) {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

func randomContext(r *rand.Rand) *ActiveContext {
	a := New(randText(r, 40), Options{RecentRounds: 1 + r.IntN(4), Now: fixedClock()})
	for i := range r.IntN(12) {
		a.StartRound(randText(r, 30))
		for j := range r.IntN(4) {
			id := fmt.Sprint(i, j)
			a.AddAction(call(id, []string{"Bash", "Read", "Grep", "x"}[r.IntN(4)], `{"path":"a/b.go"}`))
			a.Observe(chat.ToolResult{ToolCallID: id, Content: randText(r, 400), IsError: r.IntN(4) == 0})
		}
		if r.IntN(3) == 0 {
			a.AddFinding(Finding{Finding: randText(r, 20), Evidence: randText(r, 3), Importance: r.IntN(11)})
		}
		if r.IntN(3) == 0 {
			a.ExpectPlan()
			a.SetPlanFromText("1. " + randText(r, 20) + "\n2. " + randText(r, 20))
		}
		a.EndRound(randText(r, 10))
	}
	return a
}

// TestBuildContextBudget is the property test: for random contents and
// budgets, tiny ones included, the output never exceeds the budget in
// exact tokens, and BuildContextTokens gives its exact size.
func TestBuildContextBudget(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		a := randomContext(r)
		for _, budget := range []int{-1, 0, 1, 5, 10, 25, 60, 150, 400, 1500, r.IntN(3000)} {
			out, got := a.BuildContextTokens(budget)
			n := a.counter.Count(out)
			if n > budget && out != "" || budget <= 0 && out != "" {
				t.Fatalf("case %d: BuildContext(%d) = %d tokens:\n%s", i, budget, n, out)
			}
			// The count joined from the pieces' is the whole's.
			if got != n {
				t.Fatalf("case %d: BuildContextTokens(%d) says %d tokens, the text has %d:\n%q", i, budget, got, n, out)
			}
		}
	}
}

func TestBuildContextPriority(t *testing.T) {
	t.Parallel()
	a := newTest(t, Options{})
	a.SetPlanFromText("1. reproduce the bug\n2. patch parser.c")
	for i := range 6 {
		a.StartRound(fmt.Sprintf("thought %d", i+1))
		id := fmt.Sprint(i)
		a.AddAction(call(id, "Bash", `{"command":"make"}`))
		a.Observe(chat.ToolResult{ToolCallID: id, Content: strings.Repeat(fmt.Sprintf("output%d ", i+1), 100)})
		a.EndRound("")
	}
	a.AddFinding(Finding{Finding: "critical: parser drops parens", Importance: 9})
	a.AddFinding(Finding{Finding: "minor: style", Importance: 2})

	full := a.BuildContext(100000)
	for _, want := range []string{"## Task", "critical: parser", "minor: style", "## Plan", "1. [ ] reproduce", "### Round 6", "### Round 4", "- Round 3:", "output6"} {
		if !strings.Contains(full, want) {
			t.Errorf("full context lacks %q:\n%s", want, full)
		}
	}
	if strings.Contains(full, "output3") {
		t.Errorf("round 3's raw output is outside the sliding window but rendered")
	}
	if strings.Index(full, "critical") > strings.Index(full, "minor") || strings.Index(full, "### Round 4") > strings.Index(full, "### Round 6") {
		t.Errorf("reading order wrong:\n%s", full)
	}
	small := a.BuildContext(120)
	for _, want := range []string{"Fix the failing test", "critical: parser", "reproduce the bug"} {
		if !strings.Contains(small, want) {
			t.Errorf("small context lacks %q:\n%s", want, small)
		}
	}
	if strings.Contains(small, "minor: style") || strings.Contains(small, "- Round 1:") {
		t.Errorf("small context has low-priority parts before recent rounds:\n%s", small)
	}
	if got := New("", Options{}).BuildContext(1000); got != "" {
		t.Errorf("empty memory renders %q", got)
	}
}

func BenchmarkBuildContext(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	a := New("task", Options{})
	for i := range 40 {
		a.StartRound(randText(r, 40))
		id := fmt.Sprint(i)
		a.AddAction(call(id, "Bash", `{"command":"go test ./..."}`))
		a.Observe(chat.ToolResult{ToolCallID: id, Content: randText(r, 800)})
		a.AddFinding(Finding{Finding: randText(r, 15), Importance: 1 + r.IntN(10)})
		a.EndRound("")
	}
	a.SetPlanFromText("1. a\n2. b\n3. c")
	for _, budget := range []int{500, 4000} {
		b.Run(fmt.Sprint("budget=", budget), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = a.BuildContext(budget)
			}
		})
	}
}

// TestBuildContextLongMemory: a memory of thousands of rounds fits the
// budget with the newest earlier rounds, and stops looking once older
// lines no longer fit (BenchmarkBuildContext covers the cost).
func TestBuildContextLongMemory(t *testing.T) {
	t.Parallel()
	a := New("fix the parser", Options{Now: fixedClock()})
	for i := range 3000 {
		a.StartRound(fmt.Sprintf("step %d", i))
		id := fmt.Sprint(i)
		a.AddAction(call(id, "Read", fmt.Sprintf(`{"file_path":"pkg/f%d.go"}`, i)))
		a.Observe(chat.ToolResult{ToolCallID: id, Content: fmt.Sprintf("package f%d", i)})
		a.EndRound("")
	}
	out := a.BuildContext(800)
	if n := a.counter.Count(out); n > 800 || n < 600 {
		t.Errorf("BuildContext(800) = %d tokens, want the budget nearly filled", n)
	}
	if !strings.Contains(out, "pkg/f2990.go") || strings.Contains(out, "pkg/f10.go") {
		t.Errorf("want the newest earlier rounds, not the oldest:\n%s", out)
	}
}

// TestReadingOrder checks readingOrder against the stable sort by
// section and order it replaces, on pieces in the orders BuildContext
// chooses them (ascending sections, descending rounds) and shuffled.
func TestReadingOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		var chosen []piece
		for s := range nSections {
			k := rng.IntN(6)
			for i := range k {
				o := i
				if s == secRecent || s == secEarlier {
					o = k - i
				}
				chosen = append(chosen, piece{sec: s, order: o, text: fmt.Sprint(s, o)})
			}
		}
		if trial%2 == 1 {
			rng.Shuffle(len(chosen), func(i, j int) { chosen[i], chosen[j] = chosen[j], chosen[i] })
		}
		want := slices.Clone(chosen)
		slices.SortStableFunc(want, func(x, y piece) int {
			return cmp.Or(cmp.Compare(x.sec, y.sec), cmp.Compare(x.order, y.order))
		})
		got := readingOrder([]piece{}, chosen)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: readingOrder(%v) = %v, want %v", trial, chosen, got, want)
		}
	}
}

// TestBuildContextShown: what the request's window shows is left out:
// the task when the window holds the user's first message, and the rounds
// (recent in full and earlier as lines) while it holds history; findings
// and the plan stay. With nothing shown, everything is rendered.
func TestBuildContextShown(t *testing.T) {
	t.Parallel()
	a := New("fix the flaky parser test", Options{RecentRounds: 2, Now: fixedClock()})
	for i := range 5 {
		a.StartRound(fmt.Sprintf("look at part %d", i))
		id := fmt.Sprint("c", i)
		a.AddAction(call(id, "Read", fmt.Sprintf(`{"file_path":"pkg/part%d.go"}`, i)))
		a.Observe(chat.ToolResult{ToolCallID: id, Content: fmt.Sprintf("package pkg // part %d", i)})
	}
	a.AddFinding(Finding{Finding: "the parser drops the last field", Importance: 8})
	all := a.BuildContext(4000)
	for _, s := range []string{"fix the flaky parser test", "Round 1", "Round 5", "drops the last field"} {
		if !strings.Contains(all, s) {
			t.Fatalf("nothing shown: rendering lacks %q:\n%s", s, all)
		}
	}
	a.SetShown(true, true)
	got := a.BuildContext(4000)
	for _, s := range []string{"fix the flaky parser test", "Round ", "part0.go", "part4.go"} {
		if strings.Contains(got, s) {
			t.Errorf("task and history shown: rendering repeats %q:\n%s", s, got)
		}
	}
	if !strings.Contains(got, "drops the last field") {
		t.Errorf("task and history shown: the finding is gone:\n%s", got)
	}
	a.SetShown(false, true)
	if got := a.BuildContext(4000); !strings.Contains(got, "fix the flaky parser test") || strings.Contains(got, "Round ") {
		t.Errorf("history shown, task not: want the task and no rounds:\n%s", got)
	}
	a.SetShown(false, false)
	if got := a.BuildContext(4000); got != all {
		t.Errorf("nothing shown again: rendering differs from the first:\n%s\nwant\n%s", got, all)
	}
}
