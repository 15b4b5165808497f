package loadgen

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestStatCPU(t *testing.T) {
	for _, tc := range []struct {
		line string
		want CPU
		err  string
	}{
		// proc(5)'s layout: pid (comm) state ppid ... utime stime ...
		{line: "4242 (agentctx) S 1 4242 4242 0 -1 4194560 3096 0 0 0 1520 37 0 0 20 0 9 0 5123 1390542848 9866 18446744073709551615", want: CPU{User: 15200 * time.Millisecond, System: 370 * time.Millisecond}},
		// A command name with spaces and ")" does not shift the fields.
		{line: "7 (a) b (c)) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 1 1 1", want: CPU{User: 30 * time.Millisecond, System: 40 * time.Millisecond}},
		{line: "7 agentctx S 1", err: "no command name"},
		{line: "7 (x) S 1 2 3", err: "fields after the name"},
		{line: "7 (x) S 1 7 7 0 -1 0 0 0 0 0 -3 4 0", err: "not a count of ticks"},
		{line: "7 (x) S 1 7 7 0 -1 0 0 0 0 0 3 x4 0", err: "not a count of ticks"},
	} {
		got, err := statCPU([]byte(tc.line))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one saying %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %v, %v; want %v", tc.line, got, err, tc.want)
		}
	}
}

// TestStatCPUSelf reads this process's own line: its CPU time grows
// with the work the test does.
func TestStatCPUSelf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/PID/stat is Linux's")
	}
	read := func() time.Duration {
		b, err := os.ReadFile("/proc/self/stat")
		if err != nil {
			t.Fatal(err)
		}
		d, err := statCPU(b)
		if err != nil {
			t.Fatal(err)
		}
		return d.Total()
	}
	// The process's time grows while it works: by 50 ms within 10 s of
	// wall time, however busy the machine.
	before := read()
	x := 0
	for deadline := time.Now().Add(10 * time.Second); read()-before < 50*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatalf("10 s of work: CPU time %v → %v", before, read())
		}
		for i := range 100_000 {
			x += i * i
		}
	}
	_ = x
}
