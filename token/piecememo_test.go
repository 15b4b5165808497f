package token

import (
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agentctx/agentctx/token/internal/vocabfile"
)

// TestPieceMemoSlots: a piece put is got back with its count; a piece
// of another length or other bytes in the same slot misses; a piece put
// in a taken slot replaces the one there.
func TestPieceMemoSlots(t *testing.T) {
	var m pieceMemo
	if _, ok := m.get("func"); ok {
		t.Fatal("empty memo: hit")
	}
	m.put("func", 1)
	m.put(" parser.go", 3)
	m.put(strings.Repeat("x", memoBytes), 7)
	for _, c := range []struct {
		p string
		n int
	}{{"func", 1}, {" parser.go", 3}, {strings.Repeat("x", memoBytes), 7}} {
		if n, ok := m.get(c.p); !ok || n != c.n {
			t.Errorf("get(%q) = %d, %v; want %d, true", c.p, n, ok, c.n)
		}
	}
	// A piece in the same slot as "func": it misses, then replaces it.
	slot := vocabfile.Hash("func") & (memoSlots - 1)
	other := ""
	for i := 0; other == ""; i++ {
		if p := "p" + strconv.Itoa(i); vocabfile.Hash(p)&(memoSlots-1) == slot {
			other = p
		}
		if i > 1<<24 {
			t.Fatal("no piece found in func's slot")
		}
	}
	if _, ok := m.get(other); ok {
		t.Fatalf("get(%q) hit func's entry", other)
	}
	m.put(other, 5)
	if n, ok := m.get(other); !ok || n != 5 {
		t.Errorf("get(%q) = %d, %v after put", other, n, ok)
	}
	if _, ok := m.get("func"); ok {
		t.Error("get(func) hit after its slot was taken")
	}
}

// TestPieceMemoConcurrent: counters sharing one memo from several
// goroutines (its slots rewritten under them, most pieces colliding in a
// memo this small relative to the text) count every line as a counter
// without a memo does.
func TestPieceMemoConcurrent(t *testing.T) {
	lines := strings.Split(generatedCorpus(), "\n")
	for _, enc := range []string{O200kBase, Cl100kBase} {
		b := mustBPE(t, enc)
		if b.memo == nil {
			t.Fatalf("%s: counter without a memo", enc)
		}
		ref := &BPE{name: b.name, v: b.v, split: b.split}
		want := make([]int, len(lines))
		for i, l := range lines {
			want[i] = ref.Count(l)
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range 3 {
					for i := range lines {
						k := (i*7 + g*13 + r) % len(lines)
						if got := b.Count(lines[k]); got != want[k] {
							t.Errorf("%s: line %d: %d tokens, %d without the memo", enc, k, got, want[k])
							return
						}
					}
				}
			}()
		}
		wg.Wait()
	}
}
