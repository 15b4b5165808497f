package loadgen

import (
	"context"
	"fmt"
	"time"
)

// Stalls is how late a goroutine of the load generator woke from sleeps
// of [stallSleep] over a span: the machine's scheduling delay (the
// host's for a virtual machine, the kernel's, the CPU both processes
// use), which every call's latency pays too. A paced run measures it
// with the servers idle before the sessions start, then during them, so
// that a p99 can be read against the machine it was measured on.
type Stalls struct {
	// Span is how long the probe ran; Sleeps how many sleeps it made.
	Span   time.Duration
	Sleeps int
	// Late1ms and Late3ms count the sleeps that woke 1 ms or more, 3 ms
	// or more, after their end; Max is the latest wake.
	Late1ms, Late3ms int
	Max              time.Duration
}

// stallSleep is the probe's sleep; idleProbe how long a paced run probes
// the machine before its sessions start.
const (
	stallSleep = time.Millisecond
	idleProbe  = 3 * time.Second
)

// probeStalls sleeps [stallSleep] at a time until ctx ends and returns
// how late it woke.
func probeStalls(ctx context.Context) *Stalls {
	s := &Stalls{}
	start := time.Now()
	for ctx.Err() == nil {
		t := time.Now()
		time.Sleep(stallSleep)
		late := time.Since(t) - stallSleep
		s.Sleeps++
		if late >= time.Millisecond {
			s.Late1ms++
		}
		if late >= 3*time.Millisecond {
			s.Late3ms++
		}
		s.Max = max(s.Max, late)
	}
	s.Span = time.Since(start)
	return s
}

// String reads "1.2/s ≥1 ms late, 0.3/s ≥3 ms, latest 4.1 ms over 35 s".
func (s *Stalls) String() string {
	sec := s.Span.Seconds()
	if sec <= 0 {
		return "not measured"
	}
	return fmt.Sprintf("%.1f/s ≥1 ms late, %.1f/s ≥3 ms, latest %.1f ms over %.0f s", float64(s.Late1ms)/sec, float64(s.Late3ms)/sec, ms(s.Max), sec)
}
