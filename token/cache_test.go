package token_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentctx/agentctx/token"
)

// countingCounter counts its calls.
type countingCounter struct{ calls atomic.Int64 }

func (c *countingCounter) Count(s string) int { c.calls.Add(1); return len(strings.Fields(s)) }
func (c *countingCounter) Name() string       { return "words" }

func TestCache(t *testing.T) {
	t.Parallel()
	inner := &countingCounter{}
	c := token.NewCache(inner, 2)
	long := func(w string) string { return strings.Repeat(w+" ", 200) }
	a, b, d := long("a"), long("b"), long("d")
	for range 3 {
		if n := c.Count(a); n != 200 {
			t.Fatalf("Count(a) = %d, want 200", n)
		}
	}
	if got := inner.calls.Load(); got != 1 {
		t.Errorf("3 counts of the same long text called the counter %d times, want 1", got)
	}
	c.Count(b)
	c.Count(d) // evicts a, the least recently used
	c.Count(a)
	if got := inner.calls.Load(); got != 4 {
		t.Errorf("after eviction the counter was called %d times, want 4", got)
	}
	c.Count("short text")
	c.Count("short text")
	if got := inner.calls.Load(); got != 6 {
		t.Errorf("short texts are counted every time: %d calls, want 6", got)
	}
	if c.Name() != "words" {
		t.Errorf("Name = %q", c.Name())
	}
}
