package loadgen

import (
	"context"
	"testing"
	"time"
)

func TestProbeStalls(t *testing.T) {
	before := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Millisecond)
	defer cancel()
	s := probeStalls(ctx)
	took := time.Since(before)
	// The probe ran until the context ended and within the call (its
	// span starts when the probe does, which a busy machine may delay
	// past the context's start); each sleep lasts at least stallSleep,
	// so no more than the span allows.
	if ctx.Err() == nil || s.Span <= 0 || s.Span > took || s.Sleeps < 1 || s.Sleeps > int(s.Span/stallSleep) {
		t.Fatalf("probe %+v in a call of %v", s, took)
	}
	if s.Late3ms > s.Late1ms || s.Late1ms > s.Sleeps || s.Max < 0 {
		t.Fatalf("probe %+v", s)
	}
	got := (&Stalls{Span: 10 * time.Second, Sleeps: 9000, Late1ms: 12, Late3ms: 3, Max: 4100 * time.Microsecond}).String()
	if want := "1.2/s ≥1 ms late, 0.3/s ≥3 ms, latest 4.1 ms over 10 s"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	if got := (&Stalls{}).String(); got != "not measured" {
		t.Fatalf("zero String() = %q", got)
	}
}
