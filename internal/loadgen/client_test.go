package loadgen

import (
	"testing"
	"time"
)

// TestServerTiming reads the service's metric out of Server-Timing
// headers as the W3C syntax allows them (several metrics, parameters in
// any order, spaces), and nothing out of anything else.
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
		if got := serverTiming(c.h); got != c.want {
			t.Errorf("serverTiming(%q) = %v, want %v", c.h, got, c.want)
		}
	}
}
