package tooluse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPairer(t *testing.T) {
	t.Parallel()
	var p Pairer[int]
	if p.Len() != 0 || p.Open() != nil {
		t.Fatalf("zero Pairer: Len %d, Open %v", p.Len(), p.Open())
	}
	// A SWE-agent demonstration reuses one id: each result answers the
	// most recent unanswered call of that id.
	p.Call("a", 1)
	p.Call("b", 2)
	p.Call("a", 3)
	if v, ok := p.Peek("a"); !ok || v != 3 {
		t.Errorf("Peek(a) = %d, %v; want 3, true", v, ok)
	}
	if v, ok := p.Result("a"); !ok || v != 3 {
		t.Errorf("Result(a) = %d, %v; want 3, true", v, ok)
	}
	if got := p.Open(); !cmp.Equal(got, []int{1, 2}) {
		t.Errorf("Open = %v, want [1 2]", got)
	}
	if _, ok := p.Result("zzz"); ok {
		t.Error("Result of an unknown id paired")
	}
	if v, ok := p.Result("a"); !ok || v != 1 {
		t.Errorf("second Result(a) = %d, %v; want 1, true", v, ok)
	}
	if _, ok := p.Result("a"); ok {
		t.Error("third Result(a) paired: only two calls had that id")
	}
	if got := p.Orphans(); !cmp.Equal(got, []string{"zzz", "a"}) {
		t.Errorf("Orphans = %v", got)
	}
	if p.Len() != 1 || !cmp.Equal(p.Open(), []int{2}) {
		t.Errorf("Len %d, Open %v; want 1, [2]", p.Len(), p.Open())
	}
	p.Result("b")
	if p.Len() != 0 || p.Open() != nil {
		t.Errorf("all answered: Len %d, Open %v", p.Len(), p.Open())
	}
	p.Call("x", 10)
	p.Call("x", 11)
	p.Call("x", 12)
	if !p.Forget("x", func(v int) bool { return v == 11 }) || p.Forget("x", func(v int) bool { return v == 11 }) {
		t.Error("Forget(x, 11) should drop one call, then none")
	}
	if v, _ := p.Result("x"); v != 12 {
		t.Errorf("Result(x) after Forget = %d, want 12", v)
	}
	if v, _ := p.Result("x"); v != 10 || p.Len() != 0 {
		t.Errorf("Result(x) = %d, Len %d; want 10, 0", v, p.Len())
	}
}
