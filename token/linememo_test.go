package token

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// TestLineMemo: counts are the counter's, for both encodings and the
// estimator; a line counted in one text is not counted again in another
// that holds it, in this round or the next, and is after two turns; the
// memo turns by itself past its size.
func TestLineMemo(t *testing.T) {
	for _, c := range []Counter{mustBPE(t, O200kBase), mustBPE(t, Cl100kBase), Estimator{}} {
		l := NewLineMemo(c)
		if l.Name() != c.Name() {
			t.Fatalf("Name = %q, want %q", l.Name(), c.Name())
		}
		rng := rand.New(rand.NewPCG(11, 12))
		for i := range 200 {
			var sb strings.Builder
			for range rng.IntN(14) {
				sb.WriteString(appendTexts[rng.IntN(len(appendTexts))])
			}
			if got, want := l.Count(sb.String()), c.Count(sb.String()); got != want {
				t.Fatalf("%s: Count(%q) = %d, want %d", c.Name(), sb.String(), got, want)
			}
			if i%7 == 0 {
				l.Turn()
			}
		}
	}

	cc := &countingCounter{Counter: mustBPE(t, O200kBase)}
	l := NewLineMemo(cc)
	file := "     1\u2192package main\n     2\u2192\n     3\u2192func main() {\n     4\u2192\tprintln(1)\n     5\u2192}\n"
	l.Count(file)
	before := cc.calls
	// The excerpt of the file in a fence: only the fences are new.
	if got, want := l.Count("```\n"+file+"```\n"), cc.Counter.Count("```\n"+file+"```\n"); got != want {
		t.Fatalf("fenced count = %d, want %d", got, want)
	}
	if cc.calls-before > 2 {
		t.Errorf("the fenced file counted %d texts, want at most 2 (its lines were counted)", cc.calls-before)
	}
	l.Turn()
	l.Turn()
	before = cc.calls
	l.Count(file)
	if cc.calls == before {
		t.Error("a text counted two turns ago was not counted again")
	}

	// Past lineMemoTurnBytes in one round, the oldest lines go.
	l = NewLineMemo(cc)
	l.Count(file)
	big := strings.Repeat("x\n", lineMemoTurnBytes/2+1)
	l.Count(big)
	l.Count(big)
	before = cc.calls
	l.Count(file)
	if cc.calls == before {
		t.Error("after two rounds' worth of text in one round, the first text was still remembered")
	}
}

// TestLineMemoConcurrent: safe for concurrent use (run with -race).
func TestLineMemoConcurrent(t *testing.T) {
	c := mustBPE(t, O200kBase)
	l := NewLineMemo(c)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 100 {
				text := appendTexts[(g+i)%len(appendTexts)] + "line\n" + appendTexts[i%len(appendTexts)]
				if got, want := l.Count(text), c.Count(text); got != want {
					t.Errorf("Count(%q) = %d, want %d", text, got, want)
					return
				}
				if i%10 == 0 {
					l.Turn()
				}
			}
		})
	}
	wg.Wait()
}
