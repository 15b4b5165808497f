package loadgen

import (
	"testing"
	"time"
)

// TestServerTiming reads the service's metric out of Server-Timing
// headers as the W3C syntax allows them (several metrics, parameters in
// any order, spaces), and nothing out of anything else; then its phases.
func TestServerTiming(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		h    string
		want time.Duration
	}{
		{"app;dur=1.250", 1250 * time.Microsecond},
		{"db;dur=0.5, app;desc=\"handler\";dur=3", 3 * time.Millisecond},
		{" app ; dur=0.001 ", time.Microsecond},
		{"app", 0},
		{"app;dur=-1", 0},
		{"app;dur=x", 0},
		{"cache;dur=2", 0},
		{"", 0},
	} {
		if got := serverTiming(c.h)[0]; got != c.want {
			t.Errorf("serverTiming(%q) = %v, want %v", c.h, got, c.want)
		}
	}
	got := serverTiming("app;dur=9.5, read;dur=0.25, lock;dur=1, store;dur=2.5, compact;dur=4, other;dur=7")
	want := timings{9500 * time.Microsecond, 250 * time.Microsecond, time.Millisecond, 0, 2500 * time.Microsecond, 4 * time.Millisecond}
	if got != want {
		t.Errorf("phases: %v, want %v", got, want)
	}
}
