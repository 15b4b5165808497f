package workmem

import (
	"strings"
	"testing"

	"github.com/agentctx/agentctx/secret/secrettest"
	"github.com/agentctx/agentctx/tooluse"
)

func FuzzFromJSON(f *testing.F) {
	a := New("t", Options{Now: fixedClock()})
	a.StartRound("x")
	a.AddAction(call("1", "Bash", `{"command":"ls"}`))
	a.SetPlanFromText("1. a\n2. b")
	a.AddFinding(Finding{Finding: "f", Importance: 3})
	seed, _ := a.ToJSON()
	f.Add(seed)
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`{"version":1,"rounds":[{"iteration":1,"observations":[{"tool":"x","result_type":"text"}]}]}`))
	f.Add([]byte(`null`))
	// Secrets to redact on restore: in arguments (a PEM key with escaped
	// line breaks), in a finding, glued to a marker.
	f.Add([]byte(`{"version":1,"rounds":[{"iteration":1,"actions":[{"tool":"Write","arguments":{"content":"` + secrettest.PEMJSON + `"}}]}]}`))
	f.Add([]byte(`{"version":1,"scratchpad":[{"finding":"[REDACTED jwt]` + secrettest.AWSKeyID + `","importance":5,"round":0}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := FromJSON(data, Options{})
		if err != nil {
			return
		}
		// A restored memory must work and round-trip.
		_ = b.BuildContext(50)
		_ = b.Distill()
		_ = b.RecentSummary(2)
		out, err := b.ToJSON()
		if err != nil {
			t.Fatal(err)
		}
		c, err := FromJSON(out, Options{})
		if err != nil {
			t.Fatalf("re-decode: %v\n%s", err, out)
		}
		if out2, _ := c.ToJSON(); string(out2) != string(out) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
	})
}

func FuzzSetPlanFromText(f *testing.F) {
	for _, s := range []string{"1. a\n2. b", "- a\n  - b\n- c", "```\n1. x\n2. y\n```", "1) a\n2) b", "**Step 1:** x\n**Step 2:** y", "\xff1. \xfe\n2. x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a := New("", Options{})
		ok := a.SetPlanFromText(text)
		p, has := a.Plan()
		if ok != has {
			t.Fatalf("SetPlanFromText = %v but Plan present = %v", ok, has)
		}
		if has && (len(p.Steps) < MinPlanSteps || len(p.Steps) > MaxPlanSteps) {
			t.Fatalf("%d steps", len(p.Steps))
		}
		for _, s := range p.Steps {
			if s.Description == "" {
				t.Fatalf("empty step in %q", text)
			}
		}
		if out := a.BuildContext(30); a.counter.Count(out) > 30 {
			t.Fatalf("over budget")
		}
	})
}

// FuzzOneLine checks that oneLine, which reads a prefix of a long text,
// returns what collapsing the whole text and cutting it does, for texts
// with whitespace runs, multi-byte runes and invalid UTF-8.
func FuzzOneLine(f *testing.F) {
	f.Add("a b  c\td\n\ne", 3)
	f.Add(strings.Repeat("word ", 100), 10)
	f.Add(strings.Repeat(" ", 300)+"x", 5)
	f.Add(strings.Repeat("é", 40)+"\xff\xfe\x80\x80\x80\x80"+strings.Repeat("上下文 ", 30), 7)
	f.Add(strings.Repeat("\x80", 50)+"\xf0\x9f\x98\x80"+strings.Repeat("a", 60), 4)
	f.Add("a\u00a0b\u0085c\u2028d\u3000e \xff \xfe\xfd\ufffdf\xc2", 6)
	f.Add("  \x80\x80  \x80 x", 1)
	f.Add(strings.Repeat("ab \u00a0 ", 600)+"\xe4\xb8", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 64
		want := tooluse.CutRunes(strings.Join(strings.Fields(s), " "), n)
		if got := oneLine(s, n); got != want {
			t.Fatalf("oneLine(%q, %d) = %q, want %q", s, n, got, want)
		}
		if got := oneLineBytes([]byte(s), n); got != want {
			t.Fatalf("oneLineBytes(%q, %d) = %q, want %q", s, n, got, want)
		}
		if got := collapse(s, -1); got != tooluse.CutRunes(strings.Join(strings.Fields(s), " "), -1) {
			t.Fatalf("collapse(%q, -1) = %q", s, got)
		}
	})
}
